import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from './schema.js';
import { MIGRATIONS } from './migrations.js';
import { CachedStatements } from './statementCache.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { groupCommit } from './groupCommit.js';
import { registerRoot } from './compiled.js';

export type { Db, Tx, Store } from './types.js';
import type { Store } from './types.js';

export function databasePath(dataDir: string): string {
  return path.join(dataDir, 'tawqi.sqlite');
}

export interface StoreOptions {
  /**
   * SQLite's synchronous setting (TAWQI_SQLITE_SYNCHRONOUS). 'full' (the default): each commit
   * syncs the WAL to disk before it returns, so an answered request, a charge or a signature
   * survives a power cut; group commit (groupCommit.ts) shares that one sync among every request
   * of a turn. 'normal': no sync per commit; a crash of the process loses nothing, a power cut or
   * OS crash may lose the last commits.
   */
  synchronous?: 'full' | 'normal';
  /**
   * Checkpoint the WAL from a worker thread instead of during commits (the server; DESIGN §7).
   * Other openers (the CLI) keep SQLite's automatic checkpoints.
   */
  checkpointWorker?: boolean;
  /** Told when the checkpoint worker fails (automatic checkpoints are then back on). */
  onCheckpointFailure?: (err: unknown) => void;
}

/** Open (and migrate) the SQLite store under dataDir. Safe to open from the server and the CLI at once. */
export function openStore(dataDir: string, options: StoreOptions = {}): Store {
  mkdirSync(dataDir, { recursive: true });
  const file = databasePath(dataDir);
  const raw = new SQLite(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
  raw.pragma('busy_timeout = 5000');
  raw.pragma('foreign_keys = ON');
  // Sorts and temporary indexes in memory; a 16 MiB page cache; reads through a memory map.
  raw.pragma('temp_store = MEMORY');
  raw.pragma('cache_size = -16384');
  raw.pragma('mmap_size = 268435456');
  migrate(raw);
  let checkpointer: Checkpointer | null = null;
  if (options.checkpointWorker) {
    raw.pragma('wal_autocheckpoint = 0');
    checkpointer = startCheckpointer(file, (err) => {
      if (raw.open) raw.pragma('wal_autocheckpoint = 1000');
      options.onCheckpointFailure?.(err);
    });
  }
  const statements = new CachedStatements(raw);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  registerRoot(db, raw, statements);
  return {
    db,
    raw,
    tx: groupCommit(db, raw, statements),
    close: async () => {
      await checkpointer?.stop();
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
