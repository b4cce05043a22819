/**
 * CPU time of processes from /proc (Linux): what a benchmark run cost the server processes and the
 * PostgreSQL server, apart from the load generator. null off Linux or when a process is gone.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second for /proc/<pid>/stat. */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

interface Stat {
  ppid: number;
  /** utime + stime: the process's own CPU, every thread included (ticks). */
  own: number;
  /** cutime + cstime: CPU of its children that have exited and been waited for (ticks). */
  reaped: number;
}

function stat(pid: number | string): Stat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces: state ppid … utime(11) stime cutime cstime.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), reaped: Number(f[13]) + Number(f[14]) };
  } catch {
    return null;
  }
}

const ms = (ticks: number): number => (ticks * 1000) / CLOCK_TICKS;

/** CPU milliseconds (user + system) a process has used so far. */
export function cpuMs(pid: number | undefined): number | null {
  const s = pid === undefined ? null : stat(pid);
  return s ? ms(s.own) : null;
}

/**
 * CPU milliseconds of a process and all its children, the exited ones included: a PostgreSQL
 * postmaster and its backends, walwriter, checkpointer… Backends come and go with connections; an
 * exited one's CPU moves into the postmaster's cutime/cstime (it waits for its children), so the
 * difference of two readings counts it either way.
 */
export function treeCpuMs(pid: number): number | null {
  const root = stat(pid);
  if (!root) return null;
  let ticks = root.own + root.reaped;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = stat(entry);
    if (child?.ppid === pid) ticks += child.own + child.reaped;
  }
  return ms(ticks);
}
