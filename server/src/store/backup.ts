import { sqliteConnection } from './db.js';
import type { Store } from './types.js';

/**
 * An online copy of a SQLite store's database into `file` (`tawqi db backup`): SQLite's backup API
 * (better-sqlite3's backup), page by page, while the server keeps reading and writing; the copy is
 * one consistent state of the database. PostgreSQL databases are backed up with pg_dump (README).
 */
export async function backupSqliteDatabase(store: Store, file: string): Promise<void> {
  await sqliteConnection(store).backup(file);
}
