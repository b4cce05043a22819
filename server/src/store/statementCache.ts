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
  readonly #cache = new Map<string, CachedStatement>();

  constructor(
    readonly raw: SQLite.Database,
    private readonly max = 500,
  ) {}

  prepare(sql: string): CachedStatement {
    const cache = this.#cache;
    let stmt = cache.get(sql);
    // A statement still being iterated (a streamed select) cannot run again: prepare another.
    if (stmt !== undefined && !stmt.busy) return stmt;
    const replacing = stmt !== undefined;
    stmt = new CachedStatement(this.raw.prepare(sql));
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

/**
 * One prepared statement as Kysely runs it. A reader's rows come from better-sqlite3 as arrays
 * (its raw mode) and are made into objects here, each a copy of one template object with the
 * statement's columns. Why: better-sqlite3 builds a row object in C++, setting each column through
 * V8's generic property path with the column's name looked up in V8's string table again for
 * every row; on the GET of a request (five rows of some thirty columns) that was most of the time
 * `all` took, and far more than SQLite's own work (README, Performance). Copies of one template
 * share one hidden class, so the code that reads the rows stays monomorphic too.
 *
 * The rows are the objects better-sqlite3 would give: a property per column in the statement's
 * order, a repeated name holding its last column's value. SQLite prepares a statement again by
 * itself when another connection changes the schema, and a `SELECT *` may then have more or fewer
 * columns: a row of another width reloads the names first. A change that keeps the width (a
 * renamed column) is not seen: code older than its schema already fails there, in the explicit
 * column lists of its INSERTs and UPDATEs.
 */
export class CachedStatement implements SqliteStatement {
  #names: string[] = [];
  #template: Record<string, unknown> = {};

  constructor(private readonly statement: SQLite.Statement) {
    if (statement.reader) {
      statement.raw(true);
      this.#loadColumns();
    }
  }

  get reader(): boolean {
    return this.statement.reader;
  }

  /** True while an iteration of this statement is open (it cannot run again until it ends). */
  get busy(): boolean {
    return this.statement.busy;
  }

  all(parameters: readonly unknown[]): unknown[] {
    if (!this.statement.reader) return this.statement.all(parameters);
    const rows = this.statement.all(parameters) as unknown[][];
    const objects = new Array<unknown>(rows.length);
    for (let i = 0; i < rows.length; i++) objects[i] = this.#object(rows[i]!);
    return objects;
  }

  run(parameters: readonly unknown[]): SQLite.RunResult {
    return this.statement.run(parameters);
  }

  *iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    if (!this.statement.reader) return yield* this.statement.iterate(parameters);
    for (const row of this.statement.iterate(parameters) as IterableIterator<unknown[]>) yield this.#object(row);
  }

  #object(row: unknown[]): Record<string, unknown> {
    if (row.length !== this.#names.length) this.#loadColumns();
    const names = this.#names;
    const object = { ...this.#template };
    for (let i = 0; i < row.length; i++) object[names[i]!] = row[i];
    return object;
  }

  #loadColumns(): void {
    this.#names = this.statement.columns().map((column) => column.name);
    // Every name an own property (defineProperty: a column named __proto__ too), in column order.
    const template: Record<string, unknown> = {};
    for (const name of this.#names)
      Object.defineProperty(template, name, { value: null, writable: true, enumerable: true, configurable: true });
    this.#template = template;
  }
}
