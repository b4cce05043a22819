import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from './waitFor.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * How long one CLI command may run before it is killed: far above any command here (the slowest,
 * a backup or a copy, take seconds), so a hung one fails its test with its output instead of
 * holding the file until the runner's 20-minute limit.
 */
export const CLI_DEADLINE_MS = 180_000;

/** Run the `tawqi` CLI from source as its own process with exactly this environment (the test runner's own context left out). */
export function runCli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliRun> {
  return runCliWith([], env, ...args);
}

/** The same, with these options for node before the entry (e.g. `--import` a tracer). */
export function runCliWith(nodeOptions: readonly string[], env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliRun> {
  const childEnv = { ...env };
  delete childEnv.NODE_TEST_CONTEXT;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=tawqi-source', '--import', 'tsx', ...nodeOptions, 'server/src/cli/main.ts', ...args],
      { cwd: ROOT, env: childEnv, encoding: 'utf8', timeout: CLI_DEADLINE_MS },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        const killed = err?.killed ? `\n[test] tawqi ${args.join(' ')}: killed after ${CLI_DEADLINE_MS} ms` : '';
        resolve({ code, stdout, stderr: stderr + killed });
      },
    );
  });
}

/** A long-running `tawqi` command (e.g. `listen`) as its own process: its output gathered as it comes, lines awaitable. */
export class CliProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly text = { stdout: '', stderr: '' };
  private readonly waiters = new Set<() => void>();

  constructor(env: NodeJS.ProcessEnv, args: string[]) {
    const childEnv = { ...env };
    delete childEnv.NODE_TEST_CONTEXT;
    this.child = spawn(process.execPath, ['--conditions=tawqi-source', '--import', 'tsx', 'server/src/cli/main.ts', ...args], {
      cwd: ROOT,
      env: childEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    for (const name of ['stdout', 'stderr'] as const) {
      this.child[name]!.setEncoding('utf8');
      this.child[name]!.on('data', (chunk: string) => {
        this.text[name] += chunk;
        for (const wake of this.waiters) wake();
      });
    }
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** The lines so far; the last one may be unfinished (a prompt). */
  lines(from: 'stdout' | 'stderr' = 'stdout'): string[] {
    return this.text[from].split('\n').filter((l) => l !== '');
  }

  /** The first line (of stdout, or stderr) that `match` accepts, waiting up to `timeoutMs`. */
  line(match: RegExp, from: 'stdout' | 'stderr' = 'stdout', timeoutMs = 120_000): Promise<RegExpExecArray> {
    return waitFor(
      () =>
        this.lines(from)
          .map((l) => match.exec(l))
          .find((m) => m !== null),
      this.waiters,
      () => `no line matching ${match} in ${from}:\n${this.text.stdout}\nstderr:\n${this.text.stderr}`,
      timeoutMs,
    );
  }

  /** Interrupt (^C) and wait for the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGINT');
    return this.exited;
  }
}
