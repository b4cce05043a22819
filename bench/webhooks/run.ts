/**
 * Benchmark webhooks (not a test): events fanned out to 3 local HTTPS receivers. The server (the
 * real one, from source, dispatcher as in production) and the receivers run in two processes of
 * their own; this driver only coordinates and computes. See bench/webhooks/README.md.
 *
 *   node --conditions=tawqi-source --import tsx bench/webhooks/run.ts      (or: npm run bench -- webhooks)
 *
 * Two phases of BENCH_WEBHOOK_EVENTS events (default 10,000) each, every event to all 3 receivers:
 *   burst  — events committed as fast as the server can (one transaction each): the dispatcher's
 *            throughput, deliveries/s = deliveries ÷ (last receipt − first commit);
 *   paced  — events committed at BENCH_WEBHOOK_RATE events/s (default 350, i.e. 1,050 deliveries/s):
 *            the delay from an event's commit to its receipt when the dispatcher keeps up.
 * BENCH_WEBHOOK_PROFILE_DIR=<dir> writes a CPU profile of the server process (node --cpu-prof);
 * BENCH_WEBHOOK_TIMELINE=1 adds a line per second of each phase (deliveries, p50, max delay).
 * BENCH_DATABASE=postgres puts the server on a throwaway PostgreSQL cluster (bench/support/postgres.ts).
 * Output: one JSON line per phase, then a summary line with the targets (≥ 1,000 deliveries/s in
 * the burst; p50 < 50 ms in the paced phase). Exit 1 when a delivery is missing or malformed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { makeTestCa } from '../../test/support/webhookReceiver.js';
import { BENCH_DATABASE, BENCH_PG_SETTINGS, postgresEnv, startBenchPostgres } from '../support/postgres.js';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 350);
const RECEIVERS = 3;
const READY_MS = 30_000;
const PHASE_MS = 300_000;
const TARGET_DELIVERIES_PER_S = 1000;
const TARGET_P50_MS = 50;

const children = new Set<ChildProcess>();
const note = (text: string) => console.error(`[webhooks] ${text}`);
const out = (line: unknown) => console.log(JSON.stringify(line));
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

function start(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  nodeArgs: string[] = [],
): Promise<{ child: ChildProcess; ready: Record<string, unknown> }> {
  const child = spawn(process.execPath, [...process.execArgv, ...nodeArgs, fileURLToPath(new URL(file, import.meta.url)), ...args], {
    env,
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file}: not ready within ${READY_MS} ms`)), READY_MS);
    child.once('exit', (code, signal) => reject(new Error(`${file} exited (${code ?? signal})`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve({ child, ready: JSON.parse(line) as Record<string, unknown> });
    });
  });
}

function request<T>(child: ChildProcess, message: object, pick: (m: Record<string, unknown>) => T | undefined): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: Record<string, unknown>) => {
      const v = pick(m);
      if (v === undefined) return;
      child.off('message', on);
      resolve(v);
    };
    child.on('message', on);
    child.send(message);
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

const ca = makeTestCa();
const postgres = BENCH_DATABASE === 'postgres' ? await startBenchPostgres() : null;
/** PostgreSQL runs: what every line says about the engine, and the database settings of the server. */
const engine = postgres ? { database: 'postgres', synchronous_commit: BENCH_PG_SETTINGS.synchronous_commit } : {};
const databaseEnv = postgres ? postgresEnv(await postgres.createDatabase()) : {};
let ok = true;
try {
  const receivers = await start('./receivers.ts', [path.join(ca.dir, 'leaf.pem'), path.join(ca.dir, 'leaf.key')]);
  const ports = receivers.ready.ports as number[];
  /** First receipt time per "receiver:event", and how many arrived more than once. */
  const receipts = new Map<string, number>();
  let duplicates = 0;
  let bad = 0;
  receivers.child.on('message', (m: { receipts?: [number, string, number][]; bad?: number }) => {
    if (m.bad !== undefined) bad = m.bad;
    for (const [r, id, at] of m.receipts ?? []) {
      const k = `${r}:${id}`;
      if (receipts.has(k)) duplicates++;
      else receipts.set(k, at);
    }
  });
  const urls = ports.map((p) => `https://localhost:${p}/hooks`);
  // BENCH_WEBHOOK_PROFILE_DIR: write a CPU profile of the server process there (--cpu-prof).
  const profile = process.env.BENCH_WEBHOOK_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WEBHOOK_PROFILE_DIR}`] : [];
  const server = await start('./server.ts', urls, { ...process.env, ...databaseEnv, NODE_EXTRA_CA_CERTS: ca.caFile }, profile);
  note(`server and ${RECEIVERS} receivers ready; ${EVENTS} events per phase`);

  const results: Record<string, Record<string, unknown>> = {};
  for (const [phase, rate] of [
    ['burst', 0],
    ['paced', RATE],
  ] as const) {
    note(`${phase}: emitting ${EVENTS} events${rate ? ` at ${rate}/s` : ' as fast as possible'}`);
    const pgCpuBefore = postgres?.cpuMs() ?? null;
    const commits = await request(server.child, { cmd: 'emit', phase, count: EVENTS, rate }, (m) =>
      m.phase === phase ? (m.commits as [string, number][]) : undefined,
    );
    const deadline = Date.now() + PHASE_MS;
    const missing = () => commits.reduce((n, [id]) => n + ports.reduce((k, _p, r) => k + (receipts.has(`${r}:${id}`) ? 0 : 1), 0), 0);
    while (missing() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const pgCpuAfter = postgres?.cpuMs() ?? null;
    const delays: number[] = [];
    let lastReceipt = 0;
    for (const [id, committed] of commits) {
      for (let r = 0; r < RECEIVERS; r++) {
        const at = receipts.get(`${r}:${id}`);
        if (at === undefined) continue;
        delays.push(at - committed);
        lastReceipt = Math.max(lastReceipt, at);
      }
    }
    delays.sort((a, b) => a - b);
    const firstCommit = commits[0]![1];
    const seconds = (lastReceipt - firstCommit) / 1000;
    const line = {
      bench: 'webhooks',
      ...engine,
      phase,
      events: EVENTS,
      receivers: RECEIVERS,
      offered_events_per_s: rate || null,
      emit_seconds: round((commits.at(-1)![1] - firstCommit) / 1000, 2),
      deliveries: delays.length,
      missing: missing(),
      seconds: round(seconds, 2),
      deliveries_per_s: round(delays.length / seconds),
      p50_ms: round(percentile(delays, 50)),
      p99_ms: round(percentile(delays, 99)),
      max_ms: round(delays.at(-1)!),
      // PostgreSQL runs: the cluster's CPU over the phase (commits, claims, outcomes), per delivery.
      ...(postgres
        ? {
            postgres_cpu_ms_per_delivery:
              pgCpuBefore === null || pgCpuAfter === null ? null : round((pgCpuAfter - pgCpuBefore) / delays.length, 3),
          }
        : {}),
      loadavg_1m: round(loadavg()[0]!, 2),
    };
    results[phase] = line;
    out(line);
    if (process.env.BENCH_WEBHOOK_TIMELINE) {
      // Per second of committing: deliveries and their median and worst delay (to see stalls).
      const bySecond = new Map<number, number[]>();
      for (const [id, committed] of commits) {
        for (let r = 0; r < RECEIVERS; r++) {
          const at = receipts.get(`${r}:${id}`);
          if (at === undefined) continue;
          const sec = Math.floor((committed - firstCommit) / 1000);
          bySecond.set(sec, [...(bySecond.get(sec) ?? []), at - committed]);
        }
      }
      for (const [sec, list] of bySecond) {
        list.sort((x, y) => x - y);
        out({
          bench: 'webhooks',
          phase,
          second: sec,
          deliveries: list.length,
          p50_ms: round(percentile(list, 50)),
          max_ms: round(list.at(-1)!),
        });
      }
    }
    if (line.missing > 0) ok = false;
  }
  const counts = await request(server.child, { cmd: 'counts' }, (m) => m.counts as Record<string, number> | undefined);
  await request(receivers.child, { cmd: 'flush' }, (m) => (m.flushed ? true : undefined));
  const throughputMet = (results.burst!.deliveries_per_s as number) >= TARGET_DELIVERIES_PER_S;
  const latencyMet = (results.paced!.p50_ms as number) < TARGET_P50_MS;
  out({
    bench: 'webhooks',
    summary: true,
    ...engine,
    deliveries_per_s: results.burst!.deliveries_per_s,
    p50_ms: results.paced!.p50_ms,
    p99_ms: results.paced!.p99_ms,
    stored_deliveries: counts,
    duplicates,
    malformed: bad,
    throughput_met: throughputMet,
    p50_met: latencyMet,
    targets_met: throughputMet && latencyMet,
  });
  if (bad > 0 || (counts.succeeded ?? 0) !== 2 * EVENTS * RECEIVERS) ok = false;
  // The server closes (its database connections too) when disconnected: wait, so a cluster stops after it.
  const serverExited = new Promise((resolve) => server.child.once('exit', resolve));
  for (const c of [server.child, receivers.child]) c.disconnect();
  await serverExited;
} catch (err) {
  note(`failed: ${err instanceof Error ? err.message : String(err)}`);
  ok = false;
} finally {
  ca.cleanup();
  postgres?.stop(); // also at exit, however the run ends
}
process.exitCode = ok ? 0 : 1;
