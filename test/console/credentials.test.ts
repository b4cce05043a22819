/**
 * The console's internal credential (issue 15 point 6): a signed-in user acts on the public API
 * through a short-lived credential of the account, under the same rules, limits and audit as a
 * secret key. Real HTTP on the configured engine; time moves on the server's injected clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { updateConsoleUser } from '../../server/src/store/consoleUsers.js';
import { listKeys } from '../../server/src/store/apiKeys.js';
import { assertError } from '../support/envelope.js';
import { NDA_FIELDS } from '../support/ndaFields.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let a: { id: string; keys: TestServer['keys'] };
let b: { id: string; keys: TestServer['keys'] };
const OWNER = 'owner@a.example.com';

before(async () => {
  s = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000', TAWQI_TRUSTED_PROXIES: '127.0.0.1' });
  a = await s.account({ name: 'A Co', ownerEmail: OWNER, walletMinor: 100_000 });
  b = await s.account({ name: 'B Co' });
  await consoleUser(s, a.id, OWNER, 'owner');
  await consoleUser(s, a.id, 'dev@a.example.com', 'developer');
  await consoleUser(s, a.id, 'viewer@a.example.com', 'viewer');
  await consoleUser(s, b.id, 'owner@b.example.com', 'owner');
});
after(() => s.close());

async function signedIn(email: string, lang?: 'en'): Promise<ConsoleClient> {
  const c = new ConsoleClient(s.url, lang);
  const r = await c.signIn(email, TEST_PASSWORD);
  assert.equal(r.status, 200, r.text);
  return c;
}

async function credential(c: ConsoleClient, livemode = false) {
  const r = await c.call('POST', '/credentials', { body: { livemode } });
  assert.equal(r.status, 201, r.text);
  return r.body as { token: string; expires_at: number; livemode: boolean; access: 'write' | 'read' };
}

const requestBody = (title: string) => ({
  title,
  source: { type: 'template', template_id: 'tpl_nda_ar' },
  signers: [{ name: 'Owner', email: OWNER, fields: NDA_FIELDS }],
});

describe('POST /console/api/credentials', () => {
  test('a ck_test_ token for 15 minutes with write access; ck_ for live; the token is stored only as its SHA-256', async () => {
    const c = await signedIn(OWNER);
    const now = Math.floor(s.clock.nowMs() / 1000);
    const test = await credential(c);
    assert.match(test.token, /^ck_test_[0-9a-f]{40}$/);
    assert.equal(test.expires_at, now + 900);
    assert.equal(test.livemode, false);
    assert.equal(test.access, 'write');
    const live = await credential(c, true);
    assert.match(live.token, /^ck_[0-9a-f]{40}$/);
    const dump = JSON.stringify(await s.ctx.store.db.selectFrom('console_credentials').selectAll().execute());
    assert.ok(!dump.includes(test.token) && !dump.includes(live.token), 'a plain token is stored');
  });

  test('without a session 401 console_session_required; without the CSRF token 403 csrf_failed; a bad body 400', async () => {
    assertError(await new ConsoleClient(s.url).call('POST', '/credentials', { body: { livemode: false } }), 'console_session_required');
    const c = await signedIn(OWNER);
    assertError(await c.call('POST', '/credentials', { body: { livemode: false }, noCsrf: true }), 'csrf_failed');
    assertError(await c.call('POST', '/credentials', { body: { livemode: 'yes' } }), 'parameter_invalid');
    assertError(await c.call('POST', '/credentials', { body: {} }), 'parameter_missing');
  });
});

describe('the public API with a credential', () => {
  test('creates a signature request and reads it back, in the credential’s mode; the write is in the audit log under the user', async () => {
    const c = await signedIn(OWNER);
    const { token } = await credential(c);
    const created = await s.call('POST', '/signature_requests', { key: token, body: requestBody('Through the console') });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.livemode, false);
    const read = await s.call('GET', `/signature_requests/${created.body.id}`, { key: token });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.title, 'Through the console');
    // The account's own test key sees the same request: one account, one implementation.
    assert.equal((await s.call('GET', `/signature_requests/${created.body.id}`, { key: a.keys.secret_test })).status, 200);
    // Not the live mode's.
    assertError(await s.call('GET', `/signature_requests/${created.body.id}`, { key: a.keys.secret_live }), 'not_found');

    const log = await c.call('GET', '/audit_log?limit=5');
    assert.equal(log.status, 200, log.text);
    const entry = log.body.data.find((e: { action: string }) => e.action === 'api.request');
    assert.ok(entry, log.text);
    assert.equal(entry.actor, OWNER);
    assert.equal(entry.target, created.body.id);
    assert.equal(entry.detail.method, 'POST');
    assert.equal(entry.detail.path, '/api/v1/signature_requests');
    assert.equal(entry.detail.status, 201);
    assert.equal(entry.detail.request_id, created.headers.get('svc-request-id'));
  });

  test('a viewer’s credential reads but cannot write: 403 forbidden in the envelope, Arabic and English', async () => {
    const viewer = await signedIn('viewer@a.example.com');
    const cred = await credential(viewer);
    assert.equal(cred.access, 'read');
    assert.equal((await s.call('GET', '/signature_requests', { key: cred.token })).status, 200);
    assertError(await s.call('POST', '/signature_requests', { key: cred.token, body: requestBody('No') }), 'forbidden');
    assertError(
      await s.call('POST', '/signature_requests', { key: cred.token, body: requestBody('No'), prefix: '/en/api/v1' }),
      'forbidden',
      'en',
    );
  });

  test('the access follows the role now: a developer made viewer writes no more with the credential already issued', async () => {
    const dev = await signedIn('dev@a.example.com');
    const cred = await credential(dev);
    assert.equal(cred.access, 'write');
    const user = (await s.ctx.store.db
      .selectFrom('console_users')
      .select('id')
      .where('email', '=', 'dev@a.example.com')
      .executeTakeFirst())!;
    await s.ctx.store.tx((trx) => updateConsoleUser(trx, user.id, { role: 'viewer' }));
    try {
      assertError(await s.call('POST', '/signature_requests', { key: cred.token, body: requestBody('No') }), 'forbidden');
    } finally {
      await s.ctx.store.tx((trx) => updateConsoleUser(trx, user.id, { role: 'developer' }));
    }
  });

  test('expires by the clock: 401 invalid_api_key from its expiry on', async () => {
    const c = await signedIn(OWNER);
    const { token } = await credential(c);
    s.clock.advanceSeconds(899);
    assert.equal((await s.call('GET', '/signature_requests', { key: token })).status, 200);
    s.clock.advanceSeconds(1);
    assertError(await s.call('GET', '/signature_requests', { key: token }), 'invalid_api_key');
  });

  test('another account’s objects are 404 not_found', async () => {
    const other = await s.call('POST', '/signature_requests', {
      key: b.keys.secret_test,
      body: { ...requestBody('B only'), signers: [{ name: 'B', email: 'owner@b.example.com', fields: NDA_FIELDS }] },
    });
    assert.equal(other.status, 201, other.text);
    const { token } = await credential(await signedIn(OWNER));
    assertError(await s.call('GET', `/signature_requests/${other.body.id}`, { key: token }), 'not_found');
    assertError(await s.call('POST', `/signature_requests/${other.body.id}/cancel`, { key: token }), 'not_found');
  });

  test('dies with its session: sign-out, sign-out everywhere, a disabled user', async () => {
    const c = await signedIn(OWNER);
    const one = await credential(c);
    assert.equal((await c.call('POST', '/sign_out')).status, 204);
    assertError(await s.call('GET', '/', { key: one.token }), 'invalid_api_key');

    const first = await signedIn(OWNER);
    const second = await signedIn(OWNER);
    const t1 = await credential(first);
    const t2 = await credential(second);
    assert.equal((await second.call('POST', '/sign_out_everywhere')).status, 200);
    assertError(await s.call('GET', '/', { key: t1.token }), 'invalid_api_key');
    assertError(await s.call('GET', '/', { key: t2.token }), 'invalid_api_key');

    const dev = await signedIn('dev@a.example.com');
    const t3 = await credential(dev);
    assert.equal((await s.call('GET', '/', { key: t3.token })).status, 200);
    const user = (await s.ctx.store.db
      .selectFrom('console_users')
      .select('id')
      .where('email', '=', 'dev@a.example.com')
      .executeTakeFirst())!;
    await s.ctx.store.tx((trx) => updateConsoleUser(trx, user.id, { status: 'disabled' }));
    try {
      assertError(await s.call('GET', '/', { key: t3.token }), 'invalid_api_key');
    } finally {
      await s.ctx.store.tx((trx) => updateConsoleUser(trx, user.id, { status: 'active' }));
    }
  });

  test('never under an IP allowlist, and never among the account’s keys', async () => {
    const owner = await signedIn(OWNER);
    const listed = await owner.call('GET', '/keys');
    assert.equal(listed.status, 200, listed.text);
    const secretTest = listed.body.data.find((k: { type: string; mode: string }) => k.type === 'secret' && k.mode === 'test');
    const locked = await owner.call('PATCH', `/keys/${secretTest.id}`, { body: { allowed_ips: ['10.0.0.0/8'] } });
    assert.equal(locked.status, 200, locked.text);
    const keys = await listKeys(s.ctx.store.db, a.id);
    try {
      const { token } = await credential(owner);
      const via = { 'x-forwarded-for': '203.0.113.50' };
      assertError(await s.call('GET', '/', { key: a.keys.secret_test, headers: via }), 'ip_not_allowed');
      assert.equal((await s.call('GET', '/', { key: token, headers: via })).status, 200);
      assert.deepEqual(await listKeys(s.ctx.store.db, a.id), keys, 'no key was added');
      const again = await owner.call('GET', '/keys');
      assert.ok(again.body.data.every((k: { hint: string }) => /^(sk|pk)_/.test(k.hint)));
      assert.equal(again.body.data.length, keys.length);
    } finally {
      await owner.call('PATCH', `/keys/${secretTest.id}`, { body: { allowed_ips: [] } });
    }
  });

  test('the account rate limit counts credential requests with the account’s keys', async () => {
    const limited = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_RATE_LIMIT: '3' });
    try {
      const acct = await limited.account();
      await consoleUser(limited, acct.id, 'x@example.com', 'owner');
      const c = new ConsoleClient(limited.url);
      assert.equal((await c.signIn('x@example.com', TEST_PASSWORD)).status, 200);
      const { token } = (await c.call('POST', '/credentials', { body: { livemode: false } })).body;
      assert.equal((await limited.call('GET', '/', { key: acct.keys.secret_test })).status, 200);
      assert.equal((await limited.call('GET', '/', { key: acct.keys.secret_live })).status, 200);
      assert.equal((await limited.call('GET', '/', { key: token })).status, 200);
      assertError(await limited.call('GET', '/', { key: token }), 'too_many_requests');
    } finally {
      await limited.close();
    }
  });
});
