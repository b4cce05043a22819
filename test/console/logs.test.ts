/**
 * The console's Developers → Logs screen in real Chromium against a real server (issue 15 point
 * 4: the request log): requests made with a test key (a create, a refused create, a request from
 * outside a key's IP allowlist) show in test mode, newest first; the ip_not_allowed refusal shows
 * its code explained in the page language; a row opens the request's detail (request id with a
 * copy button, a link to the signature request it created); the status filter is used by keyboard
 * alone; live mode has none (the empty state). Each page is axe-core clean in Arabic and English
 * and screenshotted to test-artifacts/console/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ensureConsole } from '../support/bundles.js';
import { isFocused, launchBrowser, tabTo, until, type PageWatch, type TestBrowser } from '../support/browser.js';
import { checkConsolePage } from '../support/console.js';
import { loaded, setMode as setModeOf, signInPage, visitConsole } from '../support/consolePage.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { teamAccount, type TeamAccount } from '../support/teamAccount.js';

const TEMPLATE = {
  title: 'Consulting',
  language: 'en',
  body: 'Consulting for {{client_name}}.',
  fields: [{ key: 'client_name', label: 'Client', type: 'text', required: true }],
};

describe('the console Logs screen, in Chromium', { timeout: 300_000 }, () => {
  let s: TestServer;
  let a: TeamAccount;
  let browser: TestBrowser;
  let tab: { page: Page; watch: PageWatch };
  let createdId = '';
  let refusedRequestId = '';
  const owner = 'owner.logs@acme.test';

  before(async () => {
    ensureConsole();
    s = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_TRUSTED_PROXIES: '127.0.0.1' });
    a = await teamAccount(s, TEMPLATE);
    await consoleUser(s, a.id, owner, 'owner');
    const body = {
      title: 'Lease Alpha',
      source: { type: 'template', template_id: a.templateId },
      signers: [{ name: 'Member 1', email: a.team[1], fields: { client_name: 'Nile Trading' } }],
    };
    const created = await s.call('POST', '/signature_requests', {
      key: a.keys.secret_test,
      body,
      headers: { 'idempotency-key': 'logs-1' },
    });
    assert.equal(created.status, 201, created.text);
    createdId = created.body.id;
    assert.equal((await s.call('GET', `/signature_requests/${createdId}`, { key: a.keys.secret_test })).status, 200);
    const bad = await s.call('POST', '/signature_requests', { key: a.keys.secret_test, body: { ...body, title: '' } });
    assert.equal(bad.status, 400, bad.text);
    // A test secret key fenced to one network, called from outside it.
    const api = new ConsoleClient(s.url);
    assert.equal((await api.signIn(owner, TEST_PASSWORD)).status, 200);
    const key = (await api.call('POST', '/keys', { body: { type: 'secret', mode: 'test', name: 'fenced' } })).body;
    assert.equal((await api.call('PATCH', `/keys/${key.key.id}`, { body: { allowed_ips: ['198.51.100.0/24'] } })).status, 200);
    const refused = await s.call('GET', '/usage', { key: key.secret, headers: { 'x-forwarded-for': '203.0.113.7' } });
    assert.equal(refused.status, 403, refused.text);
    refusedRequestId = refused.headers.get('svc-request-id')!;
    await s.ctx.requestLog.flush();
    browser = await launchBrowser();
    tab = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  const signIn = (email: string, mode: 'test' | 'live') => signInPage(browser, tab.page, s.url, email, mode);
  const setMode = (mode: 'test' | 'live') => setModeOf(tab.page, mode);

  const visit = (path: string, lang: 'ar' | 'en', ready: string) => visitConsole(browser, tab.page, s.url, path, lang, ready);
  const checkPage = (name: string, lang: 'ar' | 'en') => checkConsolePage(tab.page, `logs-${name}`, lang);

  /** Each row's text, its cells' white space made one space. */
  const rows = async () => (await tab.page.locator('.logs-table tbody tr').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());

  test('requests made with a key show in test mode, newest first; ip_not_allowed is explained', async () => {
    await signIn(owner, 'test');
    await visit('/console/developers/logs', 'en', '.logs-table');
    const shown = await rows();
    // Newest first: the refusal, the refused create, the read, the create, the template of the fixture.
    assert.equal(shown.length, 5, shown.join('\n'));
    assert.match(shown[0]!, /403[\s\S]*ip_not_allowed[\s\S]*This IP address is not allowed for this key\.[\s\S]*GET \/api\/v1\/usage/);
    assert.match(shown[1]!, /400[\s\S]*POST \/api\/v1\/signature_requests\s/);
    assert.match(shown[2]!, new RegExp(`200\\s+GET /api/v1/signature_requests/${createdId}\\s`));
    assert.match(shown[3]!, /201\s+POST \/api\/v1\/signature_requests\s+sk_test_…/);
    assert.match(shown[4]!, /201\s+POST \/api\/v1\/templates\s/);
    await checkPage('list', 'en');
    await visit('/console/developers/logs', 'ar', '.logs-table');
    assert.match((await rows())[0]!, /عنوان IP هذا غير مسموح لهذا المفتاح/);
    await checkPage('list', 'ar');
    assert.deepEqual(tab.watch.problems, []);
  });

  test('a row opens the detail: the refusal explained, the request id to copy, the created request linked', async () => {
    const { page } = tab;
    await visit('/console/developers/logs', 'en', '.logs-table');
    await page.getByRole('link', { name: 'GET /api/v1/usage' }).click();
    await page.getByRole('heading', { name: 'GET /api/v1/usage', level: 1 }).waitFor();
    await loaded(page);
    assert.ok(await isFocused(page.getByRole('heading', { level: 1 })), 'focus on the heading');
    assert.match(await page.locator('.logs-refusal').innerText(), /ip_not_allowed[\s\S]*IP allowlist/);
    assert.equal(await page.locator('.copyable code').first().textContent(), refusedRequestId);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.url });
    await page.getByRole('button', { name: 'Copy Request ID' }).click();
    await until('the copy announced', async () => (await page.locator('[aria-live]').allTextContents()).join().includes('Copied'));
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), refusedRequestId);
    await checkPage('detail-refused', 'en');
    await visit(page.url().replace(/^https?:\/\/[^/]+/, ''), 'ar', '.logs-refusal');
    assert.match(await page.locator('.logs-refusal').innerText(), /قائمة عناوين IP مسموح بها/);
    await checkPage('detail-refused', 'ar');

    await visit('/console/developers/logs?status=2xx', 'en', '.logs-table');
    await page.getByRole('link', { name: 'POST /api/v1/signature_requests' }).click();
    await page.locator('.req-facts').waitFor();
    assert.match(await page.locator('.req-facts').innerText(), /logs-1/, 'the Idempotency-Key');
    assert.equal(await page.getByRole('link', { name: 'Open the signature request' }).count(), 0, 'a create’s path names no object');
    await checkPage('detail-created', 'en');
    await visit('/console/developers/logs?status=2xx', 'en', '.logs-table');
    await page.getByRole('link', { name: `GET /api/v1/signature_requests/${createdId}` }).click();
    await page.getByRole('link', { name: 'Open the signature request' }).click();
    await until('the request page', () => page.url().endsWith(`/console/requests/${createdId}`));
  });

  test('filter by status with the keyboard alone', async () => {
    const { page } = tab;
    await visit('/console/developers/logs', 'en', '.logs-table');
    const status = page.getByLabel('Status', { exact: true });
    await tabTo(page, status, { max: 40 });
    await page.keyboard.press('ArrowDown'); // Succeeded (2xx)
    await page.keyboard.press('ArrowDown'); // Refused (4xx)
    assert.equal(await status.inputValue(), '4xx');
    await tabTo(page, page.getByRole('button', { name: 'Apply filters' }));
    await page.keyboard.press('Enter');
    await until('the 4xx entries only', async () => page.url().includes('status=4xx') && (await rows()).length === 2);
    assert.ok(await isFocused(page.getByRole('heading', { level: 1 })), 'focus on the heading after the filter');
    for (const row of await rows()) assert.match(row, /^4\d\d/);
    await checkPage('filtered', 'en');
  });

  test('live mode: no requests yet (the empty state)', async () => {
    const { page } = tab;
    await visit('/console/developers/logs', 'en', '.page');
    await setMode('live');
    await page.getByText('No live-mode requests yet.', { exact: false }).waitFor();
    await checkPage('empty', 'en');
    await visit('/console/developers/logs', 'ar', '.empty');
    await checkPage('empty', 'ar');
  });
});
