/**
 * Second-factor enrolment (issue 15, point 2): set up (secret, otpauth address, QR code), confirm
 * with a code an authenticator app would compute from the secret (otpauth, independently of the
 * server's module), recovery codes shown once and good once, turning it off and a new set of codes
 * with the password again. Real HTTP, the configured engine, time moved on the server's clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { assertError } from '../support/envelope.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let accountId: string;
let serial = 0;

before(async () => {
  s = await startTestServer(CONSOLE_TEST_ENV);
  accountId = (await s.account({ name: 'Acme' })).id;
});
after(() => s.close());

/** What an authenticator app shows now for a base32 secret. */
const appCode = (secret: string, offsetSeconds = 0): string =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: s.clock.nowMs() + offsetSeconds * 1000 });

/** A new signed-in user of the account (own email, so sign-in throttles of one test do not touch another). */
async function signedIn(role: 'owner' | 'developer' = 'owner', lang?: 'en'): Promise<{ email: string; c: ConsoleClient }> {
  const email = `user${++serial}@acme.test`;
  await consoleUser(s, accountId, email, role);
  const c = new ConsoleClient(s.url, lang);
  const r = await c.signIn(email, TEST_PASSWORD);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.two_factor_required, false);
  return { email, c };
}

/** Set up and confirm; returns the secret and the recovery codes. */
async function enrol(c: ConsoleClient): Promise<{ secret: string; codes: string[] }> {
  const setup = await c.call('POST', '/two_factor/setup');
  assert.equal(setup.status, 200, setup.text);
  const confirmed = await c.call('POST', '/two_factor/confirm', { body: { code: appCode(setup.body.secret) } });
  assert.equal(confirmed.status, 200, confirmed.text);
  return { secret: setup.body.secret, codes: confirmed.body.recovery_codes };
}

async function auditActions(c: ConsoleClient): Promise<string[]> {
  const log = await c.call('GET', '/audit_log?limit=100');
  assert.equal(log.status, 200, log.text);
  return log.body.data.map((e: { action: string }) => e.action);
}

describe('enrolling a second factor', () => {
  test('setup gives the secret, its otpauth address and a QR code; pending until confirmed, sign-in does not ask yet', async () => {
    const { email, c } = await signedIn();
    const setup = await c.call('POST', '/two_factor/setup');
    assert.equal(setup.status, 200, setup.text);
    assert.match(setup.body.secret, /^[A-Z2-7]{32}$/, 'base32, 160 bits');
    const url = new URL(setup.body.otpauth_url);
    assert.equal(url.protocol, 'otpauth:');
    assert.equal(url.host, 'totp');
    assert.equal(decodeURIComponent(url.pathname), `/Tawqi:${email}`);
    assert.equal(url.searchParams.get('secret'), setup.body.secret);
    assert.equal(url.searchParams.get('issuer'), 'Tawqi');
    assert.match(setup.body.qr_svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 \d+ \d+"/);
    assert.doesNotMatch(setup.body.qr_svg, /<script|style=|on\w+=/i, 'nothing a strict CSP would refuse');

    const status = await c.call('GET', '/two_factor');
    assert.deepEqual(status.body, { enabled: false, recovery_codes_remaining: 0 });
    const again = await new ConsoleClient(s.url).signIn(email, TEST_PASSWORD);
    assert.equal(again.body.two_factor_required, false, 'a pending setup asks nothing at sign-in');

    // A second setup replaces the pending secret: a code of the first one no longer confirms.
    const second = await c.call('POST', '/two_factor/setup');
    assert.notEqual(second.body.secret, setup.body.secret);
    assertError(await c.call('POST', '/two_factor/confirm', { body: { code: appCode(setup.body.secret) } }), 'two_factor_code_invalid');
  });

  test('a wrong or stale code is refused (Arabic and English); the right one turns it on and gives ten recovery codes', async () => {
    const { email, c } = await signedIn('owner', 'en');
    const setup = await c.call('POST', '/two_factor/setup');
    const secret = setup.body.secret;
    assertError(await c.call('POST', '/two_factor/confirm', { body: { code: '000000' } }), 'two_factor_code_invalid', 'en');
    assertError(await c.call('POST', '/two_factor/confirm', { body: { code: appCode(secret, -120) } }), 'two_factor_code_invalid', 'en');
    assertError(await c.call('POST', '/two_factor/confirm', { body: { code: 'abcdef' } }), 'two_factor_code_invalid', 'en');
    const ar = new ConsoleClient(s.url);
    await ar.signIn(email, TEST_PASSWORD);
    assertError(await ar.call('POST', '/two_factor/confirm', { body: { code: '000000' } }), 'two_factor_code_invalid');

    // The code as an app shows it, with its space, a step old (a phone clock a little behind).
    const shown = appCode(secret, -30);
    const confirmed = await c.call('POST', '/two_factor/confirm', { body: { code: `${shown.slice(0, 3)} ${shown.slice(3)}` } });
    assert.equal(confirmed.status, 200, confirmed.text);
    const codes: string[] = confirmed.body.recovery_codes;
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    assert.deepEqual((await c.call('GET', '/two_factor')).body, { enabled: true, recovery_codes_remaining: 10 });
    assert.equal((await c.call('GET', '/session')).body.two_factor_enabled, true);
    assert.ok((await auditActions(c)).includes('two_factor.enabled'));
    assertError(await c.call('POST', '/two_factor/setup'), 'two_factor_already_enabled', 'en');
    assertError(await c.call('POST', '/two_factor/confirm', { body: { code: appCode(secret) } }), 'two_factor_already_enabled', 'en');

    // The stored secret is sealed: neither the base32 nor the raw bytes are in the row.
    const row = await s.ctx.store.db.selectFrom('console_users').select('totp_secret').where('email', '=', email).executeTakeFirstOrThrow();
    const raw = Buffer.from(Secret.fromBase32(secret).bytes);
    assert.ok(row.totp_secret && !Buffer.from(row.totp_secret).includes(raw));
  });

  test('then sign-in needs the code: a wrong one is refused, the right one signs in', async () => {
    const { email, c } = await signedIn();
    const { secret } = await enrol(c);
    const b = new ConsoleClient(s.url);
    const first = await b.signIn(email, TEST_PASSWORD);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.two_factor_required, true);
    assertError(await b.call('GET', '/users'), 'console_session_required');
    assertError(await b.call('POST', '/sign_in/two_factor', { body: { code: appCode(secret, 300) } }), 'two_factor_failed');
    const second = await b.call('POST', '/sign_in/two_factor', { body: { code: appCode(secret) } });
    assert.equal(second.status, 200, second.text);
    assert.equal((await b.call('GET', '/users')).status, 200);
  });

  test('a recovery code signs in once; a second use is refused', async () => {
    const { email, c } = await signedIn();
    const { codes } = await enrol(c);
    const b = new ConsoleClient(s.url);
    await b.signIn(email, TEST_PASSWORD);
    const used = await b.call('POST', '/sign_in/two_factor', { body: { recovery_code: codes[3] } });
    assert.equal(used.status, 200, used.text);
    const d = new ConsoleClient(s.url);
    await d.signIn(email, TEST_PASSWORD);
    assertError(await d.call('POST', '/sign_in/two_factor', { body: { recovery_code: codes[3] } }), 'two_factor_failed');
    assert.deepEqual((await c.call('GET', '/two_factor')).body, { enabled: true, recovery_codes_remaining: 9 });
  });

  test('a new set of recovery codes needs the password and voids the old set', async () => {
    const { email, c } = await signedIn();
    const { codes } = await enrol(c);
    assertError(
      await c.call('POST', '/two_factor/recovery_codes', { body: { password: 'not my password' } }),
      'console_password_incorrect',
    );
    const fresh = await c.call('POST', '/two_factor/recovery_codes', { body: { password: TEST_PASSWORD } });
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal(fresh.body.recovery_codes.length, 10);
    assert.ok(!fresh.body.recovery_codes.some((x: string) => codes.includes(x)));
    const b = new ConsoleClient(s.url);
    await b.signIn(email, TEST_PASSWORD);
    assertError(await b.call('POST', '/sign_in/two_factor', { body: { recovery_code: codes[0] } }), 'two_factor_failed');
    const ok = await b.call('POST', '/sign_in/two_factor', { body: { recovery_code: fresh.body.recovery_codes[0] } });
    assert.equal(ok.status, 200, ok.text);
    assert.ok((await auditActions(c)).includes('two_factor.recovery_codes_regenerated'));
  });

  test('turning it off needs the password; sign-in then asks for no code; it is audited', async () => {
    const { email, c } = await signedIn();
    await enrol(c);
    assertError(await c.call('POST', '/two_factor/disable', { body: { password: 'wrong password here' } }), 'console_password_incorrect');
    assertError(await c.call('POST', '/two_factor/disable', { body: {} }), 'parameter_missing');
    const off = await c.call('POST', '/two_factor/disable', { body: { password: TEST_PASSWORD } });
    assert.equal(off.status, 200, off.text);
    assert.deepEqual((await c.call('GET', '/two_factor')).body, { enabled: false, recovery_codes_remaining: 0 });
    assertError(await c.call('POST', '/two_factor/disable', { body: { password: TEST_PASSWORD } }), 'two_factor_not_enabled');
    const b = new ConsoleClient(s.url);
    assert.equal((await b.signIn(email, TEST_PASSWORD)).body.two_factor_required, false);
    const actions = await auditActions(c);
    assert.ok(actions.includes('two_factor.disabled') && actions.includes('two_factor.enabled'));
    // The user is told by email (held here: this server has no SMTP relay).
    const notices = await s.ctx.store.db.selectFrom('messages').selectAll().where('recipient', '=', email).execute();
    assert.deepEqual(
      notices.map((m) => [m.kind, m.subject]),
      [['security_notice', 'أُوقف التحقق بخطوتين في لوحة تحكم توقيع']],
    );
  });

  test('password checks of a signed-in user are limited: past ten in the window, 429 even with the right one', async () => {
    const { c } = await signedIn();
    await enrol(c);
    for (let i = 0; i < 10; i++) {
      assertError(await c.call('POST', '/two_factor/disable', { body: { password: `guess number ${i}` } }), 'console_password_incorrect');
    }
    const limited = await c.call('POST', '/two_factor/disable', { body: { password: TEST_PASSWORD } });
    assertError(limited, 'too_many_requests');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
  });

  test('every route needs a signed-in session and, for a change, its CSRF token', async () => {
    assertError(await new ConsoleClient(s.url).call('POST', '/two_factor/setup'), 'console_session_required');
    const { c } = await signedIn('developer');
    assertError(await c.call('POST', '/two_factor/setup', { noCsrf: true }), 'csrf_failed');
    assert.equal((await c.call('POST', '/two_factor/setup')).status, 200, 'any role manages its own second factor');
  });
});
