/**
 * The engine the suite runs on. TAWQI_TEST_DATABASE=postgres (npm run test:postgres) runs every
 * test server, CLI run and directly opened store on PostgreSQL: one throwaway cluster per test
 * process (started when first needed, stopped when the process exits), or the cluster at
 * TAWQI_TEST_PG_URL (test/run-postgres.ts starts one for the whole run), and a fresh database per
 * data directory, so a restart on the same DATA_DIR finds its data again. Unset (or sqlite): the
 * SQLite file under DATA_DIR, as in production by default.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startThrowawayPostgres } from './postgres.js';

const engine = process.env.TAWQI_TEST_DATABASE ?? 'sqlite';
if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`TAWQI_TEST_DATABASE must be sqlite or postgres, not ${engine}`);

/** The engine of this run. */
export const TEST_DATABASE: 'sqlite' | 'postgres' = engine;
export const onPostgres = TEST_DATABASE === 'postgres';

let cluster: Promise<string> | null = null;

/** The maintenance URL of the run's cluster. */
function clusterUrl(): Promise<string> {
  cluster ??= (async () => {
    if (process.env.TAWQI_TEST_PG_URL) return process.env.TAWQI_TEST_PG_URL;
    const started = await startThrowawayPostgres();
    process.once('exit', () => started.stop());
    return started.url;
  })();
  return cluster;
}

function urlFor(base: string, database: string): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: await clusterUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

let created = 0;

/** Create an empty database on the run's cluster and return its URL. */
export async function createTestDatabase(): Promise<string> {
  const name = `tawqi_${process.pid}_${++created}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  return urlFor(await clusterUrl(), name);
}

/** Drop a database made by createTestDatabase (its connections are ended first). */
export async function dropTestDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  if (!/^tawqi_\d+_\d+$/.test(name)) throw new Error(`not a test database: ${name}`);
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

const byDataDir = new Map<string, string>();

/**
 * The TAWQI_MASTER_KEY of every PostgreSQL test server and CLI run of this test process (PostgreSQL
 * installations need one): fresh per process, the same for a restart on the same data directory.
 */
export const TEST_MASTER_KEY = randomBytes(32).toString('hex');

/**
 * The settings that put a server or CLI on DATA_DIR `dataDir` on the run's engine: {} on SQLite;
 * on PostgreSQL the DATABASE_URL of the data directory's own database (created on first use) and
 * the run's TAWQI_MASTER_KEY.
 */
export async function databaseEnv(dataDir: string): Promise<Record<string, string>> {
  if (!onPostgres) return {};
  let url = byDataDir.get(dataDir);
  if (!url) {
    url = await createTestDatabase();
    byDataDir.set(dataDir, url);
  }
  return { DATABASE_URL: url, TAWQI_MASTER_KEY: TEST_MASTER_KEY };
}

/** Drop the database of a data directory (PostgreSQL runs; nothing on SQLite). */
export async function dropDatabaseOf(dataDir: string): Promise<void> {
  const url = byDataDir.get(dataDir);
  if (!url) return;
  byDataDir.delete(dataDir);
  await dropTestDatabase(url);
}

/** openStore's options for a store on `dataDir` on the run's engine. */
export async function storeOptions(dataDir: string): Promise<{ databaseUrl?: string }> {
  const env = await databaseEnv(dataDir);
  return env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {};
}
