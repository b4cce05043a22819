import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type QueryResult,
  type RawBuilder,
  type SqliteDatabase,
} from 'kysely';
import type { Tx } from './types.js';
import type { Dialect } from './dialect.js';
import type { Codec } from './rowCodec.js';
import type { Database } from './schema.js';

/**
 * Queries written with Kysely's builder but built and compiled once, then run many times with new
 * values through Kysely's own executor (so they take part in the caller's transaction and wait
 * for the single connection like any other query).
 *
 * Why: building and compiling a query costs more than running it on SQLite. On the create
 * benchmark (bench/create-requests) Kysely's builder, compiler and the objects they allocate were
 * about a quarter of the server's CPU; an INSERT costs 10.9 µs built each time, 4.0 µs
 * precompiled, 3.0 µs as a bare better-sqlite3 statement. The SQL text of a precompiled query is
 * also one string, so the prepared-statement cache (statementCache.ts) finds it without hashing
 * a fresh copy. Used by the store functions on the hot path (create, jobs, idempotency, keys);
 * everything else builds its queries as usual.
 *
 * A value is marked in the builder with `$(i)` (argument i of `run`); anything else the builder
 * turns into a parameter (a literal null, a constant 1) stays a constant.
 *
 * Each query is compiled for SQLite when its module loads and for PostgreSQL ($1 placeholders) the
 * first time it runs on a PostgreSQL store; the builder is told the dialect, for the few raw
 * statements whose SQL differs. The direct-execution shortcuts below are SQLite's alone.
 */
const compilers: Record<Dialect, Kysely<Database>> = {
  sqlite: new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  }),
  postgres: new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  }),
};

const MARK = '\u0000tawqi-arg:';

/**
 * The connections a group commit holds at this moment (groupCommit.ts), with the database their
 * statements run on. A precompiled query run on one of them goes straight to its prepared
 * statement, as Kysely's SQLite driver would run it, without Kysely's executor and connection
 * mutex in between (the group already owns the connection, and the member's transaction is open):
 * about 1 µs and a few promises less per statement, some 30 statements per create.
 */
const held = new WeakMap<object, SqliteDatabase>();

/**
 * The stores' root Kysely instances, with their connection and the database Kysely prepares on
 * (db.ts, openStore). A precompiled *read* on a root instance while no transaction is open on the
 * connection runs directly too: a synchronous autocommit read sees committed data only, and
 * nothing can interleave with it. Inside an open transaction (a group between its members, a
 * Kysely transaction) it waits for the connection through Kysely as before, so it never reads
 * another request's uncommitted writes. Authentication and the idempotency lookup take this path.
 */
const roots = new WeakMap<object, { raw: { readonly inTransaction: boolean }; database: SqliteDatabase }>();

/** Register a store's root Kysely instance (db.ts). */
export function registerRoot(db: object, raw: { readonly inTransaction: boolean }, database: SqliteDatabase): void {
  roots.set(db, { raw, database });
}

/** Mark `conn` as held by a group commit until the returned function is called. */
export function holdConnection(conn: object, database: SqliteDatabase): () => void {
  held.set(conn, database);
  return () => held.delete(conn);
}

/** What Kysely's SqliteConnection.executeQuery does, synchronously. */
function executeDirect<R>(database: SqliteDatabase, sql: string, parameters: readonly unknown[]): QueryResult<R> {
  const stmt = database.prepare(sql);
  if (stmt.reader) return { rows: stmt.all(parameters) as R[] };
  const { changes, lastInsertRowid } = stmt.run(parameters);
  return {
    numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
    insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
    rows: [],
  };
}

/** Marks argument `i` in a query being built; the value comes from `run(db, args)`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Arg = (i: number) => any;

/** A query builder (compile()) or a sql`` template (compile(executorProvider)). */
type Buildable<R> = { compile(): CompiledQuery<R> } | RawBuilder<R>;

/** Builds a query on a dialect's compiler; `$(i)` marks argument i. */
export type Build<R> = (db: Kysely<Database>, $: Arg, dialect: Dialect) => Buildable<R>;

/** One dialect's compiled form of a query. */
class Compiled<R> {
  readonly query: CompiledQuery<R>;
  /** Per parameter: the argument index, or -1 for a constant. */
  readonly slots: number[] = [];
  readonly constants: unknown[] = [];

  constructor(build: Build<R>, dialect: Dialect) {
    const compiler = compilers[dialect];
    const built = build(compiler, (i) => MARK + i, dialect);
    this.query = (built as RawBuilder<R>).compile(compiler);
    if (this.query.sql.includes(MARK)) throw new Error(`an argument was inlined into the SQL, not bound: ${this.query.sql}`);
    for (const p of this.query.parameters) {
      const arg = typeof p === 'string' && p.startsWith(MARK) ? Number(p.slice(MARK.length)) : -1;
      this.slots.push(arg);
      this.constants.push(arg === -1 ? p : undefined);
    }
  }

  parameters(args: readonly unknown[]): unknown[] {
    const slots = this.slots;
    const parameters = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) parameters[i] = slots[i] === -1 ? this.constants[i] : args[slots[i]!];
    return parameters;
  }
}

export class Precompiled<R> {
  readonly #build: Build<R>;
  readonly #compiled: CompiledQuery<R>;
  /** Per parameter: the argument index, or -1 for a constant. */
  readonly #slots: number[];
  readonly #constants: unknown[];
  #postgres: Compiled<R> | undefined;

  constructor(build: Build<R>) {
    this.#build = build;
    const sqlite = new Compiled(build, 'sqlite');
    this.#compiled = sqlite.query;
    this.#slots = sqlite.slots;
    this.#constants = sqlite.constants;
  }

  /** The SQLite SQL (tests read its query plan). */
  get sql(): string {
    return this.#compiled.sql;
  }

  #forPostgres(): Compiled<R> {
    return (this.#postgres ??= new Compiled(this.#build, 'postgres'));
  }

  run(db: Tx, args: readonly unknown[]): Promise<QueryResult<R>> {
    const slots = this.#slots;
    const parameters = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) parameters[i] = slots[i] === -1 ? this.#constants[i] : args[slots[i]!];
    const c = this.#compiled;
    const direct = held.get(db);
    if (direct !== undefined) {
      try {
        return Promise.resolve(executeDirect<R>(direct, c.sql, parameters));
      } catch (err) {
        return Promise.reject(err as Error);
      }
    }
    const root = roots.get(db);
    if (root !== undefined && !root.raw.inTransaction) {
      try {
        const stmt = root.database.prepare(c.sql);
        if (stmt.reader) return Promise.resolve({ rows: stmt.all(parameters) as R[] });
      } catch (err) {
        return Promise.reject(err as Error);
      }
    }
    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      const pg = this.#forPostgres();
      const q = pg.query;
      return db.executeQuery<R>({ query: q.query, queryId: q.queryId, sql: q.sql, parameters: pg.parameters(args) });
    }
    return db.executeQuery<R>({ query: c.query, queryId: c.queryId, sql: c.sql, parameters });
  }
}

/**
 * PostgreSQL reads outside any transaction that several requests ask for in the same event-loop
 * turn, with the same values (authentication: the same key, the same account): one query for all
 * of them, sent once the turn's asks are in, its rows given to each (callers decode them into
 * objects of their own). Each asker gets what one read of its own, made at that moment, would
 * have returned: the query is sent after every ask it answers, so a change committed before an
 * ask (a revoked key) is seen. On anything but a PostgreSQL store's root instance (a transaction,
 * a group commit's member, SQLite, where a read is a function call) the query simply runs.
 */
const sharedReads = new Map<object, Map<string, Promise<QueryResult<unknown>>>>();
let sharedTurn = false;
/** The PostgreSQL stores' root Kysely instances (postgres.ts): not a transaction, not a group member. */
const postgresRoots = new WeakSet<object>();

export function registerPostgresRoot(db: object): void {
  postgresRoots.add(db);
}

export function runShared<R>(db: Tx, q: Precompiled<R>, args: readonly unknown[]): Promise<QueryResult<R>> {
  if (!postgresRoots.has(db)) return q.run(db, args);
  if (!sharedTurn) {
    sharedTurn = true;
    setImmediate(() => {
      sharedTurn = false;
      sharedReads.clear();
    });
  }
  let byDb = sharedReads.get(db);
  if (!byDb) sharedReads.set(db, (byDb = new Map()));
  const key = `${JSON.stringify(args)}\u0000${q.sql}`;
  let read = byDb.get(key) as Promise<QueryResult<R>> | undefined;
  if (!read) {
    // Sent in the turn's check phase, after the asks of this turn.
    read = new Promise<void>((resolve) => setImmediate(resolve)).then(() => q.run(db, args));
    byDb.set(key, read as Promise<QueryResult<unknown>>);
  }
  return read;
}

/** Build and compile a query once (where it is declared, when its module loads). */
export function precompile<R>(build: Build<R>): Precompiled<R> {
  return new Precompiled(build);
}

type Table = keyof Database & string;
const shaped = new Map<string, Precompiled<unknown>>();

/** One compiled query per table, statement kind and column list (rows and changes vary in shape). */
function byShape<R>(key: string, build: Build<R>): Precompiled<R> {
  let q = shaped.get(key) as Precompiled<R> | undefined;
  if (!q) {
    q = new Precompiled(build);
    shaped.set(key, q as Precompiled<unknown>);
  }
  return q;
}

/** The columns with a value: like Kysely, an undefined value leaves its column out. */
const present = (values: Record<string, unknown>): string[] => Object.keys(values).filter((k) => values[k] !== undefined);

/** The last column list inserted into each table (and returning column): most inserts repeat it. */
const lastInsertShape = new Map<string, { columns: string[]; query: Precompiled<unknown> }>();

/**
 * INSERT a record, encoding it on the way (its codec's JSON columns as text, booleans as 0/1;
 * undefined fields left out, like Kysely). One pass over the record: when its fields are the
 * columns of the table's previous insert, in the same order — records of one type always are —
 * the compiled query is reused without building a shape key; otherwise it is found by shape.
 * What encodeRow + insertRow do, at a fraction of the allocations, for the rows every create writes.
 */
export function insertRecord<R extends object>(
  db: Tx,
  table: Table,
  codec: Codec<R> | null,
  record: R,
  returning?: string,
): Promise<QueryResult<Record<string, unknown>>> {
  const cacheKey = returning ? `${table}\u0000${returning}` : table;
  const last = lastInsertShape.get(cacheKey);
  const kinds = codec ? columnKinds(codec) : null;
  const args: unknown[] = [];
  let same = last !== undefined;
  for (const k in record) {
    const v = (record as Record<string, unknown>)[k];
    if (v === undefined) continue;
    if (same && last!.columns[args.length] !== k) same = false;
    const kind = kinds?.get(k);
    args.push(kind === JSON_COLUMN ? (v === null ? null : JSON.stringify(v)) : kind === BOOL_COLUMN ? (v ? 1 : 0) : v);
  }
  if (same && args.length === last!.columns.length) return last!.query.run(db, args) as Promise<QueryResult<Record<string, unknown>>>;
  const columns = present(record as Record<string, unknown>);
  const query = insertQuery(table, columns, returning);
  lastInsertShape.set(cacheKey, { columns, query });
  return query.run(db, args) as Promise<QueryResult<Record<string, unknown>>>;
}

/**
 * INSERT several records of one table, in order. PostgreSQL: one multi-row INSERT when every record
 * has the same columns — one round trip instead of one per row (a create's signers, messages and
 * events). SQLite: one insertRecord per row, as before: there a statement is a function call, not
 * a round trip, and the single-row statements are already prepared and cached.
 */
export async function insertRecords<R extends object>(db: Tx, table: Table, codec: Codec<R> | null, records: readonly R[]): Promise<void> {
  const first = records[0];
  if (first === undefined) return;
  const columns = present(first as Record<string, unknown>);
  if (
    records.length === 1 ||
    !(db.getExecutor().adapter instanceof PostgresAdapter) ||
    !records.every((r) => sameColumns(r as Record<string, unknown>, columns))
  ) {
    for (const r of records) await insertRecord(db, table, codec, r);
    return;
  }
  const kinds = codec ? columnKinds(codec) : null;
  const args: unknown[] = [];
  for (const r of records) {
    for (const c of columns) {
      const v = (r as Record<string, unknown>)[c];
      const kind = kinds?.get(c);
      args.push(kind === JSON_COLUMN ? (v === null ? null : JSON.stringify(v)) : kind === BOOL_COLUMN ? (v ? 1 : 0) : v);
    }
  }
  const n = columns.length;
  const q = byShape(`insert-many\u0000${table}\u0000${records.length}\u0000${columns.join(',')}`, (b, $) =>
    b.insertInto(table).values(
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      records.map((_, row) => Object.fromEntries(columns.map((c, i) => [c, $(row * n + i)]))) as any,
    ),
  );
  await q.run(db, args);
}

/** The record's present columns are exactly `columns`, in that order. */
function sameColumns(record: Record<string, unknown>, columns: readonly string[]): boolean {
  let i = 0;
  for (const k in record) {
    if (record[k] === undefined) continue;
    if (columns[i++] !== k) return false;
  }
  return i === columns.length;
}

const JSON_COLUMN = 1;
const BOOL_COLUMN = 2;
const kindsByCodec = new WeakMap<object, Map<string, number>>();

function columnKinds<R>(codec: Codec<R>): Map<string, number> {
  let kinds = kindsByCodec.get(codec);
  if (!kinds) {
    kinds = new Map();
    for (const c of codec.json) kinds.set(c as string, JSON_COLUMN);
    for (const c of codec.bool) kinds.set(c as string, BOOL_COLUMN);
    kindsByCodec.set(codec, kinds);
  }
  return kinds;
}

function insertQuery(table: Table, columns: readonly string[], returning?: string): Precompiled<unknown> {
  return byShape(`insert\u0000${table}\u0000${returning ?? ''}\u0000${columns.join(',')}`, (b, $) => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const insert = b.insertInto(table).values(Object.fromEntries(columns.map((c, i) => [c, $(i)])) as any);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return returning ? insert.returning(returning as any) : insert;
  });
}

/** INSERT one row (already encoded: JSON as text, booleans as 0/1); `returning` names one column to read back. */
export function insertRow(
  db: Tx,
  table: Table,
  row: Record<string, unknown>,
  returning?: string,
): Promise<QueryResult<Record<string, unknown>>> {
  return insertRecord(db, table, null, row, returning);
}

/** UPDATE … SET the changed columns (already encoded) WHERE id = ?. */
export function updateById(db: Tx, table: Table, id: string, changes: Record<string, unknown>): Promise<QueryResult<unknown>> {
  const columns = present(changes);
  const q = byShape(`update\u0000${table}\u0000${columns.join(',')}`, (b, $) =>
    b
      .updateTable(table)
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      .set(Object.fromEntries(columns.map((c, i) => [c, $(i)])) as any)
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      .where('id' as any, '=', $(columns.length)),
  );
  const args = columns.map((c) => changes[c]);
  args.push(id);
  return q.run(db, args);
}
