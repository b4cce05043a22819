/**
 * The public verification page (/verify/REF-…) in real Chromium: Arabic and right-to-left by
 * default whatever the browser's language, English through the page's switch, the signing page's
 * stylesheet and branding, masked Arabic names in their own order (each isolated in <bdi>), the test
 * notice on test documents only, the in-browser SHA-256 check of a chosen or dropped PDF (match,
 * mismatch, an earlier version after an archive renewal; no request leaves the page with the file), axe-core clean in both languages, and a styled
 * 404. Screenshots go to test-artifacts/e2e/verify-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page, Request } from 'playwright-core';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import { axeViolations, launchBrowser, screenshot, tabTo, until, type PageWatch, type TestBrowser } from '../support/browser.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { ensureSigningPage } from '../support/bundles.js';
import { pngDataUrl } from '../support/signing.js';
import { NDA_FIELDS } from '../support/ndaFields.js';

const OWNER = 'owner@example.com';
const SECOND = 'second@example.com';
const ORIGIN = { ip: '198.51.100.7', user_agent: 'VerifyPageTest/1.0' };

const L = {
  ar: {
    title: 'التحقق من مستند',
    test: 'وضع الاختبار — هذا مستند اختبار ولا أثر قانوني له',
    switchTo: 'English',
    choose: 'اختر ملف PDF',
    match: 'مطابق: هذا الملف هو الملف المختوم نفسه.',
    earlier: /^مطابق لنسخة سابقة/,
    mismatch: /^غير مطابق/,
    notFound: 'لا يوجد مستند بهذا المرجع',
    intact: /^سليم/,
    completed: 'مكتمل',
  },
  en: {
    title: 'Document verification',
    test: 'Test mode — this is a test document with no legal effect',
    switchTo: 'العربية',
    choose: 'Choose a PDF',
    match: 'Match: this file is the sealed file itself.',
    mismatch: /^No match/,
    notFound: 'No document has this reference',
    intact: /^Intact/,
    completed: 'Completed',
  },
} as const;

/**
 * The on-screen x of each character of the first masked name (by range rectangles): a name read
 * right to left has each logical character to the left of the one before it.
 */
async function charXs(page: Page, text: string): Promise<number[]> {
  return (await page.evaluate(`(() => {
    const wanted = ${JSON.stringify(text)};
    const bdi = [...document.querySelectorAll('.party-name bdi')].find((b) => b.textContent === wanted);
    if (!bdi || !bdi.firstChild) return [];
    return [...wanted].map((_, i) => {
      const range = document.createRange();
      range.setStart(bdi.firstChild, i);
      range.setEnd(bdi.firstChild, i + 1);
      const r = range.getBoundingClientRect();
      return r.left + r.width / 2;
    });
  })()`)) as number[];
}

describe('the verification page in Chromium', { timeout: 240_000 }, () => {
  let s: TestServer;
  let browser: TestBrowser;
  let testRef: string;
  let liveRef: string;
  let sealedPdf: Uint8Array;

  let liveKey: string;

  /** A request signed by every signer and sealed (ses, or aes: pades-lt): its reference, id and final PDF. */
  async function sealed(key: string, signers: { name: string; email: string; fields?: object }[], legalLevel: 'ses' | 'aes' = 'ses') {
    const r = await s.call('POST', '/signature_requests', {
      key,
      body: { title: 'اتفاقية عدم إفصاح', legal_level: legalLevel, source: { type: 'template', template_id: 'tpl_nda_ar' }, signers },
    });
    assert.equal(r.status, 201, r.text);
    for (const signer of r.body.signers) {
      await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signer.id, 'otp_verified', ORIGIN));
      if (legalLevel === 'aes')
        await s.ctx.store.tx((trx) =>
          applySignerMove(s.ctx, trx, signer.id, 'identity_verified', ORIGIN, { identity: { provider: 'simulation' } }),
        );
      await s.ctx.store.db.updateTable('signers').set({ signature_image: pngDataUrl() }).where('id', '=', signer.id).execute();
      await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signer.id, 'sign', ORIGIN));
    }
    await s.jobs.runDue();
    const done = await s.call('GET', `/signature_requests/${r.body.id}`, { key });
    assert.equal(done.body.status, 'completed');
    const res = await fetch(`${s.url}/api/v1/signature_requests/${r.body.id}/download/pdf`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(res.status, 200);
    return { reference: done.body.reference as string, id: r.body.id as string, pdf: new Uint8Array(await res.arrayBuffer()) };
  }

  before(async () => {
    ensureSigningPage();
    s = await startTestServer();
    s.clock.set(Date.now());
    const acct = await s.account({ ownerEmail: OWNER, plan: 'enterprise', balanceSends: 100, walletMinor: 100_000 });
    await updateAccount(s.ctx.store.db, acct.id, {
      team_emails: [OWNER, SECOND],
      branding: { brand_name: 'شركة النيل', brand_color: '#7c3aed' },
    });
    const people = [
      { name: 'أحمد محمود', email: OWNER, fields: NDA_FIELDS },
      { name: 'Sara Adel', email: SECOND },
    ];
    const t = await sealed(acct.keys.secret_test, people);
    testRef = t.reference;
    sealedPdf = t.pdf;
    liveKey = acct.keys.secret_live;
    liveRef = (await sealed(liveKey, people.slice(0, 1))).reference;
    browser = await launchBrowser();
  });

  after(async () => {
    const results = await Promise.allSettled([browser?.close(), s?.close()]);
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  });

  async function finish(p: { page: Page; watch: PageWatch }, label: string): Promise<void> {
    p.watch.assertClean(label);
    await p.page.close();
  }

  /** Choose a file with the page's file input (what a keyboard user does). */
  async function choose(page: Page, name: string, bytes: Uint8Array): Promise<void> {
    await page.locator('#check-file').setInputFiles({ name, mimeType: 'application/pdf', buffer: Buffer.from(bytes) });
  }

  /** Drop a file on the check panel: a real DataTransfer carrying a File, as a drag from the desktop makes. */
  async function drop(page: Page, name: string, bytes: Uint8Array): Promise<void> {
    const data = await page.evaluateHandle(`(() => {
      const dt = new DataTransfer();
      const raw = Uint8Array.from(atob(${JSON.stringify(Buffer.from(bytes).toString('base64'))}), (c) => c.charCodeAt(0));
      dt.items.add(new File([raw], ${JSON.stringify(name)}, { type: 'application/pdf' }));
      return dt;
    })()`);
    await page.locator('[data-dropzone]').dispatchEvent('dragover', { dataTransfer: data });
    await page.locator('[data-dropzone]').dispatchEvent('drop', { dataTransfer: data });
  }

  test('Arabic by default (an English browser), RTL, branded; masked Arabic name in reading order; test notice; drop → match, choose a modified copy → mismatch; nothing sent', async () => {
    const p = await browser.newPage();
    const { page } = p;
    const res = await page.goto(`${s.url}/verify/${testRef}`);
    assert.equal(res!.status(), 200);
    const csp = (await res!.allHeaders())['content-security-policy'] ?? '';
    assert.match(csp, /script-src 'self';/);
    assert.match(csp, /connect-src 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.equal(await page.locator('html').getAttribute('lang'), 'ar');
    assert.equal(await page.locator('html').getAttribute('dir'), 'rtl');
    await page.getByRole('heading', { level: 1, name: L.ar.title }).waitFor();
    assert.equal(await page.getByRole('note').innerText(), L.ar.test);
    assert.match(await page.locator('.topbar').innerText(), /شركة النيل/);
    // The brand colour reaches the page as on the signing page (the top bar's border).
    const border = await page.evaluate(`getComputedStyle(document.querySelector('.topbar')).borderTopColor`);
    assert.equal(border, 'rgb(124, 58, 237)');
    assert.match(await page.locator('[data-integrity] dd').innerText(), L.ar.intact);
    assert.match(await page.locator('[data-status] dd').innerText(), new RegExp(L.ar.completed));

    // Masked names: each its own <bdi>; the Arabic one reads right to left (أ*** first, on the right).
    const names = await page.locator('.party-name bdi').allInnerTexts();
    assert.deepEqual(names, ['أ*** م***', 'S*** A***']);
    const xs = await charXs(page, 'أ*** م***');
    assert.equal(xs.length, 9);
    for (let i = 1; i < xs.length; i++)
      assert.ok(xs[i]! < xs[i - 1]!, `character ${i} of the masked name is left of character ${i - 1}: ${xs}`);
    await screenshot(page, 'verify-ar');

    // The check: drop the sealed PDF → match; choose a modified copy → mismatch; no request at all.
    const sent: Request[] = [];
    page.on('request', (r) => {
      if (!r.url().endsWith('/favicon.ico')) sent.push(r);
    });
    await drop(page, 'signed.pdf', sealedPdf);
    await until('the match', async () => (await page.locator('.check-result').getAttribute('data-result')) === 'match');
    assert.match(await page.locator('.check-result').innerText(), new RegExp(L.ar.match));
    assert.match(await page.locator('.check-result').innerText(), /signed\.pdf/);
    await screenshot(page, 'verify-ar-match');
    const modified = Uint8Array.from(sealedPdf);
    modified[modified.length - 20]! ^= 0x01;
    await tabTo(page, page.locator('#check-file'));
    await choose(page, 'modified.pdf', modified);
    await until('the mismatch', async () => (await page.locator('.check-result').getAttribute('data-result')) === 'mismatch');
    assert.match(await page.locator('.check-result strong').innerText(), L.ar.mismatch);
    await screenshot(page, 'verify-ar-mismatch');
    assert.deepEqual(
      sent.map((r) => `${r.method()} ${r.url()}`),
      [],
      'the check sends nothing',
    );
    assert.deepEqual(await axeViolations(page), [], 'axe-core (ar)');
    await finish(p, 'verify (ar)');
  });

  test('English through the switch: LTR, the masked Arabic name still in its own order; a live document has no test notice; axe-core clean', async () => {
    const p = await browser.newPage({ width: 390, height: 844 });
    const { page } = p;
    await page.goto(`${s.url}/verify/${testRef}`);
    await page.getByRole('link', { name: L.ar.switchTo }).click();
    await page.getByRole('heading', { level: 1, name: L.en.title }).waitFor();
    assert.equal(await page.locator('html').getAttribute('dir'), 'ltr');
    assert.equal(new URL(page.url()).searchParams.get('lang'), 'en');
    assert.equal(await page.getByRole('note').innerText(), L.en.test);
    const xs = await charXs(page, 'أ*** م***');
    for (let i = 1; i < xs.length; i++) assert.ok(xs[i]! < xs[i - 1]!, `the masked Arabic name reads right to left in English too: ${xs}`);
    await choose(page, 'signed.pdf', sealedPdf);
    await until('the match', async () => (await page.locator('.check-result').getAttribute('data-result')) === 'match');
    assert.match(await page.locator('.check-result').innerText(), new RegExp(L.en.match.replace(/\./g, '\\.')));
    await screenshot(page, 'verify-en-390');
    assert.deepEqual(await axeViolations(page), [], 'axe-core (en)');
    await page.getByRole('link', { name: L.en.switchTo }).click();
    await page.getByRole('heading', { level: 1, name: L.ar.title }).waitFor();
    await finish(p, 'verify (en)');

    const live = await browser.newPage();
    await live.page.goto(`${s.url}/verify/${liveRef}?lang=en`);
    await live.page.getByRole('heading', { level: 1, name: L.en.title }).waitFor();
    assert.equal(await live.page.locator('.test-banner').count(), 0, 'no test notice on a live document');
    await screenshot(live.page, 'verify-en');
    assert.deepEqual(await axeViolations(live.page), [], 'axe-core (en, live)');
    await finish(live, 'verify live (en)');
  });

  test('after an archive renewal (PAdES B-LTA): the file as first sealed is an earlier version, the renewed one matches; axe-core clean', async () => {
    const first = await sealed(liveKey, [{ name: 'أحمد محمود', email: OWNER, fields: NDA_FIELDS }], 'aes');
    const row = await s.ctx.store.db
      .selectFrom('sealed_documents')
      .select('timestamp_expires_at')
      .where('signature_request_id', '=', first.id)
      .executeTakeFirstOrThrow();
    // The renewal job runs once the last timestamp's TSA certificate ends within TAWQI_ARCHIVE_RENEW_DAYS (180).
    s.clock.set((row.timestamp_expires_at! - 179 * 86400) * 1000);
    await s.jobs.runDue();
    s.clock.set(Date.now());
    const res = await fetch(`${s.url}/api/v1/signature_requests/${first.id}/download/pdf`, {
      headers: { authorization: `Bearer ${liveKey}` },
    });
    const renewed = new Uint8Array(await res.arrayBuffer());
    assert.ok(renewed.byteLength > first.pdf.byteLength, 'renewed');

    const p = await browser.newPage();
    await p.page.goto(`${s.url}/verify/${first.reference}`);
    await choose(p.page, 'first.pdf', first.pdf);
    await until('the earlier version', async () => (await p.page.locator('.check-result').getAttribute('data-result')) === 'earlier');
    assert.match(await p.page.locator('.check-result strong').innerText(), L.ar.earlier);
    await screenshot(p.page, 'verify-ar-earlier');
    assert.deepEqual(await axeViolations(p.page), [], 'axe-core (earlier)');
    await choose(p.page, 'renewed.pdf', renewed);
    await until('the match', async () => (await p.page.locator('.check-result').getAttribute('data-result')) === 'match');
    await finish(p, 'verify (earlier)');
  });

  test('an unknown reference: a styled 404 in both languages, axe-core clean', async () => {
    for (const lang of ['ar', 'en'] as const) {
      const p = await browser.newPage();
      // The 404 status itself is what the browser logs.
      p.watch.expect(/status of 404/);
      const res = await p.page.goto(`${s.url}/verify/REF-22222-22222${lang === 'en' ? '?lang=en' : ''}`);
      assert.equal(res!.status(), 404);
      await p.page.getByRole('heading', { level: 1, name: L[lang].notFound }).waitFor();
      assert.equal(await p.page.locator('html').getAttribute('lang'), lang);
      // The signing page's stylesheet applies: the card has its rounded border.
      assert.equal(await p.page.evaluate(`getComputedStyle(document.querySelector('.card')).borderTopLeftRadius`), '16px');
      await screenshot(p.page, `verify-404-${lang}`);
      assert.deepEqual(await axeViolations(p.page), [], `axe-core (404, ${lang})`);
      await finish(p, `verify 404 (${lang})`);
    }
  });
});
