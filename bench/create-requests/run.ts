/**
 * Benchmark create-requests (not a test): POST /api/v1/signature_requests with 3 signers and a
 * fresh Idempotency-Key per request, against Tawqi (SQLite) and against a bare Express +
 * better-sqlite3 baseline doing the same inserts. Each server runs in its own child process; the
 * load (autocannon) runs in this process. Output: one JSON line per (server, connections), then
 * one summary line per connection count. See bench/README.md.
 *
 *   node --conditions=tawqi-source --import tsx bench/create-requests/run.ts
 *
 * Environment: BENCH_DURATION (seconds per measured run, default 10), BENCH_WARMUP (default 2),
 * BENCH_CONNECTIONS (comma list, default 16,64), BENCH_KEY (test, the default as the issue asks;
 * or live, which adds the charge of every create), BENCH_SYNCHRONOUS (full, the default, as Tawqi
 * ships: every commit synced to disk; or normal) — both servers always run with the same setting,
 * BENCH_ROUNDS (rounds of baseline-then-Tawqi, default 3; the summary reports the median ratios).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { API_PATH, createBody, TEMPLATE } from './workload.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '16,64').split(',').map(Number);
const KEY_MODE = process.env.BENCH_KEY === 'live' ? 'live' : 'test';
/** SQLite durability of both servers: Tawqi's default (full: every commit synced) unless BENCH_SYNCHRONOUS=normal. */
const SYNCHRONOUS = process.env.BENCH_SYNCHRONOUS === 'normal' ? 'normal' : 'full';
/** Rounds of (baseline, then Tawqi): the summary takes the median of the rounds' ratios. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
/** The targets, judged at this connection count. */
const TARGET_CONNECTIONS = 16;
const TARGET_THROUGHPUT_RATIO = 0.6;
const TARGET_P99_RATIO = 1.5;
const READY_TIMEOUT_MS = 30_000;

type ServerName = 'baseline' | 'tawqi';

interface Started {
  child: ChildProcess;
  url: string;
  /** The first stdout line, parsed when it is JSON. */
  ready: Record<string, unknown>;
}

interface Measured {
  bench: 'create-requests';
  server: ServerName;
  /** SQLite's synchronous setting of both servers. */
  synchronous: 'full' | 'normal';
  /** Which round of (baseline, Tawqi) this run belongs to. */
  round: number;
  connections: number;
  req_per_s: number;
  p50_ms: number;
  p99_ms: number;
  non_2xx: number;
  non_201: number;
  errors: number;
  timeouts: number;
  requests: number;
  /** CPU time (user + system) the server process spent per response: less sensitive to other load than req/s. */
  server_cpu_ms_per_req: number | null;
  /** 1-minute load average when the run ended: other work on the machine skews every figure. */
  loadavg_1m: number;
}

const children = new Set<ChildProcess>();

function out(line: unknown): void {
  console.log(JSON.stringify(line));
}

function note(text: string): void {
  console.error(`[create-requests] ${text}`);
}

/** Start one server file as a child with this process's node flags; resolve on its ready line. */
function startChild(file: string, readyPattern: RegExp): Promise<Started> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL(file, import.meta.url))], {
    env: { ...process.env, PORT: '0', BENCH_SYNCHRONOUS: SYNCHRONOUS },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file}: no ready line within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited before it was ready (code ${code}, signal ${signal})`));
    });
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      clearTimeout(timer);
      const match = readyPattern.exec(line);
      if (!match) return reject(new Error(`${file}: unexpected first line: ${line}`));
      const ready = line.startsWith('{') ? (JSON.parse(line) as Record<string, unknown>) : {};
      resolve({ child, url: `http://127.0.0.1:${match[1]}`, ready });
      lines.on('line', (more) => note(`${file}: ${more}`));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

function killAllNow(): void {
  for (const child of children) child.kill('SIGKILL');
}
process.on('exit', killAllNow);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    // Children clean up their temp data on SIGTERM; SIGKILL (on exit) only if they hang.
    void Promise.all([...children].map(stopChild)).finally(() => process.exit(130));
  });
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

/** One autocannon run; every request carries a fresh Idempotency-Key. */
async function load(url: string, key: string | null, body: string, connections: number, duration: number): Promise<autocannon.Result> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  return autocannon({
    url: url + API_PATH,
    connections,
    duration,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        path: API_PATH,
        headers,
        body,
        setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } }),
      },
    ],
  });
}

/** Clock ticks per second for /proc/<pid>/stat (Linux); null where that is not available. */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU milliseconds (user + system) a process has used so far, or null off Linux. */
function cpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

function measured(server: ServerName, round: number, connections: number, r: autocannon.Result, cpuUsedMs: number | null): Measured {
  const completed = Object.values(r.statusCodeStats).reduce((n, s) => n + s.count, 0);
  return {
    bench: 'create-requests',
    server,
    synchronous: SYNCHRONOUS,
    round,
    connections,
    req_per_s: Math.round(r.requests.average * 10) / 10,
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    non_2xx: r.non2xx,
    non_201: completed - (r.statusCodeStats['201']?.count ?? 0),
    errors: r.errors,
    timeouts: r.timeouts,
    requests: completed,
    server_cpu_ms_per_req: cpuUsedMs === null || completed === 0 ? null : Math.round((cpuUsedMs / completed) * 1000) / 1000,
    loadavg_1m: Math.round(loadavg()[0]! * 100) / 100,
  };
}

/** Start, check one request by hand, warm up, measure at each connection count, stop. */
async function benchServer(server: ServerName, results: Measured[], round: number): Promise<void> {
  const started =
    server === 'baseline'
      ? await startChild('./baseline-server.ts', /^listening (\d+)$/)
      : await startChild('./tawqi-server.ts', /^\{"listening":(\d+),/);
  try {
    let key: string | null = null;
    // The baseline ignores the template; it gets an id of the same length as a Tawqi template id.
    let templateId = 'tpl_' + 'x'.repeat(24);
    if (server === 'tawqi') {
      key = String(KEY_MODE === 'live' ? started.ready.key : started.ready.test_key);
      const template = await post(started.url + '/api/v1/templates', key, JSON.stringify(TEMPLATE));
      if (template.status !== 201) throw new Error(`POST /api/v1/templates: ${template.status} ${JSON.stringify(template.body)}`);
      templateId = String(template.body.id);
      const why =
        KEY_MODE === 'test'
          ? 'test secret key (as the issue asks); the benchmark server raises TAWQI_TEST_DAILY_REQUESTS and TAWQI_TEST_DAILY_EMAILS out of the way'
          : 'live secret key (BENCH_KEY=live): each create is also charged (balance UPDATE and ledger row)';
      if (round === 1) out({ bench: 'create-requests', server: 'tawqi', key_mode: KEY_MODE, why });
    }
    const body = createBody(templateId);
    const first = await post(started.url + API_PATH, key, body);
    if (first.status !== 201) throw new Error(`${server}: first create answered ${first.status}: ${JSON.stringify(first.body)}`);

    note(`${server}: warm-up ${WARMUP} s at ${TARGET_CONNECTIONS} connections`);
    await load(started.url, key, body, TARGET_CONNECTIONS, WARMUP);
    for (const connections of CONNECTIONS) {
      note(`${server}: ${connections} connections for ${DURATION} s`);
      const cpuBefore = cpuMs(started.child.pid);
      const result = await load(started.url, key, body, connections, DURATION);
      const cpuAfter = cpuMs(started.child.pid);
      const m = measured(server, round, connections, result, cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore);
      out(m);
      results.push(m);
    }
  } finally {
    await stopChild(started.child);
  }
}

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * One summary line per connection count. Each round measured the baseline and then Tawqi, close in
 * time, so each round gives its own ratios; the line reports their medians (and each round's), which
 * a machine whose speed drifts between runs disturbs far less than one pair would.
 */
function summarise(results: Measured[]): boolean {
  let valid = true;
  for (const connections of CONNECTIONS) {
    const pairs: { base: Measured; tawqi: Measured }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const base = results.find((r) => r.server === 'baseline' && r.connections === connections && r.round === round);
      const tawqi = results.find((r) => r.server === 'tawqi' && r.connections === connections && r.round === round);
      if (base && tawqi) pairs.push({ base, tawqi });
    }
    if (pairs.length === 0) continue;
    const clean = pairs.every(({ base, tawqi }) =>
      [base, tawqi].every((r) => r.non_2xx === 0 && r.non_201 === 0 && r.errors === 0 && r.timeouts === 0 && r.requests > 0),
    );
    valid &&= clean;
    const throughputRatios = pairs.map(({ base, tawqi }) => round3(tawqi.req_per_s / base.req_per_s));
    const p99Ratios = pairs.map(({ base, tawqi }) => round3(tawqi.p99_ms / base.p99_ms));
    const ratioThroughput = round3(median(throughputRatios));
    const ratioP99 = round3(median(p99Ratios));
    const cpu = (side: 'base' | 'tawqi') => {
      const xs = pairs.map((p) => p[side].server_cpu_ms_per_req).filter((x): x is number => x !== null);
      return xs.length === pairs.length ? round3(median(xs)) : null;
    };
    const tawqiCpu = cpu('tawqi');
    const baseCpu = cpu('base');
    const judged = connections === TARGET_CONNECTIONS;
    out({
      bench: 'create-requests',
      summary: true,
      synchronous: SYNCHRONOUS,
      connections,
      rounds: pairs.length,
      tawqi_req_per_s: round3(median(pairs.map((p) => p.tawqi.req_per_s))),
      baseline_req_per_s: round3(median(pairs.map((p) => p.base.req_per_s))),
      ratio_throughput: ratioThroughput,
      ratio_throughput_by_round: throughputRatios,
      tawqi_p99_ms: median(pairs.map((p) => p.tawqi.p99_ms)),
      baseline_p99_ms: median(pairs.map((p) => p.base.p99_ms)),
      ratio_p99: ratioP99,
      ratio_p99_by_round: p99Ratios,
      tawqi_cpu_ms_per_req: tawqiCpu,
      baseline_cpu_ms_per_req: baseCpu,
      ratio_cpu_per_req: tawqiCpu !== null && baseCpu ? Math.round((tawqiCpu / baseCpu) * 100) / 100 : null,
      valid: clean,
      ...(judged
        ? {
            target_throughput: `>= ${TARGET_THROUGHPUT_RATIO}`,
            throughput_met: ratioThroughput >= TARGET_THROUGHPUT_RATIO,
            target_p99: `<= ${TARGET_P99_RATIO}`,
            p99_met: ratioP99 <= TARGET_P99_RATIO,
            targets_met: clean && ratioThroughput >= TARGET_THROUGHPUT_RATIO && ratioP99 <= TARGET_P99_RATIO,
          }
        : { targets: `judged at ${TARGET_CONNECTIONS} connections only` }),
    });
    if (!clean) note(`${connections} connections: errors or non-201 responses, so this is not a result`);
  }
  return valid;
}

/** The SQL cost of one create (bench/create-requests/statements.ts), as one more JSON line. */
async function sqlDiagnostic(): Promise<void> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL('./statements.ts', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  children.delete(child);
  const line = text.split('\n').find((l) => l.startsWith('{'));
  if (code !== 0 || !line) return note(`statements.ts failed (exit ${code})`);
  console.log(line);
}

const load1 = loadavg()[0]!;
if (load1 > cpus().length * 0.5)
  note(`the 1-minute load average is ${load1.toFixed(2)} on ${cpus().length} cores: other work will skew the figures`);
const results: Measured[] = [];
try {
  for (let round = 1; round <= ROUNDS; round++)
    for (const server of ['baseline', 'tawqi'] as const) await benchServer(server, results, round);
} catch (err) {
  note(`failed: ${err instanceof Error ? err.message : String(err)}`);
  await Promise.all([...children].map(stopChild));
  process.exit(1);
}
const valid = summarise(results);
await sqlDiagnostic();
process.exitCode = valid ? 0 : 1;
