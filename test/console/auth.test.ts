/**
 * Console sign-in (issue 15, point 2): passwords, sessions in a cookie, idle and absolute expiry,
 * CSRF, throttles, sign-out everywhere, the second factor, the audit log. Real HTTP to a test server
 * on the configured engine; time moves on the server's injected clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/envelope.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let accountId: string;

before(async () => {
  s = await startTestServer(CONSOLE_TEST_ENV);
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
