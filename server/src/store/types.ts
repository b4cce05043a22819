import type { Kysely, Transaction } from 'kysely';
import type { Dialect } from './dialect.js';
import type { Database } from './schema.js';

/** The store's types, apart from how it is opened (db.ts), so the query helpers (compiled.ts) need not import db.ts. */
export type Db = Kysely<Database>;
export type Tx = Transaction<Database> | Kysely<Database>;

export interface Store {
  db: Db;
  /** The engine: SQLite under DATA_DIR (the default) or PostgreSQL (DATABASE_URL). */
  dialect: Dialect;
  /**
   * Run `work` in one write transaction.
   *
   * SQLite: BEGIN IMMEDIATE (no upgrade deadlock with the CLI process). Transactions asked for in
   * the same event-loop turn share one SQLite transaction, each in its own savepoint, and settle
   * after the shared COMMIT (group commit, groupCommit.ts): a `work` that throws undoes its own
   * writes only. PostgreSQL: one SERIALIZABLE transaction per call on a pooled connection
   * (postgres.ts), retried on a serialization failure or deadlock.
   * Never call store.tx from inside a `work`.
   */
  tx<T>(work: (trx: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
