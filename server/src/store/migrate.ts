import type SQLite from 'better-sqlite3';
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { MIGRATIONS, POSTGRES_BASELINE } from './migrations.js';
import type { Database } from './schema.js';

/**
 * One migrator for both engines: Kysely's Migrator, its records in `kysely_migration` (one row per
 * migration, named by its zero-padded id: 0001 … 0009), the migrations from migrations.ts.
 *
 * PostgreSQL: the Migrator holds PostgreSQL's advisory lock while it migrates and runs the pending
 * migrations in one transaction, so several processes starting at once migrate once; the others
 * wait for the lock and find nothing left to do. A fresh database gets POSTGRES_BASELINE (recorded
 * under the baseline's id), then the later migrations.
 *
 * SQLite: the whole run is one BEGIN IMMEDIATE transaction on the store's only connection (Kysely's
 * SQLite adapter has no lock of its own and no transactional DDL): a second process (the CLI)
 * waits on the write lock, a failed migration leaves nothing behind. A database made before the
 * Migrator keeps its history in `schema_migrations`; it is copied into `kysely_migration` and
 * dropped in that same transaction, so an existing installation upgrades in place.
 */

/** The Migrator's name of migration `id`: names sort in id order. */
export function migrationName(id: number): string {
  return String(id).padStart(4, '0');
}

const raw = (text: string): Migration => ({
  up: async (db) => {
    await sql.raw(text).execute(db);
  },
});

function postgresMigrations(): Record<string, Migration> {
  const out: Record<string, Migration> = { [migrationName(POSTGRES_BASELINE.through)]: raw(POSTGRES_BASELINE.sql) };
  for (const m of MIGRATIONS) {
    if (m.id <= POSTGRES_BASELINE.through) continue;
    if (m.postgres === undefined) throw new Error(`migration ${m.id} (${m.name}) has no PostgreSQL text`);
    out[migrationName(m.id)] = raw(m.postgres);
  }
  return out;
}

/** SQLite's migrations run on the raw connection: better-sqlite3 runs a script of several statements only through exec. */
function sqliteMigrations(connection: SQLite.Database): Record<string, Migration> {
  const out: Record<string, Migration> = {};
  for (const m of MIGRATIONS) out[migrationName(m.id)] = { up: async () => void connection.exec(m.sql) };
  return out;
}

const provider = (migrations: () => Record<string, Migration>): MigrationProvider => ({ getMigrations: async () => migrations() });

async function run(db: Kysely<Database>, migrations: () => Record<string, Migration>, disableTransactions: boolean): Promise<void> {
  const result = await new Migrator({ db, provider: provider(migrations), disableTransactions }).migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`database migration ${failed ? failed.migrationName + ' ' : ''}failed: ${reason}`, { cause: result.error });
  }
}

/** Bring a PostgreSQL database to the latest schema (safe from several processes at once). */
export async function migratePostgres(db: Kysely<Database>): Promise<void> {
  await run(db, postgresMigrations, false);
}

/** Bring a SQLite database to the latest schema, in one immediate transaction on `connection` (the connection `db` runs on). */
export async function migrateSqlite(db: Kysely<Database>, connection: SQLite.Database): Promise<void> {
  connection.prepare('BEGIN IMMEDIATE').run();
  try {
    adoptSchemaMigrations(connection);
    await run(db, () => sqliteMigrations(connection), true);
    connection.prepare('COMMIT').run();
  } catch (err) {
    if (connection.inTransaction) connection.prepare('ROLLBACK').run();
    throw err;
  }
}

/** Move the history of the hand-rolled migration loop (schema_migrations) into the Migrator's table. */
function adoptSchemaMigrations(connection: SQLite.Database): void {
  const legacy = connection.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!legacy) return;
  // The table as Kysely's Migrator creates it.
  connection.exec(
    'CREATE TABLE IF NOT EXISTS "kysely_migration" ("name" varchar(255) not null primary key, "timestamp" varchar(255) not null)',
  );
  const applied = connection.prepare('SELECT id, applied_at FROM schema_migrations ORDER BY id').all() as {
    id: number;
    applied_at: number;
  }[];
  const record = connection.prepare('INSERT OR IGNORE INTO "kysely_migration" ("name", "timestamp") VALUES (?, ?)');
  for (const m of applied) record.run(migrationName(m.id), new Date(m.applied_at * 1000).toISOString());
  connection.exec('DROP TABLE schema_migrations');
}
