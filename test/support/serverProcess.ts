/**
 * The real entry point `server/src/main.ts` run as a child process, as an operator runs it: its
 * environment holds only the settings given here (none inherited from the test run's own shell),
 * and it counts as started when it prints its listening line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { configSchema } from '../../server/src/config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * How long a start may take before the test fails. From source (tsx) a start costs about 2 s of CPU;
 * with the rest of the suite on two cores (a burst of CLI processes, Chromium) it took over 30 s.
 */
const READY_MS = 120_000;

export interface ServerProcess {
  proc: ChildProcess;
  /** http://127.0.0.1:<port> */
  base: string;
  port: number;
  /** The operator's live secret key, printed on the first start of an empty database ('' otherwise). */
  operatorKey: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Start `server/src/main.ts` with `settings` (DATA_DIR, DATABASE_URL, …) on 127.0.0.1 and a free port.
 * `entry: 'built'` runs the compiled `server/dist/main.js` instead (what `npm start` runs; `npm run
 * build` first, as CI does): about half the start time of the source through tsx, for tests that
 * restart a server many times (the crash loop).
 */
export function spawnServer(settings: Record<string, string>, entry: 'source' | 'built' = 'source'): Promise<ServerProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(configSchema.shape)) delete env[name];
  delete env.NODE_TEST_CONTEXT;
  Object.assign(env, { PORT: '0', HOST: '127.0.0.1', TAWQI_LOG_LEVEL: 'silent', ...settings });
  const args = entry === 'built' ? ['server/dist/main.js'] : ['--conditions=tawqi-source', '--import', 'tsx', 'server/src/main.ts'];
  const proc = spawn(process.execPath, args, {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    // A process that never became ready is killed: left running, it would keep the test file alive
    // (its stdout pipe) after the test failed, and the run would never end.
    const fail = (err: Error) => {
      clearTimeout(timer);
      killIfRunning(proc);
      reject(err);
    };
    const timer = setTimeout(() => fail(new Error(`the server printed no listening line within ${READY_MS / 1000} s`)), READY_MS);
    void exited.then(({ code, signal }) => fail(new Error(`the server exited early (${code ?? signal})`)));
    let operatorKey = '';
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      operatorKey ||= /secret live\s+(sk_\S+)/.exec(line)?.[1] ?? '';
      const m = /^Tawqi API listening at (http:\/\/127\.0\.0\.1:(\d+))\/api\/v1$/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, base: m[1]!, port: Number(m[2]), operatorKey, exited });
      }
    });
  });
}

/** SIGKILL a process that still runs (test clean-up). */
export function killIfRunning(proc: ChildProcess): void {
  if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
}
