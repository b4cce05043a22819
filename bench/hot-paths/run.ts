/**
 * Benchmark hot-paths (not a test): Tawqi's other hot paths against a bare server doing the
 * equivalent reads and writes, measured as create-requests is (CPU per operation of the server
 * process first, then throughput and p99 ratios at 16 connections, rounds of bare then Tawqi with
 * medians). See bench/README.md, "hot-paths".
 *
 *   npm run bench -- hot-paths
 *   node --conditions=tawqi-source --import tsx bench/hot-paths/run.ts
 *
 * Paths (BENCH_PATHS, comma list, default read,events,sign; always run in that order):
 * - read: GET /api/v1/signature_requests/{id} over BENCH_REQUESTS requests of three signers (test secret key);
 * - events: GET /api/v1/events?limit=BENCH_EVENTS_LIMIT, every page of the account's events in turn
 *   (the first, then starting_after each next_cursor), the events of those requests;
 * - sign: POST /sign/api/sign, a signer's signature through to `completed`, once per single-signer
 *   request (code step passed before), BENCH_SIGNS requests per run.
 *
 * Environment: BENCH_PATHS, BENCH_DATABASE (sqlite, the default, or postgres), BENCH_DURATION
 * (seconds per measured read/events run, default 10), BENCH_WARMUP (seconds, default 2),
 * BENCH_SIGNS (signs per measured run, default 1000; 400 on PostgreSQL), BENCH_SIGN_WARMUP (default
 * 200), BENCH_REQUESTS (default 1000), BENCH_EVENTS_LIMIT (default 20), BENCH_CONNECTIONS (default
 * 16), BENCH_ROUNDS (default 3), BENCH_SYNCHRONOUS (full or normal, both servers), BENCH_DRAIN_TIMEOUT
 * (seconds to wait for Tawqi's sealing after a sign run, default 300), BENCH_PG_POOL_SIZE.
 *
 * --profile (or BENCH_PROFILE=1): a CPU profile of the Tawqi server over each path's measured run in
 * the first round, printed as create-requests prints its own (top functions, phases; one JSON line
 * per path); BENCH_PROFILE_DIR, BENCH_PROFILE_INTERVAL_US as there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { startChild, stopAllChildren, stopChild, type Started } from '../create-requests/children.js';
import { PROFILE, profiled, reportProfile } from '../create-requests/profiling.js';
import { cpuMs } from '../support/cpu.js';
import { BENCH_PG_POOL_SIZE, BENCH_PG_SETTINGS, BENCH_SYNCHRONOUS, postgresEnv, startBenchPostgres } from '../support/postgres.js';
import { completed, diagnosticLine, difference, perRequest } from '../support/runs.js';
import { ALL_PATHS, load, measured, type Measured, type PathName, type ServerName, type Workload } from './load.js';
import { bareTarget, eventPages, makeRequests, makeSignItems, queuesDue, settle, statusesOf, tawqiTarget, type Target } from './prepare.js';
import { summarise } from './summary.js';

const env = (name: string, fallback: number): number => Math.max(1, Number(process.env[name] ?? fallback));
const postgres = process.env.BENCH_DATABASE === 'postgres' ? await startBenchPostgres() : null;
const PATHS = (process.env.BENCH_PATHS ?? ALL_PATHS.join(',')).split(',').map((p) => p.trim()) as PathName[];
if (PATHS.some((p) => !ALL_PATHS.includes(p))) throw new Error(`BENCH_PATHS: each of ${ALL_PATHS.join(', ')}`);
const DURATION = env('BENCH_DURATION', 10);
const WARMUP = env('BENCH_WARMUP', 2);
const SIGNS = env('BENCH_SIGNS', postgres ? 400 : 1000);
const SIGN_WARMUP = env('BENCH_SIGN_WARMUP', 200);
const REQUESTS = env('BENCH_REQUESTS', 1000);
const EVENTS_LIMIT = env('BENCH_EVENTS_LIMIT', 20);
const CONNECTIONS = env('BENCH_CONNECTIONS', 16);
const ROUNDS = env('BENCH_ROUNDS', 3);
const DRAIN_TIMEOUT_MS = env('BENCH_DRAIN_TIMEOUT', 300) * 1000;
/** Requests read back after a sign run to check they completed. */
const CHECK_SAMPLE = 50;
const ENGINE = postgres
  ? { database: 'postgres' as const, synchronous_commit: BENCH_PG_SETTINGS.synchronous_commit as 'on' | 'off' }
  : { synchronous: BENCH_SYNCHRONOUS };

const note = (text: string): void => console.error(`[hot-paths] ${text}`);
const out = (line: unknown): void => console.log(JSON.stringify(line));

/** The word for one operation of a path in the profile's tables. */
const UNIT: Record<PathName, string> = { read: 'read', events: 'page', sign: 'sign' };

/** One server run: the process and the target the driver prepared on it. */
interface Server {
  name: ServerName;
  started: Started;
  target: Target;
}

/** CPU so far of the server process and of PostgreSQL. */
interface Snapshot {
  server: number | null;
  postgres: number | null;
}

const snapshot = (s: Server): Snapshot => ({ server: cpuMs(s.started.child.pid), postgres: postgres?.cpuMs() ?? null });

function cpuSince(s: Server, before: Snapshot) {
  return {
    server: difference(before.server, cpuMs(s.started.child.pid)),
    postgres: difference(before.postgres, postgres?.cpuMs() ?? null),
  };
}

/** On Tawqi: wait until its background queues have caught up (nothing due), so a run starts from quiet. */
async function quiet(s: Server): Promise<void> {
  if (s.target.tawqi && !(await settle(s.target.url, DRAIN_TIMEOUT_MS))) throw new Error('tawqi: its job queue did not drain');
  await postgres?.checkpoint();
}

/** Warm up, quiet, then one measured run of a workload; its line (not yet printed) and the snapshot taken before it. */
async function measure(s: Server, round: number, warm: Workload, w: Workload): Promise<{ m: Measured; before: Snapshot; sent: number }> {
  note(`${s.name} ${w.path}: warm-up`);
  await load(s.target.url, warm, CONNECTIONS);
  await quiet(s);
  note(`${s.name} ${w.path}: ${CONNECTIONS} connections, ${'duration' in w.run ? `${w.run.duration} s` : `${w.run.amount} requests`}`);
  const before = snapshot(s);
  const run = () => load(s.target.url, w, CONNECTIONS);
  const profiling = PROFILE && s.target.tawqi && round === 1;
  const name = `tawqi-${w.path}-${postgres ? 'postgres' : BENCH_SYNCHRONOUS}-c${CONNECTIONS}`;
  const { result, file } = profiling ? await profiled(s.started.child, name, run) : { result: await run(), file: null };
  const m = measured({ path: w.path, server: s.name, round, connections: CONNECTIONS, ...ENGINE }, result, cpuSince(s, before));
  if (file) {
    m.profiled = true;
    const context = { ...ENGINE, server: s.name, round, connections: CONNECTIONS };
    reportProfile(
      file,
      { ...context, requests: m.requests, server_cpu_ms_per_req: m.server_cpu_ms_per_req },
      { bench: 'hot-paths', path: w.path, unit: UNIT[w.path] },
    );
  }
  return { m, before, sent: completed(result) };
}

/** After a sign run: the CPU until Tawqi's runner has sealed what it completed, and a check that the requests completed. */
async function afterSign(s: Server, m: Measured, before: Snapshot, ids: readonly string[]): Promise<Measured> {
  if (s.target.tawqi) {
    const start = Date.now();
    m.jobs_due_at_end = (await queuesDue(s.target.url)).jobs ?? 0;
    const drained = await settle(s.target.url, DRAIN_TIMEOUT_MS);
    const cpu = cpuSince(s, before);
    m.drained_cpu_ms_per_req = drained ? perRequest(cpu.server, m.requests) : null;
    if (postgres) m.drained_postgres_cpu_ms_per_req = drained ? perRequest(cpu.postgres, m.requests) : null;
    m.drain_s = drained ? Math.round((Date.now() - start) / 100) / 10 : null;
  }
  const statuses = await statusesOf(s.target, ids, CHECK_SAMPLE);
  m.completed_checked = `${statuses.filter((x) => x === 'completed').length}/${statuses.length}`;
  return m;
}

async function runPath(s: Server, p: PathName, round: number, requestIds: string[]): Promise<Measured> {
  const key = s.target.key;
  const timedRun = (items: Workload['items']) => ({
    warm: { path: p, key, items, run: { duration: WARMUP } },
    timed: { path: p, key, items, run: { duration: DURATION } },
  });
  if (p === 'read') {
    const { warm, timed } = timedRun(requestIds);
    return (await measure(s, round, warm, timed)).m;
  }
  if (p === 'events') {
    const pages = await eventPages(s.target, EVENTS_LIMIT);
    note(`${s.name} events: ${pages.length} pages of ${EVENTS_LIMIT}`);
    const { warm, timed } = timedRun(pages);
    return (await measure(s, round, warm, timed)).m;
  }
  note(`${s.name} sign: preparing ${SIGN_WARMUP + SIGNS} signers`);
  // One spare item per connection: autocannon may ask for a request it does not send.
  const items = await makeSignItems(s.target, SIGN_WARMUP + SIGNS + CONNECTIONS);
  const rest = items.slice(SIGN_WARMUP);
  const { m, before, sent } = await measure(
    s,
    round,
    { path: p, key, items: items.slice(0, SIGN_WARMUP), run: { amount: SIGN_WARMUP } },
    { path: p, key, items: rest, run: { amount: SIGNS } },
  );
  return afterSign(
    s,
    m,
    before,
    rest.slice(0, sent).map((i) => i.requestId),
  );
}

async function startServer(name: ServerName, databaseUrl: string | null, dataDir: string): Promise<Server> {
  const dbEnv = databaseUrl ? { ...postgresEnv(databaseUrl), BENCH_PG_POOL_SIZE: String(BENCH_PG_POOL_SIZE) } : {};
  const common = { ...dbEnv, PORT: '0', BENCH_SYNCHRONOUS };
  if (name === 'baseline') {
    const file = postgres ? '../hot-paths/baseline-pg-server.ts' : '../hot-paths/baseline-server.ts';
    const started = await startChild(file, common, /^listening (\d+)$/);
    return { name, started, target: bareTarget(started.url) };
  }
  // create-requests' Tawqi server: the real server, rate limits and test-mode day limits out of the way, one account.
  // With --profile the server gets a channel for the profiler's messages (bench/support/profiler.ts).
  const started = await startChild(
    './tawqi-server.ts',
    { ...common, BENCH_DATA_DIR: dataDir, BENCH_ACCOUNTS: '1' },
    /^\{"listening":(\d+),/,
    PROFILE,
  );
  const account = (started.ready.accounts as { test_key: string }[])[0]!;
  return { name, started, target: await tawqiTarget(started.url, account.test_key) };
}

/** One server run: a fresh database (PostgreSQL) and DATA_DIR; each selected path in order. */
async function benchServer(name: ServerName, round: number, results: Measured[]): Promise<void> {
  const databaseUrl = postgres ? await postgres.createDatabase() : null;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-bench-'));
  let server: Server | null = null;
  try {
    server = await startServer(name, databaseUrl, dataDir);
    let requestIds: string[] = [];
    if (PATHS.includes('read') || PATHS.includes('events')) {
      note(`${name}: creating ${REQUESTS} requests of three signers`);
      requestIds = await makeRequests(server.target, REQUESTS);
      await quiet(server);
    }
    for (const p of ALL_PATHS.filter((x) => PATHS.includes(x))) {
      const m = await runPath(server, p, round, requestIds);
      out(m);
      results.push(m);
    }
  } finally {
    if (server) await stopChild(server.started.child);
    rmSync(dataDir, { recursive: true, force: true });
    if (postgres && databaseUrl) {
      // Every transaction of the server run (set-up included); Tawqi's rollbacks are mostly serialization failures store.tx ran again.
      const { commits, rollbacks } = await postgres.dropDatabase(databaseUrl);
      out({ bench: 'hot-paths', diagnostic: 'pg_transactions', server: name, round, commits, rollbacks });
    }
  }
}

/** The SQL of one lone operation per path (statements.ts, on the run's engine), as one more JSON line. */
async function sqlDiagnostic(): Promise<void> {
  const line = await diagnosticLine(new URL('./statements.ts', import.meta.url), postgres);
  if (line) console.log(line);
  else note('statements.ts failed');
}

const load1 = loadavg()[0]!;
if (load1 > cpus().length * 0.5)
  note(`the 1-minute load average is ${load1.toFixed(2)} on ${cpus().length} cores: other work will skew the figures`);
const results: Measured[] = [];
try {
  for (let round = 1; round <= ROUNDS; round++) for (const name of ['baseline', 'tawqi'] as const) await benchServer(name, round, results);
} catch (err) {
  note(`failed: ${err instanceof Error ? err.message : String(err)}`);
  await stopAllChildren();
  postgres?.stop();
  process.exit(1);
}
const valid = summarise(results, PATHS, ENGINE);
await sqlDiagnostic();
postgres?.stop();
process.exitCode = valid ? 0 : 1;
