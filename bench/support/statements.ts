/**
 * Every SQL statement the store of this process runs, seen from the client side: on SQLite each
 * execution of a prepared statement on the store's better-sqlite3 connection, on PostgreSQL each
 * query a pg client of this process sends (one round trip each: pg sends Parse/Bind/Execute/Sync
 * together and waits for the answer). Counts executions, not preparations: on SQLite the store caches
 * prepared statements (statementCache.ts), so a statement is prepared once and run many times.
 */
import type { Store } from '../../server/src/store/db.js';
import { sqliteConnection } from '../../server/src/store/db.js';

/**
 * Called with each statement's text, the connection (pg client or SQLite database) it ran on and,
 * on SQLite, the values bound to it (the array better-sqlite3 was given; empty when none).
 */
export type StatementSink = (sql: string, connection: object, values?: readonly unknown[]) => void;

/**
 * Wrap the query methods once for this process; `sink` sees every later statement of the store.
 * On PostgreSQL every query goes through pg.Client#query (Kysely's PostgresDialect on the store's
 * pool); clients in `ignore` (a benchmark's own monitoring connections) are passed over. On SQLite
 * every Statement of the store's connection shares one prototype, whose run/all/get/iterate are
 * wrapped; statements of other connections (the checkpointer's, a reader's) are passed over.
 * Returns a function that puts the original methods back.
 */
export async function watchStatements(store: Store, sink: StatementSink, ignore: WeakSet<object> = new WeakSet()): Promise<() => void> {
  if (store.dialect === 'postgres') {
    const { default: pg } = await import('pg');
    const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
    const original = proto.query;
    proto.query = function (this: object, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | null)?.text;
      if (text && !ignore.has(this)) sink(text, this, []);
      return original.apply(this, args);
    };
    return () => void (proto.query = original);
  }
  const raw = sqliteConnection(store);
  const proto = Object.getPrototypeOf(raw.prepare('SELECT 1')) as Record<
    'run' | 'all' | 'get' | 'iterate',
    (...args: unknown[]) => unknown
  >;
  const originals = (['run', 'all', 'get', 'iterate'] as const).map((method) => {
    const original = proto[method];
    proto[method] = function (this: { source: string; database: object }, ...args: unknown[]) {
      if (this.database === raw) sink(this.source, raw, Array.isArray(args[0]) ? (args[0] as unknown[]) : args);
      return original.apply(this, args);
    };
    return [method, original] as const;
  });
  return () => {
    for (const [method, original] of originals) proto[method] = original;
  };
}

/** Running totals of statements and transactions, as a client sees them. */
export interface StatementCounts {
  /** Every statement, BEGIN/COMMIT/SAVEPOINT included: on PostgreSQL, the round trips. */
  statements: number;
  /** Explicit BEGIN … COMMIT/ROLLBACK blocks plus statements run outside one (each its own transaction). */
  transactions: number;
  /** Explicit blocks ended by ROLLBACK (not ROLLBACK TO a savepoint). */
  rollbacks: number;
  /**
   * Transactions that may write: explicit blocks plus INSERT/UPDATE/DELETE outside one. On
   * PostgreSQL these are the commits that wait for a WAL flush; a read alone does not.
   */
  writeTransactions: number;
}

const WRITE = /^(INSERT|UPDATE|DELETE|REPLACE|WITH)/i;

/** A StatementSink that keeps StatementCounts, following each connection's open transaction. */
export class StatementTally implements StatementCounts {
  statements = 0;
  transactions = 0;
  rollbacks = 0;
  writeTransactions = 0;
  private readonly open = new WeakSet<object>();

  readonly sink: StatementSink = (sql, connection) => {
    this.statements++;
    const s = sql.trimStart();
    if (/^(BEGIN|START TRANSACTION)/i.test(s)) {
      this.open.add(connection);
      this.transactions++;
      this.writeTransactions++;
    } else if (/^(COMMIT|END)\b/i.test(s)) {
      this.open.delete(connection);
    } else if (/^ROLLBACK\s*;?\s*$/i.test(s)) {
      this.open.delete(connection);
      this.rollbacks++;
    } else if (!this.open.has(connection)) {
      this.transactions++;
      if (WRITE.test(s)) this.writeTransactions++;
    }
  };

  snapshot(): StatementCounts {
    const { statements, transactions, rollbacks, writeTransactions } = this;
    return { statements, transactions, rollbacks, writeTransactions };
  }
}
