/**
 * The team (issue 15, points 1 and 7): invitations by email (the link from the mail as it arrived
 * at a real SMTP peer, a week, single use), accepting (a password; the member is signed in at once),
 * the new member a valid test-mode recipient at once (a test request to them is created), role changes and removal
 * with their rules, and authorization route by route: a developer or viewer cannot manage users,
 * another account's users are not found. Real HTTP, the configured engine, the server's clock.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { LINK_SCRUBBED_NOTE } from '../../server/src/delivery/deliverMessage.js';
import { getAccount } from '../../server/src/store/accounts.js';
import { assertError } from '../support/envelope.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { deliverMails, linkTokenOf, smtpEnvOf } from '../support/consoleMail.js';
import { startSmtpPeer, type SmtpPeer } from '../support/smtpPeer.js';
import { startTestServer, type TestServer } from '../support/server.js';

const MEMBER_PASSWORD = 'a long member passphrase';

let s: TestServer;
let peer: SmtpPeer;
let serial = 0;

before(async () => {
  peer = await startSmtpPeer();
  s = await startTestServer({ ...CONSOLE_TEST_ENV, ...smtpEnvOf(peer) });
});
after(async () => {
  await s.close();
  await peer.close();
});

interface Team {
  accountId: string;
  secretTest: string;
  templateId: string;
  ownerEmail: string;
  owner: ConsoleClient;
}

/** A new account with its owner signed in (`lang` their console's language) and a template for test requests. */
async function team(lang?: 'en'): Promise<Team> {
  const n = ++serial;
  const acct = await s.account({ name: `Acme ${n}` });
  const ownerEmail = `owner${n}@acme.test`;
  await consoleUser(s, acct.id, ownerEmail, 'owner');
  const owner = new ConsoleClient(s.url, lang);
  assert.equal((await owner.signIn(ownerEmail, TEST_PASSWORD)).status, 200);
  const tpl = await s.call('POST', '/templates', { key: acct.keys.secret_test, body: { title: 'NDA', body: 'Terms.' } });
  assert.equal(tpl.status, 201, tpl.text);
  return { accountId: acct.id, secretTest: acct.keys.secret_test, templateId: tpl.body.id, ownerEmail, owner };
}

/** Invite through the API and return the token of the link in the mail that arrived. */
async function invite(by: ConsoleClient, email: string, role: string): Promise<string> {
  const r = await by.call('POST', '/users/invitations', { body: { email, role } });
  assert.equal(r.status, 201, r.text);
  const [mail] = await deliverMails(s, peer, 1);
  assert.deepEqual(mail!.envelopeTo, [email.toLowerCase()]);
  return linkTokenOf(mail!, 'invite');
}

/** Invite, accept and sign in: the member's client. */
async function member(t: Team, email: string, role: string, by = t.owner): Promise<ConsoleClient> {
  const token = await invite(by, email, role);
  const accepted = await new ConsoleClient(s.url).call('POST', '/invitations/accept', {
    body: { token, name: 'Member', password: MEMBER_PASSWORD },
  });
  assert.equal(accepted.status, 200, accepted.text);
  const c = new ConsoleClient(s.url);
  assert.equal((await c.signIn(email, MEMBER_PASSWORD)).status, 200);
  return c;
}

/** A test request to `email` (its signing invitation, when it is created, delivered so later mail counts stay exact). */
async function testRequestTo(t: Team, email: string) {
  const r = await s.call('POST', '/signature_requests', {
    key: t.secretTest,
    body: { title: 'Team check', source: { type: 'template', template_id: t.templateId }, signers: [{ name: 'Member', email }] },
  });
  if (r.status === 201) await deliverMails(s, peer, 1);
  return r;
}

async function userId(t: Team, email: string): Promise<string> {
  const list = await t.owner.call('GET', '/users');
  const u = list.body.data.find((x: { email: string }) => x.email === email);
  assert.ok(u, `${email} in the team`);
  return u.id;
}

describe('invitations', () => {
  test('invite → the mail in the inviter’s language → accept → sign in; the new email is a test-mode recipient at once', async () => {
    const t = await team('en');
    const email = `dev${serial}@acme.test`;
    assertError(await testRequestTo(t, email), 'test_recipient_not_allowed');

    const r = await t.owner.call('POST', '/users/invitations', { body: { email: email.toUpperCase(), role: 'developer' } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.email, email);
    assert.equal(r.body.status, 'invited');
    assert.equal(r.body.role, 'developer');
    const [mail] = await deliverMails(s, peer, 1);
    assert.equal(mail!.subject, `You are invited to join Acme ${serial} on Tawqi`);
    assert.match(
      mail!.text!,
      new RegExp(`${t.ownerEmail} invited you to join the “Acme ${serial}” team in the Tawqi console as Developer`),
    );
    assert.match(mail!.html!, /<html lang="en" dir="ltr">/);
    const token = linkTokenOf(mail!, 'invite');
    assertError(await testRequestTo(t, email), 'test_recipient_not_allowed', 'ar');

    const shown = await new ConsoleClient(s.url).call('POST', '/invitations/lookup', { body: { token } });
    assert.equal(shown.status, 200, shown.text);
    assert.deepEqual(shown.body, { email, account_name: `Acme ${serial}`, role: 'developer' });

    const anon = new ConsoleClient(s.url);
    const weak = await anon.call('POST', '/invitations/accept', { body: { token, name: 'Dina', password: 'short' } });
    assertError(weak, 'parameter_invalid');
    assert.equal(weak.body.error.param, 'password');
    assertError(
      await anon.call('POST', '/invitations/accept', { body: { token, name: '', password: MEMBER_PASSWORD } }),
      'parameter_invalid',
    );
    const accepted = await anon.call('POST', '/invitations/accept', { body: { token, name: 'Dina', password: MEMBER_PASSWORD } });
    assert.equal(accepted.status, 200, accepted.text);
    // Accepting signs the new member in: a full session (no second factor yet), its cookie and CSRF token.
    assert.equal(accepted.body.user.email, email);
    assert.equal(accepted.body.user.status, 'active');
    assert.equal(accepted.body.two_factor_required, false);
    assert.equal(typeof accepted.body.csrf_token, 'string');
    const session = await anon.call('GET', '/session');
    assert.equal(session.status, 200, session.text);
    assert.equal(session.body.user.name, 'Dina');
    assert.equal(session.body.user.last_sign_in_at, Math.floor(s.clock.nowMs() / 1000));
    assertError(
      await anon.call('POST', '/invitations/accept', { body: { token, name: 'Dina', password: MEMBER_PASSWORD } }),
      'console_link_invalid',
    );
    assertError(await anon.call('POST', '/invitations/lookup', { body: { token } }), 'console_link_invalid');

    const dina = new ConsoleClient(s.url);
    const signed = await dina.signIn(email, MEMBER_PASSWORD);
    assert.equal(signed.status, 200, signed.text);
    assert.equal(signed.body.user.role, 'developer');
    assert.equal(signed.body.user.name, 'Dina');
    assert.ok((await getAccount(s.ctx.store.db, t.accountId))!.team_emails.includes(email));
    const req = await testRequestTo(t, email);
    assert.equal(req.status, 201, req.text);

    const list = await t.owner.call('GET', '/users');
    assert.deepEqual(
      list.body.data.map((u: { email: string; status: string }) => [u.email, u.status]),
      [
        [t.ownerEmail, 'active'],
        [email, 'active'],
      ],
    );
    const actions = (await t.owner.call('GET', '/audit_log?limit=100')).body.data.map((e: { action: string }) => e.action);
    assert.ok(actions.includes('user.invited') && actions.includes('user.joined'));

    const row = await s.ctx.store.db
      .selectFrom('messages')
      .selectAll()
      .where('recipient', '=', email)
      .where('kind', '=', 'console_invitation')
      .executeTakeFirstOrThrow();
    assert.equal(row.body, LINK_SCRUBBED_NOTE, 'the sent invitation keeps no link');
  });

  test('Arabic by default; inviting again renews the link (the old one void); an invitation lasts seven days', async () => {
    const t = await team();
    const email = `late${serial}@acme.test`;
    const first = await invite(t.owner, email, 'viewer');
    const r = await t.owner.call('POST', '/users/invitations', { body: { email, role: 'developer' } });
    assert.equal(r.status, 201, r.text);
    const [mail] = await deliverMails(s, peer, 1);
    assert.equal(mail!.subject, `دعوة للانضمام إلى فريق Acme ${serial} على توقيع`);
    assert.match(mail!.html!, /<html lang="ar" dir="rtl">/);
    assert.match(mail!.text!, /بدور «مطوّر»/);
    const second = linkTokenOf(mail!, 'invite');
    assertError(await new ConsoleClient(s.url).call('POST', '/invitations/lookup', { body: { token: first } }), 'console_link_invalid');
    assert.equal((await new ConsoleClient(s.url).call('POST', '/invitations/lookup', { body: { token: second } })).body.role, 'developer');
    s.clock.advanceSeconds(7 * 86400 + 1);
    const late = await new ConsoleClient(s.url, 'en').call('POST', '/invitations/accept', {
      body: { token: second, name: 'Late', password: MEMBER_PASSWORD },
    });
    assertError(late, 'console_link_invalid', 'en');
  });

  test('an email that is already a user’s is refused; bad emails and roles are parameter errors', async () => {
    const t = await team();
    const other = await team();
    assertError(
      await t.owner.call('POST', '/users/invitations', { body: { email: other.ownerEmail, role: 'viewer' } }),
      'console_user_exists',
    );
    assertError(await t.owner.call('POST', '/users/invitations', { body: { email: t.ownerEmail, role: 'viewer' } }), 'console_user_exists');
    assertError(await t.owner.call('POST', '/users/invitations', { body: { email: 'not an email', role: 'viewer' } }), 'parameter_invalid');
    assertError(
      await t.owner.call('POST', '/users/invitations', { body: { email: 'x@acme.test', role: 'operator' } }),
      'parameter_invalid',
    );
    await deliverMails(s, peer, 0);
  });
});

describe('roles and removal', () => {
  test('an admin manages developers and viewers but cannot make an owner or touch one', async () => {
    const t = await team();
    const admin = await member(t, `admin${serial}@acme.test`, 'admin');
    assertError(await admin.call('POST', '/users/invitations', { body: { email: `o${serial}@acme.test`, role: 'owner' } }), 'forbidden');
    const ownerId = await userId(t, t.ownerEmail);
    assertError(await admin.call('PATCH', `/users/${ownerId}`, { body: { role: 'viewer' } }), 'forbidden');
    assertError(await admin.call('DELETE', `/users/${ownerId}`), 'forbidden');
    await member(t, `dev${serial}@acme.test`, 'developer', admin);
    const devId = await userId(t, `dev${serial}@acme.test`);
    assertError(await admin.call('PATCH', `/users/${devId}`, { body: { role: 'owner' } }), 'forbidden');
    const changed = await admin.call('PATCH', `/users/${devId}`, { body: { role: 'viewer' } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.role, 'viewer');
    const log = (await t.owner.call('GET', '/audit_log?limit=100')).body.data;
    const entry = log.find((e: { action: string }) => e.action === 'user.role_changed');
    assert.deepEqual([entry.target, entry.detail.from, entry.detail.to], [devId, 'developer', 'viewer']);
  });

  test('the last owner can be neither demoted nor removed; with a second owner, one may go', async () => {
    const t = await team();
    const ownerId = await userId(t, t.ownerEmail);
    assertError(await t.owner.call('PATCH', `/users/${ownerId}`, { body: { role: 'admin' } }), 'last_owner');
    assertError(await t.owner.call('DELETE', `/users/${ownerId}`), 'last_owner');
    const second = await member(t, `owner2.${serial}@acme.test`, 'owner');
    // Nobody changes their own role, even with another owner there.
    assertError(await t.owner.call('PATCH', `/users/${ownerId}`, { body: { role: 'admin' } }), 'forbidden');
    const demoted = await second.call('PATCH', `/users/${ownerId}`, { body: { role: 'admin' } });
    assert.equal(demoted.status, 200, demoted.text);
    const secondId = await userId(t, `owner2.${serial}@acme.test`);
    assertError(await t.owner.call('PATCH', `/users/${secondId}`, { body: { role: 'viewer' } }), 'forbidden');
    assertError(await second.call('DELETE', `/users/${secondId}`), 'last_owner');
  });

  test('removal signs the user out at once and takes their email out of the test-mode recipients', async () => {
    const t = await team();
    const email = `gone${serial}@acme.test`;
    const gone = await member(t, email, 'developer');
    assert.equal((await testRequestTo(t, email)).status, 201);
    const id = await userId(t, email);
    const r = await t.owner.call('DELETE', `/users/${id}`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { id, deleted: true });
    assertError(await gone.call('GET', '/session'), 'console_session_required');
    assertError(await new ConsoleClient(s.url).signIn(email, MEMBER_PASSWORD), 'console_sign_in_failed');
    assertError(await testRequestTo(t, email), 'test_recipient_not_allowed');
    assert.ok(!(await getAccount(s.ctx.store.db, t.accountId))!.team_emails.includes(email));
    assertError(await t.owner.call('DELETE', `/users/${id}`), 'not_found');
    const log = (await t.owner.call('GET', '/audit_log?limit=100')).body.data;
    assert.ok(log.some((e: { action: string; target: string }) => e.action === 'user.removed' && e.target === id));
    // The email may be invited again.
    await member(t, email, 'viewer');
  });

  test('withdrawing a pending invitation voids its link', async () => {
    const t = await team();
    const token = await invite(t.owner, `pending${serial}@acme.test`, 'viewer');
    const id = await userId(t, `pending${serial}@acme.test`);
    assert.equal((await t.owner.call('DELETE', `/users/${id}`)).status, 200);
    assertError(await new ConsoleClient(s.url).call('POST', '/invitations/lookup', { body: { token } }), 'console_link_invalid');
  });
});

describe('authorization, route by route', () => {
  test('a developer and a viewer read the team but get 403 on every users.manage route', async () => {
    const t = await team();
    const dev = await member(t, `d${serial}@acme.test`, 'developer');
    const viewer = await member(t, `v${serial}@acme.test`, 'viewer');
    const ownerId = await userId(t, t.ownerEmail);
    for (const c of [dev, viewer]) {
      assert.equal((await c.call('GET', '/users')).status, 200);
      assertError(await c.call('POST', '/users/invitations', { body: { email: `x${serial}@acme.test`, role: 'viewer' } }), 'forbidden');
      assertError(await c.call('PATCH', `/users/${ownerId}`, { body: { role: 'viewer' } }), 'forbidden');
      assertError(await c.call('DELETE', `/users/${ownerId}`), 'forbidden');
    }
    await deliverMails(s, peer, 0);
  });

  test('another account’s users are not found: not listed, not changed, not removed', async () => {
    const a = await team();
    const b = await team();
    const bOwnerId = await userId(b, b.ownerEmail);
    const list = await a.owner.call('GET', '/users');
    assert.ok(!list.body.data.some((u: { id: string }) => u.id === bOwnerId));
    assertError(await a.owner.call('PATCH', `/users/${bOwnerId}`, { body: { role: 'viewer' } }), 'not_found');
    assertError(await a.owner.call('DELETE', `/users/${bOwnerId}`), 'not_found');
    assertError(await a.owner.call('PATCH', '/users/usr_doesnotexist', { body: { role: 'viewer' } }), 'not_found');
    assert.equal((await b.owner.call('GET', '/session')).status, 200, 'B untouched');
  });

  test('no session: 401 on the team routes; the invitation routes need none; a change needs the CSRF token', async () => {
    const anon = new ConsoleClient(s.url);
    assertError(await anon.call('GET', '/users'), 'console_session_required');
    assertError(
      await anon.call('POST', '/users/invitations', { body: { email: 'a@acme.test', role: 'viewer' } }),
      'console_session_required',
    );
    assertError(await anon.call('POST', '/invitations/lookup', { body: { token: 'unknowntoken' } }), 'console_link_invalid');
    const t = await team();
    assertError(
      await t.owner.call('POST', '/users/invitations', { body: { email: 'a@acme.test', role: 'viewer' }, noCsrf: true }),
      'csrf_failed',
    );
  });
});

describe('secrets in logs', () => {
  test('the access log names the invitation route but never its token', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logged = await startTestServer({ ...CONSOLE_TEST_ENV, ...smtpEnvOf(peer) }, { start: { log: pino({ level: 'info' }, sink) } });
    try {
      const acct = await logged.account({ name: 'Logged' });
      await consoleUser(logged, acct.id, 'owner@logged.test', 'owner');
      const owner = new ConsoleClient(logged.url);
      await owner.signIn('owner@logged.test', TEST_PASSWORD);
      assert.equal((await owner.call('POST', '/users/invitations', { body: { email: 'new@logged.test', role: 'viewer' } })).status, 201);
      const before = peer.mails.length;
      await logged.jobs.runDue();
      const [mail] = await peer.waitFor(before + 1).then((m) => m.slice(before));
      const token = linkTokenOf(mail!, 'invite');
      assert.equal((await new ConsoleClient(logged.url).call('POST', '/invitations/lookup', { body: { token } })).status, 200);
      const accept = { token, name: 'New', password: MEMBER_PASSWORD };
      assert.equal((await new ConsoleClient(logged.url).call('POST', '/invitations/accept', { body: accept })).status, 200);
      const log = lines.join('');
      assert.match(log, /"path":"\/console\/api\/invitations\/lookup"/);
      assert.match(log, /"path":"\/console\/api\/invitations\/accept"/);
      assert.ok(!log.includes(token), 'the token is in no log line');
    } finally {
      await logged.close();
    }
  });
});
