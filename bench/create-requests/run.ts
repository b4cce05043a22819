/**
 * Benchmark create-requests (not a test): POST /api/v1/signature_requests with 3 signers and a
 * fresh Idempotency-Key per request, against Tawqi and against a bare Express server doing the
 * same inserts — on SQLite (default: Express + better-sqlite3) or, with BENCH_DATABASE=postgres,
 * on a throwaway PostgreSQL cluster (Express + pg; Tawqi with one process and with two processes on
 * one database). Each server runs in child processes; the load (autocannon) runs in this process.
 * Output: one JSON line per (server, connections), then one summary line per connection count.
 * See bench/README.md.
 *
 *   node --conditions=tawqi-source --import tsx bench/create-requests/run.ts
 *
 * Environment: BENCH_DATABASE (sqlite, the default, or postgres), BENCH_DURATION (seconds per
 * measured run, default 10), BENCH_WARMUP (seconds, default 2) and BENCH_WARMUP_REQUESTS (the
 * warm-up goes on until this many responses, default 3000, at most 60 s), BENCH_CONNECTIONS
 * (comma list, default 16,64), BENCH_KEY (test, the default as the issue asks; or live, which adds the charge of every
 * create), BENCH_SYNCHRONOUS (full, the default, as Tawqi ships: every commit synced to disk; or
 * normal) — every server of a run has the same durability (SQLite's synchronous; on PostgreSQL the
 * cluster's synchronous_commit on/off), BENCH_ROUNDS (rounds of baseline-then-Tawqi, default 3; the
 * summary reports the median ratios), BENCH_ACCOUNTS (Tawqi accounts the connections are spread
 * over, default 1), BENCH_PG_POOL_SIZE (PostgreSQL connections per server process, default 10).
 *
 * --profile (or BENCH_PROFILE=1): a CPU profile of the Tawqi server over the first round's measured
 * run at 16 connections, printed as its top functions and a phase table (profiling.ts);
 * BENCH_PROFILE_DIR (where the .cpuprofile files go), BENCH_PROFILE_INTERVAL_US (default 1000).
 *
 * BENCH_REPLAY=1 (SQLite): each round also runs replay-server.ts, Express + better-sqlite3 running
 * exactly the SQL of one Tawqi create on Tawqi's schema, between the baseline and Tawqi; one more
 * summary line splits the gap into the data written and Tawqi's code on top.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { cpuMs } from '../support/cpu.js';
import {
  BENCH_DATABASE,
  BENCH_PG_POOL_SIZE,
  BENCH_PG_SETTINGS,
  BENCH_SYNCHRONOUS,
  postgresEnv,
  startBenchPostgres,
} from '../support/postgres.js';
import { note, runChild, startChild, stopAllChildren, stopChild, type Started } from './children.js';
import { summarisePostgres, summariseSqlite, TARGET_CONNECTIONS, type Measured, type ServerName } from './summary.js';
import { API_PATH, createBody, TEMPLATE } from './workload.js';
import { PROFILE, profiled, reportProfile } from './profiling.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
/**
 * Responses the warm-up waits for besides its seconds: the same amount of work for every server,
 * however fast it answers. Two seconds are ~2,000 creates to the bare server but ~600 to Tawqi on
 * PostgreSQL, whose run then measured V8 still optimising (TurboFan ~15% of the process's CPU in a
 * perf profile; README, "Warm-up").
 */
const WARMUP_REQUESTS = Number(process.env.BENCH_WARMUP_REQUESTS ?? 3000);
const WARMUP_LIMIT_MS = 60_000;
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '16,64').split(',').map(Number);
const KEY_MODE = process.env.BENCH_KEY === 'live' ? 'live' : 'test';
/** Durability of every server: Tawqi's default (full: every commit synced) unless BENCH_SYNCHRONOUS=normal. */
const SYNCHRONOUS = BENCH_SYNCHRONOUS;
/** On PostgreSQL, the cluster's synchronous_commit that BENCH_SYNCHRONOUS picks (support/postgres.ts). */
const SYNCHRONOUS_COMMIT = BENCH_PG_SETTINGS.synchronous_commit as 'on' | 'off';
/** Rounds of (baseline, then Tawqi…): the summary takes the median of the rounds' ratios. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
/** Tawqi accounts; connection i sends for account i mod ACCOUNTS (one account: every create counts against the same rows). */
const ACCOUNTS = Math.max(1, Number(process.env.BENCH_ACCOUNTS ?? 1));

const postgres = BENCH_DATABASE === 'postgres' ? await startBenchPostgres() : null;
/** SQLite, BENCH_REPLAY=1: a third server per round, a Tawqi create's own SQL behind a bare route (replay-server.ts). */
const REPLAY = !postgres && process.env.BENCH_REPLAY === '1';
const SERVERS: ServerName[] = postgres
  ? ['baseline', 'tawqi', 'tawqi-2']
  : REPLAY
    ? ['baseline', 'replay', 'tawqi']
    : ['baseline', 'tawqi'];
/** What every line of the run says about the engine and its durability. */
const DURABILITY = postgres ? { database: 'postgres' as const, synchronous_commit: SYNCHRONOUS_COMMIT } : { synchronous: SYNCHRONOUS };

/** One account's requests: its key (null for the baseline) and the body naming its template. */
interface Target {
  key: string | null;
  body: string;
}

function out(line: unknown): void {
  console.log(JSON.stringify(line));
}

async function post(url: string, key: string | null, body: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'idempotency-key': randomUUID() };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed };
}

function requestOf(target: Target): autocannon.Request {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.key) headers.authorization = `Bearer ${target.key}`;
  return {
    method: 'POST',
    path: API_PATH,
    headers,
    body: target.body,
    setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } }),
  };
}

/**
 * One autocannon run; every request carries a fresh Idempotency-Key. With several server URLs (the
 * processes of one installation) autocannon sends connection i to URL i mod n, so 16 connections
 * are 8 + 8 on two processes, measured as one run (one latency histogram). Connection i sends for
 * target (account) i mod the number of targets.
 */
async function load(urls: string[], targets: Target[], connections: number, duration: number): Promise<autocannon.Result> {
  let next = 0;
  return autocannon({
    url: urls.map((u) => u + API_PATH),
    connections,
    duration,
    timeout: 10,
    requests: [requestOf(targets[0]!)],
    setupClient: (client) => client.setRequests([requestOf(targets[next++ % targets.length]!)]),
  });
}

const completed = (r: autocannon.Result): number => Object.values(r.statusCodeStats).reduce((n, s) => n + s.count, 0);
const perRequest = (ms: number | null, requests: number): number | null =>
  ms === null || requests === 0 ? null : Math.round((ms / requests) * 1000) / 1000;
const difference = (before: number | null, after: number | null): number | null =>
  before === null || after === null ? null : after - before;

/** CPU milliseconds of the server processes of one run (null when one is unreadable). */
function serversCpuMs(servers: Started[]): number | null {
  const each = servers.map((s) => cpuMs(s.child.pid));
  return each.includes(null) ? null : (each as number[]).reduce((a, b) => a + b, 0);
}

function measured(
  server: ServerName,
  round: number,
  connections: number,
  r: autocannon.Result,
  cpu: { servers: Started[]; server: number | null; postgres: number | null },
): Measured {
  const n = completed(r);
  return {
    bench: 'create-requests',
    server,
    ...DURABILITY,
    ...(postgres ? { processes: cpu.servers.length } : {}),
    round,
    connections,
    req_per_s: Math.round(r.requests.average * 10) / 10,
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    non_2xx: r.non2xx,
    non_201: n - (r.statusCodeStats['201']?.count ?? 0),
    errors: r.errors,
    timeouts: r.timeouts,
    requests: n,
    server_cpu_ms_per_req: perRequest(cpu.server, n),
    ...(postgres ? { postgres_cpu_ms_per_req: perRequest(cpu.postgres, n) } : {}),
    loadavg_1m: Math.round(loadavg()[0]! * 100) / 100,
  };
}

/** Start the server's process(es): the baseline; Tawqi; or two Tawqi processes on one database and DATA_DIR. */
async function startServers(server: ServerName, env: Record<string, string>, dataDir: string, into: Started[]): Promise<void> {
  if (server === 'baseline' || server === 'replay') {
    const file = server === 'replay' ? './replay-server.ts' : postgres ? './baseline-pg-server.ts' : './baseline-server.ts';
    into.push(await startChild(file, { ...env, PORT: '0', BENCH_SYNCHRONOUS: SYNCHRONOUS }, /^listening (\d+)$/));
    return;
  }
  const tawqiEnv = { ...env, PORT: '0', BENCH_SYNCHRONOUS: SYNCHRONOUS, BENCH_DATA_DIR: dataDir, BENCH_ACCOUNTS: String(ACCOUNTS) };
  // With --profile the one-process Tawqi server gets a channel for the profiler's messages (profiling.ts).
  into.push(await startChild('./tawqi-server.ts', tawqiEnv, /^\{"listening":(\d+),/, PROFILE && server === 'tawqi'));
  // The second process starts once the first has migrated and made the accounts; it serves the same database.
  if (server === 'tawqi-2') into.push(await startChild('./tawqi-server.ts', { ...tawqiEnv, BENCH_JOIN: '1' }, /^\{"listening":(\d+),/));
}

/** The accounts' keys and templates (Tawqi), then one create by hand on every process: each must answer 201. */
async function prepareTargets(server: ServerName, servers: Started[], round: number): Promise<Target[]> {
  // The baseline and the replay ignore the template; they get an id of the same length as a Tawqi template id.
  let targets: Target[] = [{ key: null, body: createBody('tpl_' + 'x'.repeat(24)) }];
  if (server === 'tawqi' || server === 'tawqi-2') {
    const accounts = servers[0]!.ready.accounts as { key: string; test_key: string }[];
    targets = [];
    for (const account of accounts) {
      const key = KEY_MODE === 'live' ? account.key : account.test_key;
      const template = await post(servers[0]!.url + '/api/v1/templates', key, JSON.stringify(TEMPLATE));
      if (template.status !== 201) throw new Error(`POST /api/v1/templates: ${template.status} ${JSON.stringify(template.body)}`);
      targets.push({ key, body: createBody(String(template.body.id)) });
    }
    const why =
      KEY_MODE === 'test'
        ? 'test secret key (as the issue asks); the benchmark server raises TAWQI_TEST_DAILY_REQUESTS and TAWQI_TEST_DAILY_EMAILS out of the way'
        : 'live secret key (BENCH_KEY=live): each create is also charged (balance UPDATE and ledger row)';
    if (round === 1 && server === 'tawqi') out({ bench: 'create-requests', server: 'tawqi', key_mode: KEY_MODE, accounts: ACCOUNTS, why });
  }
  for (const s of servers) {
    const first = await post(s.url + API_PATH, targets[0]!.key, targets[0]!.body);
    if (first.status !== 201) throw new Error(`${server}: first create answered ${first.status}: ${JSON.stringify(first.body)}`);
  }
  return targets;
}

/** One measured run: the load, and the CPU the server processes (and PostgreSQL) spent meanwhile. */
async function measureOnce(servers: Started[], targets: Target[], connections: number) {
  const before = { server: serversCpuMs(servers), postgres: postgres?.cpuMs() ?? null };
  const result = await load(
    servers.map((s) => s.url),
    targets,
    connections,
    DURATION,
  );
  const cpu = {
    servers,
    server: difference(before.server, serversCpuMs(servers)),
    postgres: difference(before.postgres, postgres?.cpuMs() ?? null),
  };
  return { result, cpu };
}

/** With --profile: the first round's run of the one-process Tawqi server at 16 connections is profiled. */
const profileThisRun = (server: ServerName, round: number, connections: number): boolean =>
  PROFILE && server === 'tawqi' && round === 1 && connections === TARGET_CONNECTIONS;

/** Warm up, then measure at each connection count; returns the responses of every run (warm-up included). */
async function measureServer(
  server: ServerName,
  servers: Started[],
  targets: Target[],
  round: number,
  results: Measured[],
): Promise<number> {
  const urls = servers.map((s) => s.url);
  // A checkpoint now, so no server run starts in the middle of one the previous run's writes caused.
  await postgres?.checkpoint();
  note(`${server}: warm-up ${WARMUP} s and ${WARMUP_REQUESTS} responses at ${TARGET_CONNECTIONS} connections`);
  const warmStart = Date.now();
  let responses = completed(await load(urls, targets, TARGET_CONNECTIONS, WARMUP));
  while (responses < WARMUP_REQUESTS && Date.now() - warmStart < WARMUP_LIMIT_MS)
    responses += completed(await load(urls, targets, TARGET_CONNECTIONS, 1));
  for (const connections of CONNECTIONS) {
    const profiling = profileThisRun(server, round, connections);
    note(`${server}: ${connections} connections for ${DURATION} s${profiling ? ', CPU profile on' : ''}`);
    const measure = () => measureOnce(servers, targets, connections);
    const { result: run, file } = profiling
      ? await profiled(
          servers[0]!.child,
          `${server}-${postgres ? `postgres-${SYNCHRONOUS_COMMIT}` : SYNCHRONOUS}-c${connections}-r${round}`,
          measure,
        )
      : { result: await measure(), file: null };
    const m = { ...measured(server, round, connections, run.result, run.cpu), ...(profiling ? { profiled: true } : {}) };
    out(m);
    results.push(m);
    if (file)
      reportProfile(file, {
        ...DURABILITY,
        server,
        round,
        connections,
        requests: m.requests,
        server_cpu_ms_per_req: m.server_cpu_ms_per_req,
      });
    responses += completed(run.result);
  }
  return responses;
}

/** One server run: a fresh database (PostgreSQL) and DATA_DIR, start, check, warm up, measure, stop. */
async function benchServer(server: ServerName, results: Measured[], round: number): Promise<void> {
  const databaseUrl = postgres ? await postgres.createDatabase() : null;
  const env = databaseUrl ? { ...postgresEnv(databaseUrl), BENCH_PG_POOL_SIZE: String(BENCH_PG_POOL_SIZE) } : {};
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-bench-'));
  const servers: Started[] = [];
  let responses = 0;
  try {
    await startServers(server, env, dataDir, servers);
    const targets = await prepareTargets(server, servers, round);
    responses = servers.length + (await measureServer(server, servers, targets, round, results));
  } finally {
    await Promise.all(servers.map((s) => stopChild(s.child)));
    rmSync(dataDir, { recursive: true, force: true });
    if (postgres && databaseUrl) {
      // Every transaction of the server run (set-up, hand checks, warm-up, measured runs, background
      // jobs); rollbacks on Tawqi are mostly serialization failures that store.tx ran again.
      const { commits, rollbacks } = await postgres.dropDatabase(databaseUrl);
      out({
        bench: 'create-requests',
        diagnostic: 'pg_transactions',
        server,
        round,
        responses,
        commits,
        rollbacks,
        commits_per_response: perRequest(commits, responses),
        rollbacks_per_response: perRequest(rollbacks, responses),
      });
    }
  }
}

/** The SQL cost of one create (bench/create-requests/statements.ts, on the run's engine), as one more JSON line. */
async function sqlDiagnostic(): Promise<void> {
  const databaseUrl = postgres ? await postgres.createDatabase() : null;
  try {
    const { code, stdout } = await runChild('./statements.ts', databaseUrl ? postgresEnv(databaseUrl) : {});
    const line = stdout.split('\n').find((l) => l.startsWith('{'));
    if (code !== 0 || !line) return note(`statements.ts failed (exit ${code})`);
    console.log(line);
  } finally {
    if (postgres && databaseUrl) await postgres.dropDatabase(databaseUrl);
  }
}

if (PROFILE && !CONNECTIONS.includes(TARGET_CONNECTIONS))
  note(`--profile profiles the run at ${TARGET_CONNECTIONS} connections, and BENCH_CONNECTIONS has none: no profile`);
const load1 = loadavg()[0]!;
if (load1 > cpus().length * 0.5)
  note(`the 1-minute load average is ${load1.toFixed(2)} on ${cpus().length} cores: other work will skew the figures`);
const results: Measured[] = [];
try {
  for (let round = 1; round <= ROUNDS; round++) for (const server of SERVERS) await benchServer(server, results, round);
} catch (err) {
  note(`failed: ${err instanceof Error ? err.message : String(err)}`);
  await stopAllChildren();
  process.exit(1);
}
const valid = postgres ? summarisePostgres(results, CONNECTIONS, SYNCHRONOUS_COMMIT) : summariseSqlite(results, CONNECTIONS, SYNCHRONOUS);
await sqlDiagnostic();
postgres?.stop();
process.exitCode = valid ? 0 : 1;
