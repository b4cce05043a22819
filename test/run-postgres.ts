/**
 * `npm run test:postgres`: the whole suite (or the test files given) on PostgreSQL. Starts one
 * throwaway cluster (test/support/postgres.ts) for the run, runs node's test runner with
 * TAWQI_TEST_DATABASE=postgres and TAWQI_TEST_PG_URL pointing at it (each test server gets its own
 * database there), and removes the cluster when the run ends, whatever its outcome.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { startThrowawayPostgres } from './support/postgres.js';

/** The files given, or all of test/*\/*.test.ts (what `npm test` runs). */
function testFiles(): string[] {
  if (process.argv.length > 2) return process.argv.slice(2);
  const root = path.dirname(new URL(import.meta.url).pathname);
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(path.join(root, d.name))
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => path.join('test', d.name, f)),
    )
    .sort();
}

const files = testFiles();
const cluster = await startThrowawayPostgres();
let code = 1;
try {
  const child = spawn(
    process.execPath,
    ['--conditions=tawqi-source', '--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=1200000', ...files],
    {
      stdio: 'inherit',
      env: { ...process.env, TAWQI_TEST_DATABASE: 'postgres', TAWQI_TEST_PG_URL: cluster.url },
    },
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  code = await new Promise<number>((resolve) => child.once('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))));
} finally {
  cluster.stop();
}
process.exit(code);
