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
  /**
   * Run `work` in one transaction for taking and giving back queue entries (claims with
   * `FOR UPDATE SKIP LOCKED`, outcomes and releases conditioned on the claim that holds a row).
   *
   * SQLite: store.tx. PostgreSQL: READ COMMITTED instead of SERIALIZABLE. Every statement of such
   * work decides by the rows it locks or updates, which PostgreSQL re-reads at their newest
   * committed version, so nothing is lost by the weaker level; and SERIALIZABLE would abort one of
   * two claimers that merely scanned the same index range (a serialization failure and a retry per
   * collision, for no gain). Retried on a deadlock, like store.tx. Never call it from inside a `work`.
   */
  queueTx<T>(work: (trx: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * A claim of queue entries (jobs, messages, webhook deliveries) by one process: the token written
 * into each entry it takes (the process and the claim's number, so two claims never share one),
 * the time of the claim and the end of its lease (Unix seconds, the injected clock).
 */
export interface Claim {
  token: string;
  now: number;
  until: number;
}
