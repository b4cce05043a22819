import type { Pool, PoolConfig } from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from './schema.js';
import { pgGroupCommit } from './pgGroupCommit.js';
import { registerPostgresRoot } from './compiled.js';

/**
 * The PostgreSQL engine of the store (DATABASE_URL): Kysely's PostgresDialect on a pg.Pool.
 *
 * Values: BIGINT (int8) and NUMERIC come back as JS numbers, not strings — they hold Unix seconds,
 * amounts in minor units, counts and row ids, all far below 2^53 — so rows look exactly as they do
 * on SQLite. Booleans are INTEGER 0/1 and JSON is TEXT on both engines (rowCodec.ts is shared).
 *
 * Transactions: every store.tx is one real transaction on a pooled connection; there is no group
 * commit (PostgreSQL commits concurrent transactions in parallel). It runs SERIALIZABLE: the
 * services were written for SQLite, where write transactions never overlap (read a draft, then
 * charge and send it), and PostgreSQL's serializable isolation keeps exactly that promise — across
 * processes too — by aborting one of two transactions that could not have run one after the
 * other (40001; a deadlock victim is 40P01). Such a transaction is run again after a short random
 * pause, up to TX_ATTEMPTS times in all; `work` must therefore have no effect outside the database
 * before it returns (true of every store.tx: what follows a commit runs after it). The hot paths
 * (a create, a sign on the page, the publishable quota, queue claims) run READ COMMITTED instead (lockingTx) and take
 * row locks, so one account's creates queue on its rows rather than abort one another.
 */
export const TX_ATTEMPTS = 30;

const RETRYABLE = new Set(['40001', '40P01']);

export interface PostgresEngine {
  db: Kysely<Database>;
  tx<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /** READ COMMITTED, for work that decides by row locks: creates, signs, quotas, claims (types.ts, Store.lockingTx). */
  lockingTx<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /** lockingTx shared with the other calls of the moment (pgGroupCommit.ts, Store.groupTx). */
  groupTx<T>(work: (trx: Kysely<Database>) => Promise<T>, key?: string): Promise<T>;
  close(): Promise<void>;
}

export interface PostgresOptions {
  /** Connections this process may hold (TAWQI_PG_POOL_SIZE). */
  poolSize?: number;
  /** Told when an idle pooled connection fails (the pool drops it and opens another when needed). */
  onPoolError?: (err: unknown) => void;
}

const INT8 = 20;
const NUMERIC = 1700;

export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<PostgresEngine> {
  // Loaded only here: a SQLite installation never loads the driver.
  const { default: pg } = await import('pg');
  const toNumber = (value: string): number => Number(value);
  const types: PoolConfig['types'] = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8 || oid === NUMERIC ? toNumber : pg.types.getTypeParser(oid, format ?? 'text')) as NonNullable<
      PoolConfig['types']
    >['getTypeParser'],
  };
  // allowExitOnIdle: idle connections never keep a process alive (the CLI, a server that failed to start).
  const pool: Pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    types,
    application_name: 'tawqi',
    allowExitOnIdle: true,
  });
  pool.on('error', (err) => options.onPoolError?.(err));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  registerPostgresRoot(db);
  const run =
    (level: 'serializable' | 'read committed') =>
    async <T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await db.transaction().setIsolationLevel(level).execute(work);
        } catch (err) {
          if (attempt >= TX_ATTEMPTS || !RETRYABLE.has((err as { code?: string } | null)?.code ?? '')) throw err;
          // Spread the retries of transactions that collided, more as they keep colliding (at most ~50 ms).
          await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 * attempt)));
        }
      }
    };
  const lockingTx = run('read committed');
  const groupTx = pgGroupCommit<Database>(pool, lockingTx);
  return { db, tx: run('serializable'), lockingTx, groupTx, close: () => db.destroy() };
}
