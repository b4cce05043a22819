/**
 * The signature validator page (GET/POST /verify) over real HTTP and in real Chromium: a pades-lt PDF
 * sealed by the test server's own PKI is TOTAL-PASSED at B-LTA, a tampered copy TOTAL-FAILED; the
 * JSON report and the HTML fragment; a non-PDF and a body over 25 MB refused in the error envelope
 * (Arabic by default, English with ?lang=en); nothing written to the data directory; the no-script
 * form (multipart, and in Chromium with JavaScript disabled); in Chromium the file chosen by keyboard,
 * the report announced and focused, Arabic RTL and English, axe-core clean, the page's CSP allowing
 * connect-src and form-action 'self' only; the certificate chain as readable names in an
 * ordered list of the page's direction. Screenshots: test-artifacts/e2e/validate-*.png.
 */
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sealedFinalPdf } from '../../server/src/sealing/seal.js';
import type { ValidationReport } from '../../server/src/sealing/validation/index.js';
import { ensureSigningPage } from '../support/bundles.js';
import {
  axeViolations,
  axeViolationsWithoutScript,
  launchBrowser,
  screenshot,
  tabTo,
  until,
  type TestBrowser,
} from '../support/browser.js';
import { minimalFinalInput } from '../support/finalInput.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Every file under a folder with its size, the database's own files aside (their size moves with checkpoints; rows are counted instead). */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile() && !/\.sqlite(-wal|-shm|-journal)?$/.test(file))
    .map((file) => `${file} ${statSync(file).size}`)
    .sort();
}

describe('the signature validator page', { timeout: 240_000 }, () => {
  let s: TestServer;
  let browser: TestBrowser;
  let signed: Uint8Array;
  let tampered: Uint8Array;
  /** The row count of every table: what "nothing stored in the database" is checked against. */
  const rowCounts = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const table of await s.ctx.store.db.introspection.getTables()) {
      const row = await s.ctx.store.db
        .selectFrom(table.name as never)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      out[table.name] = Number(row.n);
    }
    return out;
  };
  const post = (body: Uint8Array, query = '', headers: Record<string, string> = {}) =>
    fetch(`${s.url}/verify${query}`, { method: 'POST', body, headers: { 'content-type': 'application/pdf', ...headers } });

  before(async () => {
    ensureSigningPage();
    s = await startTestServer();
    s.clock.set(Date.now());
    signed = await sealedFinalPdf(s.ctx.pki, minimalFinalInput('pades-lt', Math.floor(Date.now() / 1000) - 60), 'Riyadh');
    tampered = Uint8Array.from(signed);
    tampered[10] = tampered[10]! ^ 0x01;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('POST /verify: the JSON report and the HTML fragment, stored nowhere', async () => {
    const before = listing(s.dataDir);
    const rowsBefore = await rowCounts();
    assert.ok(Object.keys(rowsBefore).length > 10, 'the tables are counted');
    const res = await post(signed);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const report = (await res.json()) as ValidationReport;
    assert.equal(report.indication, 'TOTAL-PASSED', JSON.stringify(report.signatures, null, 2));
    assert.equal(report.signatures[0]?.level, 'B-LTA', 'a pades-lt final PDF is B-LTA');
    assert.equal(report.lang, 'ar');
    const html = await (await post(tampered, '?lang=en', { accept: 'text/html' })).text();
    assert.match(html, /data-overall="TOTAL-FAILED"/);
    assert.match(html, /HASH_FAILURE/);
    assert.deepEqual(listing(s.dataDir), before);
    // The one write allowed: the per-address rate-limit counter, a rate_windows row on PostgreSQL
    // (processes share it there; SQLite keeps it in memory): a window's key and count, nothing of the file.
    const { rate_windows: windowsAfter = 0, ...rowsAfter } = await rowCounts();
    const { rate_windows: windowsBefore = 0, ...rowsBeforeRest } = rowsBefore;
    assert.deepEqual(rowsAfter, rowsBeforeRest);
    assert.ok(windowsAfter - windowsBefore <= 1, 'at most the rate-limit window of this address');
  });

  test('POST /verify refuses a non-PDF and a body over 25 MB in the error envelope', async () => {
    const notPdf = await post(new TextEncoder().encode('hello'));
    assert.equal(notPdf.status, 400);
    const envelope = (await notPdf.json()) as { error: { code: string; message: string; param: string; request_id: string } };
    assert.equal(envelope.error.code, 'parameter_invalid');
    assert.equal(envelope.error.param, 'file');
    assert.match(envelope.error.message, /PDF/);
    assert.match(envelope.error.message, /[\u0600-\u06FF]/);
    assert.ok(envelope.error.request_id);
    const big = await post(new Uint8Array(25 * 1024 * 1024 + 1), '?lang=en');
    assert.equal(big.status, 413);
    const bigEnvelope = (await big.json()) as { error: { code: string; message: string } };
    assert.equal(bigEnvelope.error.code, 'request_too_large');
    assert.match(bigEnvelope.error.message, /25 MB/);
  });

  test('POST /verify is rate-limited per client address (TAWQI_IP_RATE_LIMIT), before the body is read', async () => {
    const limited = await startTestServer({ TAWQI_IP_RATE_LIMIT: '2' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const res = await fetch(`${limited.url}/verify?lang=en`, { method: 'POST', body: new TextEncoder().encode('hello') });
        statuses.push(res.status);
        if (res.status === 429) assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'too_many_requests');
        else await res.arrayBuffer();
      }
      assert.deepEqual(statuses, [400, 400, 429]);
    } finally {
      await limited.close();
    }
  });

  test('in Chromium: Arabic RTL, a PDF chosen by keyboard, the report focused; axe clean before and after', async () => {
    const { page, watch } = await browser.newPage();
    const res = await page.goto(`${s.url}/verify`);
    assert.match(res?.headers()['content-security-policy'] ?? '', /connect-src 'self'/);
    assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
    assert.deepEqual(await axeViolations(page), []);
    // Waiting for the chooser before the keys, as the console's upload test does: Playwright then
    // intercepts it before Enter opens it. Started together with the key press, the interception
    // could reach the browser after it (the chooser went unseen once, on a loaded machine).
    const chooserOpened = page.waitForEvent('filechooser');
    await tabTo(page, page.locator('#validate-file'));
    await page.keyboard.press('Enter');
    const chooser = await chooserOpened;
    await chooser.setFiles({ name: 'contract.pdf', mimeType: 'application/pdf', buffer: Buffer.from(signed) });
    const overall = page.locator('#overall-title');
    await until('the report', async () => (await overall.count()) > 0);
    assert.match((await overall.textContent()) ?? '', /النتيجة الإجمالية: TOTAL-PASSED/);
    assert.equal(await page.evaluate('document.activeElement?.id'), 'overall-title');
    assert.match((await page.locator('.validate-result').textContent()) ?? '', /B-LT/);
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'validate-ar-passed', { fullPage: true });
    watch.assertClean();
  });

  test('in Chromium: English, a tampered PDF TOTAL-FAILED', async () => {
    const { page, watch } = await browser.newPage();
    await page.goto(`${s.url}/verify?lang=en`);
    assert.equal(await page.getAttribute('html', 'dir'), 'ltr');
    await page
      .locator('#validate-file')
      .setInputFiles({ name: 'tampered.pdf', mimeType: 'application/pdf', buffer: Buffer.from(tampered) });
    const overall = page.locator('#overall-title');
    await until('the report', async () => (await overall.count()) > 0);
    assert.match((await overall.textContent()) ?? '', /Overall: TOTAL-FAILED \/ HASH_FAILURE/);
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'validate-en-failed', { fullPage: true });
    watch.assertClean();
  });

  test('in Chromium: the certificate chain reads as names (no RFC 4514 escapes), numbered on the side the language starts from', async () => {
    for (const lang of ['ar', 'en'] as const) {
      const { page, watch } = await browser.newPage();
      await page.goto(`${s.url}/verify?lang=${lang}`);
      await page
        .locator('#validate-file')
        .setInputFiles({ name: 'contract.pdf', mimeType: 'application/pdf', buffer: Buffer.from(signed) });
      const chain = page.locator('ol.chain').first();
      await until('the chain', async () => (await chain.count()) > 0);
      // Looked at by a person (see the report of the change that added this test), kept for the next one.
      await chain.screenshot({ path: path.join(tmpdir(), `validate-chain-${lang}.png`) });
      const items = await chain.locator('li').allTextContents();
      assert.ok(items.length >= 2, items.join(' | '));
      assert.ok(
        items.every((name) => !name.includes('\\') && !/\b(CN|O)=/.test(name)),
        items.join(' | '),
      );
      assert.match(items[0]!, /built-in, not publicly trusted/);
      // The list's numbers sit at the start of the language's direction (right in Arabic) and each name is one left-to-right box.
      assert.equal(await chain.evaluate((ol) => ol.matches(':dir(rtl)')), lang === 'ar');
      assert.equal(await chain.locator('li > bdi.dn[dir="ltr"]').count(), items.length);
      assert.deepEqual(await axeViolations(page), []);
      await screenshot(page, `validate-chain-${lang}`, { fullPage: true });
      watch.assertClean();
      await page.close();
    }
  });

  describe('the no-script form (multipart/form-data, one file part)', () => {
    const form = (parts: [string, Blob | string, string?][]): FormData => {
      const data = new FormData();
      for (const [name, value, filename] of parts) {
        if (typeof value === 'string') data.append(name, value);
        else data.append(name, value, filename);
      }
      return data;
    };
    const postForm = (data: FormData, query = '') =>
      fetch(`${s.url}/verify${query}`, { method: 'POST', body: data, headers: { accept: 'text/html' } });

    test("POST /verify with the form: the whole page with the report, form-action 'self' on it", async () => {
      const res = await postForm(form([['file', new Blob([signed], { type: 'application/pdf' }), 'contract.pdf']]));
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/);
      assert.match(res.headers.get('content-security-policy') ?? '', /form-action 'self'/);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const html = await res.text();
      assert.match(html, /<html lang="ar" dir="rtl">/);
      assert.match(html, /data-overall="TOTAL-PASSED"/);
      assert.match(html, /<form class="validate-form" method="post" action="\/verify\?lang=ar" enctype="multipart\/form-data">/);
    });

    test('bad form input from a browser (Accept: text/html): the page again, 400, the reason where the report would be, Arabic by default', async () => {
      const cases: [FormData, string][] = [
        [form([['file', new Blob(['hello'], { type: 'text/plain' }), 'note.txt']]), 'هذا ليس ملف PDF مقروءًا.'],
        [form([['note', 'no file here']]), 'لم يُرسَل أي ملف.'],
      ];
      for (const [data, reason] of cases) {
        const res = await postForm(data);
        assert.equal(res.status, 400);
        assert.match(res.headers.get('content-type') ?? '', /text\/html/);
        assert.match(res.headers.get('content-security-policy') ?? '', /form-action 'self'/);
        const html = await res.text();
        assert.match(html, /<html lang="ar" dir="rtl">/);
        // In the result area, as the page's script shows a refusal.
        assert.ok(html.includes(`<strong>تعذّر الفحص</strong><p>${reason}</p>`), html);
        assert.ok(html.indexOf('class="validate-result"') < html.indexOf(reason));
        assert.match(html, /<form class="validate-form" method="post"/, 'the form again, to try another file');
      }
      const english = await postForm(form([['note', 'x']]), '?lang=en');
      assert.equal(english.status, 400);
      assert.ok((await english.text()).includes('<strong>The check failed</strong><p>No file was sent.</p>'));
    });

    test('bad form input from a client that prefers JSON: 400 in the error envelope', async () => {
      const res = await fetch(`${s.url}/verify`, { method: 'POST', body: form([['note', 'x']]), headers: { accept: 'application/json' } });
      assert.equal(res.status, 400);
      const { error } = (await res.json()) as { error: { code: string; param: string; message: string } };
      assert.deepEqual([error.code, error.param], ['parameter_missing', 'file']);
      assert.match(error.message, /[\u0600-\u06FF]/);
    });

    test('in Chromium with JavaScript disabled: the form submits a PDF and the page shows the indication', async () => {
      const noScript = await launchBrowser({ javaScriptEnabled: false });
      try {
        for (const lang of ['ar', 'en'] as const) {
          const { page, watch } = await noScript.newPage();
          await page.goto(`${s.url}/verify?lang=${lang}`);
          // The script's dropzone stays hidden; the form is what a reader without JavaScript gets.
          assert.equal(await page.locator('[data-dropzone]').isVisible(), false);
          await page
            .locator('#validate-form-file')
            .setInputFiles({ name: 'contract.pdf', mimeType: 'application/pdf', buffer: Buffer.from(signed) });
          await Promise.all([
            page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/verify')),
            page.getByRole('button', { name: lang === 'ar' ? 'افحص' : 'Check' }).click(),
          ]);
          const overall = page.locator('#overall-title');
          await until('the report', async () => (await overall.count()) > 0);
          assert.match((await overall.textContent()) ?? '', lang === 'ar' ? /النتيجة الإجمالية: TOTAL-PASSED/ : /Overall: TOTAL-PASSED/);
          assert.equal(await page.getAttribute('html', 'dir'), lang === 'ar' ? 'rtl' : 'ltr');
          await screenshot(page, `validate-noscript-${lang}`, { fullPage: true });
          // A file that is not a PDF: the page again with the reason, and the form to try another.
          // Chromium reports the page's 400 status on the console: expected, not the page's fault.
          watch.expect(/status of 400/);
          await page
            .locator('#validate-form-file')
            .setInputFiles({ name: 'note.pdf', mimeType: 'application/pdf', buffer: Buffer.from('hello') });
          const [refused] = await Promise.all([
            page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/verify')),
            page.getByRole('button', { name: lang === 'ar' ? 'افحص' : 'Check' }).click(),
          ]);
          assert.equal(refused.status(), 400);
          const refusal = await refused.text(); // for axe below, read while the page is open
          const reason = page.locator('.validate-result .notice');
          await until('the reason', async () => (await reason.count()) > 0);
          assert.match(
            (await reason.textContent()) ?? '',
            lang === 'ar' ? /تعذّر الفحص.*هذا ليس ملف PDF مقروءًا/ : /The check failed.*This is not a readable PDF file/,
          );
          assert.equal(await page.locator('#validate-form-file').count(), 1);
          await screenshot(page, `validate-noscript-refused-${lang}`, { fullPage: true });
          watch.assertClean();
          await page.close();
          // axe on both pages as the no-script reader got them: the form, and the refusal with the form.
          const form = await (await fetch(`${s.url}/verify?lang=${lang}`)).text();
          assert.match(form, /<noscript><form/);
          const checker = await browser.newPage();
          for (const [name, html] of [
            ['the form', form],
            ['the refusal', refusal],
          ] as const)
            assert.deepEqual(await axeViolationsWithoutScript(checker.page, s.url, html), [], `axe, ${lang}, JavaScript off: ${name}`);
          await checker.page.close();
        }
      } finally {
        await noScript.close();
      }
    });
  });
});
