/**
 * `tawqi db copy --to postgres://…`: a whole SQLite installation (DATA_DIR) moved into a PostgreSQL
 * database, so that servers started on that database carry on where the SQLite server stopped:
 *
 *   rows    every table (store/copy.ts: the tables of the SQLite schema itself, in foreign-key
 *           order, one snapshot), the target migrated first by the same Migrator;
 *   keys    DATA_DIR/secrets.json and DATA_DIR/pki into server_keys and pki_certificates, sealed
 *           with TAWQI_MASTER_KEY exactly as a first PostgreSQL start stores its own
 *           (keyMaterial.ts): the same link, document, CA, seal, TSA, OCSP and evidence keys;
 *   files   every file of DATA_DIR's collections (sealed PDFs) into the target storage, byte for
 *           byte: the files table (TAWQI_STORAGE=postgres, the default), or an S3 bucket.
 *
 * Rows, keys and files-in-the-database are written in ONE target transaction, counted again inside
 * it before it commits: a failure leaves the target as empty as it was, and the copy can simply be
 * run again. Files bound for S3 are put before that transaction (a failed run leaves objects that
 * the next run overwrites with the same bytes). The target must be empty: a copy never merges two
 * installations. The SQLite server should be stopped first: what it writes after the snapshot is
 * not copied.
 */
import { existsSync } from 'node:fs';
import { nowSeconds, type Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { MasterKey } from '../masterKey.js';
import { readSecretsFile } from '../secrets.js';
import { readFolderPki } from '../sealing/pki/index.js';
import {
  copySqliteTables,
  inSqliteSnapshot,
  postgresColumns,
  postgresRowCounts,
  schemaDifferences,
  sqliteRowCounts,
  sqliteTablePlan,
  type TableCount,
  type TablePlan,
} from '../store/copy.js';
import { databasePath, openStore, type Store, type Tx } from '../store/db.js';
import { DatabaseStorage, fileStorageFromConfig, FolderStorage, storageKind, type FileStorage } from '../store/files/index.js';
import { OperatorError } from './accounts.js';
import { storeFolderKeyMaterial, type FolderKeyMaterial } from './keyMaterial.js';

export interface CopyOptions {
  /** The SQLite installation: DATA_DIR. */
  dataDir: string;
  /** The target's settings: DATABASE_URL (the --to URL), TAWQI_STORAGE and TAWQI_S3_*, the pool size. */
  target: Config & { DATABASE_URL: string };
  /** masterKeyFor(target): seals the keys on the target. */
  master: MasterKey;
  clock: Clock;
  /** Told as each table is copied. */
  onTable?: (count: TableCount) => void;
}

export interface CopySummary {
  tables: TableCount[];
  rows: number;
  files: { storage: string; count: number; bytes: number };
  keys: { secrets: string[]; pki: boolean; issued_certificates: number; revocations: number };
}

/** Copy the SQLite installation of `options.dataDir` into the (empty) PostgreSQL database of `options.target`. */
export async function copySqliteToPostgres(options: CopyOptions): Promise<CopySummary> {
  const file = databasePath(options.dataDir);
  if (!existsSync(file)) throw new OperatorError(`No SQLite installation to copy: ${file} does not exist (check DATA_DIR)`);
  const source = await openStore(options.dataDir);
  try {
    const target = await openStore(options.dataDir, { databaseUrl: options.target.DATABASE_URL, poolSize: 2 });
    try {
      return await inSqliteSnapshot(source, () => copyInto(source, target, options));
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

async function copyInto(source: Store, target: Store, options: CopyOptions): Promise<CopySummary> {
  const plan = sqliteTablePlan(source);
  await checkTarget(target.db, plan);
  const keys: FolderKeyMaterial = { secrets: readSecretsFile(options.dataDir), pki: await readFolderPki(options.dataDir) };
  const from = new FolderStorage(options.dataDir);
  const fileKeys = await from.keys();
  const kind = storageKind(options.target);
  const now = () => nowSeconds(options.clock);
  let files = { storage: 'folder (left in DATA_DIR: TAWQI_STORAGE=folder)', count: 0, bytes: 0 };
  if (kind === 's3') {
    const bucket = fileStorageFromConfig(options.target);
    try {
      await bucket.check();
      files = await copyFiles(from, bucket, fileKeys);
    } finally {
      await bucket.close();
    }
  }
  const expected = sqliteRowCounts(
    source,
    plan.map((p) => p.table),
  );
  const tables = await target.tx(async (trx) => {
    await checkTarget(trx, plan);
    const copied = await copySqliteTables(source, trx, plan, options.onTable);
    await storeFolderKeyMaterial(trx, options.master, keys, now());
    if (kind === 'postgres') files = await copyFiles(from, new DatabaseStorage(trx, now), fileKeys);
    await verifyCounts(trx, expected, copied, keys, kind === 'postgres' ? fileKeys.length : 0);
    return copied;
  });
  return {
    tables,
    rows: tables.reduce((n, t) => n + t.rows, 0),
    files,
    keys: {
      secrets: [
        keys.secrets?.linkKey && 'link_key',
        keys.secrets?.documentKey && 'document_key',
        keys.secrets?.consoleKey && 'console_key',
      ].filter((n): n is string => !!n),
      pki: keys.pki !== null,
      issued_certificates: keys.pki?.issued.length ?? 0,
      revocations: keys.pki?.revocations.length ?? 0,
    },
  };
}

/** The target has the source's tables and columns (both at the latest migration), and none of them holds a row. */
async function checkTarget(db: Tx, plan: readonly TablePlan[]): Promise<void> {
  const differences = schemaDifferences(plan, await postgresColumns(db));
  if (differences.length > 0) {
    throw new Error(`the two schemas differ (is one of them from another version of Tawqi?): ${differences.join('; ')}`);
  }
  const used = (
    await postgresRowCounts(
      db,
      plan.map((p) => p.table),
    )
  ).filter((c) => c.rows > 0);
  if (used.length > 0) {
    throw new OperatorError(
      `The target database already holds data (${used.map((c) => `${c.table}: ${c.rows}`).join(', ')}). ` +
        'db copy only fills a new, empty database: create one (createdb) and copy into it.',
    );
  }
}

/** Each file's bytes under the same key; returns what was copied. */
async function copyFiles(from: FolderStorage, to: FileStorage, keys: readonly string[]): Promise<CopySummary['files']> {
  let bytes = 0;
  for (const key of keys) {
    const data = await from.get(key);
    if (!data) throw new Error(`file ${key} disappeared from DATA_DIR during the copy`);
    await to.put(key, data);
    bytes += data.length;
  }
  return { storage: to.description, count: keys.length, bytes };
}

/** Before the commit: every table holds what the source did, plus the keys and files this copy added. */
async function verifyCounts(
  trx: Tx,
  expected: readonly TableCount[],
  copied: readonly TableCount[],
  keys: FolderKeyMaterial,
  filesAdded: number,
): Promise<void> {
  const added: Record<string, number> = { files: filesAdded };
  const after = await postgresRowCounts(
    trx,
    expected.map((c) => c.table),
  );
  const wrong: string[] = [];
  for (const e of expected) {
    const got = after.find((a) => a.table === e.table)!.rows;
    const inserted = copied.find((c) => c.table === e.table)?.rows ?? 0;
    if (inserted !== e.rows) wrong.push(`${e.table}: ${inserted} copied of ${e.rows}`);
    // Key rows and file rows are added on top of the copied ones (keys: at least the copied ones).
    const floor = e.rows + (added[e.table] ?? 0);
    const keyTable = e.table === 'server_keys' || e.table === 'pki_certificates';
    if (keyTable ? got < floor : got !== floor) wrong.push(`${e.table}: ${got} rows on the target, expected ${floor}`);
  }
  if (keys.pki && !(await trx.selectFrom('server_keys').select('name').where('name', '=', 'ca').executeTakeFirst())) {
    wrong.push('server_keys: the CA key was not stored');
  }
  if (wrong.length > 0) throw new Error(`the copy does not add up, nothing was committed: ${wrong.join('; ')}`);
}
