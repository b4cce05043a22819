/**
 * The console's Company verification page in real Chromium against a real server (issue 16 point
 * 3): a new account (kyb none) whose owner uploads a real PDF and PNG by keyboard, takes the
 * representative through the simulation page in the browser, and submits by keyboard; the live key
 * answers 403 kyb_required until the operator approves through the admin API, then the page says
 * verified and the live key works. A rejection's reason reaches the owner in both languages, a
 * wrong file is refused on the page (by its name here, by its bytes at the server), and a new round
 * is submitted. An admin and a developer read the page without any control. axe-core clean and
 * screenshotted in Arabic and English. The configured engine (SQLite or PostgreSQL).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Page } from 'playwright-core';
import { ensureConsole } from '../support/bundles.js';
import { isFocused, launchBrowser, tabTo, type PageWatch, type TestBrowser } from '../support/browser.js';
import { checkConsolePage } from '../support/console.js';
import { representativeCheck, uploadCompanyDocument } from '../support/companyVerification.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, signedInClient } from '../support/consoleClient.js';
import { signInPage, visitConsole } from '../support/consolePage.js';
import { assertError } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';

const MAX_BYTES = 64 * 1024;
const PAGE = '/console/verification';
const OPERATOR = 'ops.kyb@tawqi.example';

async function realPdf(text: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([400, 200]).drawText(text, { x: 30, y: 100, size: 14, font });
  return Buffer.from(await doc.save());
}

/** A real PNG (RFC 2083): a small grey image, its rows deflated, each chunk with its CRC. */
function realPng(shade: number): Buffer {
  const [width, height] = [24, 16];
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const frame = Buffer.alloc(8);
    frame.writeUInt32BE(data.length, 0);
    frame.writeUInt32BE(crc32(body), 4);
    return Buffer.concat([frame.subarray(0, 4), body, frame.subarray(4)]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // 8-bit greyscale, no interlace
  const rows = Buffer.alloc((width + 1) * height, shade);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0; // filter type None
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

describe('the console Company verification page, in Chromium', { timeout: 300_000 }, () => {
  let s: TestServer;
  let browser: TestBrowser;
  let tab: { page: Page; watch: PageWatch };
  let operator: ConsoleClient;
  let pdf: Buffer;
  let png: Buffer;

  const visit = (lang: 'ar' | 'en') => visitConsole(browser, tab.page, s.url, PAGE, lang, '.kyb-part, .notice');
  const statusPill = () => tab.page.locator('.kyb-status .pill');
  const liveTemplate = (key: string, title: string) =>
    s.call('POST', '/templates', { key, body: { title, language: 'en', body: 'Hello.', fields: [] } });

  /** A new account that has not verified its company, with its owner (and any other members). */
  async function newCompany(slug: string, members: { email: string; role: 'admin' | 'developer' }[] = []) {
    const owner = `owner@${slug}.example`;
    const account = await s.account({ name: `${slug} Co`, kyb: 'none', ownerEmail: owner });
    await consoleUser(s, account.id, owner, 'owner');
    for (const m of members) await consoleUser(s, account.id, m.email, m.role);
    return { ...account, owner };
  }

  /** Sign in as someone else (the browser's cookies belong to one user at a time). */
  async function signInAs(email: string): Promise<void> {
    await browser.context.clearCookies();
    await signInPage(browser, tab.page, s.url, email);
  }

  const roundOf = async (accountId: string) => {
    const queue = await operator.call('GET', '/admin/company_verifications?limit=100');
    assert.equal(queue.status, 200, queue.text);
    return (queue.body.data as { id: string; status: string; account: { id: string } }[]).filter((r) => r.account.id === accountId);
  };

  before(async () => {
    ensureConsole();
    s = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_COMPANY_DOCUMENT_MAX_BYTES: String(MAX_BYTES) });
    await consoleUser(s, null, OPERATOR, 'operator');
    operator = await signedInClient(s, OPERATOR);
    pdf = await realPdf('Commercial register extract - Acme Co');
    png = realPng(200);
    browser = await launchBrowser();
    tab = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('upload and submit by keyboard, the representative through the simulation page; the operator approves and the live key works', async () => {
    const { page } = tab;
    const a = await newCompany('acme');
    await signInPage(browser, page, s.url, a.owner);
    for (const lang of ['ar', 'en'] as const) {
      await visitConsole(browser, page, s.url, '/console', lang, '.kyb-home .notice');
      await checkConsolePage(page, 'verification-home-notice', lang);
    }
    assert.match((await page.locator('.kyb-home .notice').textContent()) ?? '', /not verified yet: live keys answer 403 kyb_required/);
    assert.equal(await page.locator('.kyb-home a').getAttribute('href'), PAGE);
    for (const lang of ['ar', 'en'] as const) {
      await visit(lang);
      assert.equal(await statusPill().textContent(), lang === 'ar' ? 'غير موثّقة' : 'Not verified');
      await checkConsolePage(page, 'verification-none', lang);
    }
    assert.match((await page.locator('.kyb-live').textContent()) ?? '', /live keys answer 403 kyb_required/);
    assert.ok(await page.getByRole('button', { name: 'Submit for review' }).isDisabled(), 'nothing to submit yet');
    assert.match(
      (await page.locator('.kyb-why').textContent()) ?? '',
      /identity check must be approved first.*at least one company document/s,
    );

    // The upload by keyboard: Tab to the file field, Space opens the chooser, Tab to Upload, Enter.
    // Waiting for the chooser before the keys: Playwright then intercepts it before Space opens it.
    const chooser = page.waitForEvent('filechooser');
    await tabTo(page, page.getByLabel('Add documents'));
    await page.keyboard.press('Space');
    await (
      await chooser
    ).setFiles([
      { name: 'commercial-register.pdf', mimeType: 'application/pdf', buffer: pdf },
      { name: 'السجل الضريبي.png', mimeType: 'image/png', buffer: png },
    ]);
    await tabTo(page, page.getByRole('button', { name: 'Upload', exact: true }));
    await page.keyboard.press('Enter');
    const flash = page.locator('.page-messages .notice');
    await flash.filter({ hasText: 'Uploaded: 2.' }).waitFor();
    assert.ok(await isFocused(flash), 'the outcome takes the focus');
    const rows = page.locator('table.kyb-docs tbody tr');
    assert.equal(await rows.count(), 2);
    assert.deepEqual(await rows.locator('td:nth-child(2)').allTextContents(), ['PDF', 'PNG']);
    assert.equal(await rows.nth(1).locator('.kyb-doc-name').textContent(), 'السجل الضريبي.png');
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download commercial-register.pdf' }).click();
    assert.ok(readFileSync((await (await download).path())!).equals(pdf), 'the download is the uploaded PDF');

    // The representative: the name, then through the simulation page and back.
    await page.getByLabel('The representative’s full name').fill('Mona Adel');
    await page.getByRole('button', { name: 'Start the identity check' }).click();
    const open = page.getByRole('link', { name: 'Open the identity check' });
    await open.waitFor();
    assert.ok(await isFocused(open), 'the link to the check takes the focus');
    assert.match((await page.locator('.kyb-go').textContent()) ?? '', /simulation page/);
    await open.click();
    await page.waitForURL(/\/identity\/simulate\//);
    assert.match((await page.locator('body').textContent()) ?? '', /Mona Adel/);
    await page.getByRole('button', { name: /Approve/ }).click();
    await page.getByRole('link', { name: /Continue/ }).click();
    await page.waitForURL(`${s.url}${PAGE}`);
    await page.locator('.kyb-facts').waitFor();
    const facts = page.locator('.kyb-facts');
    assert.match((await facts.textContent()) ?? '', /Mona Adel.*Approved.*Name on the document.*Mona Adel.*Matches/s);
    assertError(await liveTemplate(a.keys.secret_live, 'Before'), 'kyb_required');

    // Submit by keyboard through the confirm dialog (its safe answer has the focus first).
    const submit = page.getByRole('button', { name: 'Submit for review' });
    await tabTo(page, submit, { max: 60 }); // from the top of the page: past the navigation
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Submit the company verification?' });
    await dialog.waitFor();
    assert.ok(await isFocused(dialog.getByRole('button', { name: 'Not yet' })));
    await tabTo(page, dialog.getByRole('button', { name: 'Submit for review' }));
    await page.keyboard.press('Enter');
    await flash.filter({ hasText: 'Submitted for review.' }).waitFor();
    assert.equal(await statusPill().textContent(), 'Under review');
    assert.equal(await page.locator('input[type=file], .kyb-part form, .kyb-part button').count(), 0, 'nothing editable while pending');
    assertError(await liveTemplate(a.keys.secret_live, 'Pending'), 'kyb_required');
    for (const lang of ['ar', 'en'] as const) {
      await visit(lang);
      await checkConsolePage(page, 'verification-pending', lang);
    }

    // The operator approves through the admin API; the page says verified and the live key works.
    const [round] = await roundOf(a.id);
    assert.equal(round!.status, 'pending');
    const approved = await operator.call('POST', `/admin/company_verifications/${round!.id}/approve`, { body: {} });
    assert.equal(approved.status, 200, approved.text);
    for (const lang of ['ar', 'en'] as const) {
      await visit(lang);
      assert.equal(await statusPill().textContent(), lang === 'ar' ? 'موثّقة' : 'Verified');
      await checkConsolePage(page, 'verification-approved', lang);
    }
    assert.equal(await page.locator('.kyb-live').textContent(), 'Live keys work.');
    assert.equal(await page.locator('.kyb-part form, .kyb-part button').count(), 0, 'nothing editable once approved');
    const made = await liveTemplate(a.keys.secret_live, 'After');
    assert.equal(made.status, 201, made.text);
    const usage = await s.call('GET', '/usage', { key: a.keys.secret_live });
    assert.equal(usage.status, 200, usage.text);
    assert.equal(usage.body.company_verification, 'approved');
    await visitConsole(browser, page, s.url, '/console', 'en', '.tiles');
    assert.equal(await page.locator('.kyb-home .notice').count(), 0, 'no reminder once verified');
    tab.watch.assertClean();
  });

  test('a rejection’s reason reaches the owner in both languages; wrong files are refused on the page; a new round is submitted', async () => {
    const { page } = tab;
    const b = await newCompany('beta');
    const api = await signedInClient(s, b.owner);
    assert.equal((await uploadCompanyDocument(api, pdf, 'register.pdf')).status, 201);
    assert.equal((await uploadCompanyDocument(api, realPng(40), 'blurry.png')).status, 201);
    await representativeCheck(api, 'Karim Nabil', 'approve');
    assert.equal((await api.call('POST', '/company_verification/submit', { body: {} })).status, 200);
    const [first] = await roundOf(b.id);
    const reason = 'The tax card photo is unreadable; upload a clear scan.';
    const rejected = await operator.call('POST', `/admin/company_verifications/${first!.id}/reject`, { body: { reason } });
    assert.equal(rejected.status, 200, rejected.text);

    await signInAs(b.owner);
    await visitConsole(browser, page, s.url, '/console', 'en', '.kyb-home .notice');
    assert.match((await page.locator('.kyb-home .notice').textContent()) ?? '', /was rejected: live keys answer 403 kyb_required/);
    for (const lang of ['ar', 'en'] as const) {
      await visit(lang);
      assert.equal(await statusPill().textContent(), lang === 'ar' ? 'مرفوضة' : 'Rejected');
      assert.equal(await page.locator('.kyb-reason p[dir=auto]').textContent(), reason);
      assert.match((await page.locator('.kyb-reason').textContent()) ?? '', lang === 'ar' ? /سبب المراجع/ : /The reviewer’s reason/);
      await checkConsolePage(page, 'verification-rejected', lang);
    }

    // Refused on the page: by its name and size in the browser, by its bytes at the server.
    const files = page.locator('.kyb-upload input[type=file]');
    const uploadButton = page.locator('.kyb-upload button[type=submit]');
    const fieldMessage = page.locator('.kyb-upload .field-message');
    const refused = async (file: { name: string; mimeType: string; buffer: Buffer }, message: string) => {
      await files.setInputFiles(file);
      await uploadButton.click();
      await fieldMessage.filter({ hasText: message }).waitFor();
      assert.equal(await files.getAttribute('aria-invalid'), 'true');
      assert.ok(await isFocused(files), 'the refused field takes the focus');
    };
    await refused(
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('minutes') },
      'notes.txt is not a PDF, PNG or JPEG file.',
    );
    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MAX_BYTES, 0x20)]);
    await refused({ name: 'big.pdf', mimeType: 'application/pdf', buffer: big }, 'big.pdf is larger than 64 kB.');
    const renamed = { name: 'register-copy.pdf', mimeType: 'application/pdf', buffer: Buffer.from('MZ an executable named .pdf') };
    tab.watch.expect(/status of 400/); // the server's refusal of the renamed file, in the browser's console
    await refused(renamed, 'The file is not a PDF, PNG or JPEG (its content was checked, not its name).');
    await checkConsolePage(page, 'verification-refused', 'en');
    await visit('ar');
    await refused(
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('minutes') },
      'الملف notes.txt ليس بصيغة PDF أو PNG أو JPEG.',
    );
    await refused(renamed, 'الملف ليس PDF ولا PNG ولا JPEG (فُحص محتواه لا اسمه).');
    await checkConsolePage(page, 'verification-refused', 'ar');
    assert.equal((await api.call('GET', '/company_verification')).body.documents.length, 2, 'nothing refused was kept');

    // The new round: replace the unreadable document; the approved representative check carries over.
    await visit('en');
    await page.getByRole('button', { name: 'Remove blurry.png' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove blurry.png?' });
    await confirm.getByRole('button', { name: 'Remove' }).click();
    const flash = page.locator('.page-messages .notice');
    await flash.filter({ hasText: 'Removed blurry.png.' }).waitFor();
    await page.getByLabel('Add documents').setInputFiles({ name: 'tax-card.png', mimeType: 'image/png', buffer: png });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await flash.filter({ hasText: 'Uploaded: 1.' }).waitFor();
    assert.deepEqual(await page.locator('table.kyb-docs .kyb-doc-name').allTextContents(), ['register.pdf', 'tax-card.png']);
    assert.match((await page.locator('.kyb-facts').textContent()) ?? '', /Karim Nabil.*Approved/s);
    await page.getByRole('button', { name: 'Submit for review' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Submit for review' }).click();
    await flash.filter({ hasText: 'Submitted for review.' }).waitFor();
    assert.equal(await statusPill().textContent(), 'Under review');
    assert.equal(await page.locator('.kyb-reason').count(), 0, 'the new round has no reason yet');
    const rounds = await roundOf(b.id);
    assert.deepEqual(rounds.map((r) => r.status).sort(), ['pending', 'rejected']);
    assert.ok(
      rounds.some((r) => r.status === 'pending' && r.id !== first!.id),
      'a new round',
    );
    tab.watch.assertClean();
  });

  test('an admin and a developer read the state and the documents without any control', async () => {
    const { page } = tab;
    const admin = 'admin@gamma.example';
    const developer = 'dev@gamma.example';
    const c = await newCompany('gamma', [
      { email: admin, role: 'admin' },
      { email: developer, role: 'developer' },
    ]);
    assert.equal((await uploadCompanyDocument(await signedInClient(s, c.owner), pdf, 'articles.pdf')).status, 201);
    for (const email of [admin, developer]) {
      await signInAs(email);
      const nav = page.getByRole('navigation', { name: 'Console' });
      await nav.getByRole('link', { name: 'Company verification' }).click();
      await page.waitForURL(`${s.url}${PAGE}`);
      await page.locator('.kyb-part').first().waitFor();
      await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
      assert.equal(await statusPill().textContent(), 'Not verified');
      assert.match(
        (await page.locator('.kyb-part').first().textContent()) ?? '',
        /Only the account’s owner can change the company verification\./,
      );
      assert.deepEqual(await page.locator('table.kyb-docs .kyb-doc-name').allTextContents(), ['articles.pdf']);
      assert.equal(
        await page.locator('.kyb-part input, .kyb-part button, .kyb-part form, table.kyb-docs a').count(),
        0,
        `${email}: read only`,
      );
      assert.equal(await page.locator('table.kyb-docs th').count(), 4, 'no Actions column');
    }
    for (const lang of ['ar', 'en'] as const) {
      await visit(lang);
      await checkConsolePage(page, 'verification-read-only', lang);
    }
    tab.watch.assertClean();
  });
});
