/**
 * The console's Requests pages in real Chromium against a real server (issue 15 point 3): the
 * browser acts through the internal credential on the public API. Requests made with a test key
 * are listed, the text filter (the API's `search`) narrows the list, a request's timeline shows
 * its events, the final PDF of a completed request downloads with the bytes the API vouches for
 * (X-File-Sha256), a sent request is canceled after a confirm dialog, a request is created from a
 * template through the generated form (an API refusal lands on its field), and a viewer sees no
 * write control while the API refuses the viewer's credential a write. Each page is axe-core
 * clean in Arabic and English and screenshotted to test-artifacts/console/.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ensureConsole } from '../support/bundles.js';
import { isFocused, launchBrowser, until, type PageWatch, type TestBrowser } from '../support/browser.js';
import { assertAccessible, checkConsolePage, consoleScreenshot } from '../support/console.js';
import { loaded, signInPage, visitConsole } from '../support/consolePage.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { teamAccount, type TeamAccount } from '../support/teamAccount.js';

const TEMPLATE = {
  title: 'Consulting',
  language: 'en',
  body: 'Consulting for {{client_name}} from {{start_date}}.',
  fields: [
    { key: 'client_name', label: 'Client', type: 'text', required: true },
    { key: 'start_date', label: 'Start date', type: 'date', required: false },
  ],
};

describe('the console Requests pages, in Chromium', { timeout: 300_000 }, () => {
  let s: TestServer;
  let a: TeamAccount;
  let browser: TestBrowser;
  let tab: { page: Page; watch: PageWatch };
  const ids: Record<'alpha' | 'beta' | 'done', string> = { alpha: '', beta: '', done: '' };
  const owner = 'owner.requests@acme.test';
  const viewer = 'viewer.requests@acme.test';

  const createRequest = async (title: string, signer: number) => {
    const r = await s.call('POST', '/signature_requests', {
      key: a.keys.secret_test,
      body: {
        title,
        source: { type: 'template', template_id: a.templateId },
        signers: [{ name: `Member ${signer}`, email: a.team[signer], fields: { client_name: 'Nile Trading' } }],
      },
    });
    assert.equal(r.status, 201, r.text);
    return r.body as { id: string; signers: { id: string }[] };
  };

  before(async () => {
    ensureConsole();
    s = await startTestServer(CONSOLE_TEST_ENV);
    a = await teamAccount(s, TEMPLATE);
    await consoleUser(s, a.id, owner, 'owner');
    await consoleUser(s, a.id, viewer, 'viewer');
    ids.alpha = (await createRequest('Lease Alpha', 1)).id;
    ids.beta = (await createRequest('Supply Beta', 2)).id;
    const done = await createRequest('Completed Gamma', 3);
    ids.done = done.id;
    const signed = await s.call('POST', `/test_helpers/signers/${done.signers[0]!.id}/sign`, { key: a.keys.secret_test });
    assert.equal(signed.status, 200, signed.text);
    await s.jobs.runDue();
    browser = await launchBrowser();
    tab = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  const signIn = (email: string) => signInPage(browser, tab.page, s.url, email, 'test');

  const visit = (path: string, lang: 'ar' | 'en', ready: string) => visitConsole(browser, tab.page, s.url, path, lang, ready);
  const checkPage = (name: string, lang: 'ar' | 'en') => checkConsolePage(tab.page, `requests-${name}`, lang);

  test('the list shows the requests made through the API, newest first; the text filter narrows it', async () => {
    await signIn(owner);
    const { page } = tab;
    for (const lang of ['en', 'ar'] as const) {
      await visit('/console/requests', lang, '.data-table');
      const titles = await page.locator('.data-table tbody th').allTextContents();
      assert.deepEqual(titles, ['Completed Gamma', 'Supply Beta', 'Lease Alpha']);
      await checkPage('list', lang);
    }
    await visit('/console/requests', 'en', '.data-table');
    await page.getByLabel('Title or signer').fill('beta');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await until('the filtered list', async () => (await page.locator('.data-table tbody th').allTextContents()).join() === 'Supply Beta');
    assert.match(page.url(), /search=beta/);
    await page.getByLabel('Title or signer').fill(a.team[1]!);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await until('by signer email', async () => (await page.locator('.data-table tbody th').allTextContents()).join() === 'Lease Alpha');
    await page.getByLabel('Title or signer').fill('');
    await page.getByLabel('Status').selectOption('completed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await until('by status', async () => (await page.locator('.data-table tbody th').allTextContents()).join() === 'Completed Gamma');
    assert.deepEqual(tab.watch.problems, []);
  });

  test('a request opens with its signers and the timeline of its events', async () => {
    const { page } = tab;
    await visit('/console/requests', 'en', '.data-table');
    await page.getByRole('link', { name: 'Supply Beta' }).click();
    await page.getByRole('heading', { name: 'Supply Beta', level: 1 }).waitFor();
    await loaded(page);
    assert.ok(await isFocused(page.getByRole('heading', { level: 1 })), 'focus on the heading');
    const events = await s.call('GET', `/events?signature_request=${ids.beta}`, { key: a.keys.secret_test });
    const types = (events.body.data as { type: string }[]).map((e) => e.type).reverse();
    assert.ok(types.length >= 2, events.text);
    assert.deepEqual(await page.locator('.timeline .event-type').allTextContents(), types);
    assert.equal(await page.getByRole('table', { name: 'Signers of Supply Beta' }).locator('tbody th').textContent(), 'Member 2');
    for (const lang of ['en', 'ar'] as const) {
      await visit(`/console/requests/${ids.beta}`, lang, '.timeline');
      await checkPage('detail', lang);
    }
  });

  test('the final PDF of a completed request downloads with the SHA-256 the API gives', async () => {
    const { page } = tab;
    const d = await s.call('GET', `/signature_requests/${ids.done}/download`, { key: a.keys.secret_test });
    assert.equal(d.body.pdf_status, 'ready', d.text);
    const api = await fetch(`${s.url}/api/v1/signature_requests/${ids.done}/download/pdf`, {
      headers: { authorization: `Bearer ${a.keys.secret_test}` },
    });
    assert.equal(api.status, 200);
    const expected = api.headers.get('x-file-sha256');
    assert.match(expected ?? '', /^[0-9a-f]{64}$/);
    await visit(`/console/requests/${ids.done}`, 'en', '.timeline');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the signed PDF' }).click(),
    ]);
    const bytes = await readFile((await download.path())!);
    assert.equal(createHash('sha256').update(bytes).digest('hex'), expected);
    assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
  });

  test('cancel a sent request after the confirm dialog; remind and cancel say why they are off afterwards', async () => {
    const { page } = tab;
    await visit(`/console/requests/${ids.alpha}`, 'en', '.timeline');
    const cancel = page.getByRole('button', { name: 'Cancel the request' });
    await cancel.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Cancel this request?' });
    await dialog.waitFor();
    await assertAccessible(page, 'cancel dialog');
    await consoleScreenshot(page, 'requests-cancel-dialog-en');
    // Escape keeps the request and gives the focus back.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.ok(await isFocused(cancel));
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Cancel the request' }).click();
    await page.getByRole('status').filter({ hasText: 'The request was canceled.' }).first().waitFor();
    const r = await s.call('GET', `/signature_requests/${ids.alpha}`, { key: a.keys.secret_test });
    assert.equal(r.body.status, 'canceled');
    const off = page.getByRole('button', { name: 'Cancel the request' });
    assert.equal(await off.getAttribute('aria-disabled'), 'true');
    const reason = page.locator(`[id="${await off.getAttribute('aria-describedby')}"]`);
    assert.match((await reason.textContent()) ?? '', /cannot be canceled/);
  });

  test('create a request from a template through the generated form; an API refusal shows on its field', async () => {
    const { page } = tab;
    for (const lang of ['en', 'ar'] as const) {
      await visit('/console/requests/new', lang, '.form-slot form');
      await checkPage('new', lang);
    }
    await visit('/console/requests/new', 'en', '.form-slot form');
    await page.getByLabel('Template').selectOption({ label: 'Consulting' });
    assert.equal(await page.getByLabel('Title').inputValue(), 'Consulting');
    await page.getByLabel('Title').fill('Consulting for Delta');
    await page.getByLabel('Client', { exact: true }).fill('Delta Trading');
    await page.getByLabel('Start date (optional)').fill('2026-12-01');
    await page.getByLabel('Signer 1: name').fill('Member Four');
    // Not on the account's team: test mode refuses it, and the message goes on the email field.
    await page.getByLabel('Signer 1: email').fill('stranger@elsewhere.test');
    await page.getByRole('button', { name: 'Send the request' }).click();
    const email = page.getByLabel('Signer 1: email');
    await until('the refusal on the field', async () => (await email.getAttribute('aria-invalid')) === 'true');
    assert.ok(await isFocused(email));
    await email.fill(a.team[4]!);
    await page.getByRole('button', { name: 'Send the request' }).click();
    await page.getByRole('heading', { name: 'Consulting for Delta', level: 1 }).waitFor();
    const list = await s.call('GET', '/signature_requests?search=Delta', { key: a.keys.secret_test });
    assert.equal(list.body.data.length, 1, list.text);
    assert.equal(list.body.data[0].signers[0].email, a.team[4]);
    assert.ok(page.url().endsWith(`/console/requests/${list.body.data[0].id}`));
  });

  test('a viewer sees no cancel or create control, and the API refuses the viewer’s credential a write', async () => {
    const { page } = tab;
    await browser.context.clearCookies();
    await signIn(viewer);
    await visit('/console/requests', 'en', '.data-table');
    assert.equal(await page.getByRole('link', { name: 'New request' }).count(), 0);
    await visit(`/console/requests/${ids.beta}`, 'en', '.timeline');
    assert.equal(await page.getByRole('button', { name: 'Cancel the request' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Send a reminder' }).count(), 0);
    await assertAccessible(page, 'detail as viewer');

    const c = new ConsoleClient(s.url, 'en');
    assert.equal((await c.signIn(viewer, TEST_PASSWORD)).status, 200);
    const cred = await c.call('POST', '/credentials', { body: { livemode: false } });
    assert.equal(cred.status, 201, cred.text);
    assert.equal(cred.body.access, 'read');
    const read = await s.call('GET', `/signature_requests/${ids.beta}`, { key: cred.body.token });
    assert.equal(read.status, 200, read.text);
    const write = await s.call('POST', `/signature_requests/${ids.beta}/cancel`, { key: cred.body.token });
    assert.equal(write.status, 403, write.text);
    assert.equal(write.body.error.code, 'forbidden');
    assert.equal((await s.call('GET', `/signature_requests/${ids.beta}`, { key: a.keys.secret_test })).body.status, 'sent');
  });
});
