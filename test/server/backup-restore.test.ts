/**
 * Backup and restore, once per engine (issue 13, point 9; README, Backup and restore): a server
 * seals a request, the installation is backed up the documented way while it runs, the backup is
 * restored into a fresh place, and a server started on it answers the verification, the PDF and
 * the evidence exactly as before, and carries on (a new request is created).
 *
 *   SQLite       `tawqi db backup --to <folder>`; the folder is started as DATA_DIR.
 *   PostgreSQL   pg_dump -Fc, pg_restore into a new database, started with the same TAWQI_MASTER_KEY
 *                (the files are rows of the dump: TAWQI_STORAGE=postgres, the default).
 *
 * The SQLite case opens SQLite in both runs; the PostgreSQL case runs in the PostgreSQL run only.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { createTestDatabase, dropTestDatabase, onPostgres, TEST_MASTER_KEY } from '../support/database.js';
import { accountWithTemplate, observe, sealedRequest } from '../support/installation.js';
import { postgresBinDir } from '../support/postgres.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Both servers name the same public address: the leaf certificates stay as they are. */
const PUBLIC_URL = { TAWQI_PUBLIC_URL: 'https://sign.example.com' };
/** Keeps a test server on SQLite in the PostgreSQL run too (empty means unset). */
const ON_SQLITE = { DATABASE_URL: '', TAWQI_MASTER_KEY: '' };

const tempDir = (prefix: string) => mkdtempSync(path.join(tmpdir(), prefix));

/** A server with one sealed request: what it answers about it, and the key to ask with. */
async function sealedInstallation(s: TestServer) {
  const { keys, templateId } = await accountWithTemplate(s);
  const sealed = await sealedRequest(s, keys.secret_live, templateId);
  const seen = await observe(s, keys.secret_live, sealed.id, sealed.reference);
  assert.equal(seen.verification.integrity, 'intact');
  return { key: keys.secret_live, templateId, sealed, seen };
}

/** The restored server answers as the original did, and carries on. */
async function assertRestored(restored: TestServer, original: Awaited<ReturnType<typeof sealedInstallation>>): Promise<void> {
  const seen = await observe(restored, original.key, original.sealed.id, original.sealed.reference);
  assert.deepEqual(seen.verification, original.seen.verification);
  assert.deepEqual(seen.evidence, original.seen.evidence);
  assert.ok(seen.bytes.equals(original.seen.bytes), 'the same PDF bytes');
  assert.equal(seen.sha256Header, original.seen.sha256Header);
  for (const k of ['ca', 'evidenceKey', 'seal', 'linkKey', 'documentKey'] as const) assert.equal(seen[k], original.seen[k], k);
  const next = await sealedRequest(restored, original.key, original.templateId);
  assert.equal((await restored.call('GET', `/verifications/${next.reference}`)).body.integrity, 'intact');
}

describe('sqlite only: backup and restore', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  after(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  test('tawqi db backup --to <folder> while the server runs; a server on the folder answers as before', async () => {
    const s = await startTestServer({ ...PUBLIC_URL, ...ON_SQLITE });
    cleanup.push(() => s.close());
    const original = await sealedInstallation(s);
    const backup = path.join(tempDir('tawqi-backup-'), 'copy');
    cleanup.push(() => rmSync(path.dirname(backup), { recursive: true, force: true }));

    const run = await runCli({ DATA_DIR: s.dataDir }, 'db', 'backup', '--to', backup, '--json');
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout);
    assert.equal(summary.folder, backup);
    assert.deepEqual(summary.files, { count: 1, bytes: original.seen.bytes.length });
    assert.equal(summary.secrets, true);
    assert.equal(summary.pki, true);
    assert.equal(statSync(path.join(backup, 'pki', 'ca.key.pem')).mode & 0o777, 0o600, 'private keys stay 0600');
    assert.equal(statSync(path.join(backup, 'pki')).mode & 0o777, 0o700);
    const again = await runCli({ DATA_DIR: s.dataDir }, 'db', 'backup', '--to', backup);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /is not empty: give a new or empty folder/);

    await s.stop();
    const restored = await startTestServer({ ...PUBLIC_URL, ...ON_SQLITE }, { dataDir: backup, clock: s.clock });
    cleanup.push(() => restored.stop());
    await assertRestored(restored, original);
  });
});

describe(
  'postgres only: backup and restore',
  { skip: !onPostgres && 'runs with TAWQI_TEST_DATABASE=postgres (npm run test:postgres)' },
  () => {
    const cleanup: (() => Promise<void> | void)[] = [];
    after(async () => {
      for (const step of cleanup.reverse()) await step();
    });

    test('pg_dump -Fc, pg_restore into a new database; a server on it with the same master key answers as before', async () => {
      const s = await startTestServer(PUBLIC_URL);
      cleanup.push(() => s.close());
      const original = await sealedInstallation(s);
      const work = tempDir('tawqi-pgdump-');
      cleanup.push(() => rmSync(work, { recursive: true, force: true }));

      const refused = await runCli({ DATA_DIR: s.dataDir, ...s.databaseEnv }, 'db', 'backup', '--to', path.join(work, 'x'));
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /db backup is for SQLite installations\. PostgreSQL: pg_dump -Fc/);

      const dump = path.join(work, 'tawqi.dump');
      const bin = postgresBinDir();
      // While the server runs: pg_dump reads one consistent snapshot.
      writeFileSync(
        dump,
        execFileSync(path.join(bin, 'pg_dump'), ['-Fc', '--dbname', s.databaseEnv.DATABASE_URL!], { maxBuffer: 1 << 28 }),
      );
      await s.stop();
      const url = await createTestDatabase();
      cleanup.push(() => dropTestDatabase(url));
      execFileSync(path.join(bin, 'pg_restore'), ['--no-owner', '--exit-on-error', '--dbname', url, dump]);

      const restored = await startTestServer(
        { ...PUBLIC_URL, DATABASE_URL: url, TAWQI_MASTER_KEY: TEST_MASTER_KEY },
        { dataDir: tempDir('tawqi-restored-'), clock: s.clock },
      );
      cleanup.push(() => restored.close());
      await assertRestored(restored, original);
    });
  },
);
