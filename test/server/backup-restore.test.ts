/**
 * Backup and restore under load, per engine (issue 13, point 9; issue 17, point 5; README, Backup
 * and restore): a server takes a mixed workload (creates with idempotency keys, cancels, signings to
 * completion, sealing, webhook deliveries to a local receiver) and is backed up the documented way
 * WHILE the workload runs; the backup is restored into a fresh place (a new DATA_DIR, or a new
 * database with the same TAWQI_MASTER_KEY) and a server started on it must show one consistent
 * state (test/support/snapshotChecks.ts): balances equal the ledger, every create acknowledged
 * before the backup started is there once, every completed request has its seal; the requests
 * sealed before the backup answer exactly as before; after its jobs and deliveries run, EVERY
 * completed request verifies by its reference and EVERY final PDF's SHA-256 matches the recorded
 * hash, every completed event has been delivered; and it carries on (a new request is sealed).
 *
 *   SQLite       `npx tawqi db backup --to "$BACKUP_DIR"`; the folder is started as DATA_DIR.
 *   PostgreSQL   pg_dump -Fc, pg_restore into a new database, started with the same TAWQI_MASTER_KEY
 *                (the files are rows of the dump: TAWQI_STORAGE=postgres, the default).
 *
 * The commands come from test/support/backupCommands.ts, which the README shows (checked below).
 * The SQLite case opens SQLite in both runs; the PostgreSQL case runs in the PostgreSQL run only.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { argv, BACKUP_COMMANDS, shown } from '../support/backupCommands.js';
import { BackupLoad } from '../support/backupLoad.js';
import { runCli } from '../support/cli.js';
import { createTestDatabase, dropTestDatabase, onPostgres, TEST_MASTER_KEY } from '../support/database.js';
import { accountWithTemplate, observe, sealedRequest } from '../support/installation.js';
import { postgresBinDir } from '../support/postgres.js';
import type { TestServer } from '../support/server.js';
import { assertBalancesMatchLedger, assertDrained, assertSnapshotOfLoad, drain, publicFace } from '../support/snapshotChecks.js';
import { makeTestCa, startWebhookTestServer, WebhookReceiver, type TestCa } from '../support/webhookReceiver.js';

/** Both servers name the same public address: the leaf certificates stay as they are. */
const PUBLIC_URL = { TAWQI_PUBLIC_URL: 'https://sign.example.com' };
/** The workload runs on a clock that does not move: the rate limits are raised out of its way. */
const UNLIMITED = { TAWQI_RATE_LIMIT: '100000', TAWQI_IP_RATE_LIMIT: '100000' };
/** Keeps a test server on SQLite in the PostgreSQL run too (empty means unset). */
const ON_SQLITE = { DATABASE_URL: '', TAWQI_MASTER_KEY: '' };
/** A bound on the workload, far above what a backup's time allows it (it is paced by sealing). */
const LOAD = { maxCreates: 400 };

const run = promisify(execFile);
const tempDir = (prefix: string) => mkdtempSync(path.join(tmpdir(), prefix));

let ca: TestCa;
let receiver: WebhookReceiver;
before(async () => {
  ca = makeTestCa();
  receiver = await WebhookReceiver.start(ca);
});
after(async () => {
  await receiver.close();
  ca.cleanup();
});

const startServer = (env: Record<string, string>, dataDir?: string, clock?: TestServer['clock']) =>
  startWebhookTestServer(ca, { ...PUBLIC_URL, ...UNLIMITED, ...env }, dataDir, clock);

/**
 * Start the workload on `s`, wait until some requests are acknowledged and sealed, run `backup`
 * while the workload goes on, then stop it. What the original shows of the requests sealed before
 * the backup started, to compare with the restored server.
 */
async function backupUnderLoad(s: TestServer, backup: () => Promise<void>) {
  const { keys, templateId } = await accountWithTemplate(s);
  const key = keys.secret_live;
  const hook = await s.call('POST', '/webhook_endpoints', {
    key,
    body: { url: receiver.url(), enabled_events: ['signature_request.completed'] },
  });
  assert.equal(hook.status, 201, hook.text);
  const load = new BackupLoad(s, { key, templateId, ...LOAD });
  load.start();
  await load.reach(6, 3);
  const sealedBefore = [...load.completed];
  load.phase = 'during';
  try {
    await backup();
  } finally {
    load.phase = 'after';
    await load.stop();
  }
  await assertBalancesMatchLedger(s);
  const faces = new Map<string, Awaited<ReturnType<typeof publicFace>>>();
  for (const id of sealedBefore) faces.set(id, await publicFace(s, key, id));
  const first = sealedBefore[0]!;
  const firstReference = (
    await s.ctx.store.db.selectFrom('signature_requests').select('reference').where('id', '=', first).executeTakeFirstOrThrow()
  ).reference!;
  return { key, templateId, load, faces, seen: await observe(s, key, first, firstReference), firstReference };
}

type Original = Awaited<ReturnType<typeof backupUnderLoad>>;

/** The restored server holds one consistent state of the original, answers as it did, drains, and carries on. */
async function assertRestored(restored: TestServer, original: Original): Promise<void> {
  const { key, templateId } = original;
  await assertBalancesMatchLedger(restored);
  await assertSnapshotOfLoad(restored, original.load, key);
  for (const [id, face] of original.faces) assert.deepEqual(await publicFace(restored, key, id), face, `${id} answers as before`);
  const first = original.faces.keys().next().value!;
  const seen = await observe(restored, key, first, original.firstReference);
  assert.deepEqual(seen.evidence, original.seen.evidence);
  assert.ok(seen.bytes.equals(original.seen.bytes), 'the same PDF bytes');
  for (const k of ['ca', 'evidenceKey', 'seal', 'linkKey', 'documentKey'] as const) assert.equal(seen[k], original.seen[k], k);

  // A job claimed at the moment of the snapshot (PostgreSQL: a leased row) is due again when its lease
  // ends, as after any lost process (README, Backup and restore).
  restored.clock.advanceSeconds(restored.ctx.config.TAWQI_LEASE_SECONDS + 1);
  await drain(restored);
  const completed = await assertDrained(restored, key, new Set(receiver.eventIds()));
  assert.ok(completed >= original.faces.size);
  const next = await sealedRequest(restored, key, templateId);
  assert.equal((await restored.call('GET', `/verifications/${next.reference}`)).body.integrity, 'intact');
  await drain(restored);
  await assertDrained(restored, key, new Set(receiver.eventIds()));
  await assertBalancesMatchLedger(restored);
}

test('the README shows exactly the backup and restore commands the test runs', () => {
  const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  const section = readme.slice(readme.indexOf('### Backup and restore\n'), readme.indexOf('### Moving from SQLite to PostgreSQL'));
  for (const command of Object.values(BACKUP_COMMANDS)) assert.ok(section.includes(shown(command)), `README shows: ${shown(command)}`);
});

describe('sqlite only: backup and restore under load', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  after(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  test('tawqi db backup --to <folder> while the workload runs; a server on the folder holds a consistent state and carries on', async () => {
    const s = await startServer(ON_SQLITE);
    cleanup.push(() => s.close());
    const backup = path.join(tempDir('tawqi-backup-'), 'copy');
    cleanup.push(() => rmSync(path.dirname(backup), { recursive: true, force: true }));
    let summary: { folder: string; files: { count: number }; secrets: boolean; pki: boolean } | undefined;

    const original = await backupUnderLoad(s, async () => {
      const cli = await runCli({ DATA_DIR: s.dataDir }, ...argv(BACKUP_COMMANDS.sqliteBackup, { BACKUP_DIR: backup }), '--json');
      assert.equal(cli.code, 0, cli.stderr);
      summary = JSON.parse(cli.stdout);
    });
    assert.equal(summary!.folder, backup);
    assert.ok(summary!.files.count >= original.faces.size, 'every PDF sealed before the backup is in it');
    assert.equal(summary!.secrets, true);
    assert.equal(summary!.pki, true);
    assert.equal(statSync(path.join(backup, 'pki', 'ca.key.pem')).mode & 0o777, 0o600, 'private keys stay 0600');
    assert.equal(statSync(path.join(backup, 'pki')).mode & 0o777, 0o700);

    await s.stop();
    const restored = await startServer(ON_SQLITE, backup, s.clock);
    cleanup.push(() => restored.stop());
    // A second backup into the same folder is refused (run beside the checks: a CLI start is slow).
    const refusal = runCli({ DATA_DIR: s.dataDir }, ...argv(BACKUP_COMMANDS.sqliteBackup, { BACKUP_DIR: backup }));
    await assertRestored(restored, original);
    const again = await refusal;
    assert.equal(again.code, 1);
    assert.match(again.stderr, /is not empty: give a new or empty folder/);
  });
});

describe(
  'postgres only: backup and restore under load',
  { skip: !onPostgres && 'runs with TAWQI_TEST_DATABASE=postgres (npm run test:postgres)' },
  () => {
    const cleanup: (() => Promise<void> | void)[] = [];
    after(async () => {
      for (const step of cleanup.reverse()) await step();
    });

    test('pg_dump -Fc while the workload runs, pg_restore into a new database; a server on it with the same master key holds a consistent state', async () => {
      const s = await startServer({});
      cleanup.push(() => s.close());
      const work = tempDir('tawqi-pgdump-');
      cleanup.push(() => rmSync(work, { recursive: true, force: true }));
      const bin = (c: { program: string }) => path.join(postgresBinDir(), c.program);
      const dump = path.join(work, 'tawqi.dump');

      const refused = await runCli({ DATA_DIR: s.dataDir, ...s.databaseEnv }, 'db', 'backup', '--to', path.join(work, 'x'));
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /db backup is for SQLite installations\. PostgreSQL: pg_dump -Fc/);

      // pg_dump reads one consistent snapshot while the workload writes.
      const original = await backupUnderLoad(s, async () => {
        const { pgDump } = BACKUP_COMMANDS;
        await run(bin(pgDump), argv(pgDump, { DATABASE_URL: s.databaseEnv.DATABASE_URL!, DUMP: dump }));
      });
      await s.stop();
      const url = await createTestDatabase();
      cleanup.push(() => dropTestDatabase(url));
      const { pgRestore } = BACKUP_COMMANDS;
      await run(bin(pgRestore), argv(pgRestore, { RESTORED_URL: url, DUMP: dump }));

      const restored = await startServer({ DATABASE_URL: url, TAWQI_MASTER_KEY: TEST_MASTER_KEY }, tempDir('tawqi-restored-'), s.clock);
      cleanup.push(() => restored.close());
      await assertRestored(restored, original);
    });
  },
);
