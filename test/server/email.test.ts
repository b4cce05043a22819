/**
 * Email through a real SMTP peer (test/support/smtpPeer.ts): invitations, reminders, one-time codes
 * and final-file notices as they arrive — text and HTML, Arabic (rtl) and English, branded, test
 * mode marked —, the signing link rendered at delivery, the access code never sent, the one-time
 * code scrubbed after delivery, retries while the relay is down, STARTTLS/implicit TLS with AUTH,
 * certificate checking; and without SMTP: messages held and printed by `tawqi mail list|show`.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../../server/src/config.js';
import { SCRUBBED_NOTE } from '../../server/src/delivery/deliverMessage.js';
import { smtpSettings } from '../../server/src/delivery/index.js';
import { jobBackoffSeconds, MAX_JOB_ATTEMPTS } from '../../server/src/retry.js';
import { invitationMessage, messageHtml, queueFinalFileNotices, queueOtpMessage } from '../../server/src/delivery/messages.js';
import { linkToken, signingUrl } from '../../server/src/domain/signingLinks.js';
import { getAccount, updateAccount } from '../../server/src/store/accounts.js';
import { getRequestById, signersOf } from '../../server/src/store/signatureRequests.js';
import { startSmtpPeer, type CapturedMail, type SmtpPeer } from '../support/smtpPeer.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { onPostgres } from '../support/database.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TEAM = ['amira@example.com', 'bassem@example.com', 'carla@example.com'];
const HOSTILE = '<img src=x onerror=alert(1)>';
const LINK = /\/sign\/sgr_[0-9A-Za-z]+\.[A-Za-z0-9_-]+/;
const SMTP_USER = 'mailer';
const SMTP_PASS = 'relay-pass-1';
const FROM = 'Tawqi <no-reply@tawqi.test>';

type Keys = TestServer['keys'];
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Acct {
  id: string;
  keys: Keys;
  template: string;
}

/** A fresh account (business, verified, 1000 sends) whose owner and team are TEAM, with an Arabic template. */
async function makeAccount(s: TestServer, branding: Record<string, unknown> = {}): Promise<Acct> {
  const acct = await s.account({ ownerEmail: TEAM[0] });
  await s.ctx.store.tx((trx) => updateAccount(trx, acct.id, { team_emails: TEAM, branding }));
  const tpl = await s.call('POST', '/templates', { key: acct.keys.secret_test, body: { title: 'اتفاقية', body: 'نص الاتفاقية.' } });
  assert.equal(tpl.status, 201, tpl.text);
  return { ...acct, template: tpl.body.id };
}

async function createRequest(
  s: TestServer,
  key: string,
  a: Acct,
  extra: Record<string, unknown> = {},
  signers: Json[] = [{ name: 'Amira', email: TEAM[0] }],
): Promise<Json> {
  const r = await s.call('POST', '/signature_requests', {
    key,
    body: { title: 'Lease', source: { type: 'template', template_id: a.template }, signers, ...extra },
  });
  assert.equal(r.status, 201, r.text);
  return r.body;
}

/** Run due jobs and return the mails that arrived meanwhile (at least `expected`). */
async function deliver(s: TestServer, peer: SmtpPeer, expected: number): Promise<CapturedMail[]> {
  const before = peer.mails.length;
  await s.jobs.runDue();
  await peer.waitFor(before + expected);
  return peer.mails.slice(before);
}

const messageRows = (s: TestServer, requestId: string) =>
  s.ctx.store.db.selectFrom('messages').selectAll().where('signature_request_id', '=', requestId).orderBy('id').execute();

function smtpEnv(peer: SmtpPeer, extra: Record<string, string> = {}): Record<string, string> {
  return {
    TAWQI_SMTP_HOST: '127.0.0.1',
    TAWQI_SMTP_PORT: String(peer.port),
    TAWQI_SMTP_USER: SMTP_USER,
    TAWQI_SMTP_PASSWORD: SMTP_PASS,
    TAWQI_SMTP_REQUIRE_TLS: 'true',
    TAWQI_SMTP_FROM: FROM,
    TAWQI_SMTP_TLS_REJECT_UNAUTHORIZED: 'false',
    ...extra,
  };
}

describe('email over SMTP (STARTTLS required, AUTH)', () => {
  let peer: SmtpPeer;
  let s: TestServer;
  before(async () => {
    peer = await startSmtpPeer({ tls: 'starttls', auth: { user: SMTP_USER, pass: SMTP_PASS } });
    s = await startTestServer(smtpEnv(peer));
  });
  after(async () => {
    await s.close();
    await peer.close();
  });

  test('test key: Arabic invitation by default, rtl HTML, [TEST] and the notice, working link, counted as test email', async () => {
    const a = await makeAccount(s);
    const req = await createRequest(s, a.keys.secret_test, a, {}, [
      { name: 'Amira', email: TEAM[0] },
      { name: 'Bassem', email: TEAM[1] },
    ]);
    assert.equal(req.language, 'ar');
    const mails = await deliver(s, peer, 2);
    assert.deepEqual(mails.map((m) => m.envelopeTo[0]).sort(), [TEAM[0], TEAM[1]]);
    for (const m of mails) {
      const signer = req.signers.find((x: Json) => x.email === m.envelopeTo[0]);
      const url = signingUrl(s.url, s.ctx.secrets.linkKey, signer.id, 1);
      assert.equal(m.user, SMTP_USER, 'authenticated');
      assert.equal(m.secure, true, 'upgraded with STARTTLS');
      assert.equal(m.headers.from, FROM);
      assert.equal(m.subject, '[TEST] طلب توقيع: Lease');
      assert.match(m.text!, /هذه رسالة اختبار/);
      assert.match(m.html!, /هذه رسالة اختبار/);
      assert.ok(m.text!.includes(url), 'the text part carries the signing link');
      assert.ok(m.html!.includes(`href="${url}"`), 'the HTML button carries the signing link');
      assert.match(m.text!, LINK);
      assert.match(m.html!, /<html lang="ar" dir="rtl">/);
      assert.match(m.text!, /مدعوم من توقيع/, 'powered-by shown without branding');
      assert.ok(!m.raw.includes('{{'), 'no token left');
    }

    const rows = await messageRows(s, req.id);
    assert.equal(rows.length, 2);
    for (const row of rows) {
      assert.equal(row.state, 'sent');
      assert.equal(row.language, 'ar');
      assert.equal(row.html, null, 'no finished page stored: the HTML is built from the blocks when it leaves');
      assert.ok(messageHtml({ ...row, blocks: row.blocks! }).includes('dir="rtl"'));
      assert.ok(row.blocks!.length < 1000, `a small stored message (${row.blocks!.length} bytes of blocks)`);
      const signerId = row.signer_id!;
      assert.ok(
        !row.body.includes(linkToken(s.ctx.secrets.linkKey, signerId, 1)) &&
          !row.blocks!.includes(linkToken(s.ctx.secrets.linkKey, signerId, 1)),
        'no usable link at rest',
      );
    }
    const counter = await s.ctx.store.db
      .selectFrom('counters')
      .select('count')
      .where('scope', '=', `test_emails:${a.id}`)
      .executeTakeFirst();
    assert.equal(counter?.count, 2, 'both invitations count against the test email limit');
  });

  test('live key: English when the request says so, no [TEST], no notice; branding applied; from_email is the Reply-To', async () => {
    const a = await makeAccount(s, {
      brand_name: 'Acme Legal',
      brand_color: '#0a7d3b',
      sign_button_color: '#0a3d62',
      hide_powered: true,
      from_email: 'contracts@acme.test',
      logo_url: 'https://acme.test/logo.png',
    });
    const req = await createRequest(s, a.keys.secret_live, a, { language: 'en' }, [{ name: 'Dana Client', email: 'dana@client.test' }]);
    const [m] = await deliver(s, peer, 1);
    assert.ok(m);
    assert.equal(m.envelopeTo[0], 'dana@client.test');
    assert.equal(m.subject, 'Signature request: Lease');
    assert.doesNotMatch(m.subject, /\[TEST\]/);
    assert.doesNotMatch(m.text! + m.html!, /test message/i);
    assert.match(m.text!, /^Hello Dana Client,/);
    assert.match(m.html!, /<html lang="en" dir="ltr">/);
    assert.ok(m.text!.includes(signingUrl(s.url, s.ctx.secrets.linkKey, req.signers[0].id, 1)));
    // Branding: name, colours, logo; no "Powered by".
    assert.match(m.text!, /— Acme Legal$/);
    assert.match(m.html!, /border-top:4px solid #0a7d3b/);
    assert.match(m.html!, /background:#0a3d62;color:#ffffff/);
    assert.match(m.html!, /<img src="https:\/\/acme\.test\/logo\.png" alt="Acme Legal"/);
    assert.doesNotMatch(m.text! + m.html!, /Powered by/);
    // The relay sends as the server's address (SPF/DKIM); the brand is the display name, replies go to the account.
    assert.equal(m.headers.from, 'Acme Legal <no-reply@tawqi.test>');
    assert.equal(m.headers['reply-to'], 'contracts@acme.test');
    assert.equal(m.envelopeFrom, 'no-reply@tawqi.test');
  });

  test('hostile names and titles are escaped in HTML; the access code is never in a message', async () => {
    const a = await makeAccount(s);
    const code = 'Zebra-7731';
    const req = await createRequest(s, a.keys.secret_test, a, { title: HOSTILE }, [
      { name: HOSTILE, email: TEAM[1], access_code: code },
      { name: `Carla {{signing_url}} "quoted" & co`, email: TEAM[2] },
    ]);
    const mails = await deliver(s, peer, 2);
    for (const m of mails) {
      assert.ok(!m.html!.includes('<img src=x'), 'no markup from a value');
      assert.ok(!m.raw.includes(code) && !m.text!.includes(code) && !m.html!.includes(code), 'no access code');
      assert.ok(m.html!.includes('&lt;img src=x onerror=alert(1)&gt;'), 'the title shown escaped');
      assert.equal(m.subject, `[TEST] طلب توقيع: ${HOSTILE}`);
    }
    const toHostile = mails.find((m) => m.envelopeTo[0] === TEAM[1])!;
    assert.match(toHostile.text!, /سيُطلب منك رمز الدخول/, 'says a code will be asked for');
    const toCarla = mails.find((m) => m.envelopeTo[0] === TEAM[2])!;
    const carlaUrl = signingUrl(s.url, s.ctx.secrets.linkKey, req.signers[1].id, 1);
    assert.ok(
      toCarla.html!.includes('Carla &#123;&#123;signing_url&#125;&#125; &quot;quoted&quot; &amp; co'),
      'a token in a name stays text',
    );
    assert.equal(toCarla.text!.split(carlaUrl).length - 1, 1, 'the link appears once in the text part, where the template puts it');
    // Whatever the row says, it holds no code either.
    for (const row of await messageRows(s, req.id)) assert.ok(!row.body.includes(code) && !(row.html ?? '').includes(code));
  });

  test('reminders are delivered (Arabic subject, same link)', async () => {
    const a = await makeAccount(s);
    const req = await createRequest(s, a.keys.secret_test, a);
    await deliver(s, peer, 1);
    const r = await s.call('POST', `/signature_requests/${req.id}/reminders`, { key: a.keys.secret_test, body: {} });
    assert.equal(r.status, 200, r.text);
    const [m] = await deliver(s, peer, 1);
    assert.ok(m);
    assert.equal(m.subject, '[TEST] تذكير بطلب التوقيع: Lease');
    assert.match(m.text!, /تذكير: ما زال المستند «Lease» بانتظار توقيعك/);
    assert.ok(m.text!.includes(signingUrl(s.url, s.ctx.secrets.linkKey, req.signers[0].id, 1)));
    const rows = await messageRows(s, req.id);
    assert.deepEqual(
      rows.map((x) => [x.kind, x.state]),
      [
        ['invitation', 'sent'],
        ['reminder', 'sent'],
      ],
    );
  });

  test('one-time code: delivered in both parts, then scrubbed from the database', async () => {
    const a = await makeAccount(s);
    const req = await createRequest(s, a.keys.secret_test, a, { language: 'en' });
    await deliver(s, peer, 1);
    const code = '483920';
    const id = await s.ctx.store.tx(async (trx) => {
      const request = (await getRequestById(trx, req.id))!;
      const [signer] = await signersOf(trx, req.id);
      return queueOtpMessage(s.ctx, trx, request, signer!, code);
    });
    assert.ok(id);
    const before = await s.ctx.store.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.ok(before.body.includes(code), 'queued with its code');
    const [m] = await deliver(s, peer, 1);
    assert.ok(m);
    assert.equal(m.subject, '[TEST] Your code to sign: Lease');
    assert.ok(m.text!.includes(code) && m.html!.includes(code));
    assert.match(m.text!, /test message/);
    const after = await s.ctx.store.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(after.state, 'sent');
    assert.equal(after.body, SCRUBBED_NOTE);
    assert.equal(after.html, null);
    assert.equal(after.blocks, null, 'the blocks (with the code) are gone too');
    const invitation = (await messageRows(s, req.id)).find((r) => r.kind === 'invitation')!;
    assert.match(invitation.body, /Please review and sign/, 'other kinds keep their bodies');
  });

  test('final-file notice in live mode to the signers (their link) and the sender (download address); none in test mode', async () => {
    const a = await makeAccount(s);
    const req = await createRequest(s, a.keys.secret_live, a, { language: 'en' }, [{ name: 'Dana', email: 'dana@client.test' }]);
    await deliver(s, peer, 1);
    const ids = await s.ctx.store.tx(async (trx) => {
      const request = (await getRequestById(trx, req.id))!;
      request.reference = 'REF-ABCDE-FGHJK';
      const account = (await getAccount(trx, a.id))!;
      return queueFinalFileNotices(s.ctx, trx, request, await signersOf(trx, req.id), account.owner_email);
    });
    assert.equal(ids.length, 2);
    const mails = await deliver(s, peer, 2);
    const toSigner = mails.find((m) => m.envelopeTo[0] === 'dana@client.test')!;
    const toSender = mails.find((m) => m.envelopeTo[0] === TEAM[0])!;
    assert.equal(toSigner.subject, 'Completed: Lease');
    assert.match(toSigner.text!, /Reference: REF-ABCDE-FGHJK/);
    assert.ok(toSigner.text!.includes(signingUrl(s.url, s.ctx.secrets.linkKey, req.signers[0].id, 1)));
    assert.ok(toSender.text!.includes(`${s.url}/api/v1/signature_requests/${req.id}/download`));
    assert.doesNotMatch(toSender.text!, LINK, 'the sender gets no signer link');

    const t = await createRequest(s, a.keys.secret_test, a);
    await deliver(s, peer, 1);
    const none = await s.ctx.store.tx(async (trx) =>
      queueFinalFileNotices(s.ctx, trx, (await getRequestById(trx, t.id))!, await signersOf(trx, t.id), TEAM[0]!),
    );
    assert.deepEqual(none, []);
  });

  test('relay down: the delivery fails, is retried after the backoff, and the mail arrives once the relay is back', async () => {
    const a = await makeAccount(s);
    await peer.stop();
    const req = await createRequest(s, a.keys.secret_test, a);
    const count = peer.mails.length;
    await s.jobs.runDue();
    const [row] = await messageRows(s, req.id);
    assert.equal(row!.state, 'queued');
    assert.equal(row!.attempts, 1);
    assert.equal(row!.deliver_at, Math.floor(s.clock.nowMs() / 1000) + jobBackoffSeconds(1), 'due again after the backoff');
    assert.match(row!.last_error ?? '', /SMTP/);
    assert.ok(!(row!.last_error ?? '').includes('@'), 'no address in the stored error');

    await peer.start();
    await s.jobs.runDue();
    assert.equal(peer.mails.length, count, 'not retried before the backoff');
    s.clock.advanceSeconds(jobBackoffSeconds(1));
    const mails = await deliver(s, peer, 1);
    assert.equal(mails.length, 1);
    assert.equal(mails[0]!.envelopeTo[0], TEAM[0]);
    assert.equal((await messageRows(s, req.id))[0]!.state, 'sent');
    await s.jobs.runDue();
    assert.equal(peer.mails.length, count + 1, 'delivered once');
  });

  test('a message that keeps failing is given up after as many attempts as a job: failed, and never tried again', async () => {
    const a = await makeAccount(s);
    await peer.stop();
    try {
      const req = await createRequest(s, a.keys.secret_test, a);
      for (let attempt = 1; attempt <= MAX_JOB_ATTEMPTS; attempt++) {
        await s.jobs.runDue();
        const [row] = await messageRows(s, req.id);
        assert.equal(row!.attempts, attempt);
        if (attempt < MAX_JOB_ATTEMPTS) {
          assert.equal(row!.state, 'queued', `still queued after attempt ${attempt}`);
          s.clock.advanceSeconds(jobBackoffSeconds(attempt));
        }
      }
      const [given] = await messageRows(s, req.id);
      assert.equal(given!.state, 'failed');
      assert.equal(given!.deliver_at, null);
      s.clock.advanceSeconds(86400);
      await s.jobs.runDue();
      assert.equal((await messageRows(s, req.id))[0]!.attempts, MAX_JOB_ATTEMPTS, 'not tried again');
    } finally {
      await peer.start();
    }
  });

  test("the relay's certificate is checked by default: a self-signed relay is refused", async () => {
    const strict = await startTestServer(smtpEnv(peer, { TAWQI_SMTP_TLS_REJECT_UNAUTHORIZED: 'true' }));
    try {
      const a = await makeAccount(strict);
      const req = await createRequest(strict, a.keys.secret_test, a);
      const count = peer.mails.length;
      await strict.jobs.runDue();
      assert.equal(peer.mails.length, count);
      const [row] = await messageRows(strict, req.id);
      assert.equal(row!.state, 'queued');
      assert.match(row!.last_error ?? '', /certificate/);
    } finally {
      await strict.close();
    }
  });

  test('a wrong SMTP password fails the delivery (retried later), nothing is sent', async () => {
    const wrong = await startTestServer(smtpEnv(peer, { TAWQI_SMTP_PASSWORD: 'not-it' }));
    try {
      const a = await makeAccount(wrong);
      const req = await createRequest(wrong, a.keys.secret_test, a);
      const count = peer.mails.length;
      const failures = peer.authFailures;
      await wrong.jobs.runDue();
      assert.equal(peer.mails.length, count);
      assert.ok(peer.authFailures > failures);
      assert.equal((await messageRows(wrong, req.id))[0]!.state, 'queued');
    } finally {
      await wrong.close();
    }
  });
});

describe('email over implicit TLS (smtps:// URL)', () => {
  let peer: SmtpPeer;
  let s: TestServer;
  before(async () => {
    peer = await startSmtpPeer({ tls: 'implicit', auth: { user: 'relay@tawqi.test', pass: 'p@ss:word' } });
    s = await startTestServer({
      TAWQI_SMTP_URL: `smtps://${encodeURIComponent('relay@tawqi.test')}:${encodeURIComponent('p@ss:word')}@127.0.0.1:${peer.port}`,
      TAWQI_SMTP_TLS_REJECT_UNAUTHORIZED: 'false',
      TAWQI_SMTP_ACCOUNT_FROM: 'true',
    });
  });
  after(async () => {
    await s.close();
    await peer.close();
  });

  test('delivered over TLS with the URL credentials; the sender defaults to the SMTP user; the account from_email may be the From', async () => {
    const plain = await makeAccount(s);
    await createRequest(s, plain.keys.secret_test, plain);
    const [m] = await deliver(s, peer, 1);
    assert.ok(m);
    assert.equal(m.secure, true);
    assert.equal(m.user, 'relay@tawqi.test');
    assert.equal(m.headers.from, 'relay@tawqi.test');

    const branded = await makeAccount(s, { brand_name: 'Acme', from_email: 'contracts@acme.test' });
    await createRequest(s, branded.keys.secret_test, branded);
    const [b] = await deliver(s, peer, 1);
    assert.ok(b);
    assert.equal(b.headers.from, 'Acme <contracts@acme.test>');
    assert.equal(b.headers['reply-to'], undefined, 'no Reply-To when it is the From');
  });
});

describe('no SMTP configured: messages held, `tawqi mail list|show`', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const cli = (...args: string[]) => cliWith({}, ...args);

  function cliWith(settings: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: s.dataDir, PORT: new URL(s.url).port };
    delete env.NODE_TEST_CONTEXT;
    for (const k of Object.keys(env)) if (k.startsWith('TAWQI_')) delete env[k];
    Object.assign(env, s.databaseEnv, settings);
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--conditions=tawqi-source', '--import', 'tsx', 'server/src/cli/main.ts', ...args],
        { cwd: ROOT, env, encoding: 'utf8' },
        (err, stdout, stderr) => {
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
        },
      );
    });
  }

  test('held with bodies intact; list and show print them with the rendered link (and a held code, for local signing)', async () => {
    assert.equal(s.ctx.transport, undefined);
    const a = await makeAccount(s, { brand_name: 'Acme Legal' });
    const req = await createRequest(s, a.keys.secret_test, a);
    const otpId = await s.ctx.store.tx(async (trx) =>
      queueOtpMessage(s.ctx, trx, (await getRequestById(trx, req.id))!, (await signersOf(trx, req.id))[0]!, '902114'),
    );
    await s.jobs.runDue();
    const rows = await messageRows(s, req.id);
    assert.deepEqual(
      rows.map((r) => [r.kind, r.state]),
      [
        ['invitation', 'held'],
        ['otp', 'held'],
      ],
    );
    assert.ok(rows[1]!.body.includes('902114'), 'a held code is kept, so the operator can read it');
    const url = signingUrl(s.url, s.ctx.secrets.linkKey, req.signers[0].id, 1);

    const list = await cli('mail', 'list', '--account', a.id, '--json');
    assert.equal(list.code, 0, list.stderr);
    const listed = JSON.parse(list.stdout).messages;
    assert.deepEqual(
      listed.map((m: Json) => [m.id, m.kind, m.state, m.to, m.channel]),
      [
        [otpId, 'otp', 'held', TEAM[0], 'email'],
        [rows[0]!.id, 'invitation', 'held', TEAM[0], 'email'],
      ],
    );
    assert.equal(listed[1].subject, '[TEST] طلب توقيع: Lease');
    assert.equal(typeof listed[1].created_at, 'number');
    const listText = await cli('mail', 'list', '--limit', '1');
    assert.equal(listText.code, 0, listText.stderr);
    assert.equal(listText.stdout.trim().split('\n').length, 1);
    assert.match(listText.stdout, /otp/);

    const show = await cli('mail', 'show', String(rows[0]!.id), '--json');
    assert.equal(show.code, 0, show.stderr);
    const shown = JSON.parse(show.stdout).message;
    assert.ok(shown.text.includes(url), 'the rendered link, valid on the server');
    assert.ok(shown.html.includes(`href="${url}"`));
    assert.match(shown.text, /— Acme Legal/);
    const showText = await cli('mail', 'show', String(rows[0]!.id));
    assert.equal(showText.code, 0, showText.stderr);
    assert.ok(showText.stdout.includes(url));
    assert.match(showText.stdout, /subject {5}\[TEST\] طلب توقيع: Lease/);
    const html = await cli('mail', 'show', String(rows[0]!.id), '--html');
    assert.match(html.stdout, /^<!doctype html>/);
    const otp = await cli('mail', 'show', String(otpId));
    assert.match(otp.stdout, /902114/);

    const missing = await cli('mail', 'show', '999999');
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, '');
    assert.match(missing.stderr, /No message 999999/);
  });

  test(
    'postgres only: `mail show` reads the link key from the database, so it needs TAWQI_MASTER_KEY, and the right one',
    { skip: !onPostgres && 'runs with TAWQI_TEST_DATABASE=postgres (SQLite keeps the link key in DATA_DIR/secrets.json)' },
    async () => {
      const a = await makeAccount(s);
      const req = await createRequest(s, a.keys.secret_test, a);
      await s.jobs.runDue();
      const [row] = await messageRows(s, req.id);
      const without = await cliWith({ TAWQI_MASTER_KEY: '' }, 'mail', 'show', String(row!.id));
      assert.equal(without.code, 1);
      assert.equal(without.stdout, '');
      assert.match(without.stderr, /TAWQI_MASTER_KEY: required with DATABASE_URL/);
      const other = randomBytes(32).toString('hex');
      const wrong = await cliWith({ TAWQI_MASTER_KEY: other }, 'mail', 'show', String(row!.id));
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /TAWQI_MASTER_KEY does not decrypt the stored keys/);
      assert.ok(!wrong.stderr.includes(other), 'the key is never printed');
      const right = await cli('mail', 'show', String(row!.id));
      assert.equal(right.code, 0, right.stderr);
      assert.ok(right.stdout.includes(signingUrl(s.url, s.ctx.secrets.linkKey, req.signers[0].id, 1)));
    },
  );
});

describe('SMTP settings', () => {
  const bad = (env: Record<string, string>, pattern: RegExp) =>
    assert.throws(
      () => loadConfig(env),
      (e: unknown) => e instanceof ConfigError && pattern.test(e.message),
    );

  test('one relay, complete credentials, a sender, a sensible TLS choice', () => {
    assert.equal(smtpSettings(loadConfig({})), null, 'no SMTP by default');
    bad({ TAWQI_SMTP_URL: 'http://mail.example.com' }, /TAWQI_SMTP_URL/);
    bad(
      { TAWQI_SMTP_URL: 'smtp://mail.example.com', TAWQI_SMTP_HOST: 'mail.example.com', TAWQI_SMTP_FROM: 'a@example.com' },
      /set one of them, not both/,
    );
    bad(
      { TAWQI_SMTP_URL: 'smtp://u:p@mail.example.com', TAWQI_SMTP_PORT: '25', TAWQI_SMTP_FROM: 'a@example.com' },
      /TAWQI_SMTP_PORT: not used with TAWQI_SMTP_URL/,
    );
    bad(
      { TAWQI_SMTP_HOST: 'mail.example.com', TAWQI_SMTP_USER: 'u', TAWQI_SMTP_FROM: 'a@example.com' },
      /TAWQI_SMTP_USER and TAWQI_SMTP_PASSWORD must be set together/,
    );
    bad(
      { TAWQI_SMTP_HOST: 'mail.example.com', TAWQI_SMTP_SECURE: 'true', TAWQI_SMTP_REQUIRE_TLS: 'true', TAWQI_SMTP_FROM: 'a@example.com' },
      /REQUIRE_TLS/,
    );
    bad({ TAWQI_SMTP_HOST: 'mail.example.com' }, /TAWQI_SMTP_FROM: needed/);
    bad({ TAWQI_SMTP_HOST: 'mail.example.com', TAWQI_SMTP_FROM: 'Tawqi <nope>' }, /TAWQI_SMTP_FROM/);
    bad({ TAWQI_SMTP_USER: 'u' }, /TAWQI_SMTP_USER: needs TAWQI_SMTP_HOST or TAWQI_SMTP_URL/);
    bad({ TAWQI_SMTP_HOST: 'mail.example.com', TAWQI_SMTP_FROM: 'a@example.com', TAWQI_SMTP_SECURE: 'yes' }, /TAWQI_SMTP_SECURE/);

    const split = smtpSettings(loadConfig({ TAWQI_SMTP_HOST: 'mail.example.com', TAWQI_SMTP_FROM: '"Tawqi" <no-reply@example.com>' }))!;
    assert.deepEqual(
      {
        host: split.host,
        port: split.port,
        secure: split.secure,
        requireTLS: split.requireTLS,
        auth: split.auth,
        from: split.from,
        check: split.rejectUnauthorized,
      },
      {
        host: 'mail.example.com',
        port: 587,
        secure: false,
        requireTLS: false,
        auth: null,
        from: { name: 'Tawqi', address: 'no-reply@example.com' },
        check: true,
      },
    );
    const implicit = smtpSettings(
      loadConfig({
        TAWQI_SMTP_HOST: 'mail.example.com',
        TAWQI_SMTP_SECURE: 'true',
        TAWQI_SMTP_USER: 'u',
        TAWQI_SMTP_PASSWORD: 'p',
        TAWQI_SMTP_FROM: 'a@example.com',
      }),
    )!;
    assert.equal(implicit.port, 465);
    const url = smtpSettings(loadConfig({ TAWQI_SMTP_URL: 'smtps://me%40example.com:s%3Ac@mail.example.com' }))!;
    assert.deepEqual(
      { port: url.port, secure: url.secure, auth: url.auth, from: url.from },
      { port: 465, secure: true, auth: { user: 'me@example.com', pass: 's:c' }, from: { address: 'me@example.com' } },
    );
  });

  test('message texts: [TEST] only in test mode, the request language, the link token in both parts', () => {
    const request = { id: 'sr_x', language: 'en', livemode: true, title: 'Deal' } as Json;
    const signer = { id: 'sgr_x', name: 'Zed', access_code_hash: null } as Json;
    const live = invitationMessage(request, signer, 'invitation');
    assert.equal(live.subject, 'Signature request: Deal');
    assert.ok(
      live.text.includes('{{signing_url}}') && messageHtml({ ...live, language: 'en', livemode: true }).includes('href="{{signing_url}}"'),
    );
    const test = invitationMessage({ ...request, livemode: false, language: 'ar' }, signer, 'reminder');
    assert.equal(test.subject, '[TEST] تذكير بطلب التوقيع: Deal');
    assert.match(messageHtml({ ...test, language: 'ar', livemode: false }), /dir="rtl"/);
  });
});
