/**
 * The console's Audit log screen in real Chromium against a real server (issue 15 point 2): a
 * sign-in, a key created and a role change appear as sentences in English and Arabic with who,
 * the target, the address and the details; the action filter and the cursor pages work from the
 * address; a developer and a viewer have no Audit log link and the address shows a "not allowed"
 * state. axe-core clean and screenshotted in both languages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ensureConsole } from '../support/bundles.js';
import { launchBrowser, tabTo, until, type PageWatch, type TestBrowser } from '../support/browser.js';
import { assertAccessible, consoleScreenshot } from '../support/console.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { loaded, signInPage, visitConsole } from '../support/consolePage.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('the console Audit log screen, in Chromium', { timeout: 300_000 }, () => {
  let s: TestServer;
  let browser: TestBrowser;
  let tab: { page: Page; watch: PageWatch };
  let keyId = '';
  const owner = 'owner.audit@acme.test';
  const developer = 'dev.audit@acme.test';
  const viewer = 'viewer.audit@acme.test';
  const LOG = '/console/audit-log';

  const visit = (lang: 'ar' | 'en', query = '') =>
    visitConsole(browser, tab.page, s.url, `${LOG}${query}`, lang, '.audit-table, .empty, .notice');
  const rowOf = (action: string) => tab.page.locator(`.audit-table tbody tr[data-action="${action}"]`);

  before(async () => {
    ensureConsole();
    s = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000' });
    const a = await s.account({ name: 'Acme' });
    await consoleUser(s, a.id, owner, 'owner');
    const dev = await consoleUser(s, a.id, developer, 'developer');
    await consoleUser(s, a.id, viewer, 'viewer');
    const c = new ConsoleClient(s.url);
    assert.equal((await c.signIn(owner, TEST_PASSWORD)).status, 200);
    const key = await c.call('POST', '/keys', { body: { type: 'secret', mode: 'test', name: 'CI' } });
    assert.equal(key.status, 201, key.text);
    keyId = key.body.key.id;
    const role = await c.call('PATCH', `/users/${dev.id}`, { body: { role: 'viewer' } });
    assert.equal(role.status, 200, role.text);
    assert.equal((await c.call('PATCH', `/users/${dev.id}`, { body: { role: 'developer' } })).status, 200);
    browser = await launchBrowser();
    tab = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('a sign-in, a key created and a role change read as sentences, newest first, in English and Arabic', async () => {
    const { page } = tab;
    await signInPage(browser, page, s.url, owner);
    await visit('en');
    const signedIn = rowOf('console.signed_in').first();
    assert.equal(await signedIn.locator('th').evaluate((el) => el.firstChild?.textContent), 'Signed in');
    assert.equal(await signedIn.locator('td').nth(1).textContent(), owner);
    assert.equal(await signedIn.locator('td').nth(3).textContent(), '127.0.0.1');
    const created = rowOf('key.created');
    assert.equal(await created.locator('th').evaluate((el) => el.firstChild?.textContent), 'Created an API key');
    assert.equal(await created.locator('td').nth(2).textContent(), keyId);
    assert.match((await created.locator('.audit-detail').textContent()) ?? '', /mode: test.*name: CI/);
    const roles = await rowOf('user.role_changed')
      .locator('th')
      .evaluateAll((ths) => ths.map((el) => el.firstChild?.textContent));
    assert.deepEqual(roles, [
      `Changed the role of ${developer} from Viewer to Developer`,
      `Changed the role of ${developer} from Developer to Viewer`,
    ]);
    // Newest first: the browser's sign-in is the latest entry.
    assert.equal(await page.locator('.audit-table tbody tr').first().getAttribute('data-action'), 'console.signed_in');
    // One column header per cell of a row (the details sit under the sentence, not in a column).
    assert.equal(
      await page.locator('.audit-table thead th').count(),
      await page.locator('.audit-table tbody tr').first().locator('th, td').count(),
    );
    await assertAccessible(page, 'audit log (en)');
    await consoleScreenshot(page, 'audit-log-en');
    await visit('ar');
    assert.equal(
      await rowOf('key.created')
        .locator('th')
        .evaluate((el) => el.firstChild?.textContent),
      'أنشأ مفتاح API',
    );
    assert.equal(
      await rowOf('user.role_changed')
        .first()
        .locator('th')
        .evaluate((el) => el.firstChild?.textContent),
      `غيّر دور ${developer} من مُطّلع إلى مطوّر`,
    );
    await assertAccessible(page, 'audit log (ar)');
    await consoleScreenshot(page, 'audit-log-ar');
  });

  test('the action filter (by keyboard) keeps one action, in the address', async () => {
    const { page } = tab;
    await visit('en');
    await page.getByLabel('Action').selectOption({ label: 'Created an API key' });
    await tabTo(page, page.getByRole('button', { name: 'Apply filters' }));
    await page.keyboard.press('Enter');
    await until('the filtered log', async () => /action=key\.created/.test(page.url()));
    const actions = () =>
      page.locator('.audit-table tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')).join());
    await until('only key.created', async () => (await actions()) === 'key.created');
    await visit('en', '?action=two_factor.enabled');
    assert.equal(await page.locator('.empty').textContent(), 'No entries.');
    await assertAccessible(page, 'audit log empty');
    await consoleScreenshot(page, 'audit-log-empty-en');
  });

  test('cursor pages: next and previous through the address', async () => {
    const { page } = tab;
    const c = new ConsoleClient(s.url);
    assert.equal((await c.signIn(owner, TEST_PASSWORD)).status, 200);
    for (let i = 0; i < 25; i++) assert.equal((await c.call('POST', '/keys', { body: { type: 'secret', mode: 'test' } })).status, 201);
    await visit('en');
    const first = await page.locator('.audit-table tbody tr').count();
    assert.equal(first, 25);
    const topId = () => page.locator('.audit-table tbody tr').first().locator('td').nth(2).textContent();
    const top = await topId();
    await page.getByRole('navigation', { name: 'Audit log pages' }).getByRole('link', { name: 'Next page' }).click();
    await until('the second page', async () => /after=/.test(page.url()) && (await topId()) !== top);
    await loaded(page);
    await page.getByRole('navigation', { name: 'Audit log pages' }).getByRole('link', { name: 'Previous page' }).click();
    await until('back on the first page', async () => !/after=/.test(page.url()) && (await topId()) === top);
  });

  for (const who of [developer, viewer]) {
    test(`${who.split('.')[0]}: no Audit log link, and the address shows a "not allowed" state`, async () => {
      const { page } = tab;
      await browser.context.clearCookies();
      await signInPage(browser, page, s.url, who);
      assert.equal(await page.getByRole('link', { name: 'Audit log' }).count(), 0);
      for (const lang of ['en', 'ar'] as const) {
        await visit(lang);
        assert.equal(await page.locator('.audit-table').count(), 0);
        await page.locator('.empty').waitFor();
        if (lang === 'en') assert.match((await page.locator('.empty').textContent()) ?? '', /Only the account’s owner and administrators/);
        await assertAccessible(page, `not allowed (${lang})`);
        if (who === developer) await consoleScreenshot(page, `audit-log-not-allowed-${lang}`);
      }
    });
  }
});
