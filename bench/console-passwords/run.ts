/**
 * Benchmark console-passwords (not a test): the time and CPU of checking one console password
 * (services/consolePasswords.ts: scrypt, r = 8, p = 2) per cost N = 2^logN, to choose
 * TAWQI_CONSOLE_SCRYPT_LOG_N (README, The console).
 *
 *   node --conditions=tawqi-source --import tsx bench/console-passwords/run.ts   (or: npm run bench -- console-passwords)
 *
 * Per cost: one warm-up, then BENCH_PASSWORD_N checks one after another. Wall time grows with the
 * machine's load; CPU time (this process's, the thread pool included) much less, so both are
 * printed with the load average. One JSON line per cost.
 */
import { cpus, loadavg } from 'node:os';
import { hashPassword, SCRYPT_P, SCRYPT_R, verifyPassword } from '../../server/src/services/consolePasswords.js';

const N = Number(process.env.BENCH_PASSWORD_N ?? 9);
const COSTS = (process.env.BENCH_PASSWORD_LOG_N ?? '14,15,16,17').split(',').map(Number);
const PASSWORD = 'correct horse battery staple';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const logN of COSTS) {
  const stored = await hashPassword(PASSWORD, { logN });
  await verifyPassword(PASSWORD, stored);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    if (!(await verifyPassword(PASSWORD, stored))) throw new Error('the password did not verify');
    const c = process.cpuUsage(c0);
    wall.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
  }
  console.log(
    JSON.stringify({
      bench: 'console-passwords',
      log_n: logN,
      r: SCRYPT_R,
      p: SCRYPT_P,
      memory_mib: (128 * 2 ** logN * SCRYPT_R) / 2 ** 20,
      checks: N,
      wall_ms_median: Math.round(median(wall)),
      wall_ms_min: Math.round(Math.min(...wall)),
      cpu_ms_median: Math.round(median(cpu)),
      cores: cpus().length,
      load_1m: Number(loadavg()[0]!.toFixed(2)),
    }),
  );
}
