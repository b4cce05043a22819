/**
 * `npm run test:postgres`: the whole suite (or the test files given) on PostgreSQL. Starts one
 * throwaway cluster (test/support/postgres.ts) for the run, runs node's test runner with
 * TAWQI_TEST_DATABASE=postgres and TAWQI_TEST_PG_URL pointing at it (each test server gets its own
 * database there), and removes the cluster when the run ends, whatever its outcome.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
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

/**
 * The test runner's flags exactly as `npm test` gives them (package.json's `test` script without
 * `node` and the file globs): one place for the per-file timeout, the concurrency and the loader.
 */
function runnerFlags(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { test: string } };
  const [node, ...words] = pkg.scripts.test.split(/\s+/);
  if (node !== 'node' || !words.includes('--test'))
    throw new Error(`package.json's test script is not a node --test command: ${pkg.scripts.test}`);
  return words.filter((w) => !w.includes('*')); // all but the file globs
}

const files = testFiles();
const flags = runnerFlags();
const cluster = await startThrowawayPostgres();
let code = 1;
try {
  const child = spawn(process.execPath, [...flags, ...files], {
    stdio: 'inherit',
    env: { ...process.env, TAWQI_TEST_DATABASE: 'postgres', TAWQI_TEST_PG_URL: cluster.url },
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  code = await new Promise<number>((resolve) => child.once('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))));
} finally {
  cluster.stop();
}
process.exit(code);
