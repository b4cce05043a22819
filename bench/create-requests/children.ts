/**
 * The driver's child processes: a server file started with the driver's node flags, ready when it
 * prints its first line, stopped with SIGTERM (SIGKILL after 5 s). Every child still running when
 * the driver exits is killed; Ctrl-C (or SIGTERM) stops them cleanly first, so they remove their
 * temporary data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const READY_TIMEOUT_MS = 30_000;

export interface Started {
  child: ChildProcess;
  url: string;
  /** The first stdout line, parsed when it is JSON. */
  ready: Record<string, unknown>;
}

const children = new Set<ChildProcess>();

export function note(text: string): void {
  console.error(`[create-requests] ${text}`);
}

/**
 * Start one file of this folder as a child; resolve on its ready line (`readyPattern`'s group 1 is
 * the port). `ipc`: with a channel for messages (the profiler's, bench/support/profiler.ts).
 */
export function startChild(file: string, env: Record<string, string>, readyPattern: RegExp, ipc = false): Promise<Started> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL(file, import.meta.url))], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', ...(ipc ? (['ipc'] as const) : [])],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file}: no ready line within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited before it was ready (code ${code}, signal ${signal})`));
    });
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      clearTimeout(timer);
      const match = readyPattern.exec(line);
      if (!match) return reject(new Error(`${file}: unexpected first line: ${line}`));
      const ready = line.startsWith('{') ? (JSON.parse(line) as Record<string, unknown>) : {};
      resolve({ child, url: `http://127.0.0.1:${match[1]}`, ready });
      lines.on('line', (more) => note(`${file}: ${more}`));
    });
  });
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

export function stopAllChildren(): Promise<void> {
  return Promise.all([...children].map(stopChild)).then(() => undefined);
}

/** Run a child file to its end; resolve with its exit code and stdout. */
export async function runChild(file: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL(file, import.meta.url))], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  children.delete(child);
  return { code, stdout };
}

process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    // Children clean up their temp data on SIGTERM; SIGKILL (on exit) only if they hang.
    void stopAllChildren().finally(() => process.exit(130));
  });
}
