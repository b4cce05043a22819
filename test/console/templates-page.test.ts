/**
 * The console's Templates page in real Chromium against a real server (issue 16 point 1): a
 * template with two fields written by keyboard (a placeholder without a field and a field without
 * a placeholder flagged and fixed in one click, both previews updated — the PDF one is the server's
 * renderer, read back with pdftotext), saved, then a request sent from it through the console's
 * new-request form whose sealed document carries the filled text; an edit of a template with
 * requests saved as a new template (the old one archived, its request untouched); a library
 * template duplicated and the copy edited in place; archiving behind a confirm dialog and the
 * template gone from the new-request choice; a viewer reads but cannot write (403 from the server
 * too). axe-core clean and screenshotted in Arabic and English; no CSP violation (PDF.js's worker
 * comes from 'self').
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page, Response } from 'playwright-core';
import { ensureConsole } from '../support/bundles.js';
import { isFocused, launchBrowser, screenshot, tabTo, type PageWatch, type TestBrowser } from '../support/browser.js';
import { checkConsolePage } from '../support/console.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { loaded, signInPage, visitConsole } from '../support/consolePage.js';
import { assertError } from '../support/envelope.js';
import { pdfToText } from '../support/pdfTools.js';
import { startTestServer, type TestServer } from '../support/server.js';

const BODY_1 = 'This lease is between Tawqi and {{tenant_name}}.';
const BODY_2 = 'The monthly rent is {{rent}} SAR.';

describe('the console Templates page, in Chromium', { timeout: 600_000 }, () => {
  let s: TestServer;
  let key: string;
  let browser: TestBrowser;
  let tab: { page: Page; watch: PageWatch };
  const owner = 'owner.tpl@acme.test';
  const viewer = 'viewer.tpl@acme.test';
  let lease = { id: '', request: '' };

  const visit = (path: string, lang: 'ar' | 'en', ready: string) => visitConsole(browser, tab.page, s.url, `/console${path}`, lang, ready);
  const api = (method: string, path: string, body?: unknown) => s.call(method, path, { key, body });
  const checks = () => tab.page.locator('.tpl-checks');
  const pdfState = () => tab.page.locator('.tpl-pdf').getAttribute('data-state');
  /** The next preview answer whose draft holds `text`, as PDF bytes. */
  const previewWith = async (text: string, act: () => Promise<void>): Promise<Uint8Array> => {
    const answer = tab.page.waitForResponse(
      (r: Response) => r.url().endsWith('/console/api/template_preview') && (r.request().postData() ?? '').includes(text),
    );
    await act();
    const r = await answer;
    assert.equal(r.status(), 200);
    return Buffer.from(((await r.json()) as { pdf_base64: string }).pdf_base64, 'base64');
  };

  before(async () => {
    ensureConsole();
    s = await startTestServer(CONSOLE_TEST_ENV);
    const a = await s.account({ name: 'Acme', ownerEmail: owner });
    key = a.keys.secret_test;
    await consoleUser(s, a.id, owner, 'owner');
    await consoleUser(s, a.id, viewer, 'viewer');
    browser = await launchBrowser();
    tab = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('write a template with two fields by keyboard: mismatches flagged and fixed, previews updated, saved', async () => {
    const { page } = tab;
    await signInPage(browser, page, s.url, owner);
    await visit('/templates/new', 'en', '.tpl-editor');
    await page.locator('#tpl-title').focus();
    await page.keyboard.type('Office lease');
    await page.keyboard.press('Tab'); // the language: English, the page's
    await page.keyboard.press('Tab');
    assert.ok(await isFocused(page.locator('#tpl-body')));
    await page.keyboard.type(`${BODY_1}\n\n${BODY_2}`);
    await checks().getByText('{{tenant_name}} has no field.').waitFor();
    await checks().getByText('{{rent}} has no field.').waitFor();
    assert.equal(await pdfState(), 'blocked', 'no PDF preview while the fields disagree with the text');
    await checkConsolePage(page, 'template-editor-flagged', 'en');

    // One click (Enter) each: the field is added with a label from its key, the focus on that label.
    for (const k of ['tenant_name', 'rent']) {
      const fix = page.getByRole('button', { name: `Add the field ${k}` });
      await tabTo(page, fix, { max: 30, back: true });
      await page.keyboard.press('Enter');
      await fix.waitFor({ state: 'detached' });
    }
    assert.ok(await isFocused(page.getByRole('textbox', { name: 'Label of field 2' })));
    assert.equal(await page.getByRole('textbox', { name: 'Label of field 1' }).inputValue(), 'Tenant name');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Monthly rent');
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowDown'); // type: text → date
    await page.keyboard.press('ArrowDown'); // → number
    assert.equal(await page.getByRole('combobox', { name: 'Type of field 2' }).inputValue(), 'number');

    // A field no placeholder uses is flagged, and removed in one click.
    await tabTo(page, page.getByRole('button', { name: 'Add a field' }), { max: 20 });
    await page.keyboard.press('Enter');
    assert.ok(await isFocused(page.getByRole('textbox', { name: 'Key of field 3' })));
    await page.keyboard.type('deposit');
    await checks().getByText('The field deposit is not used in the text.').waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'Key of field 3' }).getAttribute('aria-invalid'), 'true');
    const remove = page.getByRole('button', { name: 'Remove the field deposit' });
    await tabTo(page, remove, { max: 30, back: true });
    await page.keyboard.press('Enter');
    await checks().getByText('Every placeholder has its field, and every field is used.').waitFor();

    // Sample values: the text preview at once, the final PDF's first page from the server's renderer.
    const pdf = await previewWith('Layla Hassan', async () => {
      await page.getByRole('textbox', { name: 'Sample value of field 1' }).focus();
      await page.keyboard.type('Layla Hassan');
    });
    await page.locator('.tpl-doc').getByText('This lease is between Tawqi and Layla Hassan.').waitFor();
    assert.match(await page.locator('.tpl-doc').innerText(), /The monthly rent is \[Monthly rent\] SAR\./);
    const text = await pdfToText(pdf);
    assert.match(text, /This lease is between Tawqi and Layla Hassan\./);
    assert.match(text, /Office lease/);
    await page.locator('.tpl-pdf[data-state="ready"]').waitFor();
    await checkConsolePage(page, 'template-editor', 'en');

    await tabTo(page, page.getByRole('button', { name: 'Save template' }), { max: 30 });
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/console\/templates\/tpl_/);
    await page.getByText('Template “Office lease” created.').waitFor();
    lease.id = page.url().split('/').pop()!;
    const saved = await api('GET', `/templates/${lease.id}`);
    assert.equal(saved.body.body, `${BODY_1}\n\n${BODY_2}`);
    assert.deepEqual(saved.body.fields, [
      { key: 'tenant_name', label: 'Tenant name', type: 'text', required: true },
      { key: 'rent', label: 'Monthly rent', type: 'number', required: true },
    ]);
    tab.watch.assertClean('the template editor');
  });

  test('send a request from it through the new-request form: the sealed document carries the filled text', async () => {
    const { page } = tab;
    await visit('/requests/new', 'en', '#new-template');
    await page.locator('#new-template').selectOption({ label: 'Office lease' });
    await page.getByLabel('Tenant name').fill('Layla Hassan');
    await page.getByLabel('Monthly rent').fill('4500');
    await page.getByLabel('Signer 1: name').fill('Layla Hassan');
    await page.getByLabel('Signer 1: email').fill(owner);
    const sent = page.waitForResponse((r: Response) => r.url().endsWith('/api/v1/signature_requests') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Send the request' }).click();
    const answer = await sent;
    assert.equal(answer.status(), 201, await answer.text());
    await page.waitForURL(/\/console\/requests\/sr_/);
    lease.request = page.url().split('/').pop()!;
    const request = await api('GET', `/signature_requests/${lease.request}`);
    assert.equal(request.body.source.template_id, lease.id);
    const signed = await api('POST', `/test_helpers/signers/${request.body.signers[0].id}/sign`);
    assert.equal(signed.status, 200, signed.text);
    await s.jobs.runDue();
    const doc = await s.call('GET', `/signature_requests/${lease.request}/document`, { key });
    assert.equal(doc.status, 200, doc.text);
    assert.match(doc.text, /This lease is between Tawqi and Layla Hassan\./);
    assert.match(doc.text, /The monthly rent is 4500 SAR\./);
  });

  test('an edit of a template with requests is saved as a new template; the old one is archived and keeps its request', async () => {
    const { page } = tab;
    await visit(`/templates/${lease.id}`, 'en', '.tpl-editor');
    await page.locator('#tpl-body').focus();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n\nPayment is due on the first day of each month.');
    await page.getByRole('button', { name: 'Save template' }).click();
    await page.getByText(/saved as a new template/).waitFor();
    await page.waitForURL((u) => !u.pathname.endsWith(lease.id));
    const fresh = page.url().split('/').pop()!;
    assert.match((await api('GET', `/templates/${fresh}`)).body.body, /first day of each month\.$/);
    const old = await api('GET', `/templates/${lease.id}`);
    assert.equal(old.body.body, `${BODY_1}\n\n${BODY_2}`, 'the old text is kept for its request');
    assert.equal(typeof old.body.archived_at, 'number');
    const listed = (await api('GET', '/templates?scope=mine')).body.data.map((t: { id: string }) => t.id);
    assert.deepEqual(listed, [fresh]);
    const all = (await api('GET', '/templates?scope=mine&archived=true')).body.data.map((t: { id: string }) => t.id);
    assert.deepEqual(all.sort(), [fresh, lease.id].sort());
    assert.equal((await api('GET', `/signature_requests/${lease.request}`)).body.source.template_id, lease.id);
    // The archived one opens read-only.
    await visit(`/templates/${lease.id}`, 'en', '.tpl-editor');
    await page.getByText('This template is archived').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save template' }).count(), 0);
    lease = { ...lease, id: fresh };
  });

  test('the list in both languages; a library template duplicated and the copy edited in place', async () => {
    const { page } = tab;
    for (const lang of ['ar', 'en'] as const) {
      await visit('/templates', lang, '.tpl-table');
      assert.equal(await page.locator('tr[data-template="tpl_nda_ar"]').count(), 1);
      await checkConsolePage(page, 'templates-list', lang);
    }
    // Search by title (the API's search), kept in the address.
    await page.locator('#tpl-search').fill('lease');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/console\/templates\?q=lease$/);
    await page.locator('.tpl-table').first().waitFor();
    await loaded(page);
    const found = await page.locator('.tpl-table tbody th').allInnerTexts();
    assert.ok(found.length > 0 && found.every((t) => /lease/i.test(t)), found.join(', '));
    await visit('/templates', 'en', '.tpl-table');
    const row = page.locator('tr[data-template="tpl_nda_ar"]');
    const title = (await row.locator('th').innerText()).trim();
    await row.getByRole('button', { name: `Copy to my templates: ${title}` }).click();
    await page.waitForURL(/\/console\/templates\/tpl_/);
    const copyId = page.url().split('/').pop()!;
    assert.notEqual(copyId, 'tpl_nda_ar');
    await page.getByText(`Copied as “${title} (2)”`).waitFor();
    await page.locator('.tpl-pdf[data-state="ready"]').waitFor();
    await page.locator('#tpl-body').focus();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n\nThis copy belongs to Acme.');
    await page.getByRole('button', { name: 'Save template' }).click();
    await page.getByText('Template saved.').waitFor();
    assert.equal(page.url().split('/').pop(), copyId, 'no request yet: edited in place');
    const copy = await api('GET', `/templates/${copyId}`);
    assert.equal(copy.body.source, 'custom');
    assert.match(copy.body.body, /This copy belongs to Acme\.$/);
    const library = await api('GET', '/templates/tpl_nda_ar');
    assert.doesNotMatch(library.body.body, /Acme/);

    await visit(`/templates/${copyId}`, 'ar', '.tpl-pdf[data-state="ready"]');
    await checkConsolePage(page, 'template-editor', 'ar');
    // The PDF.js drawing of an Arabic page, close up (test-artifacts/e2e), to look at its shaping.
    await screenshot(page.locator('.tpl-pdf-canvas'), 'template-pdf-preview-ar');
    tab.watch.assertClean('the templates list and the copy');
  });

  test('archive behind a confirm dialog: gone from the list and from the new-request template choice', async () => {
    const { page } = tab;
    await visit('/templates', 'en', '.tpl-table');
    const archive = page.getByRole('button', { name: 'Archive Office lease' });
    await archive.click();
    const dialog = page.getByRole('dialog', { name: 'Archive “Office lease”?' });
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? '', /no longer be listed or offered for new requests/);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.ok(await isFocused(archive), 'the focus goes back to the button');
    assert.equal((await api('GET', `/templates/${lease.id}`)).body.archived_at, null);
    await archive.click();
    await dialog.getByRole('button', { name: 'Archive' }).click();
    await page.getByRole('status').filter({ hasText: '“Office lease” is archived.' }).waitFor();
    await page.locator(`tr[data-template="${lease.id}"]`).waitFor({ state: 'detached' });
    assert.equal(typeof (await api('GET', `/templates/${lease.id}`)).body.archived_at, 'number');

    await visit('/requests/new', 'en', '#new-template');
    const offered = await page.locator('#new-template option').allTextContents();
    assert.ok(!offered.includes('Office lease'), offered.join(', '));
    assert.ok(
      offered.some((t) => t.endsWith('(2)')),
      'the copy is offered',
    );
  });

  test('a viewer reads templates but cannot write them; the server refuses too', async () => {
    const { page } = tab;
    await browser.context.clearCookies();
    await signInPage(browser, page, s.url, viewer);
    await visit('/templates', 'en', '.tpl-table');
    assert.equal(await page.getByRole('link', { name: 'New template' }).count(), 0);
    assert.equal(await page.locator('.tpl-table button').count(), 0);
    await visit('/templates/tpl_nda_ar', 'en', '.tpl-pdf[data-state="ready"]');
    assert.equal(
      await page
        .getByRole('button')
        .filter({ hasText: /Save|Copy|Archive/ })
        .count(),
      0,
    );
    assert.equal(await page.locator('#tpl-body').getAttribute('readonly'), '');

    const c = new ConsoleClient(s.url, 'en');
    assert.equal((await c.signIn(viewer, TEST_PASSWORD)).status, 200);
    const draft = { title: 'Viewer edit', body: 'No fields.' };
    assertError(await c.call('PUT', `/templates/${lease.id}`, { body: draft }), 'forbidden', 'en');
    assertError(await c.call('POST', '/templates/tpl_nda_ar/duplicate', { body: {} }), 'forbidden', 'en');
    assertError(await c.call('POST', `/templates/${lease.id}/archive`, { body: {} }), 'forbidden', 'en');
    const preview = await c.call('POST', '/template_preview', { body: { ...draft, values: {} } });
    assert.equal(preview.status, 200, 'a preview stores nothing: readers may see one');
    // The public API through the viewer's read-only credential refuses a new template.
    const credential = await c.call('POST', '/credentials', { body: { livemode: false } });
    const created = await s.call('POST', '/templates', { key: credential.body.token, body: draft });
    assert.equal(created.status, 403, created.text);
    tab.watch.assertClean('the viewer’s pages');
  });
});
