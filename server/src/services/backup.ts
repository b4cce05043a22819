/**
 * `tawqi db backup --to <folder>` (SQLite installations): a copy of DATA_DIR that is itself a
 * DATA_DIR, taken while the server runs. Restoring is starting a server with DATA_DIR set to it (or
 * moving it into place). What a SQLite installation is made of, and the order it is copied in:
 *
 *   tawqi.sqlite   SQLite's online backup: one consistent state of the database, first;
 *   secrets.json   the link, document and console keys (mode 0600);
 *   pki/           the CA, seal, TSA, OCSP and evidence keys, issued certificates, revocations;
 *   documents/     every stored file (sealed PDFs), after the database: every file a row of the
 *                  copied database names was written before it (a PDF sealed later is an extra file,
 *                  harmless).
 *
 * Files kept in an S3 bucket (TAWQI_STORAGE=s3) are not under DATA_DIR: back the bucket up on its
 * own (README, Backup and restore). PostgreSQL installations use pg_dump instead.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { backupSqliteDatabase } from '../store/backup.js';
import { databasePath, type Store } from '../store/db.js';
import { FolderStorage } from '../store/files/index.js';
import { OperatorError } from './accounts.js';

export interface BackupSummary {
  folder: string;
  database_bytes: number;
  secrets: boolean;
  pki: boolean;
  files: { count: number; bytes: number };
}

/** Back up the SQLite installation of `dataDir` (its open `store`) into the new or empty folder `to`. */
export async function backupSqliteInstallation(store: Store, dataDir: string, to: string): Promise<BackupSummary> {
  const folder = path.resolve(to);
  if (path.resolve(dataDir) === folder) throw new OperatorError('The backup folder is DATA_DIR itself: give another folder');
  if (existsSync(folder) && readdirSync(folder).length > 0) {
    throw new OperatorError(`The backup folder ${folder} is not empty: give a new or empty folder`);
  }
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  await backupSqliteDatabase(store, databasePath(folder));
  const secrets = path.join(dataDir, 'secrets.json');
  if (existsSync(secrets)) cpSync(secrets, path.join(folder, 'secrets.json'));
  const pki = path.join(dataDir, 'pki');
  // Node's cp keeps each file's and folder's mode (0600 keys, 0700 folders).
  if (existsSync(pki)) cpSync(pki, path.join(folder, 'pki'), { recursive: true, filter: (src) => !path.basename(src).startsWith('.') });
  const from = new FolderStorage(dataDir);
  const into = new FolderStorage(folder);
  let bytes = 0;
  const keys = await from.keys();
  for (const key of keys) {
    const data = await from.get(key);
    if (!data) continue; // removed since it was listed
    await into.put(key, data);
    bytes += data.length;
  }
  return {
    folder,
    database_bytes: statSync(databasePath(folder)).size,
    secrets: existsSync(secrets),
    pki: existsSync(pki),
    files: { count: keys.length, bytes },
  };
}
