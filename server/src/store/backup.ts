import { sqliteConnection } from './db.js';
import type { Store } from './types.js';

/** sqlite3_backup_step's largest page count: every remaining page in one step. */
const ALL_PAGES = 0x7fffffff;

/**
 * An online copy of a SQLite store's database into `file` (`tawqi db backup`): SQLite's backup API
 * (better-sqlite3's backup) while the server keeps reading and writing; the copy is one consistent
 * state of the database. PostgreSQL databases are backed up with pg_dump (README).
 *
 * After better-sqlite3's first step (100 pages) the rest is copied in one step. SQLite restarts a
 * backup from the first page whenever another connection (the server's process) commits between
 * two steps, so a copy made a few pages per step never ended while the server took load. One step
 * is one read transaction: in WAL mode the server's commits go on meanwhile (into the WAL, which
 * the checkpointer's PASSIVE checkpoints leave for later), and the copy is that transaction's state.
 */
export async function backupSqliteDatabase(store: Store, file: string): Promise<void> {
  await sqliteConnection(store).backup(file, { progress: () => ALL_PAGES });
}
