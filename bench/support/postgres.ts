/**
 * PostgreSQL for the benchmarks: `BENCH_DATABASE=postgres` runs a benchmark's servers on a throwaway
 * cluster (test/support/postgres.ts) that the driver starts for the run and removes at its end, one
 * fresh database per server run. Unset (or sqlite): SQLite under each server's DATA_DIR, as before.
 *
 * Durability: unlike the test cluster (fsync off), the benchmark cluster syncs as a production one
 * does — fsync and full_page_writes on — because a benchmark of a signature service that holds
 * evidence and money must pay for durable commits, and fsync=off would also let a crash corrupt
 * the cluster, which no installation accepts. BENCH_SYNCHRONOUS picks synchronous_commit, the
 * counterpart of SQLite's synchronous setting: full (default) → on, every COMMIT waits for its WAL
 * flush; normal → off, the COMMIT returns before the flush (a crash may lose the last commits, never
 * corrupts).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../test/support/postgres.js';
import { treeCpuMs } from './cpu.js';

const engine = process.env.BENCH_DATABASE ?? 'sqlite';
if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`BENCH_DATABASE must be sqlite or postgres, not ${engine}`);
/** The engine of this benchmark run. */
export const BENCH_DATABASE: 'sqlite' | 'postgres' = engine;

/** SQLite's synchronous setting, or PostgreSQL's synchronous_commit through it (see above). */
export const BENCH_SYNCHRONOUS: 'full' | 'normal' = process.env.BENCH_SYNCHRONOUS === 'normal' ? 'normal' : 'full';

/** Connections each Tawqi process may hold (TAWQI_PG_POOL_SIZE); the bare baseline's pool gets the same. */
export const BENCH_PG_POOL_SIZE = Number(process.env.BENCH_PG_POOL_SIZE ?? 10);

/**
 * The master key Tawqi gets on PostgreSQL (64 hex characters): the operator's TAWQI_MASTER_KEY when
 * set, else one made for this run. Every process of one run shares it, as one installation's must.
 */
const MASTER_KEY = process.env.TAWQI_MASTER_KEY ?? randomBytes(32).toString('hex');

/** Server settings of the benchmark cluster. */
export const BENCH_PG_SETTINGS: Readonly<Record<string, string>> = {
  fsync: 'on',
  full_page_writes: 'on',
  synchronous_commit: BENCH_SYNCHRONOUS === 'full' ? 'on' : 'off',
};

/** The settings of server configuration (loadConfig) that put Tawqi on a database of the cluster. */
export function postgresEnv(databaseUrl: string): Record<string, string> {
  return { DATABASE_URL: databaseUrl, TAWQI_PG_POOL_SIZE: String(BENCH_PG_POOL_SIZE), TAWQI_MASTER_KEY: MASTER_KEY };
}

/** Transactions a database committed and rolled back (pg_stat_database). */
export interface TransactionCounts {
  commits: number;
  rollbacks: number;
}

export interface BenchPostgres {
  /** The maintenance database (postgres) of the cluster, as its superuser. */
  url: string;
  /** Create a fresh empty database and return its URL. */
  createDatabase(): Promise<string>;
  /** Wait until nobody is connected to it (its backends have flushed their statistics), read them, drop it. */
  dropDatabase(url: string): Promise<TransactionCounts>;
  /** Write every dirty buffer now, so the next measured run does not start in the middle of a checkpoint. */
  checkpoint(): Promise<void>;
  /** CPU milliseconds the cluster's processes (postmaster, backends, writers) have used so far. */
  cpuMs(): number | null;
  stop(): void;
}

async function admin<T>(cluster: ThrowawayPostgres, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const nameOf = (url: string): string => new URL(url).pathname.slice(1);

async function statsAfterLastBackend(client: pg.Client, name: string): Promise<TransactionCounts> {
  for (let waited = 0; waited < 5000; waited += 50) {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [name]);
    if (Number(rows[0]!.n) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { rows } = await client.query<{ commits: string; rollbacks: string }>(
    'SELECT xact_commit AS commits, xact_rollback AS rollbacks FROM pg_stat_database WHERE datname = $1',
    [name],
  );
  return { commits: Number(rows[0]?.commits ?? 0), rollbacks: Number(rows[0]?.rollbacks ?? 0) };
}

/**
 * Start the run's cluster with BENCH_PG_SETTINGS (and `extra` settings over them, e.g. a library to
 * preload). It is stopped (and its folder removed) by stop(),
 * or when this process exits; a driver with no signal handlers of its own gets ones that exit, so
 * Ctrl-C does not leave a cluster running.
 */
export async function startBenchPostgres(extra: Record<string, string> = {}): Promise<BenchPostgres> {
  const cluster = await startThrowawayPostgres({ settings: { ...BENCH_PG_SETTINGS, ...extra } });
  process.once('exit', () => cluster.stop());
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    if (process.listenerCount(signal) === 0) process.once(signal, () => process.exit(130));
  const postmaster = Number(readFileSync(path.join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let created = 0;
  return {
    url: cluster.url,
    async createDatabase() {
      const name = `bench_${++created}`;
      await admin(cluster, (c) => c.query(`CREATE DATABASE ${name}`));
      return cluster.urlFor(name);
    },
    async dropDatabase(url) {
      const name = nameOf(url);
      if (!/^bench_\d+$/.test(name)) throw new Error(`not a benchmark database: ${name}`);
      return admin(cluster, async (c) => {
        const counts = await statsAfterLastBackend(c, name);
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        return counts;
      });
    },
    async checkpoint() {
      await admin(cluster, (c) => c.query('CHECKPOINT'));
    },
    cpuMs: () => treeCpuMs(postmaster),
    stop: () => cluster.stop(),
  };
}
