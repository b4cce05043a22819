import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * The database Kysely's SqliteDialect talks to: better-sqlite3 with a bounded cache of prepared
 * statements by SQL text. Kysely calls `prepare(sql)` for every query it runs; compiling the same
 * SQL again each time cost about 15% of the server's CPU on the create benchmark
 * (bench/create-requests). Past `max` statements the oldest one is dropped (first in, first out:
 * a hit costs one map lookup; a hot statement dropped is simply prepared again), so queries whose
 * text varies (IN lists of different lengths) cannot grow it without bound.
 */
export class CachedStatements implements SqliteDatabase {
  readonly #cache = new Map<string, SQLite.Statement>();

  constructor(
    readonly raw: SQLite.Database,
    private readonly max = 500,
  ) {}

  prepare(sql: string): SqliteStatement {
    const cache = this.#cache;
    let stmt = cache.get(sql);
    // A statement still being iterated (a streamed select) cannot run again: prepare another.
    if (stmt !== undefined && !stmt.busy) return stmt;
    const replacing = stmt !== undefined;
    stmt = this.raw.prepare(sql);
    if (!replacing && cache.size >= this.max) cache.delete(cache.keys().next().value!);
    cache.set(sql, stmt);
    return stmt;
  }

  /** How many statements are cached (for tests and diagnostics). */
  get size(): number {
    return this.#cache.size;
  }

  close(): void {
    this.#cache.clear();
    this.raw.close();
  }
}
