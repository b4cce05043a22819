/**
 * Runs every benchmark under bench/ (each folder with a run.ts), one after another, each in its
 * own process so one cannot disturb the next: `npm run bench`
 * (node --conditions=tawqi-source --import tsx bench/run.ts).
 * Pass names to run only some: `npm run bench -- create-requests`. Exit code 1 if any failed.
 * Long runs (ON_REQUEST) are left out of the whole set and run only when named: `npm run bench -- soak`.
 * Arguments that start with `--` are passed on to each benchmark run:
 * `npm run bench -- create-requests --profile`.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Every folder under bench/ with a run.ts is a benchmark, run in name order. */
const here = path.dirname(fileURLToPath(import.meta.url));
const BENCHMARKS = readdirSync(here, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(path.join(here, d.name, 'run.ts')))
  .map((d) => d.name)
  .sort();

/** Benchmarks that take many minutes by design (the soak's default is 10): only when named. */
const ON_REQUEST = new Set(['soak']);

const args = process.argv.slice(2);
const wanted = args.filter((a) => !a.startsWith('--'));
const options = args.filter((a) => a.startsWith('--'));
const unknown = wanted.filter((w) => !BENCHMARKS.includes(w));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHMARKS.join(', ')}`);
  process.exit(2);
}

let failed = 0;
for (const name of BENCHMARKS) {
  if (wanted.length > 0 ? !wanted.includes(name) : ON_REQUEST.has(name)) continue;
  const file = path.join(here, name, 'run.ts');
  console.error(`== bench ${name}`);
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, [...process.execArgv, file, ...options], { stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.once('exit', (c, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(c ?? (signal ? 1 : 0));
    });
  });
  if (code !== 0) {
    failed++;
    console.error(`== bench ${name} failed (exit ${code})`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
