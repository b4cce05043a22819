/**
 * The second factor at sign-in (issue 15, point 2): a TOTP code or a single-use recovery code after
 * the password. Enrolment is another piece's; here a user is enrolled through the service.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { openTotpSecret } from '../../server/src/services/consoleCrypto.js';
import { enableTwoFactor } from '../../server/src/services/consoleUsers.js';
import { assertError } from '../support/envelope.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let accountId: string;
let recoveryCodes: string[];
const secret = randomBytes(20);
const EMAIL = 'two@example.com';

const codeAt = (ms: number) =>
  new TOTP({ secret: new Secret({ buffer: new Uint8Array(secret).buffer }), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: ms,
  });

before(async () => {
  s = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000', TAWQI_CONSOLE_SIGN_IN_EMAIL_LIMIT: '1000' });
  accountId = (await s.account()).id;
  const user = await consoleUser(s, accountId, EMAIL, 'admin');
  recoveryCodes = await enableTwoFactor(s.ctx.store, s.clock, s.ctx.secrets.consoleKey, user, secret, '127.0.0.1');
});
after(() => s.close());

async function passwordStep(lang?: 'en'): Promise<ConsoleClient> {
  const c = new ConsoleClient(s.url, lang);
  const r = await c.signIn(EMAIL, TEST_PASSWORD);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.two_factor_required, true);
  return c;
}

describe('the second factor', () => {
  test('the TOTP secret is sealed at rest (AES-256-GCM, bound to the user)', async () => {
    const row = await s.ctx.store.db
      .selectFrom('console_users')
      .select(['id', 'totp_secret'])
      .where('email', '=', EMAIL)
      .executeTakeFirstOrThrow();
    const stored = Buffer.from(row.totp_secret!);
    assert.equal(stored.includes(secret), false);
    assert.deepEqual(openTotpSecret(s.ctx.secrets.consoleKey, row.id, stored), secret);
    assert.throws(() => openTotpSecret(s.ctx.secrets.consoleKey, 'usr_other', stored));
  });

  test('after the password, the session can do nothing but the second step; a wrong code is 401 two_factor_failed; the right one signs in with a new session id', async () => {
    const c = await passwordStep('en');
    const pending = c.cookie;
    assertError(await c.call('GET', '/session'), 'console_session_required', 'en');
    assertError(await c.call('POST', '/sign_in/two_factor', { body: { code: '000000' }, noCsrf: true }), 'csrf_failed', 'en');
    const wrongCode = codeAt(s.clock.nowMs() + 10 * 60_000);
    assertError(await c.call('POST', '/sign_in/two_factor', { body: { code: wrongCode } }), 'two_factor_failed', 'en');
    const ok = await c.call('POST', '/sign_in/two_factor', { body: { code: codeAt(s.clock.nowMs()) } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.two_factor_required, false);
    assert.notEqual(c.cookie, pending, 'a new session id after the second factor');
    const session = await c.call('GET', '/session');
    assert.equal(session.status, 200);
    assert.equal(session.body.two_factor_enabled, true);
    const old = new ConsoleClient(s.url);
    old.cookie = pending;
    assertError(await old.call('POST', '/sign_in/two_factor', { body: { code: codeAt(s.clock.nowMs()) } }), 'console_session_required');
  });

  test('a code of the step before or after is still taken, one two steps away is not; each code is taken once', async () => {
    s.clock.advanceSeconds(5 * 60);
    const c = await passwordStep();
    assertError(await c.call('POST', '/sign_in/two_factor', { body: { code: codeAt(s.clock.nowMs() - 60_000) } }), 'two_factor_failed');
    assertError(await c.call('POST', '/sign_in/two_factor', { body: { code: codeAt(s.clock.nowMs() + 60_000) } }), 'two_factor_failed');
    const previous = codeAt(s.clock.nowMs() - 30_000);
    assert.equal((await c.call('POST', '/sign_in/two_factor', { body: { code: previous } })).status, 200);
    // The same code again (a replay, or a shoulder-surfer racing the user) is refused, as is an older step.
    const replay = await passwordStep();
    assertError(await replay.call('POST', '/sign_in/two_factor', { body: { code: previous } }), 'two_factor_failed');
    assert.equal(
      (await replay.call('POST', '/sign_in/two_factor', { body: { code: codeAt(s.clock.nowMs() + 30_000) } })).status,
      200,
      'the next step',
    );
  });

  test('a recovery code signs in once; the same code again is refused', async () => {
    const first = await passwordStep();
    const r = await first.call('POST', '/sign_in/two_factor', { body: { recovery_code: recoveryCodes[0] } });
    assert.equal(r.status, 200, r.text);
    const second = await passwordStep();
    assertError(await second.call('POST', '/sign_in/two_factor', { body: { recovery_code: recoveryCodes[0] } }), 'two_factor_failed');
    // Typed without dashes, another code works.
    assert.equal(
      (await second.call('POST', '/sign_in/two_factor', { body: { recovery_code: recoveryCodes[1]!.replace(/-/g, '') } })).status,
      200,
    );
    const entry = await s.ctx.store.db
      .selectFrom('audit_log')
      .select('detail')
      .where('action', '=', 'console.signed_in')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(entry.detail), { two_factor: 'recovery_code', recovery_codes_left: 8 });
  });

  test('the wait for the second factor ends after 10 minutes', async () => {
    const c = await passwordStep();
    s.clock.advanceSeconds(10 * 60);
    assertError(await c.call('POST', '/sign_in/two_factor', { body: { code: codeAt(s.clock.nowMs()) } }), 'console_session_required');
  });
});
