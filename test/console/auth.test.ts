/**
 * Console sign-in (issue 15, point 2): passwords, sessions in a cookie, idle and absolute expiry,
 * CSRF, throttles, sign-out everywhere, the second factor, the audit log. Real HTTP to a test server
 * on the configured engine; time moves on the server's injected clock.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { hashPassword, verifyPassword } from '../../server/src/services/consolePasswords.js';
import { updateConsoleUser } from '../../server/src/store/consoleUsers.js';
import { assertError } from '../support/envelope.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let accountId: string;

before(async () => {
  // Many sign-ins from 127.0.0.1 in this file: the per-address limit is tested on a server of its own.
  s = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000' });
  accountId = (await s.account({ name: 'Acme' })).id;
  await consoleUser(s, accountId, 'Owner@Example.com', 'owner');
});
after(() => s.close());

describe('sign-in with email and password', () => {
  test('the right password signs in: the user, a CSRF token, no second factor; GET /session then answers', async () => {
    const c = new ConsoleClient(s.url);
    const r = await c.signIn('owner@example.com', TEST_PASSWORD);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.user.email, 'owner@example.com');
    assert.equal(r.body.user.role, 'owner');
    assert.equal(r.body.user.account_id, accountId);
    assert.equal(r.body.two_factor_required, false);
    assert.match(r.body.csrf_token, /^[\w-]{43}$/);
    assert.ok(c.cookie, 'a session cookie');
    const session = await c.call('GET', '/session');
    assert.equal(session.status, 200, session.text);
    assert.deepEqual(session.body.account, { id: accountId, name: 'Acme' });
    assert.ok(session.body.permissions.includes('audit.read'));
    assert.equal(session.body.csrf_token, r.body.csrf_token);
    assert.equal(session.body.two_factor_enabled, false);
  });

  test('a wrong password and an unknown email get the same 401 console_sign_in_failed, in Arabic and in English', async () => {
    const wrong = await new ConsoleClient(s.url).signIn('owner@example.com', 'not the password');
    const unknown = await new ConsoleClient(s.url).signIn('nobody@example.com', TEST_PASSWORD);
    assertError(wrong, 'console_sign_in_failed');
    assertError(unknown, 'console_sign_in_failed');
    assert.equal(wrong.body.error.message, unknown.body.error.message);
    assert.equal(wrong.headers.get('set-cookie'), null, 'no cookie');
    const en = await new ConsoleClient(s.url, 'en').signIn('nobody@example.com', TEST_PASSWORD);
    assertError(en, 'console_sign_in_failed', 'en');
  });

  test('without a session, GET /session is 401 console_session_required', async () => {
    assertError(await new ConsoleClient(s.url).call('GET', '/session'), 'console_session_required');
    const forged = new ConsoleClient(s.url, 'en');
    forged.cookie = 'A'.repeat(43);
    assertError(await forged.call('GET', '/session'), 'console_session_required', 'en');
  });
});

describe('the session cookie', () => {
  test('HttpOnly, SameSite=Lax, Path=/console, ending with the session; Secure only when the request came over TLS', async () => {
    const plain = await new ConsoleClient(s.url).signIn('owner@example.com', TEST_PASSWORD);
    const cookie = plain.headers.get('set-cookie')!;
    assert.match(cookie, /^tawqi_console=[0-9A-Za-z]{43}; /);
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; SameSite=Lax/);
    assert.match(cookie, /; Path=\/console(;|$)/);
    assert.match(cookie, /; Max-Age=43200/, 'the absolute end (12 h)');
    assert.doesNotMatch(cookie, /Secure/, 'plain HTTP: no Secure');

    const proxied = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_TRUSTED_PROXIES: '127.0.0.1' });
    try {
      const acct = await proxied.account();
      await consoleUser(proxied, acct.id, 'p@example.com', 'viewer');
      const tls = await new ConsoleClient(proxied.url).call('POST', '/sign_in', {
        body: { email: 'p@example.com', password: TEST_PASSWORD },
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' },
      });
      assert.equal(tls.status, 200, tls.text);
      assert.match(tls.headers.get('set-cookie')!, /; Secure/, 'TLS at the trusted proxy: Secure');
    } finally {
      await proxied.close();
    }
  });

  test('the stored session id is the SHA-256 of the cookie token, never the token', async () => {
    const c = new ConsoleClient(s.url);
    await c.signIn('owner@example.com', TEST_PASSWORD);
    const rows = await s.ctx.store.db.selectFrom('console_sessions').select('id').execute();
    const digest = createHash('sha256').update(c.cookie!).digest('hex');
    assert.ok(rows.some((r) => r.id === digest));
    assert.ok(!rows.some((r) => r.id === c.cookie));
  });
});

describe('session expiry (the injected clock)', () => {
  test('idle: a session unused for 30 minutes ends; one used every 20 minutes lives on', async () => {
    const busy = new ConsoleClient(s.url);
    const idle = new ConsoleClient(s.url);
    await busy.signIn('owner@example.com', TEST_PASSWORD);
    await idle.signIn('owner@example.com', TEST_PASSWORD);
    for (let i = 0; i < 3; i++) {
      s.clock.advanceSeconds(20 * 60);
      assert.equal((await busy.call('GET', '/session')).status, 200, `busy, after ${(i + 1) * 20} minutes`);
    }
    assertError(await idle.call('GET', '/session'), 'console_session_required');
  });

  test('absolute: 12 hours after sign-in the session ends, however busy', async () => {
    const c = new ConsoleClient(s.url);
    await c.signIn('owner@example.com', TEST_PASSWORD);
    for (let minutes = 20; minutes < 12 * 60; minutes += 20) {
      s.clock.advanceSeconds(20 * 60);
      assert.equal((await c.call('GET', '/session')).status, 200, `after ${minutes} minutes`);
    }
    s.clock.advanceSeconds(20 * 60);
    assertError(await c.call('GET', '/session'), 'console_session_required');
  });

  test('the idle and absolute times are settings', async () => {
    const short = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_CONSOLE_IDLE_MINUTES: '5', TAWQI_CONSOLE_SESSION_HOURS: '1' });
    try {
      const acct = await short.account();
      await consoleUser(short, acct.id, 'short@example.com', 'viewer');
      const c = new ConsoleClient(short.url);
      await c.signIn('short@example.com', TEST_PASSWORD);
      short.clock.advanceSeconds(4 * 60);
      assert.equal((await c.call('GET', '/session')).status, 200);
      short.clock.advanceSeconds(5 * 60 + 1);
      assertError(await c.call('GET', '/session'), 'console_session_required');
    } finally {
      await short.close();
    }
  });
});

describe('CSRF', () => {
  test('a state change without the token, with a wrong one, or from another origin is 403 csrf_failed; with it, it passes', async () => {
    const c = new ConsoleClient(s.url, 'en');
    await c.signIn('owner@example.com', TEST_PASSWORD);
    assertError(await c.call('POST', '/sign_out', { noCsrf: true }), 'csrf_failed', 'en');
    assertError(
      await c.call('POST', '/sign_out', { headers: { 'x-csrf-token': c.csrf!.replace(/^./, (x) => (x === 'A' ? 'B' : 'A')) } }),
      'csrf_failed',
      'en',
    );
    assertError(await c.call('POST', '/sign_out', { headers: { origin: 'https://evil.example' } }), 'csrf_failed', 'en');
    assertError(await c.call('POST', '/sign_out', { headers: { 'sec-fetch-site': 'cross-site' } }), 'csrf_failed', 'en');
    // Another session's token is not this one's.
    const other = new ConsoleClient(s.url);
    await other.signIn('owner@example.com', TEST_PASSWORD);
    assertError(await c.call('POST', '/sign_out', { headers: { 'x-csrf-token': other.csrf! } }), 'csrf_failed', 'en');
    assert.equal((await c.call('GET', '/session')).status, 200, 'still signed in');
    const out = await c.call('POST', '/sign_out', { headers: { origin: s.url } });
    assert.equal(out.status, 204, out.text);
    assert.match(out.headers.get('set-cookie')!, /^tawqi_console=; /, 'the cookie is cleared');
    assertError(await c.call('GET', '/session'), 'console_session_required', 'en');
  });

  test('sign-in from another origin is refused (login CSRF)', async () => {
    const r = await new ConsoleClient(s.url).call('POST', '/sign_in', {
      body: { email: 'owner@example.com', password: TEST_PASSWORD },
      headers: { origin: 'https://evil.example' },
    });
    assertError(r, 'csrf_failed');
    assert.equal(r.headers.get('set-cookie'), null);
  });
});

describe('sign out everywhere', () => {
  test('ends every session of the user (this one too), not other users’, and is in the audit log', async () => {
    await consoleUser(s, accountId, 'colleague@example.com', 'developer');
    const [a, b, colleague] = [new ConsoleClient(s.url), new ConsoleClient(s.url), new ConsoleClient(s.url)];
    await a.signIn('owner@example.com', TEST_PASSWORD);
    await b.signIn('owner@example.com', TEST_PASSWORD);
    await colleague.signIn('colleague@example.com', TEST_PASSWORD);
    const r = await a.call('POST', '/sign_out_everywhere');
    assert.equal(r.status, 200, r.text);
    assert.ok(r.body.sessions_ended >= 2);
    assertError(await a.call('GET', '/session'), 'console_session_required');
    assertError(await b.call('GET', '/session'), 'console_session_required');
    assert.equal((await colleague.call('GET', '/session')).status, 200);
    const entry = await s.ctx.store.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'console.signed_out_everywhere')
      .executeTakeFirstOrThrow();
    assert.equal(entry.actor, 'owner@example.com');
    assert.equal(entry.account_id, accountId);
  });
});

describe('sign-in throttles', () => {
  test('per email and per client address: past the limit 429 too_many_requests with Retry-After, the right password included; the next window opens again', async () => {
    const t = await startTestServer({
      ...CONSOLE_TEST_ENV,
      TAWQI_TRUSTED_PROXIES: '127.0.0.1',
      TAWQI_CONSOLE_SIGN_IN_EMAIL_LIMIT: '3',
      TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '5',
    });
    try {
      const acct = await t.account();
      for (const e of ['a', 'b', 'c']) await consoleUser(t, acct.id, `${e}@example.com`, 'viewer');
      const from = (ip: string, email: string, password = 'wrong password', lang?: 'en') =>
        new ConsoleClient(t.url, lang).call('POST', '/sign_in', { body: { email, password }, headers: { 'x-forwarded-for': ip } });
      for (let i = 0; i < 3; i++) assertError(await from('198.51.100.1', 'a@example.com'), 'console_sign_in_failed');
      const limited = await from('198.51.100.1', 'a@example.com', TEST_PASSWORD, 'en');
      assertError(limited, 'too_many_requests', 'en');
      assert.match(limited.body.error.message, /Too many sign-in attempts\. Try again in \d+ minutes?\./);
      const retryAfter = Number(limited.headers.get('retry-after'));
      assert.ok(retryAfter > 0 && retryAfter <= 900, `Retry-After ${retryAfter}`);
      assert.equal(limited.body.error.retry_after, retryAfter);
      assertError(await from('198.51.100.2', 'A@Example.com', TEST_PASSWORD), 'too_many_requests');
      // Per address: 198.51.100.1 has made 4 attempts; the fifth passes, the sixth does not, whatever the email.
      assert.equal((await from('198.51.100.1', 'b@example.com', TEST_PASSWORD)).status, 200);
      assertError(await from('198.51.100.1', 'c@example.com', TEST_PASSWORD), 'too_many_requests');
      assert.equal((await from('198.51.100.3', 'c@example.com', TEST_PASSWORD)).status, 200, 'another address, another email');
      t.clock.advanceSeconds(retryAfter);
      assert.equal((await from('198.51.100.1', 'a@example.com', TEST_PASSWORD)).status, 200, 'the next window');
    } finally {
      await t.close();
    }
  });
});

describe('users who may not sign in, and stored hashes', () => {
  test('a disabled user gets the same 401 as a wrong password, and their open sessions stop at once', async () => {
    const user = await consoleUser(s, accountId, 'leaver@example.com', 'viewer');
    const c = new ConsoleClient(s.url);
    assert.equal((await c.signIn('leaver@example.com', TEST_PASSWORD)).status, 200);
    await s.ctx.store.tx((trx) => updateConsoleUser(trx, user.id, { status: 'disabled' }));
    assertError(await c.call('GET', '/session'), 'console_session_required');
    assertError(await new ConsoleClient(s.url).signIn('leaver@example.com', TEST_PASSWORD), 'console_sign_in_failed');
    const entry = await s.ctx.store.db
      .selectFrom('audit_log')
      .select('detail')
      .where('target', '=', user.id)
      .where('action', '=', 'console.sign_in_failed')
      .executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(entry.detail), { stage: 'password', reason: 'user_disabled' });
  });

  test('a hash made at a lower scrypt cost is upgraded at the next sign-in, and still signs in', async () => {
    const cheap = await hashPassword(TEST_PASSWORD, { logN: 11 });
    assert.match(cheap, /^scrypt\$11\$8\$2\$[\w-]{22}\$[\w-]{43}$/);
    const user = await consoleUser(s, accountId, 'old@example.com', 'viewer');
    await s.ctx.store.tx((trx) => updateConsoleUser(trx, user.id, { password_hash: cheap }));
    assert.equal((await new ConsoleClient(s.url).signIn('old@example.com', TEST_PASSWORD)).status, 200);
    const row = await s.ctx.store.db
      .selectFrom('console_users')
      .select('password_hash')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    assert.match(row.password_hash!, /^scrypt\$12\$8\$2\$/);
    assert.equal(await verifyPassword(TEST_PASSWORD, row.password_hash!), true);
    assert.equal(await verifyPassword('another password', row.password_hash!), false);
    assert.equal((await new ConsoleClient(s.url).signIn('old@example.com', TEST_PASSWORD)).status, 200);
  });
});
