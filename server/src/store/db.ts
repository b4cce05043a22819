import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';
import { MIGRATIONS } from './migrations.js';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database> | Kysely<Database>;

export interface Store {
  db: Db;
  raw: SQLite.Database;
  /** Run `work` in one write transaction (BEGIN IMMEDIATE: no upgrade deadlock with the CLI process). */
  tx<T>(work: (trx: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function databasePath(dataDir: string): string {
  return path.join(dataDir, 'tawqi.sqlite');
}

/** Open (and migrate) the SQLite store under dataDir. Safe to open from the server and the CLI at once. */
export function openStore(dataDir: string): Store {
  mkdirSync(dataDir, { recursive: true });
  const raw = new SQLite(databasePath(dataDir));
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('foreign_keys = ON');
  migrate(raw);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
  return {
    db,
    raw,
    tx: (work) =>
      db.connection().execute(async (conn) => {
        await sql`BEGIN IMMEDIATE`.execute(conn);
        try {
          const result = await work(conn);
          await sql`COMMIT`.execute(conn);
          return result;
        } catch (err) {
          await sql`ROLLBACK`.execute(conn);
          throw err;
        }
      }),
    close: async () => {
      await db.destroy();
    },
  };
}

function migrate(raw: SQLite.Database): void {
  raw.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  const apply = raw.transaction(() => {
    const done = new Set((raw.prepare('SELECT id FROM schema_migrations').all() as { id: number }[]).map((r) => r.id));
    for (const m of MIGRATIONS) {
      if (done.has(m.id)) continue;
      raw.exec(m.sql);
      raw.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(m.id, m.name, Math.floor(Date.now() / 1000));
    }
  });
  apply.immediate();
}

export function parseJson<T>(text: string): T {
  return JSON.parse(text) as T;
}
