/**
 * Passwords (issue 15, point 2): a reset by email — 202 whatever the address, the link from the
 * mail as it arrived at a real SMTP peer, an hour, single use, everyone signed out, the old
 * password dead, throttled — and a signed-in change. Real HTTP, the configured engine, time moved
 * on the server's clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LINK_SCRUBBED_NOTE } from '../../server/src/delivery/deliverMessage.js';
import { PASSWORD_RESET_JOB } from '../../server/src/services/consolePasswordReset.js';
import { assertError } from '../support/envelope.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { deliverMails, linkTokenOf, smtpEnvOf } from '../support/consoleMail.js';
import { startSmtpPeer, type SmtpPeer } from '../support/smtpPeer.js';
import { startTestServer, type TestServer } from '../support/server.js';

const NEW_PASSWORD = 'a brand new passphrase 42';

let s: TestServer;
let peer: SmtpPeer;
let accountId: string;
let serial = 0;

before(async () => {
  peer = await startSmtpPeer();
  s = await startTestServer({ ...CONSOLE_TEST_ENV, ...smtpEnvOf(peer) });
  accountId = (await s.account({ name: 'Acme' })).id;
});
after(async () => {
  await s.close();
  await peer.close();
});

/** A user of the account and a fresh hour (the reset limits count per hour: each test starts anew). */
async function freshUser(): Promise<string> {
  s.clock.advanceSeconds(3600);
  const email = `member${++serial}@acme.test`;
  await consoleUser(s, accountId, email, 'developer');
  return email;
}

async function signedIn(email: string, password = TEST_PASSWORD): Promise<ConsoleClient> {
  const c = new ConsoleClient(s.url);
  const r = await c.signIn(email, password);
  assert.equal(r.status, 200, r.text);
  return c;
}

const askReset = (email: string, lang?: 'en') => new ConsoleClient(s.url, lang).call('POST', '/password_reset', { body: { email } });

describe('password reset by email', () => {
  test('202 whatever the address; only a user with an account gets a mail, Arabic by default', async () => {
    const email = await freshUser();
    const unknown = await askReset('nobody@acme.test');
    assert.equal(unknown.status, 202, unknown.text);
    const known = await askReset(email.toUpperCase());
    assert.equal(known.status, 202);
    assert.deepEqual(known.body, unknown.body, 'the same answer');
    const [mail] = await deliverMails(s, peer, 1);
    assert.deepEqual(mail!.envelopeTo, [email]);
    assert.equal(mail!.subject, 'إعادة تعيين كلمة مرور لوحة تحكم توقيع');
    assert.match(mail!.html!, /<html lang="ar" dir="rtl">/);
    assert.match(mail!.text!, /صالح لمدة ساعة واحدة/);
    assert.ok(!mail!.subject.includes('[TEST]'), 'not a test-mode message');
    linkTokenOf(mail!, 'reset');
  });

  test('a known and an unknown address cannot be told apart: the same status, body and headers; the request does the same work for both (one job), the link, mail and audit entry come from the job', async () => {
    const email = await freshUser();
    const user = await s.ctx.store.db.selectFrom('console_users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const unknown = await askReset('nobody.else@acme.test');
    const known = await askReset(email);
    assert.equal(known.status, 202);
    assert.equal(known.text, unknown.text);
    // Every header but the request's own id and the time.
    const headers = (r: typeof known) => [...r.headers].filter(([name]) => name !== 'svc-request-id' && name !== 'date');
    assert.deepEqual(headers(known), headers(unknown));

    // What the two requests wrote: one job each, nothing else; no link, mail or audit entry yet.
    const jobs = await s.ctx.store.db.selectFrom('jobs').select(['kind', 'payload']).where('state', '=', 'pending').execute();
    assert.deepEqual(
      jobs.map((j) => [j.kind, JSON.parse(j.payload).email]),
      [
        [PASSWORD_RESET_JOB, 'nobody.else@acme.test'],
        [PASSWORD_RESET_JOB, email],
      ],
    );
    const traces = async () => ({
      links: (await s.ctx.store.db.selectFrom('console_tokens').select('id').where('user_id', '=', user.id).execute()).length,
      audit: (
        await s.ctx.store.db
          .selectFrom('audit_log')
          .select('id')
          .where('target', '=', user.id)
          .where('action', '=', 'password.reset_requested')
          .execute()
      ).length,
    });
    assert.deepEqual(await traces(), { links: 0, audit: 0 });
    const [mail] = await deliverMails(s, peer, 1);
    assert.deepEqual(mail!.envelopeTo, [email]);
    assert.deepEqual(await traces(), { links: 1, audit: 1 });
  });

  test('the client address limit counts known and unknown addresses alike', async () => {
    const email = await freshUser();
    for (let i = 0; i < 5; i++) {
      assert.equal((await askReset(email)).status, 202);
      assert.equal((await askReset(`stranger.${serial}.${i}@acme.test`)).status, 202);
    }
    assertError(await askReset(email), 'too_many_requests');
    assertError(await askReset(`stranger.${serial}.x@acme.test`), 'too_many_requests');
    // Three mails an hour to the known address; none to the others.
    await deliverMails(s, peer, 3);
  });

  test('the link from the mail sets a new password: other sessions end, the old password fails, the link is spent', async () => {
    const email = await freshUser();
    const a = await signedIn(email);
    const b = await signedIn(email);
    assert.equal((await askReset(email, 'en')).status, 202);
    const [mail] = await deliverMails(s, peer, 1);
    assert.equal(mail!.subject, 'Reset your Tawqi console password');
    assert.match(mail!.html!, /<html lang="en" dir="ltr">/);
    const token = linkTokenOf(mail!, 'reset');

    const anon = new ConsoleClient(s.url, 'en');
    const short = await anon.call('POST', '/password_reset/confirm', { body: { token, password: 'short' } });
    assertError(short, 'parameter_invalid', 'en');
    assert.equal(short.body.error.param, 'password');
    const withEmail = await anon.call('POST', '/password_reset/confirm', { body: { token, password: `my ${email} is safe` } });
    assertError(withEmail, 'parameter_invalid', 'en');
    assert.match(withEmail.body.error.message, /email/);

    const done = await anon.call('POST', '/password_reset/confirm', { body: { token, password: NEW_PASSWORD } });
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(done.body, { email });
    // The user is told, in the language of the reset page, with the way back if it was not them.
    const [notice] = await deliverMails(s, peer, 1);
    assert.deepEqual(notice!.envelopeTo, [email]);
    assert.equal(notice!.subject, 'Your Tawqi console password was changed');
    assert.match(notice!.text!, /from the address 127\.0\.0\.1/);
    assert.ok(notice!.text!.includes(`${s.url}/console/forgot-password`));
    assertError(await a.call('GET', '/session'), 'console_session_required');
    assertError(await b.call('GET', '/session'), 'console_session_required');
    assertError(await new ConsoleClient(s.url).signIn(email, TEST_PASSWORD), 'console_sign_in_failed');
    await signedIn(email, NEW_PASSWORD);
    assertError(
      await anon.call('POST', '/password_reset/confirm', { body: { token, password: 'yet another passphrase' } }),
      'console_link_invalid',
      'en',
    );

    // No usable link stays in the database: the sent message was scrubbed, the token is stored as its hash.
    const row = await s.ctx.store.db
      .selectFrom('messages')
      .selectAll()
      .where('recipient', '=', email)
      .where('kind', '=', 'password_reset')
      .executeTakeFirstOrThrow();
    assert.equal(row.kind, 'password_reset');
    assert.equal(row.body, LINK_SCRUBBED_NOTE);
    assert.equal(row.blocks, null);
    const tokens = await s.ctx.store.db.selectFrom('console_tokens').select('id').execute();
    assert.ok(!tokens.some((t) => t.id === token));
  });

  test('the audit log records the request and the reset', async () => {
    const email = await freshUser();
    await askReset(email);
    const [mail] = await deliverMails(s, peer, 1);
    const done = await new ConsoleClient(s.url).call('POST', '/password_reset/confirm', {
      body: { token: linkTokenOf(mail!, 'reset'), password: NEW_PASSWORD },
    });
    assert.equal(done.status, 200, done.text);
    await deliverMails(s, peer, 1);
    const ownerEmail = `owner${++serial}@acme.test`;
    await consoleUser(s, accountId, ownerEmail, 'owner');
    const owner = await signedIn(ownerEmail);
    const log = await owner.call('GET', '/audit_log?limit=100');
    const mine = log.body.data.filter((e: { actor: string }) => e.actor === email).map((e: { action: string }) => e.action);
    assert.deepEqual(mine.slice(0, 2), ['password.reset', 'password.reset_requested']);
  });

  test('a link is good for an hour: past it, refused; a newer link voids the older one', async () => {
    const email = await freshUser();
    await askReset(email);
    const [first] = await deliverMails(s, peer, 1);
    await askReset(email);
    const [second] = await deliverMails(s, peer, 1);
    const anon = new ConsoleClient(s.url);
    const older = await anon.call('POST', '/password_reset/confirm', {
      body: { token: linkTokenOf(first!, 'reset'), password: NEW_PASSWORD },
    });
    assertError(older, 'console_link_invalid');
    s.clock.advanceSeconds(3601);
    const late = await anon.call('POST', '/password_reset/confirm', {
      body: { token: linkTokenOf(second!, 'reset'), password: NEW_PASSWORD },
    });
    assertError(late, 'console_link_invalid');
    assertError(
      await anon.call('POST', '/password_reset/confirm', { body: { token: 'madeup', password: NEW_PASSWORD } }),
      'console_link_invalid',
    );
    assert.equal((await new ConsoleClient(s.url).signIn(email, TEST_PASSWORD)).status, 200, 'the password did not change');
  });

  test('throttled: three mails an hour per address (the rest answered 202 all the same), ten requests per client address', async () => {
    const email = await freshUser();
    for (let i = 0; i < 4; i++) assert.equal((await askReset(email)).status, 202);
    await deliverMails(s, peer, 3);
    for (let i = 0; i < 6; i++) assert.equal((await askReset(`stranger${i}@acme.test`)).status, 202);
    const limited = await askReset(email);
    assertError(limited, 'too_many_requests');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    await deliverMails(s, peer, 0);
  });

  test('a reset request from another site is refused', async () => {
    await freshUser();
    const r = await new ConsoleClient(s.url).call('POST', '/password_reset', {
      body: { email: 'x@acme.test' },
      headers: { origin: 'https://evil.example' },
    });
    assertError(r, 'csrf_failed');
  });
});

describe('changing the password while signed in', () => {
  test('the current password first; then the other sessions end and this one stays', async () => {
    const email = await freshUser();
    const here = await signedIn(email);
    const elsewhere = await signedIn(email);
    const wrong = await here.call('POST', '/password', { body: { current_password: 'not the password', new_password: NEW_PASSWORD } });
    assertError(wrong, 'console_password_incorrect');
    assert.equal(wrong.body.error.param, 'current_password');
    const weak = await here.call('POST', '/password', { body: { current_password: TEST_PASSWORD, new_password: 'short' } });
    assertError(weak, 'parameter_invalid');
    assert.equal(weak.body.error.param, 'new_password');
    assertError(
      await here.call('POST', '/password', { body: { current_password: TEST_PASSWORD, new_password: NEW_PASSWORD }, noCsrf: true }),
      'csrf_failed',
    );

    const done = await here.call('POST', '/password', { body: { current_password: TEST_PASSWORD, new_password: NEW_PASSWORD } });
    assert.equal(done.status, 200, done.text);
    assert.equal((await here.call('GET', '/session')).status, 200, 'this session stays');
    assertError(await elsewhere.call('GET', '/session'), 'console_session_required');
    assertError(await new ConsoleClient(s.url).signIn(email, TEST_PASSWORD), 'console_sign_in_failed');
    await signedIn(email, NEW_PASSWORD);
    const [notice] = await deliverMails(s, peer, 1);
    assert.deepEqual(notice!.envelopeTo, [email]);
    assert.equal(notice!.subject, 'تغيّرت كلمة مرور لوحة تحكم توقيع');
  });
});
