/**
 * Moving the rows of a SQLite store into a PostgreSQL one (`tawqi db copy`, services/databaseCopy.ts).
 *
 * The tables are those of the SQLite database itself (sqlite_master, after it is migrated to the
 * latest schema), not a list kept here: a table a later migration adds is copied without anyone
 * remembering to, and a table the target lacks (or has in addition) stops the copy. Kysely's
 * migration bookkeeping is left out: the target's Migrator writes its own. Tables go in the order
 * of their foreign keys (a referenced table first), each read in primary-key order, a page at a
 * time, inside one read transaction (one snapshot of the source), and written in batches on the
 * caller's target transaction.
 *
 * Values need no conversion: the two schemas were written to hold the same things (migrations.ts,
 * POSTGRES_BASELINE): booleans are INTEGER 0/1 and JSON is TEXT on both engines, timestamps are
 * Unix seconds (INTEGER / BIGINT), blobs are Buffers that pg sends as BYTEA. Identity columns
 * (SQLite's INTEGER PRIMARY KEY) are copied with their values; their sequences are then moved past
 * the largest one, so the next row the server inserts gets a fresh id.
 */
import type SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { sqliteConnection } from './db.js';
import type { Store, Tx } from './types.js';

/** Kysely's migration tables: each engine's Migrator keeps its own. */
const MIGRATOR_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

/** Rows read from SQLite per page. */
const PAGE_ROWS = 500;
/** PostgreSQL takes at most 65535 parameters per statement. */
const MAX_PARAMETERS = 60_000;
/** A batch is sent once its values reach this many bytes (PDF blobs), whatever its row count. */
const BATCH_BYTES = 16 * 1024 * 1024;

type Row = Record<string, unknown>;
/** The target seen table by table, by name: the tables are found at run time, not typed. */
type AnyDb = Kysely<Record<string, Row>>;

export interface TablePlan {
  table: string;
  columns: string[];
  /** Primary-key columns in key order (the read order); empty: the rowid. */
  key: string[];
}

export interface TableCount {
  table: string;
  rows: number;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The tables of a SQLite store, referenced tables before the tables that reference them. */
export function sqliteTablePlan(store: Store): TablePlan[] {
  const raw = sqliteConnection(store);
  const names = (
    raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").all() as {
      name: string;
    }[]
  )
    .map((r) => r.name)
    .filter((n) => !MIGRATOR_TABLES.has(n));
  const plans = new Map<string, TablePlan & { references: string[] }>();
  for (const table of names) {
    const info = raw.prepare(`PRAGMA table_info(${quote(table)})`).all() as { name: string; pk: number }[];
    const references = (raw.prepare(`PRAGMA foreign_key_list(${quote(table)})`).all() as { table: string }[]).map((f) => f.table);
    plans.set(table, {
      table,
      columns: info.map((c) => c.name),
      key: info
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
      references,
    });
  }
  const ordered: TablePlan[] = [];
  const placed = new Set<string>();
  const place = (table: string, path: string[]): void => {
    if (placed.has(table)) return;
    if (path.includes(table)) throw new Error(`foreign keys form a cycle: ${[...path, table].join(' → ')}`);
    const plan = plans.get(table);
    if (!plan) return;
    for (const ref of plan.references) if (ref !== table) place(ref, [...path, table]);
    placed.add(table);
    ordered.push({ table: plan.table, columns: plan.columns, key: plan.key });
  };
  for (const table of names) place(table, []);
  return ordered;
}

/** The tables of a PostgreSQL database (its current schema) and their columns, Kysely's own left out. */
export async function postgresColumns(db: Tx): Promise<Map<string, Set<string>>> {
  const rows = await sql<{ table_name: string; column_name: string }>`
    SELECT c.table_name, c.column_name FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'`.execute(db);
  const out = new Map<string, Set<string>>();
  for (const r of rows.rows) {
    if (MIGRATOR_TABLES.has(r.table_name)) continue;
    if (!out.has(r.table_name)) out.set(r.table_name, new Set());
    out.get(r.table_name)!.add(r.column_name);
  }
  return out;
}

/** Where the target's tables or columns differ from the source's: the two are not at the same migration. */
export function schemaDifferences(plan: readonly TablePlan[], target: Map<string, Set<string>>): string[] {
  const problems: string[] = [];
  const source = new Set(plan.map((p) => p.table));
  for (const p of plan) {
    const columns = target.get(p.table);
    if (!columns) {
      problems.push(`table ${p.table} is missing from the target`);
      continue;
    }
    const missing = p.columns.filter((c) => !columns.has(c));
    const extra = [...columns].filter((c) => !p.columns.includes(c));
    if (missing.length > 0) problems.push(`${p.table}: the target lacks ${missing.join(', ')}`);
    if (extra.length > 0) problems.push(`${p.table}: the source lacks ${extra.join(', ')}`);
  }
  for (const table of target.keys()) if (!source.has(table)) problems.push(`table ${table} is missing from the source`);
  return problems;
}

/** Rows per table of the SQLite store (inside inSqliteSnapshot: the snapshot being copied). */
export function sqliteRowCounts(store: Store, tables: readonly string[]): TableCount[] {
  const raw = sqliteConnection(store);
  return tables.map((table) => ({ table, rows: (raw.prepare(`SELECT count(*) AS n FROM ${quote(table)}`).get() as { n: number }).n }));
}

/** Rows per table of a PostgreSQL database, as `db` (a transaction: what it has written) sees them. */
export async function postgresRowCounts(db: Tx, tables: readonly string[]): Promise<TableCount[]> {
  const out: TableCount[] = [];
  for (const table of tables) {
    const row = await sql<{ n: number | string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db);
    out.push({ table, rows: Number(row.rows[0]!.n) });
  }
  return out;
}

/**
 * Run `work` inside one read transaction of the SQLite store: every page it reads sees the same
 * snapshot, however long the copy takes (WAL: writers are not blocked).
 */
export async function inSqliteSnapshot<T>(store: Store, work: () => Promise<T>): Promise<T> {
  const raw = sqliteConnection(store);
  raw.prepare('BEGIN').run();
  // A deferred transaction takes its snapshot at its first read.
  raw.prepare('SELECT count(*) FROM sqlite_master').get();
  try {
    return await work();
  } finally {
    if (raw.inTransaction) raw.prepare('ROLLBACK').run();
  }
}

/** Every row of `plan.table`, a page at a time in key order. */
function* pages(raw: SQLite.Database, plan: TablePlan): Generator<Row[]> {
  const key = plan.key.length > 0 ? plan.key : ['rowid'];
  const keyList = key.map(quote).join(', ');
  const select = `SELECT ${plan.columns.map(quote).join(', ')}${plan.key.length > 0 ? '' : ', rowid AS "__rowid"'} FROM ${quote(plan.table)}`;
  const first = raw.prepare(`${select} ORDER BY ${keyList} LIMIT ${PAGE_ROWS}`);
  const next = raw.prepare(`${select} WHERE (${keyList}) > (${key.map(() => '?').join(', ')}) ORDER BY ${keyList} LIMIT ${PAGE_ROWS}`);
  let page = first.all() as Row[];
  while (page.length > 0) {
    const last = page[page.length - 1]!;
    const after = key.map((k) => last[k === 'rowid' ? '__rowid' : k]);
    if (plan.key.length === 0) for (const r of page) delete r.__rowid;
    yield page;
    if (page.length < PAGE_ROWS) return;
    page = next.all(...after) as Row[];
  }
}

const sizeOf = (row: Row): number => {
  let n = 0;
  for (const v of Object.values(row)) n += Buffer.isBuffer(v) ? v.length : typeof v === 'string' ? v.length : 8;
  return n;
};

/** Copy one table's rows onto the target transaction; returns how many. */
async function copyTable(raw: SQLite.Database, target: AnyDb, plan: TablePlan): Promise<number> {
  const maxRows = Math.max(1, Math.floor(MAX_PARAMETERS / plan.columns.length));
  let copied = 0;
  let batch: Row[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    try {
      await target.insertInto(plan.table).values(batch).execute();
    } catch (err) {
      throw new Error(`copying table ${plan.table}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    copied += batch.length;
    batch = [];
    bytes = 0;
  };
  for (const page of pages(raw, plan)) {
    for (const row of page) {
      batch.push(row);
      bytes += sizeOf(row);
      if (batch.length >= maxRows || bytes >= BATCH_BYTES) await flush();
    }
  }
  await flush();
  return copied;
}

/** Move every identity (or serial) column's sequence past the largest value the table holds. */
async function resetSequences(target: Tx): Promise<void> {
  const columns = await sql<{ table_name: string; column_name: string }>`
    SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND (is_identity = 'YES' OR column_default LIKE 'nextval(%')`.execute(target);
  for (const { table_name: table, column_name: column } of columns.rows) {
    await sql`SELECT setval(pg_get_serial_sequence(${quote(table)}, ${column}),
        coalesce((SELECT max(${sql.ref(column)}) FROM ${sql.table(table)}), 0) + 1, false)`.execute(target);
  }
}

/**
 * Copy every table of the SQLite `source` (inside inSqliteSnapshot) onto `target`, a transaction
 * of a migrated, empty PostgreSQL database, then reset its sequences. Returns the rows copied per
 * table, in the order copied.
 */
export async function copySqliteTables(
  source: Store,
  target: Tx,
  plan: readonly TablePlan[],
  onTable?: (count: TableCount) => void,
): Promise<TableCount[]> {
  const raw = sqliteConnection(source);
  const out: TableCount[] = [];
  for (const p of plan) {
    const count = { table: p.table, rows: await copyTable(raw, target as unknown as AnyDb, p) };
    out.push(count);
    onTable?.(count);
  }
  await resetSequences(target);
  return out;
}
