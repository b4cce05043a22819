/**
 * `--profile` (or BENCH_PROFILE=1) of the create-requests driver: a CPU profile of the Tawqi
 * server process over exactly one measured run — the first round's run at 16 connections of the
 * one-process Tawqi server (not its start-up, set-up or warm-up; not the baseline) — then, on
 * stderr, the 20 functions with the most self time by module and where a create's time goes by
 * phase (phases.ts), and on stdout one JSON line, {"bench":"create-requests","profile":{…}}, to
 * compare before and after a change. The .cpuprofile stays in BENCH_PROFILE_DIR (default a new
 * temporary folder) for Chrome DevTools.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { byPhase, formatPhases, formatTopFunctions, summarise, type CpuProfile, type PhaseTime } from '../support/profile.js';
import { DEFAULT_INTERVAL_US, startProfile, stopProfile } from '../support/profiler.js';
import { CREATE_PHASE_ORDER, CREATE_PHASES, SQL } from './phases.js';
import { note } from './children.js';

export const PROFILE = process.argv.includes('--profile') || process.env.BENCH_PROFILE === '1';
const INTERVAL_US = Number(process.env.BENCH_PROFILE_INTERVAL_US ?? DEFAULT_INTERVAL_US);
const TOP = 20;

let dir: string | null = null;
function profileDir(): string {
  const given = process.env.BENCH_PROFILE_DIR;
  if (given) mkdirSync(given, { recursive: true });
  dir ??= given ?? mkdtempSync(path.join(tmpdir(), 'tawqi-bench-profile-'));
  return dir;
}

/** What the profile line says about the run it profiled (the measured line's own fields). */
export interface ProfiledRun {
  server: string;
  round: number;
  connections: number;
  /** Responses of the run: the creates the profile's time is divided by. */
  requests: number;
  /** CPU time of the server process over the same run, from /proc (null off Linux). */
  server_cpu_ms_per_req: number | null;
  [field: string]: unknown;
}

/** Run `measure` with the child's profiler on; returns its result and the profile's file. */
export async function profiled<T>(child: ChildProcess, name: string, measure: () => Promise<T>): Promise<{ result: T; file: string }> {
  const file = path.join(profileDir(), `${name}.cpuprofile`);
  await startProfile(child, INTERVAL_US);
  const result = await measure();
  await stopProfile(child, file);
  return { result, file };
}

const r3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * Phases as the JSON line carries them: ms per create (the profile's samples), share of the total,
 * and `cpu_ms_per_create`: the run's /proc CPU per create shared out by those shares (an estimate:
 * it takes the time the thread waited for a core, or sat in a synchronous fsync, to fall on the
 * phases as their samples do; null off Linux).
 */
function phaseFigures(phases: readonly PhaseTime[], creates: number, cpuPerCreate: number | null) {
  const total = phases.reduce((a, p) => a + p.ms, 0) || 1;
  return phases.map((p) => ({
    phase: p.phase,
    ms_per_create: r3(p.ms / creates),
    share: r3(p.ms / total),
    cpu_ms_per_create: cpuPerCreate === null ? null : r3((cpuPerCreate * p.ms) / total),
  }));
}

/**
 * Which benchmark the profile is of: its JSON line's `bench` (and `path`), and the word for one
 * operation in the tables ("create"; hot-paths: "read", "page", "sign"). The phase rules are the
 * create's: a read or a sign goes through the same middleware, key lookup, SQL and response write.
 */
export interface ProfileOf {
  bench: string;
  path?: string;
  unit: string;
}

/** Read the profile of one measured run, print its tables (stderr) and its JSON line (stdout). */
export function reportProfile(file: string, run: ProfiledRun, of: ProfileOf = { bench: 'create-requests', unit: 'create' }): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const summary = summarise(profile);
  const { phases, split } = byPhase(profile, CREATE_PHASES, { order: CREATE_PHASE_ORDER, splitPhase: SQL });
  const creates = Math.max(1, run.requests);
  note(`CPU profile of ${run.server}, round ${run.round}, ${run.connections} connections, ${run.requests} ${of.unit}s: ${file}`);
  console.error(formatTopFunctions(summary, TOP));
  console.error(
    `\nwhere a ${of.unit}'s time goes (busy ${r3(summary.busyMs / creates)} ms per ${of.unit} in the profile; /proc CPU ${run.server_cpu_ms_per_req} ms):`,
  );
  console.error(formatPhases(phases, creates, 'phase', run.server_cpu_ms_per_req, of.unit));
  console.error(`\n${SQL} by the code that ran them:`);
  console.error(formatPhases(split, creates, 'ran by', null, of.unit));
  const { requests: _requests, server_cpu_ms_per_req, ...context } = run;
  console.log(
    JSON.stringify({
      bench: of.bench,
      ...(of.path ? { path: of.path } : {}),
      // The fields keep the create's names (creates, …_per_create) so every profile line reads alike; with a path they count its operations.
      profile: {
        ...context,
        creates: run.requests,
        sample_interval_us: INTERVAL_US,
        span_ms: Math.round(summary.spanMs),
        idle_ms: Math.round(summary.idleMs),
        busy_ms: Math.round(summary.busyMs),
        busy_ms_per_create: r3(summary.busyMs / creates),
        server_cpu_ms_per_req,
        phases: phaseFigures(phases, creates, server_cpu_ms_per_req),
        sql_by_caller: phaseFigures(split, creates, null).map(({ cpu_ms_per_create: _, ...f }) => f),
        top: summary.functions.slice(0, TOP).map((f) => ({
          function: f.function,
          module: f.module,
          location: f.location,
          self_ms: Math.round(f.selfMs),
          share: r3(f.selfMs / (summary.busyMs || 1)),
        })),
        file,
      },
    }),
  );
}
