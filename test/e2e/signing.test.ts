/**
 * The signing page end to end: real Chromium (playwright-core + Debian chromium) driving the real
 * page, served by the real server, with a real SMTP peer capturing the invitations and one-time
 * codes. Each flow clicks and types like a person, finding controls by role and label, and checks
 * the outcome through the API. Every page is watched: a console error, an uncaught error or a CSP
 * violation fails the test. Screenshots go to test-artifacts/e2e/.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { updateAccount } from '../../server/src/store/accounts.js';
import {
  drawSignature,
  isFocused,
  launchBrowser,
  screenshot,
  tabTo,
  until,
  WAIT_MS,
  type PageWatch,
  type TestBrowser,
} from '../support/browser.js';
import { ensureSigningPage } from '../support/bundles.js';
import { PAGE_LABELS } from '../support/pageLabels.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startSmtpPeer, type CapturedMail, type SmtpPeer } from '../support/smtpPeer.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
type Lang = 'ar' | 'en';
/** Where controls are looked up: a tab, or the signing page inside a frame. */
type Scope = Page | FrameLocator;

const TEAM = ['owner@example.com', 'amira@example.com', 'bassem@example.com', 'carla@example.com', 'dana@example.com'] as const;
const LINK = /https?:\/\/[^\s"<>]+\/sign\/sgr_[0-9A-Za-z]+\.[A-Za-z0-9_-]+/;

const L = PAGE_LABELS;

const TEMPLATES = {
  ar: {
    title: 'اتفاقية تقديم خدمات',
    body: 'اتفاقية تقديم خدمات بين {{client}} ومقدّم الخدمة بمبلغ {{amount}} جنيه.\n\n1. يلتزم مقدّم الخدمة بتنفيذ الأعمال المتفق عليها خلال ثلاثين يومًا.\n2. يسدد العميل المبلغ على دفعتين.\n3. تخضع هذه الاتفاقية لأحكام القانون المصري.',
  },
  en: {
    title: 'Service agreement',
    body: 'Service agreement between {{client}} and the provider for {{amount}} EGP.\n\n1. The provider delivers the agreed work within thirty days.\n2. The client pays in two instalments.\n3. This agreement is governed by Egyptian law.',
  },
};

interface Embedder {
  /** Port of the embedding site; reached as http://localhost:<port> (allowed) or http://127.0.0.1:<port> (not allowed). */
  port: number;
  close(): Promise<void>;
}

/**
 * A tiny site of another origin that embeds a signing session: GET /frame?src=<signing_url>&tawqi=<origin>
 * shows it in an <iframe> and records `message` events, keeping only those from the Tawqi origin.
 */
async function startEmbedder(): Promise<Embedder> {
  const escape = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://embedder');
    if (url.pathname !== '/frame') {
      res.writeHead(404).end();
      return;
    }
    const src = url.searchParams.get('src') ?? '';
    const tawqi = url.searchParams.get('tawqi') ?? '';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Partner portal</title><link rel="icon" href="data:,"></head>
<body style="margin:0;font-family:sans-serif">
<h1 style="font-size:16px;margin:8px">Partner portal: sign your contract</h1>
<script>
  window.accepted = [];
  window.ignored = [];
  const TAWQI = ${JSON.stringify(tawqi)};
  window.addEventListener('message', (event) => {
    // The embedding page checks the sender's origin before trusting a message (spec 4.3).
    if (event.origin === TAWQI) window.accepted.push({ origin: event.origin, data: event.data });
    else window.ignored.push({ origin: event.origin, data: String(event.data) });
  });
</script>
<iframe title="Contract to sign" src="${escape(src)}" allow="camera; microphone" style="width:100%;height:720px;border:0"></iframe>
</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('signing page in Chromium, with email through SMTP', { timeout: 600_000 }, () => {
  let s: TestServer;
  let peer: SmtpPeer;
  let browser: TestBrowser;
  let embedder: Embedder;
  let tawqiOrigin: string;
  let embedOrigin: string;
  /** Mails a test has already read. */
  const read = new Set<CapturedMail>();

  before(async () => {
    ensureSigningPage();
    peer = await startSmtpPeer();
    s = await startTestServer({ TAWQI_SMTP_URL: `smtp://127.0.0.1:${peer.port}`, TAWQI_SMTP_FROM: 'Tawqi <no-reply@tawqi.test>' });
    tawqiOrigin = new URL(s.url).origin;
    embedder = await startEmbedder();
    embedOrigin = `http://localhost:${embedder.port}`;
    browser = await launchBrowser();
  });

  after(async () => {
    const closing = [browser?.close(), s?.close(), peer?.close(), embedder?.close()];
    const results = await Promise.allSettled(closing);
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  });

  // -------------------------------------------------------------------------------------------
  // Helpers

  /** A fresh account (enterprise test keys) whose team is TEAM, with an Arabic and an English template. */
  async function makeAccount(): Promise<{ id: string; key: string; templates: Record<Lang, string> }> {
    const acct = await s.account({ ownerEmail: TEAM[0], plan: 'enterprise', walletMinor: 100_000 });
    await updateAccount(s.ctx.store.db, acct.id, {
      team_emails: [...TEAM],
      accepted_domains: ['example.com'],
      allowed_origins: [embedOrigin],
    });
    const key = acct.keys.secret_test;
    const templates = {} as Record<Lang, string>;
    for (const lang of ['ar', 'en'] as const) {
      const t = TEMPLATES[lang];
      const r = await s.call('POST', '/templates', {
        key,
        body: {
          title: t.title,
          language: lang,
          body: t.body,
          fields: [
            { key: 'client', label: 'Client', required: true },
            { key: 'amount', label: 'Amount' },
          ],
        },
      });
      assert.equal(r.status, 201, r.text);
      templates[lang] = r.body.id;
    }
    return { id: acct.id, key, templates };
  }

  async function createRequest(
    acct: { key: string; templates: Record<Lang, string> },
    lang: Lang,
    title: string,
    signers: { name: string; email: string }[],
    extra: Record<string, unknown> = {},
  ): Promise<Json> {
    const r = await s.call('POST', '/signature_requests', {
      key: acct.key,
      body: {
        title,
        source: { type: 'template', template_id: acct.templates[lang] },
        signers: signers.map((x, i) => ({
          ...x,
          fields: i === 0 ? { client: lang === 'ar' ? 'شركة النيل' : 'Acme Ltd', amount: '12500' } : {},
        })),
        ...extra,
      },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.language, lang);
    return r.body;
  }

  const getRequest = async (key: string, id: string): Promise<Json> => {
    const r = await s.call('GET', `/signature_requests/${id}`, { key });
    assert.equal(r.status, 200, r.text);
    return r.body;
  };

  const kindOf = (m: CapturedMail): 'invitation' | 'otp' | 'other' =>
    /^\[TEST\] (طلب توقيع|Signature request): /.test(m.subject)
      ? 'invitation'
      : /^\[TEST\] (رمز التحقق لتوقيع|Your code to sign): /.test(m.subject)
        ? 'otp'
        : 'other';

  const matches = (m: CapturedMail, to: string, kind: 'invitation' | 'otp', title: string) =>
    !read.has(m) && m.envelopeTo.includes(to) && kindOf(m) === kind && m.subject.endsWith(`: ${title}`);

  /** Run the due jobs (delivery), then wait (bounded) for an unread mail of that kind about `title` to `to`. */
  async function nextMail(to: string, kind: 'invitation' | 'otp', title: string): Promise<CapturedMail> {
    await s.jobs.runDue();
    const mail = await until(`${kind} mail to ${to} about ${title}`, () => peer.mails.find((m) => matches(m, to, kind, title)));
    read.add(mail);
    return mail;
  }

  /** Unread mails of that kind about `title` to `to`, once everything due now is delivered. */
  async function unreadMails(to: string, kind: 'invitation' | 'otp', title: string): Promise<CapturedMail[]> {
    await s.jobs.runDue();
    return peer.mails.filter((m) => matches(m, to, kind, title));
  }

  /** The signing link in an invitation (text part; the HTML button carries the same). */
  function linkIn(mail: CapturedMail): string {
    const m = LINK.exec(mail.text ?? '');
    assert.ok(m, `no signing link in ${mail.subject}`);
    assert.ok(mail.html?.includes(`href="${m[0]}"`), 'the HTML part links to the same address');
    assert.equal(new URL(m[0]).origin, tawqiOrigin);
    return m[0];
  }

  function codeIn(mail: CapturedMail): string {
    const m = /(?:^|\s)(\d{6})(?:\s|$)/m.exec(mail.text ?? '');
    assert.ok(m, `no 6-digit code in ${mail.subject}`);
    assert.ok(mail.html?.includes(m[1]!), 'the HTML part has the code too');
    return m[1]!;
  }

  /** Check the page had no console error, page error or CSP violation, then close it. */
  async function finish(p: { page: Page; watch: PageWatch }, label: string): Promise<void> {
    p.watch.assertClean(label);
    await p.page.close();
  }

  async function expectLanguage(page: Page, lang: Lang): Promise<void> {
    await until(`<html lang=${lang}>`, async () => (await page.locator('html').getAttribute('lang')) === lang);
    assert.equal(await page.locator('html').getAttribute('dir'), lang === 'ar' ? 'rtl' : 'ltr');
  }

  /** OTP step: Send code, read the code from the captured email, type it, Verify. */
  async function verifyByEmail(scope: Scope, lang: Lang, email: string, title: string): Promise<void> {
    const t = L[lang];
    await scope.getByRole('button', { name: t.sendCode, exact: true }).click();
    const input = scope.getByLabel(t.codeLabel, { exact: true });
    await input.waitFor();
    const code = codeIn(await nextMail(email, 'otp', title));
    await input.pressSequentially(code);
    await scope.getByRole('button', { name: t.verify, exact: true }).click();
  }

  /** Review step: draw on the pad with the mouse, tick consent. */
  async function drawAndConsent(page: Page, scope: Scope, lang: Lang): Promise<void> {
    const t = L[lang];
    await drawSignature(page, scope.getByRole('img', { name: t.pad }));
    const consent = scope.getByRole('checkbox', { name: t.consent });
    await consent.check();
  }

  async function signAndSee(scope: Scope, lang: Lang): Promise<void> {
    const t = L[lang];
    const sign = scope.getByRole('button', { name: t.sign, exact: true });
    assert.equal(await sign.isEnabled(), true, 'Sign is enabled once there is a signature and consent');
    await sign.click();
    await scope.getByRole('heading', { name: t.signed }).waitFor();
  }

  /**
   * On the identity step: Start verification, then choose on the test-mode simulation page (after
   * typing another name on the simulated document, if given) and follow its Continue link back.
   */
  async function simulateIdentity(page: Page, lang: Lang, decision: 'Approve' | 'Decline', documentName?: string): Promise<void> {
    await page.getByRole('heading', { name: L[lang].idTitle }).waitFor();
    await page.getByRole('button', { name: L[lang].idStart, exact: true }).click();
    await page.waitForURL(/\/identity\/simulate\//);
    const docName = page.getByLabel(/Name on the simulated document/);
    if (documentName !== undefined) {
      await docName.fill('');
      await docName.pressSequentially(documentName);
    }
    const posted = page.waitForResponse((res) => res.request().method() === 'POST' && res.url().includes('/identity/simulate/'));
    await page.getByRole('button', { name: new RegExp(decision) }).click();
    const res = await posted;
    assert.equal(
      res.status(),
      200,
      `the simulation page refused its own form (HTTP ${res.status()}; the browser sent Origin: ${await res.request().headerValue('origin')})`,
    );
    await page.getByText(`The identity verification was ${decision === 'Approve' ? 'approved' : 'declined'}.`).waitFor();
    await page.getByRole('link', { name: /Continue/ }).click();
    await page.waitForURL(/\/sign\/sgr_/);
  }

  async function reviewShown(scope: Scope, title: string): Promise<void> {
    await scope.getByRole('heading', { name: title, level: 1 }).waitFor();
  }

  // -------------------------------------------------------------------------------------------

  test('two signers in order (Arabic): each opens the emailed link, enters the emailed code, draws and signs; the second is invited only after the first', async () => {
    const acct = await makeAccount();
    const title = 'عقد توريد مرتب';
    const sr = await createRequest(
      acct,
      'ar',
      title,
      [
        { name: 'أميرة حسن', email: TEAM[1] },
        { name: 'باسم علي', email: TEAM[2] },
      ],
      { ordered: true },
    );
    assert.equal(sr.signers[1].signing_url, null, 'the second signer has no link yet');

    const invite1 = await nextMail(TEAM[1], 'invitation', title);
    assert.ok(invite1.subject.includes(title));
    assert.deepEqual(await unreadMails(TEAM[2], 'invitation', title), [], 'no invitation to the second signer before the first signs');

    const first = await browser.newPage();
    const { page } = first;
    await page.goto(linkIn(invite1));
    await expectLanguage(page, 'ar');
    const banner = page.getByRole('note');
    await banner.waitFor();
    assert.equal((await banner.innerText()).trim(), L.ar.banner);
    await screenshot(banner, 'test-banner-ar');

    await verifyByEmail(page, 'ar', TEAM[1], title);
    await reviewShown(page, title);
    assert.match(await page.getByRole('article').innerText(), /شركة النيل/, 'the contract is shown with its field values');
    await drawAndConsent(page, page, 'ar');
    await screenshot(page, 'review-ar-1280x800');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'review-ar-390x844');
    await signAndSee(page, 'ar');
    await screenshot(page, 'signed-ar-390x844');
    await page.setViewportSize({ width: 1280, height: 800 });
    await screenshot(page, 'signed-ar-1280x800');
    await finish(first, 'signer 1 (ar)');

    const mid = await getRequest(acct.key, sr.id);
    assert.equal(mid.status, 'partially_signed');
    assert.deepEqual(
      mid.signers.map((x: Json) => x.status),
      ['signed', 'sent'],
    );

    const invite2 = await nextMail(TEAM[2], 'invitation', title);
    assert.ok(invite2.subject.includes(title));
    const second = await browser.newPage({ width: 390, height: 844 });
    await second.page.goto(linkIn(invite2));
    await expectLanguage(second.page, 'ar');
    await verifyByEmail(second.page, 'ar', TEAM[2], title);
    await reviewShown(second.page, title);
    await drawAndConsent(second.page, second.page, 'ar');
    await signAndSee(second.page, 'ar');
    await finish(second, 'signer 2 (ar)');

    const done = await getRequest(acct.key, sr.id);
    assert.equal(done.status, 'completed');
    assert.deepEqual(
      done.signers.map((x: Json) => x.status),
      ['signed', 'signed'],
    );
    assert.match(done.reference, /^REF-/);
  });

  test('decline with a reason (English): the declined screen, and the API shows the request declined with the reason', async () => {
    const acct = await makeAccount();
    const title = 'Consulting terms';
    const sr = await createRequest(acct, 'en', title, [{ name: 'Carla Diaz', email: TEAM[3] }]);
    const p = await browser.newPage();
    const { page } = p;
    await page.goto(linkIn(await nextMail(TEAM[3], 'invitation', title)));
    await expectLanguage(page, 'en');
    await verifyByEmail(page, 'en', TEAM[3], title);
    await reviewShown(page, title);
    await page.getByRole('button', { name: L.en.decline, exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const reason = 'The amount is wrong; it should be 10,000 EGP.';
    await dialog.getByLabel(L.en.reason).pressSequentially(reason);
    await dialog.getByRole('button', { name: L.en.declineConfirm, exact: true }).click();
    await page.getByRole('heading', { name: L.en.declined }).waitFor();
    await finish(p, 'decline (en)');

    const r = await getRequest(acct.key, sr.id);
    assert.equal(r.status, 'declined');
    assert.equal(r.signers[0].status, 'declined');
    assert.equal(r.signers[0].decline_reason, reason);
  });

  test('identity (test mode, aes): Approve on the simulation page leads back to review and signing (Arabic); Decline shows the identity-declined screen (English)', async () => {
    const acct = await makeAccount();

    // Approve
    const title = 'عقد بتحقق من الهوية';
    const sr = await createRequest(acct, 'ar', title, [{ name: 'دانة يوسف', email: TEAM[4] }], { legal_level: 'aes', format: 'pades-lt' });
    const p = await browser.newPage();
    const { page } = p;
    await page.goto(linkIn(await nextMail(TEAM[4], 'invitation', title)));
    await verifyByEmail(page, 'ar', TEAM[4], title);
    await simulateIdentity(page, 'ar', 'Approve');
    await reviewShown(page, title);
    await drawAndConsent(page, page, 'ar');
    await signAndSee(page, 'ar');
    await finish(p, 'identity approve (ar)');
    const approved = await getRequest(acct.key, sr.id);
    assert.equal(approved.status, 'completed');
    assert.equal(approved.signers[0].identity.status, 'approved');

    // Decline
    const title2 = 'Identity checked lease';
    const sr2 = await createRequest(acct, 'en', title2, [{ name: 'Dana Youssef', email: TEAM[4] }], {
      legal_level: 'aes',
      format: 'pades-lt',
    });
    const q = await browser.newPage({ width: 390, height: 844 });
    await q.page.goto(linkIn(await nextMail(TEAM[4], 'invitation', title2)));
    await verifyByEmail(q.page, 'en', TEAM[4], title2);
    await simulateIdentity(q.page, 'en', 'Decline');
    await q.page.getByRole('heading', { name: L.en.idDeclined }).waitFor();
    assert.equal(await q.page.getByRole('button', { name: L.en.sign }).count(), 0, 'no signing after a declined identity');
    await screenshot(q.page, 'identity-declined-en-390x844');
    await finish(q, 'identity decline (en)');
    const declined = await getRequest(acct.key, sr2.id);
    assert.equal(declined.signers[0].identity.status, 'declined');
    assert.notEqual(declined.signers[0].status, 'signed');
  });

  test('name match: a different name on the simulated document holds signing; a reviewer approves through the API; the signer signs (English)', async () => {
    const acct = await makeAccount();
    const title = 'Held for name review';
    const sr = await createRequest(acct, 'en', title, [{ name: 'Bassem Ali', email: TEAM[2] }], { legal_level: 'aes', format: 'pades-lt' });
    const signerId = sr.signers[0].id;
    const p = await browser.newPage();
    const { page } = p;
    await page.goto(linkIn(await nextMail(TEAM[2], 'invitation', title)));
    await verifyByEmail(page, 'en', TEAM[2], title);
    await simulateIdentity(page, 'en', 'Approve', 'Karim Mansour');
    await page.getByRole('heading', { name: L.en.idHold }).waitFor();
    await screenshot(page, 'identity-hold-en-1280x800');
    const held = await getRequest(acct.key, sr.id);
    assert.equal(held.signers[0].identity.status, 'match_hold');

    const decided = await s.call('POST', `/signers/${signerId}/identity_match`, { key: acct.key, body: { decision: 'approve' } });
    assert.equal(decided.status, 200, decided.text);
    // The hold screen polls slowly (30 s); the signer reloads.
    await page.reload();
    await reviewShown(page, title);
    await drawAndConsent(page, page, 'en');
    await signAndSee(page, 'en');
    await finish(p, 'name match (en)');

    const r = await getRequest(acct.key, sr.id);
    assert.equal(r.status, 'completed');
    const events = (await s.call('GET', `/events?signature_request=${sr.id}&limit=100`, { key: acct.key })).body.data.map(
      (e: Json) => e.type,
    );
    assert.ok(events.includes('signer.identity_match_hold') && events.includes('signer.identity_match_decided'));
  });

  test('embedded: a page of another origin frames the signing session and receives svc:viewed and svc:signed from the Tawqi origin; a third origin cannot frame it', async () => {
    const acct = await makeAccount();
    const title = 'عقد داخل إطار';
    const sr = await createRequest(acct, 'ar', title, [{ name: 'أميرة حسن', email: TEAM[1] }]);
    const signerId = sr.signers[0].id;
    read.add(await nextMail(TEAM[1], 'invitation', title));
    const sess = await s.call('POST', `/signers/${signerId}/signing_session`, { key: acct.key, body: {} });
    assert.equal(sess.status, 200, sess.text);

    const p = await browser.newPage();
    const { page } = p;
    const framed = page.waitForResponse((res) => res.url() === sess.body.signing_url);
    await page.goto(`${embedOrigin}/frame?src=${encodeURIComponent(sess.body.signing_url)}&tawqi=${encodeURIComponent(tawqiOrigin)}`);
    const csp = (await (await framed).allHeaders())['content-security-policy'] ?? '';
    assert.match(
      csp,
      new RegExp(`frame-ancestors ${embedOrigin.replace(/[.:/]/g, '\\$&')}(;|$)`),
      'frame-ancestors names the embedding origin',
    );
    const frame = page.frameLocator('iframe[title="Contract to sign"]');
    // The page's height reports (svc:resize) are @tawqi/embed's business (test/e2e/embed.test.ts).
    const received = async () =>
      ((await page.evaluate('window.accepted')) as { origin: string; data: Json }[]).filter((m) => m.data.type !== 'svc:resize');
    await until('svc:viewed in the parent', async () => (await received()).length >= 1);

    await verifyByEmail(frame, 'ar', TEAM[1], title);
    await reviewShown(frame, title);
    await drawAndConsent(page, frame, 'ar');
    await signAndSee(frame, 'ar');
    await until('svc:signed in the parent', async () => (await received()).length >= 2);
    await screenshot(page, 'embedded-signed-ar-1280x800');
    const expected = (type: string) => ({ origin: tawqiOrigin, data: { type, signature_request: sr.id, signer: signerId } });
    assert.deepEqual(await received(), [expected('svc:viewed'), expected('svc:signed')]);
    assert.deepEqual(await page.evaluate('window.ignored'), [], 'no message from any other origin');
    await finish(p, 'embedded (allowed origin)');
    assert.equal((await getRequest(acct.key, sr.id)).status, 'completed');

    // A third origin (same host as the server, another port: not in allowed_origins) is refused by frame-ancestors.
    const otherTitle = 'Not for this site';
    const other = await createRequest(acct, 'en', otherTitle, [{ name: 'Carla Diaz', email: TEAM[3] }]);
    read.add(await nextMail(TEAM[3], 'invitation', otherTitle));
    const sess2 = await s.call('POST', `/signers/${other.signers[0].id}/signing_session`, { key: acct.key, body: {} });
    const q = await browser.newPage();
    q.watch.expect(/frame-ancestors/);
    const thirdOrigin = `http://127.0.0.1:${embedder.port}`;
    const blocked = q.page.waitForResponse((res) => res.url() === sess2.body.signing_url);
    await q.page.goto(`${thirdOrigin}/frame?src=${encodeURIComponent(sess2.body.signing_url)}&tawqi=${encodeURIComponent(tawqiOrigin)}`);
    const blockedCsp = (await (await blocked).allHeaders())['content-security-policy'] ?? '';
    assert.ok(!blockedCsp.includes(thirdOrigin), 'the third origin is not among the frame ancestors');
    await until('the frame-ancestors refusal', () => q.watch.problems.some((x) => /frame-ancestors/.test(x.text)));
    const inner = q.page.frames().find((f) => f !== q.page.mainFrame());
    assert.ok(inner, 'the iframe exists');
    assert.ok(!inner.url().startsWith(tawqiOrigin), `the frame did not load the signing page (${inner.url()})`);
    assert.equal(await q.page.frameLocator('iframe').locator('main#app').count(), 0, 'no app in the frame');
    assert.deepEqual(await q.page.evaluate('[window.accepted, window.ignored]'), [[], []], 'no message reached the third origin');
    await finish(q, 'embedded (third origin)');
    const untouched = await getRequest(acct.key, other.id);
    assert.equal(untouched.status, 'sent', 'the refused frame recorded no view');
    assert.equal(untouched.signers[0].viewed_at ?? null, null);
  });

  test('redirect mode: after signing, the browser lands on return_url with session_id, signer_id and status=completed (English)', async () => {
    const acct = await makeAccount();
    const title = 'Redirected contract';
    const sr = await createRequest(acct, 'en', title, [{ name: 'Carla Diaz', email: TEAM[3] }]);
    const signerId = sr.signers[0].id;
    read.add(await nextMail(TEAM[3], 'invitation', title));
    const sess = await s.call('POST', `/signers/${signerId}/signing_session`, {
      key: acct.key,
      body: { mode: 'redirect', return_url: 'https://app.example.com/contracts/done?ref=42' },
    });
    assert.equal(sess.status, 200, sess.text);

    const p = await browser.newPage();
    const { page } = p;
    // No real https host here: the landing page is answered by the test.
    await page.route('https://app.example.com/**', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/html',
        body: '<!doctype html><title>Partner</title><link rel="icon" href="data:,"><p>landed</p>',
      }),
    );
    const shell = page.waitForResponse((res) => res.url() === sess.body.signing_url);
    await page.goto(sess.body.signing_url);
    assert.match(
      (await (await shell).allHeaders())['content-security-policy'] ?? '',
      /frame-ancestors 'none'/,
      'a redirect session is never framed',
    );
    await verifyByEmail(page, 'en', TEAM[3], title);
    await reviewShown(page, title);
    await drawAndConsent(page, page, 'en');
    await signAndSee(page, 'en');
    await page.getByRole('button', { name: L.en.returnButton, exact: true }).waitFor();
    // The page follows the return address by itself after 3 seconds.
    await page.waitForURL(/^https:\/\/app\.example\.com\//, { timeout: WAIT_MS });
    const landed = new URL(page.url());
    assert.equal(landed.origin + landed.pathname, 'https://app.example.com/contracts/done');
    assert.equal(landed.searchParams.get('ref'), '42', 'the return_url keeps its own parameters');
    assert.equal(landed.searchParams.get('session_id'), sr.id);
    assert.equal(landed.searchParams.get('signer_id'), signerId);
    assert.equal(landed.searchParams.get('status'), 'completed');
    assert.equal(await page.locator('p').innerText(), 'landed');
    await finish(p, 'redirect (en)');
    assert.equal((await getRequest(acct.key, sr.id)).status, 'completed');
  });

  test('keyboard only (English): Tab, Enter, Space and typing reach every control; the typed-name signature signs', async () => {
    const acct = await makeAccount();
    const title = 'Keyboard agreement';
    const sr = await createRequest(acct, 'en', title, [{ name: 'Ada Lovelace', email: TEAM[1] }]);
    const p = await browser.newPage();
    const { page } = p;
    const kb = page.keyboard;
    await page.goto(linkIn(await nextMail(TEAM[1], 'invitation', title)));
    await expectLanguage(page, 'en');

    const send = page.getByRole('button', { name: L.en.sendCode, exact: true });
    await send.waitFor();
    await tabTo(page, send);
    await kb.press('Enter');
    const input = page.getByLabel(L.en.codeLabel, { exact: true });
    await until('focus on the code field', () => isFocused(input));
    await kb.type(codeIn(await nextMail(TEAM[1], 'otp', title)));
    await kb.press('Enter');

    const heading = page.getByRole('heading', { name: title, level: 1 });
    await heading.waitFor();
    await until('focus on the review heading', () => isFocused(heading));
    await tabTo(page, page.getByRole('radio', { name: L.en.draw, exact: true }));
    await kb.press('ArrowDown');
    const typeRadio = page.getByRole('radio', { name: L.en.type, exact: true });
    await until('the Type option checked', () => typeRadio.isChecked());
    const typed = page.getByLabel(L.en.typeLabel);
    await tabTo(page, typed);
    await kb.type('Ada Lovelace');
    const consent = page.getByRole('checkbox', { name: L.en.consent });
    await tabTo(page, consent);
    await kb.press('Space');
    assert.equal(await consent.isChecked(), true);
    await screenshot(page, 'review-en-1280x800');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'review-en-390x844');
    const sign = page.getByRole('button', { name: L.en.sign, exact: true });
    await tabTo(page, sign);
    await kb.press('Enter');
    await page.getByRole('heading', { name: L.en.signed }).waitFor();
    await screenshot(page, 'signed-en-390x844');
    await page.setViewportSize({ width: 1280, height: 800 });
    await screenshot(page, 'signed-en-1280x800');
    await finish(p, 'keyboard (en)');

    const r = await getRequest(acct.key, sr.id);
    assert.equal(r.status, 'completed');
  });
});
