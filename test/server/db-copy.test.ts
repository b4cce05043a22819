/**
 * `tawqi db copy --to postgres://…` (issue 13, point 9): a real SQLite installation — made by a
 * server that completed and sealed a request, with events, jobs, messages, a webhook endpoint and
 * its deliveries, API keys — is copied by the CLI into a fresh PostgreSQL database; a server started
 * there with the same TAWQI_MASTER_KEY takes the same keys, verifies the old reference with the same
 * answer, serves the same PDF bytes and evidence, uses the same PKI and secrets, and creates, signs
 * and seals new requests (the identity sequences carry on). Every table is counted on both sides.
 * A second copy of the same installation with TAWQI_STORAGE=s3 puts the PDF in a bucket instead.
 *
 * PostgreSQL only (`npm run test:postgres`): the copy's target is PostgreSQL, and the PostgreSQL run
 * already has a cluster; the source is SQLite in either run (its server is started without
 * DATABASE_URL). The SQLite run skips it, saying so.
 */
import assert from 'node:assert/strict';
import { randomBytes, verify } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Secret, TOTP } from 'otpauth';
import { enableTwoFactor } from '../../server/src/services/consoleUsers.js';
import { runCli } from '../support/cli.js';
import { ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { createTestDatabase, dropTestDatabase, onPostgres } from '../support/database.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startS3Peer } from '../support/s3Peer.js';
import { accountWithTemplate, observe, sealedRequest, sha256 } from '../support/installation.js';

const PG_ONLY = { skip: !onPostgres && 'needs PostgreSQL (the target of the copy): npm run test:postgres' };
/** Settings that keep a test server on SQLite in the PostgreSQL run too (empty means unset). */
const ON_SQLITE = { DATABASE_URL: '', TAWQI_MASTER_KEY: '' };
/** The webhook endpoint is on 127.0.0.1 (never called: the test runs no webhook deliveries). */
const PRIVATE_HOOKS = { TAWQI_WEBHOOK_ALLOW_PRIVATE: 'true' };
/** Both servers name the same public address: the leaf certificates' AIA URLs (and so the leaves) stay as they are. */
const PUBLIC_URL = { TAWQI_PUBLIC_URL: 'https://sign.example.com' };
const OWNER = 'owner@example.com';
const CONSOLE_EMAIL = 'console@example.com';
const totpSecret = randomBytes(20);
const totpCode = (ms: number) =>
  new TOTP({ secret: new Secret({ buffer: new Uint8Array(totpSecret).buffer }), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: ms,
  });
const MIGRATOR_TABLES = ['kysely_migration', 'kysely_migration_lock'];

async function postgresCounts(url: string): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
    );
    const out = new Map<string, number>();
    for (const { table_name: t } of tables.rows) {
      if (MIGRATOR_TABLES.includes(t)) continue;
      out.set(t, Number((await client.query(`SELECT count(*) AS n FROM "${t}"`)).rows[0].n));
    }
    return out;
  } finally {
    await client.end();
  }
}

function sqliteCounts(dataDir: string): Map<string, number> {
  const db = new SQLite(path.join(dataDir, 'tawqi.sqlite'), { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as {
      name: string;
    }[];
    return new Map(
      tables
        .filter((t) => !MIGRATOR_TABLES.includes(t.name))
        .map((t) => [t.name, (db.prepare(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n]),
    );
  } finally {
    db.close();
  }
}

describe('postgres only: tawqi db copy, a SQLite installation into PostgreSQL', PG_ONLY, () => {
  const masterKey = randomBytes(32).toString('hex');
  let source: TestServer;
  let target: TestServer | undefined;
  let targetDir: string;
  let url: string;
  let key: string;
  let templateId: string;
  let sealed: { id: string; reference: string };
  let before_: Awaited<ReturnType<typeof observe>>;
  const cli = (env: Record<string, string>, ...args: string[]) => runCli({ DATA_DIR: source.dataDir, ...env }, 'db', ...args);

  before(async () => {
    source = await startTestServer({ ...ON_SQLITE, ...PUBLIC_URL, ...PRIVATE_HOOKS });
    assert.ok(existsSync(path.join(source.dataDir, 'tawqi.sqlite')), 'the source is a SQLite installation');
    const acct = await accountWithTemplate(source);
    key = acct.keys.secret_live;
    templateId = acct.templateId;
    const endpoint = await source.call('POST', '/webhook_endpoints', {
      key,
      body: { url: 'https://127.0.0.1:9/hook', enabled_events: ['*'] },
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    sealed = await sealedRequest(source, key, templateId);
    // A request still out for signature, and one in test mode.
    for (const k of [key, acct.keys.secret_test]) {
      const open = await source.call('POST', '/signature_requests', {
        key: k,
        body: { title: 'Open', source: { type: 'template', template_id: templateId }, signers: [{ name: 'Sara Adel', email: OWNER }] },
      });
      assert.equal(open.status, 201, open.text);
    }
    // A console user with two-factor (a sealed TOTP secret, recovery codes) who signed in once (a
    // session, audit entries), and one waiting for a set-password link (a console token).
    const consoleAccount = await source.account();
    const user = await consoleUser(source, consoleAccount.id, CONSOLE_EMAIL, 'owner');
    const codes = await enableTwoFactor(source.ctx.store, source.clock, source.ctx.secrets.consoleKey, user, totpSecret, null);
    const c = new ConsoleClient(source.url);
    assert.equal((await c.signIn(CONSOLE_EMAIL, TEST_PASSWORD)).body.two_factor_required, true);
    assert.equal((await c.call('POST', '/sign_in/two_factor', { body: { recovery_code: codes[0] } })).status, 200);
    const noPassword = await runCli(
      { DATA_DIR: source.dataDir, ...ON_SQLITE },
      'user',
      'create',
      '--account',
      consoleAccount.id,
      '--email',
      'later@example.com',
      '--role',
      'viewer',
    );
    assert.equal(noPassword.code, 0, noPassword.stderr);
    before_ = await observe(source, key, sealed.id, sealed.reference);
    assert.equal(before_.verification.integrity, 'intact');
    await source.stop();
    url = await createTestDatabase();
    targetDir = mkdtempSync(path.join(tmpdir(), 'tawqi-copy-target-'));
  });
  after(async () => {
    await target?.close();
    await source?.close();
    rmSync(targetDir, { recursive: true, force: true });
    if (url) await dropTestDatabase(url);
  });

  test('refused without TAWQI_MASTER_KEY, naming it, and with a target that is not PostgreSQL', async () => {
    const missing = await cli({}, 'copy', '--to', url);
    assert.equal(missing.code, 1, missing.stdout);
    assert.match(missing.stderr, /TAWQI_MASTER_KEY: required with DATABASE_URL/);
    const notPostgres = await cli({ TAWQI_MASTER_KEY: masterKey }, 'copy', '--to', 'mysql://db/tawqi');
    assert.equal(notPostgres.code, 1);
    assert.match(notPostgres.stderr, /Expected postgres:\/\//);
    assert.equal((await postgresCounts(url)).size, 0, 'nothing was created on the target');
  });

  test('every table, the keys and every file are copied; counts match table by table', async () => {
    const run = await cli({ TAWQI_MASTER_KEY: masterKey }, 'copy', '--to', url, '--json');
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout);
    const pgCounts = await postgresCounts(url);
    const liteCounts = sqliteCounts(source.dataDir);
    // Every table of either schema is in the summary: a table the copy forgot fails here.
    assert.deepEqual(summary.tables.map((t: { table: string }) => t.table).sort(), [...pgCounts.keys()].sort());
    assert.deepEqual([...liteCounts.keys()].sort(), [...pgCounts.keys()].sort());
    for (const [table, rows] of liteCounts) {
      // The one sealed PDF, a file under DATA_DIR on SQLite, is a row of files on PostgreSQL.
      const extra = table === 'files' ? 1 : 0;
      if (table === 'server_keys' || table === 'pki_certificates') continue;
      assert.equal(pgCounts.get(table), rows + extra, `rows of ${table}`);
      assert.equal(summary.tables.find((t: { table: string }) => t.table === table).rows, rows, `summary of ${table}`);
    }
    for (const table of ['accounts', 'api_keys', 'signature_requests', 'signers', 'events', 'jobs', 'messages']) {
      assert.ok(liteCounts.get(table)! > 0, `the installation has rows in ${table}`);
    }
    for (const table of ['console_users', 'console_sessions', 'console_recovery_codes', 'console_tokens', 'audit_log']) {
      assert.ok(liteCounts.get(table)! > 0, `the installation has rows in ${table}`);
    }
    for (const table of ['webhook_endpoints', 'webhook_deliveries', 'sealed_documents', 'evidence_records', 'templates']) {
      assert.ok(liteCounts.get(table)! > 0, `the installation has rows in ${table}`);
    }
    // SQLite keeps the keys as files: on PostgreSQL they are rows, sealed.
    assert.equal(liteCounts.get('server_keys'), 0);
    assert.deepEqual(summary.keys.secrets, ['link_key', 'document_key', 'console_key']);
    assert.equal(summary.keys.pki, true);
    assert.equal(pgCounts.get('server_keys'), 8, 'link, document, console, CA, evidence, seal, TSA, OCSP keys');
    assert.ok(pgCounts.get('pki_certificates')! >= 3, 'the leaves certificates recorded as issued');
    assert.deepEqual(summary.files, { storage: 'database (files table)', count: 1, bytes: before_.bytes.length });
  });

  test('a server on the copy: same keys, same verification, same PDF and evidence, same PKI and secrets', async () => {
    target = await startTestServer(
      { DATABASE_URL: url, TAWQI_MASTER_KEY: masterKey, ...PUBLIC_URL, ...PRIVATE_HOOKS },
      { dataDir: targetDir, clock: source.clock },
    );
    const after_ = await observe(target, key, sealed.id, sealed.reference);
    assert.deepEqual(after_.verification, before_.verification);
    assert.equal(after_.verification.integrity, 'intact');
    assert.deepEqual(after_.request, before_.request);
    assert.deepEqual(after_.evidence, before_.evidence);
    assert.ok(after_.bytes.equals(before_.bytes), 'the same PDF bytes');
    assert.equal(after_.sha256Header, before_.sha256Header);
    assert.equal(after_.sha256Header, sha256(after_.bytes));
    for (const k of ['ca', 'evidenceKey', 'seal', 'tsa', 'linkKey', 'documentKey'] as const) assert.equal(after_[k], before_[k], k);
    const ev = after_.evidence;
    assert.ok(
      verify(null, Buffer.from(ev.record_raw), after_.evidenceKey, Buffer.from(ev.signature.value, 'base64')),
      'the evidence record verifies with the evidence key in use',
    );
    assert.equal(existsSync(path.join(targetDir, 'pki')), false, 'the keys come from the database, not files');
    // The console key came too: the TOTP secret opens, the recovery codes match, the user signs in.
    const c = new ConsoleClient(target.url);
    assert.equal((await c.signIn(CONSOLE_EMAIL, TEST_PASSWORD)).body.two_factor_required, true);
    const code = await c.call('POST', '/sign_in/two_factor', { body: { code: totpCode(target.clock.nowMs()) } });
    assert.equal(code.status, 200, code.text);
    assert.ok((await c.call('GET', '/audit_log?limit=100')).body.data.some((e: { action: string }) => e.action === 'two_factor.enabled'));
  });

  test('the copy carries on: new requests are created, signed and sealed; a second copy into it is refused', async () => {
    assert.ok(target, 'the previous test started the server');
    const list = await target.call('GET', '/signature_requests', { key });
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 2, 'the live requests');
    const next = await sealedRequest(target, key, templateId);
    const v = await target.call('GET', `/verifications/${next.reference}`);
    assert.equal(v.body.integrity, 'intact');
    const again = await cli({ TAWQI_MASTER_KEY: masterKey }, 'copy', '--to', url);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already holds data \(accounts: \d+, .*db copy only fills a new, empty database/);
  });

  test('with TAWQI_STORAGE=s3 the files go to the bucket, byte for byte, and the database holds none', async () => {
    const peer = await startS3Peer();
    const bucketUrl = await createTestDatabase();
    try {
      const run = await cli({ TAWQI_MASTER_KEY: masterKey, ...peer.env() }, 'copy', '--to', bucketUrl, '--json');
      assert.equal(run.code, 0, run.stderr);
      const summary = JSON.parse(run.stdout);
      assert.equal(summary.files.count, 1);
      assert.match(summary.files.storage, /^s3 bucket tawqi-test at http:\/\/127\.0\.0\.1:\d+$/);
      const object = await peer.object(`documents/${sealed.id}.pdf`);
      assert.ok(object, `the PDF in the bucket: ${JSON.stringify(await peer.keys())}`);
      assert.ok(object.bytes.equals(before_.bytes), 'the same bytes');
      assert.equal(object.metadata.sha256, before_.sha256Header);
      assert.equal((await postgresCounts(bucketUrl)).get('files'), 0);
    } finally {
      await dropTestDatabase(bucketUrl);
      await peer.close();
    }
  });
});
