/**
 * Benchmark memory (not a test): the real Tawqi server's memory after it starts, after its first
 * create and every BENCH_MEMORY_EVERY creates up to BENCH_MEMORY_CREATES (default 100,000), and a
 * verdict on whether it grows with the number of requests served. The server is the create
 * benchmark's (create-requests/tawqi-server.ts, through server.ts here, which adds a full garbage
 * collection on SIGUSR2 to read the live heap); the creates are the create benchmark's request
 * (test key, three signers, a custom template, a fresh Idempotency-Key each), sent by autocannon
 * at BENCH_MEMORY_CONNECTIONS connections (default 16) with `amount`, one run per sample interval.
 * Output: one JSON line per sample, then one summary line. See bench/README.md ("memory").
 *
 *   npm run bench -- memory
 *   BENCH_DATABASE=postgres npm run bench -- memory
 *
 * Environment: BENCH_MEMORY_CREATES (default 100000), BENCH_MEMORY_EVERY (creates between samples,
 * default 10000), BENCH_MEMORY_WARMUP (creates left out of the fit, default 20000),
 * BENCH_MEMORY_CONNECTIONS (default 16), BENCH_MEMORY_DRAIN (seconds to wait at the end for the
 * due queue entries before the last sample, default 60), BENCH_DATABASE, BENCH_SYNCHRONOUS,
 * BENCH_PG_POOL_SIZE (as for create-requests).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { SQLITE_CACHE_KIB, SQLITE_MMAP_BYTES } from '../../server/src/store/db.js';
import { startChild, stopAllChildren, stopChild, type Started } from '../create-requests/children.js';
import { API_PATH, createBody, TEMPLATE } from '../create-requests/workload.js';
import { measuredCommit } from '../support/commit.js';
import { BENCH_DATABASE, BENCH_PG_POOL_SIZE, BENCH_SYNCHRONOUS, postgresEnv, startBenchPostgres } from '../support/postgres.js';
import { databaseSize, GcProbe, mb, procMemory, readQueues, type AfterGc, type ProcMemory, type Queues } from './readings.js';
import { growth, type Growth } from './verdict.js';

const count = (name: string, fallback: number): number => {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer`);
  return n;
};
const CREATES = count('BENCH_MEMORY_CREATES', 100_000);
const EVERY = count('BENCH_MEMORY_EVERY', 10_000);
const WARMUP = Math.min(count('BENCH_MEMORY_WARMUP', 20_000), CREATES);
const CONNECTIONS = count('BENCH_MEMORY_CONNECTIONS', 16);
const DRAIN_S = count('BENCH_MEMORY_DRAIN', 60);
/** Idle time after the full collection before RSS is read again: V8 gives freed pages back meanwhile. */
const SETTLE_MS = 1000;

type Phase = 'started' | 'first_create' | 'load' | 'drained';

/** The load between two samples. */
interface Step {
  created: number;
  seconds: number;
  req_per_s: number;
  p99_ms: number;
  failures: number;
}

interface Sample extends ProcMemory, AfterGc {
  bench: 'memory';
  database: 'sqlite' | 'postgres';
  phase: Phase;
  creates: number;
  /** RSS (and its anonymous part) after the full collection and SETTLE_MS of idle: without garbage in flight. */
  rss_settled_mb: number;
  rss_settled_anon_mb: number;
  queues: Queues;
  db_mb: number;
  wal_mb: number;
  step: Step | null;
  loadavg_1m: number;
}

/** The server process and what the samples need to read it. */
interface Subject {
  server: Started;
  probe: GcProbe;
  dataDir: string;
  postgres: { clusterUrl: string; databaseUrl: string } | null;
  key: string;
  body: string;
}

const note = (text: string): void => console.error(`[memory] ${text}`);
const load1 = (): number => Math.round(loadavg()[0]! * 100) / 100;
const out = (line: unknown): void => console.log(JSON.stringify(line));

/**
 * RSS first (as the load left it), then the queues, the heap after a full collection, RSS again
 * once the process has been idle for SETTLE_MS after it (settled), then the database.
 */
async function takeSample(s: Subject, phase: Phase, creates: number, step: Step | null): Promise<Sample> {
  const proc = procMemory(s.server.child.pid!);
  const queues = await readQueues(s.server.url);
  const afterGc = await s.probe.read();
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const settled = procMemory(s.server.child.pid!);
  const size = await databaseSize(s.dataDir, s.postgres);
  const sample: Sample = {
    bench: 'memory',
    database: BENCH_DATABASE,
    phase,
    creates,
    ...proc,
    ...afterGc,
    rss_settled_mb: settled.rss_mb,
    rss_settled_anon_mb: settled.rss_anon_mb,
    queues,
    ...size,
    step,
    loadavg_1m: load1(),
  };
  out(sample);
  return sample;
}

async function post(url: string, key: string, body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'idempotency-key': randomUUID() },
    body,
  });
  return { status: res.status, text: await res.text() };
}

/** `amount` creates at CONNECTIONS connections, each with a fresh Idempotency-Key. */
async function drive(s: Subject, amount: number): Promise<Step> {
  const r = await autocannon({
    url: s.server.url + API_PATH,
    connections: Math.min(CONNECTIONS, amount),
    amount,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        path: API_PATH,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.key}` },
        body: s.body,
        setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } }),
      },
    ],
  });
  const created = r.statusCodeStats['201']?.count ?? 0;
  const answered = Object.values(r.statusCodeStats).reduce((n, c) => n + c.count, 0);
  return {
    created,
    seconds: Math.round(r.duration * 10) / 10,
    req_per_s: Math.round((created / Math.max(r.duration, 0.001)) * 10) / 10,
    p99_ms: r.latency.p99,
    failures: answered - created + r.errors + r.timeouts,
  };
}

/** Start the server on a fresh DATA_DIR (and database), make the template, check one create by hand. */
async function startSubject(dataDir: string, databaseUrl: string | null, clusterUrl: string | null): Promise<Subject> {
  const env = {
    ...(databaseUrl ? postgresEnv(databaseUrl) : {}),
    PORT: '0',
    BENCH_SYNCHRONOUS,
    BENCH_DATA_DIR: dataDir,
    BENCH_ACCOUNTS: '1',
  };
  const server = await startChild('../memory/server.ts', env, /^\{"listening":(\d+),/);
  const probe = new GcProbe(server.child);
  const key = (server.ready.accounts as { test_key: string }[])[0]!.test_key;
  const template = await post(server.url + '/api/v1/templates', key, JSON.stringify(TEMPLATE));
  if (template.status !== 201) throw new Error(`POST /api/v1/templates: ${template.status} ${template.text}`);
  const body = createBody((JSON.parse(template.text) as { id: string }).id);
  const postgres = databaseUrl && clusterUrl ? { clusterUrl, databaseUrl } : null;
  return { server, probe, dataDir, postgres, key, body };
}

/** Wait (at most DRAIN_S) until no job and no message is due: the background work has caught up. */
async function drain(s: Subject): Promise<void> {
  const until = Date.now() + DRAIN_S * 1000;
  for (;;) {
    const q = await readQueues(s.server.url);
    if (q.jobs.due === 0 && q.messages.due === 0) return;
    if (Date.now() > until) return note(`still due after ${DRAIN_S} s: ${JSON.stringify(q)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The whole run on one server: start, first create, the load in steps with a sample after each, drain. */
async function measure(s: Subject): Promise<{ samples: Sample[]; failures: number }> {
  const samples = [await takeSample(s, 'started', 0, null)];
  const first = await post(s.server.url + API_PATH, s.key, s.body);
  if (first.status !== 201) throw new Error(`first create answered ${first.status}: ${first.text}`);
  samples.push(await takeSample(s, 'first_create', 1, null));
  let created = 1;
  let failures = 0;
  while (created < CREATES) {
    // Steps end on multiples of EVERY (the first create counts), the last one on CREATES.
    const step = await drive(s, Math.min(EVERY - (created % EVERY), CREATES - created));
    created += step.created;
    failures += step.failures;
    samples.push(await takeSample(s, 'load', created, step));
    if (step.failures > 0 || step.created === 0) {
      note(`${step.failures} failed requests in the last step; stopping`);
      break;
    }
  }
  await drain(s);
  samples.push(await takeSample(s, 'drained', created, null));
  return { samples, failures };
}

const FIGURES = ['rss_mb', 'rss_anon_mb', 'rss_file_mb', 'rss_settled_mb', 'rss_settled_anon_mb', 'heap_used_mb', 'external_mb'] as const;
type Figure = (typeof FIGURES)[number];
/**
 * Judged: the whole RSS, as the issue names it, settled (read as the load leaves it, it swings by
 * tens of MB with where the collector is in its cycle: reported, not judged), and the live heap.
 */
const JUDGED: readonly Figure[] = ['rss_settled_mb', 'heap_used_mb'];

function summarise(samples: Sample[], failures: number, loadAtStart: number): boolean {
  const at = (phase: Phase) => samples.find((x) => x.phase === phase);
  const loadSamples = samples.filter((x) => x.phase === 'load');
  const warm = loadSamples.find((x) => x.creates >= WARMUP);
  const last = loadSamples.at(-1);
  const figures = {} as Record<Figure, Record<string, number | undefined>>;
  const growths = {} as Record<Figure, Growth>;
  for (const f of FIGURES) {
    figures[f] = {
      started: at('started')?.[f],
      first_create: at('first_create')?.[f],
      warm: warm?.[f],
      end: last?.[f],
      drained: at('drained')?.[f],
    };
    growths[f] = growth(
      loadSamples.map((x) => ({ creates: x.creates, value: x[f] })),
      WARMUP,
    );
  }
  const steps = loadSamples.map((x) => x.step!);
  const seconds = steps.reduce((n, x) => n + x.seconds, 0);
  const created = last?.creates ?? 1;
  const clean = failures === 0 && created >= CREATES;
  out({
    bench: 'memory',
    summary: true,
    database: BENCH_DATABASE,
    ...(BENCH_DATABASE === 'postgres' ? { pg_pool_size: BENCH_PG_POOL_SIZE } : { synchronous: BENCH_SYNCHRONOUS }),
    commit: measuredCommit(),
    creates: created,
    connections: CONNECTIONS,
    sample_every: EVERY,
    warmup_creates: WARMUP,
    failures,
    req_per_s: seconds > 0 ? Math.round(((created - 1) / seconds) * 10) / 10 : null,
    ...figures,
    growth: growths,
    grows: JUDGED.some((f) => growths[f].grows),
    judged: JUDGED,
    bounded_by_design: boundedByDesign(),
    queues_end: last?.queues,
    queues_drained: at('drained')?.queues,
    db_mb_end: last?.db_mb,
    loadavg_1m: { start: loadAtStart, end: load1() },
  });
  return clean;
}

/** What the code bounds on purpose, so a reader knows which memory a longer run cannot add to. */
function boundedByDesign(): Record<string, number | string> {
  if (BENCH_DATABASE === 'postgres') return { pg_pool_connections: BENCH_PG_POOL_SIZE };
  return {
    sqlite_page_cache_mb: SQLITE_CACHE_KIB / 1024,
    sqlite_mmap_mb: mb(SQLITE_MMAP_BYTES),
    note: 'the page cache is anonymous memory of the server connection; the mmap part is file-backed (rss_file_mb), reclaimable',
  };
}

const loadAtStart = load1();
if (loadAtStart > cpus().length * 0.5)
  note(
    `the 1-minute load average is ${loadAtStart.toFixed(2)} on ${cpus().length} cores: other work will skew the timings (memory less so)`,
  );
const postgres = BENCH_DATABASE === 'postgres' ? await startBenchPostgres() : null;
const dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-bench-memory-'));
let clean = false;
try {
  const databaseUrl = postgres ? await postgres.createDatabase() : null;
  const subject = await startSubject(dataDir, databaseUrl, postgres?.url ?? null);
  const { samples, failures } = await measure(subject);
  await stopChild(subject.server.child);
  clean = summarise(samples, failures, loadAtStart);
} catch (err) {
  note(`failed: ${err instanceof Error ? err.message : String(err)}`);
  await stopAllChildren();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  postgres?.stop();
}
process.exitCode = clean ? 0 : 1;
