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
   * the same event-loop turn share one SQLite transaction and settle after the shared COMMIT (group
   * commit, groupCommit.ts): a `work` that throws undoes its own writes only, and may make the
   * group's other works run again (so, as on PostgreSQL, a `work` must be safe to run again: no
   * effect outside the transaction before it returns). PostgreSQL: one SERIALIZABLE transaction per call on a pooled connection
   * (postgres.ts), retried on a serialization failure or deadlock: the safe default for code
   * written for SQLite's one writer at a time. Hot paths that follow lockingTx's rule use that.
   * Never call store.tx from inside a `work`.
   */
  tx<T>(work: (trx: Db) => Promise<T>): Promise<T>;
  /**
   * Run `work` in one transaction that decides by row locks, not by serializable isolation.
   *
   * SQLite: store.tx (one writer at a time: every transaction is serial anyway). PostgreSQL: READ
   * COMMITTED instead of SERIALIZABLE, retried on a deadlock (40P01) like store.tx. For the paths
   * where SERIALIZABLE turned collisions on one hot row into a storm of 40001 rollbacks and retries
   * (a create for one account: its daily counters, its balance) and for queue claims (two claimers
   * that merely scanned the same index range would abort one another).
   *
   * The rule a `work` run here must follow, since nothing aborts it for what it read:
   * - every read-then-write is either one atomic statement that decides by the row it writes
   *   (`UPDATE … SET n = n + 1 … RETURNING`, an upsert, a guarded `UPDATE … WHERE balance >= x`, a
   *   claim `FOR UPDATE SKIP LOCKED`, an outcome conditioned on the claim that holds a row), which
   *   PostgreSQL evaluates on the row's newest committed version after waiting for its lock; or the
   *   row is locked first (`SELECT … FOR UPDATE` on PostgreSQL, as accounts.ts getBalance does) and
   *   then read at that newest version;
   * - what it reads without a lock (a template, the webhook endpoints) is only used as of that read,
   *   as it would be by a transaction that ran at that moment;
   * - locks in one order: the account's rows (its balance, then its counters) before a request's.
   * A SERIALIZABLE store.tx that later writes a row written here still fails with 40001 and is run
   * again (first updater wins at any level), so the two kinds never lose each other's update.
   * Never call it from inside a `work`.
   */
  lockingTx<T>(work: (trx: Db) => Promise<T>): Promise<T>;
  /**
   * lockingTx that may share its transaction with the other groupTx calls of the moment: the
   * creates. SQLite: store.tx (already a group commit). PostgreSQL: pgGroupCommit.ts — one
   * transaction, one INSERT per table and one COMMIT for the group, each result settled after the
   * commit; a member that fails after writing sends every member back to run alone. Besides
   * lockingTx's rule, a `work` here takes no SKIP LOCKED claims and must not mind seeing the rows
   * the other members of its group wrote. `key` (the account) orders the members, so groups take
   * the accounts' locks in one order. Never call it from inside a `work`.
   */
  groupTx<T>(work: (trx: Db) => Promise<T>, key?: string): Promise<T>;
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
