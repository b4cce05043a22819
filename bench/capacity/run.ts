/**
 * Benchmark capacity (a measurement, not a load test): what one signature request costs the
 * database, per create, per signature, per seal and per webhook delivery, over N complete
 * lifecycles through the real HTTP API (lifecycle.ts), one after another. See bench/capacity/README.md.
 *
 *   npm run bench -- capacity          (PostgreSQL, then SQLite)
 *   BENCH_DATABASE=postgres npm run bench -- capacity
 *
 * Environment: BENCH_CAPACITY_N (lifecycles measured, default 50), BENCH_DATABASE (one engine
 * only), BENCH_CAPACITY_PGBENCH_SECONDS (the commit-rate reference on PostgreSQL, default 15; 0
 * skips it), BENCH_SYNCHRONOUS (as for every benchmark).
 * Output: a table per engine, then one JSON line per engine. Exit 1 when a lifecycle failed.
 */
import { cpus, loadavg } from 'node:os';
import { BENCH_PG_SETTINGS, postgresEnv, startBenchPostgres, type BenchPostgres } from '../support/postgres.js';
import { Lifecycles, SIGNERS_PER_REQUEST } from './lifecycle.js';
import { measureCommitRate, type CommitRate } from './pgbench.js';
import { postgresProbe, sqliteProbe, type Probe } from './probe.js';
import { byGroup, Costs, growth, table, type Phase } from './report.js';
import { measuredCommit } from '../support/commit.js';

const N = Number(process.env.BENCH_CAPACITY_N ?? 50);
const PGBENCH_SECONDS = Number(process.env.BENCH_CAPACITY_PGBENCH_SECONDS ?? 15);
const ENGINES = process.env.BENCH_DATABASE ? [process.env.BENCH_DATABASE] : ['postgres', 'sqlite'];
if (!Number.isInteger(N) || N < 1) throw new Error('BENCH_CAPACITY_N must be a whole number ≥ 1');
if (ENGINES.some((e) => e !== 'postgres' && e !== 'sqlite')) throw new Error('BENCH_DATABASE must be sqlite or postgres');

const note = (text: string) => console.error(`[capacity] ${text}`);
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Taken at the start: the code that runs is the code checked out when the run began. */
const COMMIT = measuredCommit();

/** One lifecycle, a reading before and after each phase, checked (sealed, delivered) after the last one. */
async function lifecycle(l: Lifecycles, probe: Probe, costs: Costs | null, n: number): Promise<{ format: string; deliveries: number }> {
  let before = await probe.read();
  const step = async (phase: Phase, work: () => Promise<unknown>) => {
    await work();
    const after = await probe.read();
    costs?.add(phase, before, after);
    before = after;
  };
  const created = await l.create(n);
  // The create ran before the step so its result is at hand; its reading is taken the same way.
  costs?.add('create', before, (before = await probe.read()));
  await step('sign', async () => {
    for (let i = 0; i < SIGNERS_PER_REQUEST; i++) await l.sign(created, i);
  });
  await step('seal', () => l.seal());
  let deliveries = 0;
  await step('deliver', async () => (deliveries = await l.deliver()));
  await l.check(created);
  return { format: created.format, deliveries };
}

/** The cluster CPU one reading costs, from 20 readings back to back (null on SQLite). */
async function probeCost(probe: Probe): Promise<number | null> {
  const first = await probe.read();
  let last = first;
  for (let i = 0; i < 20; i++) last = await probe.read();
  return first.dbCpuMs === null || last.dbCpuMs === null ? null : (last.dbCpuMs - first.dbCpuMs) / 20;
}

interface EngineResult {
  line: Record<string, unknown>;
  text: string;
}

/** N measured lifecycles after one unmeasured one (first-time work: caches, the account's first rows). */
async function measure(database: 'postgres' | 'sqlite', postgres: BenchPostgres | null): Promise<EngineResult> {
  const databaseUrl = postgres ? await postgres.createDatabase() : null;
  const l = await Lifecycles.start(databaseUrl ? postgresEnv(databaseUrl) : {});
  const probe = databaseUrl
    ? await postgresProbe(l.running, postgres!.url, databaseUrl, () => postgres!.cpuMs())
    : await sqliteProbe(l.running, l.running.ctx.config.DATA_DIR);
  try {
    await lifecycle(l, probe, null, 0);
    const compactedBefore = await probe.compacted();
    await sleep(1500); // backends report their transaction counts within a second of going idle
    const [tx0, own0, client0] = [await probe.serverTransactions(), probe.ownTransactions(), (await probe.read()).client];
    const probeCpuMs = await probeCost(probe);
    const costs = new Costs(probeCpuMs ?? 0);
    const started = performance.now();
    let format = '';
    let deliveries = 0;
    for (let n = 1; n <= N; n++) {
      const done = await lifecycle(l, probe, costs, n);
      format = done.format;
      deliveries += done.deliveries;
    }
    const seconds = (performance.now() - started) / 1000;
    await sleep(1500);
    const [tx1, own1, client1] = [await probe.serverTransactions(), probe.ownTransactions(), (await probe.read()).client];
    const retained = byGroup(growth(compactedBefore, await probe.compacted()));
    const perOp = costs.perOperation({ create: N, sign: N * SIGNERS_PER_REQUEST, seal: N, deliver: N }, SIGNERS_PER_REQUEST);
    const line = {
      bench: 'capacity',
      database,
      ...(postgres ? { synchronous_commit: BENCH_PG_SETTINGS.synchronous_commit } : {}),
      commit: COMMIT,
      n: N,
      signers_per_request: SIGNERS_PER_REQUEST,
      format,
      webhook_deliveries_per_request: round(deliveries / N),
      seconds: round(seconds),
      per_operation: perOp,
      probe_cpu_ms_per_reading: probeCpuMs === null ? null : round(probeCpuMs, 2),
      retained_bytes_per_request: Object.fromEntries(Object.entries(retained).map(([g, b]) => [g, round(b / N)])),
      transactions_check: {
        client: client1.transactions - client0.transactions,
        // The probe's table readings are transactions of the database too (one each).
        server: tx0 && tx1 ? tx1.commits + tx1.rollbacks - tx0.commits - tx0.rollbacks - (own1 - own0) : null,
        autovacuum_runs: tx0 && tx1 ? tx1.autovacuums - tx0.autovacuums : null,
        sessions: tx0 && tx1 ? tx1.sessions - tx0.sessions : null,
      },
      loadavg_1m: round(loadavg()[0]!, 2),
    };
    return { line, text: table(database, perOp) };
  } finally {
    await probe.close();
    await l.close();
    if (postgres && databaseUrl) await postgres.dropDatabase(databaseUrl);
  }
}

const load1 = loadavg()[0]!;
if (load1 > cpus().length * 0.5)
  note(`the 1-minute load average is ${load1.toFixed(2)} on ${cpus().length} cores: timings are skewed (counts and bytes are not)`);

let failed = false;
for (const database of ENGINES as ('postgres' | 'sqlite')[]) {
  let postgres: BenchPostgres | null = null;
  try {
    postgres = database === 'postgres' ? await startBenchPostgres({ shared_preload_libraries: 'pg_stat_statements' }) : null;
    const result = await measure(database, postgres);
    let primary: CommitRate | null = null;
    if (postgres && PGBENCH_SECONDS > 0) primary = await measureCommitRate(postgres, PGBENCH_SECONDS, 8);
    console.log(result.text);
    if (primary)
      console.log(
        `pgbench (TPC-B-like, ${primary.clients} clients, ${primary.seconds} s): ${primary.tps} commits/s, ${primary.statements_per_s} statements/s`,
      );
    console.log(JSON.stringify({ ...result.line, ...(primary ? { pgbench: primary } : {}) }));
  } catch (err) {
    note(`${database} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    failed = true;
  } finally {
    postgres?.stop();
  }
}
// Exit even if a failed start left a handle open: a benchmark that hangs is worse than one that stops.
process.exit(failed ? 1 : 0);
