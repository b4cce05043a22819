/**
 * Runs every benchmark under bench/, one after another, each in its own process so one cannot
 * disturb the next: `npm run bench` (node --conditions=tawqi-source --import tsx bench/run.ts).
 * Pass names to run only some: `npm run bench -- create-requests`. Exit code 1 if any failed.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCHMARKS = ['create-requests'] as const;

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !(BENCHMARKS as readonly string[]).includes(w));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHMARKS.join(', ')}`);
  process.exit(2);
}

let failed = 0;
for (const name of BENCHMARKS) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const file = fileURLToPath(new URL(`./${name}/run.ts`, import.meta.url));
  console.error(`== bench ${name}`);
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, [...process.execArgv, file], { stdio: 'inherit' });
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
