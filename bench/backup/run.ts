/**
 * Backup and restore of a large installation (README, Reliability → Backup and restore figures):
 *
 *   npm run bench -- backup                                  SQLite
 *   BENCH_DATABASE=postgres npm run bench -- backup          PostgreSQL (a throwaway cluster, durable)
 *
 * Builds an installation of BENCH_REQUESTS signature requests (default 100,000; BENCH_SEALED of them,
 * default 50, signed through and sealed; see installation.ts for how), then, with the server still
 * running and idle, times the documented backup (the commands of test/support/backupCommands.ts:
 * `npx tawqi db backup` on SQLite, run from source like the tests' CLI, so its wall time includes
 * Node and tsx starting; pg_dump -Fc on PostgreSQL) and the restore (SQLite: none to run, the folder
 * is the DATA_DIR; PostgreSQL: pg_restore into a new database), then starts a server on the restored
 * copy and times it until it answers, and checks it: every request is there, every sealed request
 * verifies by its reference and its PDF's SHA-256 matches the recorded hash. On SQLite it also times
 * the same backup in this process (backupSqliteInstallation, what the CLI calls): the copy without
 * the CLI's start. Prints one JSON line.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { RunningServer } from '../../server/src/server.js';
import { backupSqliteInstallation } from '../../server/src/services/backup.js';
import { argv, BACKUP_COMMANDS } from '../../test/support/backupCommands.js';
import { runCli } from '../../test/support/cli.js';
import { postgresBinDir } from '../../test/support/postgres.js';
import { BENCH_DATABASE, postgresEnv, startBenchPostgres, type BenchPostgres } from '../support/postgres.js';
import { buildInstallation, createWhile, startBenchServer, type Installation } from './installation.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100_000);
const SEALED = Number(process.env.BENCH_SEALED ?? 50);
/** BENCH_UNDER_LOAD=1: requests are created one after another through the API for as long as the backup runs. */
const UNDER_LOAD = process.env.BENCH_UNDER_LOAD === '1';
const run = promisify(execFile);
const seconds = (since: bigint) => Math.round(Number(process.hrtime.bigint() - since) / 1e7) / 100;
const started = () => process.hrtime.bigint();

/** Bytes of every file under `dir`. */
function folderBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) total += statSync(path.join(e.parentPath, e.name)).size;
  return total;
}

/** A server started on the restored copy: seconds until it answers; every request there, every sealed one verifying with its PDF's hash. */
async function checkRestored(dataDir: string, database: Record<string, string>, built: Installation, writes: number) {
  const t = started();
  const restored = await startBenchServer(dataDir, database);
  const first = await fetch(`${restored.url}/api/v1/verifications/${built.sealed[0]!.reference}`);
  const startSeconds = seconds(t);
  if (first.status !== 200) throw new Error(`restored server: verification ${first.status}`);
  try {
    const count = await restored.ctx.store.db
      .selectFrom('signature_requests')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    // Creates acknowledged during the backup may or may not be in it; all the others are.
    if (Number(count.n) < REQUESTS || Number(count.n) > REQUESTS + writes)
      throw new Error(`restored ${count.n} requests of ${REQUESTS} (+${writes})`);
    for (const s of built.sealed) await checkSealed(restored, built.key, s);
    return { start_s: startSeconds, requests: Number(count.n), sealed_verified: built.sealed.length };
  } finally {
    await restored.close();
  }
}

async function checkSealed(s: RunningServer, key: string, sealed: { id: string; reference: string }): Promise<void> {
  const v = await fetch(`${s.url}/api/v1/verifications/${sealed.reference}`);
  const body = (await v.json()) as { integrity?: string };
  if (body.integrity !== 'intact') throw new Error(`${sealed.reference}: ${JSON.stringify(body)}`);
  const pdf = await fetch(`${s.url}/api/v1/signature_requests/${sealed.id}/download/pdf`, { headers: { authorization: `Bearer ${key}` } });
  const hash = createHash('sha256')
    .update(Buffer.from(await pdf.arrayBuffer()))
    .digest('hex');
  const row = await s.ctx.store.db
    .selectFrom('sealed_documents')
    .select('pdf_sha256')
    .where('signature_request_id', '=', sealed.id)
    .executeTakeFirstOrThrow();
  if (hash !== row.pdf_sha256) throw new Error(`${sealed.id}: PDF hash ${hash} is not the recorded ${row.pdf_sha256}`);
}

/** SQLite: `npx tawqi db backup --to "$BACKUP_DIR"` while the server runs; the folder is the restored DATA_DIR. */
async function sqliteRound(work: string, built: Installation, dataDir: string) {
  const backup = path.join(work, 'backup');
  const t = started();
  const backingUp = runCli({ ...process.env, DATA_DIR: dataDir }, ...argv(BACKUP_COMMANDS.sqliteBackup, { BACKUP_DIR: backup }), '--json');
  const writes = UNDER_LOAD ? await createWhile(built, backingUp) : 0;
  const cli = await backingUp;
  const backupSeconds = seconds(t);
  if (cli.code !== 0) throw new Error(cli.stderr);
  const summary = JSON.parse(cli.stdout) as { database_bytes: number; files: { count: number; bytes: number } };
  // The same backup in this process: the copy alone, without the CLI's Node and tsx start.
  const again = started();
  await backupSqliteInstallation(built.running.ctx.store, dataDir, path.join(work, 'again'));
  const inProcessSeconds = seconds(again);
  await built.running.close();
  return {
    backup_s: backupSeconds,
    creates_during_backup: writes,
    backup_in_process_s: inProcessSeconds,
    database_bytes: summary.database_bytes,
    files: summary.files,
    backup_bytes: folderBytes(backup),
    restore_s: 0,
    restored: await checkRestored(backup, {}, built, writes),
  };
}

/** PostgreSQL: pg_dump -Fc while the server runs, pg_restore into a new database, a server on it with the same master key. */
async function postgresRound(work: string, built: Installation, cluster: BenchPostgres, url: string) {
  const bin = (c: { program: string }) => path.join(postgresBinDir(), c.program);
  const dump = path.join(work, 'tawqi.dump');
  const { pgDump, pgRestore } = BACKUP_COMMANDS;
  let t = started();
  const dumping = run(bin(pgDump), argv(pgDump, { DATABASE_URL: url, DUMP: dump }));
  const writes = UNDER_LOAD ? await createWhile(built, dumping) : 0;
  await dumping;
  const backupSeconds = seconds(t);
  const sizes = await built.running.ctx.store.db
    .selectNoFrom((eb) => eb.fn<string>('pg_database_size', [eb.fn<string>('current_database', [])]).as('bytes'))
    .executeTakeFirstOrThrow();
  await built.running.close();
  const restoredUrl = await cluster.createDatabase();
  t = started();
  await run(bin(pgRestore), argv(pgRestore, { RESTORED_URL: restoredUrl, DUMP: dump }));
  const restoreSeconds = seconds(t);
  return {
    backup_s: backupSeconds,
    creates_during_backup: writes,
    database_bytes: Number(sizes.bytes),
    backup_bytes: statSync(dump).size,
    restore_s: restoreSeconds,
    restored: await checkRestored(path.join(work, 'restored'), postgresEnv(restoredUrl), built, writes),
  };
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'tawqi-bench-backup-'));
  const cluster = BENCH_DATABASE === 'postgres' ? await startBenchPostgres() : null;
  try {
    const url = cluster ? await cluster.createDatabase() : null;
    const database = url ? postgresEnv(url) : {};
    const dataDir = path.join(work, 'data');
    const running = await startBenchServer(dataDir, database);
    const t = started();
    let reported = 0;
    const built = await buildInstallation(running, REQUESTS, SEALED, (made) => {
      if (made - reported >= 10_000) console.error(`  ${made} requests, ${seconds(t)} s`);
      if (made - reported >= 10_000) reported = made;
    });
    const buildSeconds = seconds(t);
    const load = loadavg()[0]!;
    const round = cluster ? await postgresRound(work, built, cluster, url!) : await sqliteRound(work, built, dataDir);
    console.log(
      JSON.stringify({
        bench: 'backup',
        engine: BENCH_DATABASE,
        requests: REQUESTS,
        sealed: SEALED,
        build_s: buildSeconds,
        ...round,
        loadavg_1m_before_backup: Math.round(load * 100) / 100,
        loadavg_1m_end: Math.round(loadavg()[0]! * 100) / 100,
      }),
    );
  } finally {
    cluster?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
