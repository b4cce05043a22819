import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the `tawqi` CLI from source as its own process with exactly this environment (the test runner's own context left out). */
export function runCli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliRun> {
  const childEnv = { ...env };
  delete childEnv.NODE_TEST_CONTEXT;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=tawqi-source', '--import', 'tsx', 'server/src/cli/main.ts', ...args],
      { cwd: ROOT, env: childEnv, encoding: 'utf8' },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}
