import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from './schema.js';
import { migratePostgres, migrateSqlite } from './migrate.js';
import { openPostgres } from './postgres.js';
import { CachedStatements } from './statementCache.js';
import { startCheckpointer, WAL_RESTART_FRAMES, type Checkpointer } from './checkpointer.js';
import { groupCommit } from './groupCommit.js';
import { registerRoot } from './compiled.js';

export type { Db, Tx, Store } from './types.js';
import type { Store } from './types.js';

/** SQLite's page cache of the server's connection, in KiB (`cache_size` = −this): memory bounded by design. */
export const SQLITE_CACHE_KIB = 16384;
/**
 * How much of the database file is read through a memory map (`mmap_size`): none. In WAL mode a
 * memory-mapped read looks every page up in the WAL index before the page cache (a cached page
 * too), and the WAL is large between checkpoints: a key-and-account read cost 14 µs mapped against
 * 7.8 µs unmapped beside 59 MB of WAL, and a create's statements 9% more CPU (README, Performance).
 */
export const SQLITE_MMAP_BYTES = 0;

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
  /**
   * How long a SQLite write waits for another process's write lock before it fails with
   * "database is locked" (busy_timeout; default 5 s). The server keeps the default: its wait sleeps
   * on the event loop. The CLI waits longer (kit.ts): an operator's command had rather wait for a
   * busy server than fail.
   */
  busyTimeoutMs?: number;
}

/** Where the store is and how to open it. */
export interface OpenOptions extends StoreOptions {
  /** postgres://… (DATABASE_URL): PostgreSQL instead of the SQLite file under dataDir. */
  databaseUrl?: string;
  /** PostgreSQL connections this process may hold (TAWQI_PG_POOL_SIZE). */
  poolSize?: number;
  /** Told when an idle pooled PostgreSQL connection fails. */
  onPoolError?: (err: unknown) => void;
}

/**
 * Open (and migrate) the store: PostgreSQL when a database URL is given, otherwise SQLite under
 * dataDir. Safe to open from several processes at once (servers, the CLI).
 */
export async function openStore(dataDir: string, options: OpenOptions = {}): Promise<Store> {
  if (options.databaseUrl) {
    const engine = await openPostgres(options.databaseUrl, options);
    try {
      await migratePostgres(engine.db);
    } catch (err) {
      await engine.close();
      throw err;
    }
    const { db, tx, lockingTx, groupTx, close } = engine;
    return { db, dialect: 'postgres', tx, lockingTx, groupTx, close };
  }
  return openSqlite(dataDir, options);
}

/** The SQLite connection behind a SQLite store (tests of SQLite's own machinery); the store owns it. */
export function sqliteConnection(store: Store): SQLite.Database {
  const raw = sqliteConnections.get(store);
  if (!raw) throw new Error('not a SQLite store');
  return raw;
}

const sqliteConnections = new WeakMap<Store, SQLite.Database>();

async function openSqlite(dataDir: string, options: StoreOptions): Promise<Store> {
  mkdirSync(dataDir, { recursive: true });
  const file = databasePath(dataDir);
  const raw = new SQLite(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
  raw.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  raw.pragma('foreign_keys = ON');
  // Sorts and temporary indexes in memory; a 16 MiB page cache; no memory map (SQLITE_MMAP_BYTES).
  raw.pragma('temp_store = MEMORY');
  raw.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  raw.pragma(`mmap_size = ${SQLITE_MMAP_BYTES}`);
  const statements = new CachedStatements(raw);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  try {
    await migrateSqlite(db, raw);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  let checkpointer: Checkpointer | null = null;
  if (options.checkpointWorker) {
    raw.pragma('wal_autocheckpoint = 0');
    // A restarted WAL's file is cut back to the restart bound at its first commit (checkpointer.ts).
    raw.pragma(`journal_size_limit = ${WAL_RESTART_FRAMES * 4096}`);
    checkpointer = startCheckpointer(
      file,
      (err) => {
        if (raw.open) raw.pragma('wal_autocheckpoint = 1000');
        options.onCheckpointFailure?.(err);
      },
      // Holding the one connection holds every write transaction (group commits queue behind it);
      // reads outside a transaction go on (compiled.ts).
      {
        pauseWrites: (catchUp) =>
          void db
            .connection()
            .execute(catchUp)
            .catch(() => undefined),
      },
    );
  }
  registerRoot(db, raw, statements);
  const tx = groupCommit(db, raw, statements);
  const store: Store = {
    db,
    dialect: 'sqlite',
    tx,
    // One process per SQLite database, and its write transactions never overlap: nothing to weaken.
    lockingTx: tx,
    // groupCommit.ts already shares one transaction among the writes of a turn.
    groupTx: (work) => tx(work),
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
  sqliteConnections.set(store, raw);
  return store;
}

export function parseJson<T>(text: string): T {
  return JSON.parse(text) as T;
}
