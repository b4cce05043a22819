/**
 * `tawqi db …`: moving and backing up an installation.
 *
 *   db copy --to postgres://…   a SQLite installation (DATA_DIR) into an empty PostgreSQL database
 *                               (services/databaseCopy.ts); TAWQI_MASTER_KEY seals its keys there
 *   db backup --to <folder>     an online backup of a SQLite installation: a folder that is itself a
 *                               DATA_DIR (services/backup.ts); PostgreSQL: pg_dump (README)
 */
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig, type Config } from '../config.js';
import { masterKeyFor } from '../masterKey.js';
import { OperatorError } from '../services/accounts.js';
import type { CopySummary } from '../services/databaseCopy.js';
import { clock, command, emit, run, withStore, type JsonFlag } from './kit.js';

function parseDatabaseUrl(text: string): string {
  if (!/^postgres(ql)?:\/\/\S+$/.test(text)) throw new InvalidArgumentError('Expected postgres://user:password@host:port/database.');
  return text;
}

/** Sizes for people: 1.2 MB. */
const size = (bytes: number): string =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} kB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`;

function copyLines(summary: CopySummary): string[] {
  const width = Math.max(...summary.tables.map((t) => t.table.length));
  const k = summary.keys;
  return [
    'Copied into PostgreSQL (one transaction, counts verified before the commit):',
    ...summary.tables.map((t) => `  ${t.table.padEnd(width)}  ${t.rows}`),
    `  ${'rows'.padEnd(width)}  ${summary.rows} in ${summary.tables.length} tables`,
    `Files: ${summary.files.count} (${size(summary.files.bytes)}) into ${summary.files.storage}`,
    `Keys: secrets ${k.secrets.length > 0 ? k.secrets.join(', ') : 'none (made at the first start)'}; ` +
      (k.pki
        ? `PKI (CA, seal, TSA, OCSP, evidence) with ${k.issued_certificates} issued certificate(s) and ${k.revocations} revocation(s)`
        : 'no PKI (made at the first start)') +
      ', sealed with TAWQI_MASTER_KEY',
    'Start the servers with this DATABASE_URL and the same TAWQI_MASTER_KEY; keep DATA_DIR as a backup until they run.',
  ];
}

async function dbCopy(o: JsonFlag & { to: string }): Promise<void> {
  const config = loadConfig();
  if (config.DATABASE_URL && config.DATABASE_URL !== o.to) {
    throw new OperatorError(
      'DATABASE_URL is set to another database: db copy reads the SQLite installation in DATA_DIR; unset DATABASE_URL',
    );
  }
  const target = loadConfig({ ...process.env, DATABASE_URL: o.to }) as Config & { DATABASE_URL: string };
  // Refused here, naming the setting, before anything is opened.
  const master = masterKeyFor(target)!;
  // Imported here, not at the top: it brings the file storage (the S3 client), which other commands do without (program.ts).
  const { copySqliteToPostgres } = await import('../services/databaseCopy.js');
  const summary = await copySqliteToPostgres({ dataDir: config.DATA_DIR, target, master, clock });
  emit(o, summary, () => copyLines(summary));
}

async function dbBackup(o: JsonFlag & { to: string }): Promise<void> {
  const { backupSqliteInstallation } = await import('../services/backup.js');
  const summary = await withStore(async ({ store, config }) => {
    if (store.dialect === 'postgres') {
      throw new OperatorError(
        'db backup is for SQLite installations. PostgreSQL: pg_dump -Fc (and keep TAWQI_MASTER_KEY and any S3 bucket); see the README, Backup and restore',
      );
    }
    return backupSqliteInstallation(store, config.DATA_DIR, o.to);
  });
  emit(o, summary, () => [
    `Backed up DATA_DIR into ${summary.folder}: the database (${size(summary.database_bytes)}), ` +
      `${summary.secrets ? 'secrets.json, ' : ''}${summary.pki ? 'pki/, ' : ''}${summary.files.count} file(s) (${size(summary.files.bytes)})`,
    'Restore: stop the server, then start it with DATA_DIR set to this folder (or move the folder into place).',
  ]);
}

export function dbCommands(program: Command): void {
  const db = program.command('db').description('move and back up the installation');
  command(
    db,
    'copy',
    'copy this SQLite installation (DATA_DIR: every table, the keys, every file) into an empty PostgreSQL database; stop the server first',
  )
    .requiredOption('--to <url>', 'the target database, postgres://user:password@host:port/database', parseDatabaseUrl)
    .action(run(dbCopy));
  command(db, 'backup', 'back up a SQLite installation while the server runs, into a folder that is itself a DATA_DIR')
    .requiredOption('--to <folder>', 'a new or empty folder')
    .action(run(dbBackup));
}
