/**
 * The console's Workflows page in real Chromium against a real server (issue 16 points 1 and 6):
 * a workflow is created in the page by keyboard with its settings, a bad value is refused by the
 * server on its field, the workflow is published from the page, and a session created through the
 * public API (POST /api/v1/sessions, test secret key) carries its settings and version. The
 * working copy is edited and version 2 published: the versions list shows both and a new session
 * uses version 2. Archived from the page, the API answers 409 workflow_not_live. A viewer sees it
 * read-only and the server refuses the viewer's writes; every change is in the audit log.
 * axe-core and screenshots in Arabic and English.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { updateAccount } from '../../server/src/store/accounts.js';
import { getRequestById } from '../../server/src/store/signatureRequests.js';
import { getSession, getWorkflowVersion } from '../../server/src/store/workflows.js';
import { ensureConsole } from '../support/bundles.js';
import { isFocused, launchBrowser, tabTo, until, type PageWatch, type TestBrowser } from '../support/browser.js';
import { checkConsolePage } from '../support/console.js';
import { signInPage, visitConsole } from '../support/consolePage.js';
import { CONSOLE_TEST_ENV, consoleUser, signedInClient } from '../support/consoleClient.js';
import { assertError } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { teamAccount, type TeamAccount } from '../support/teamAccount.js';

const TEMPLATE = {
  title: 'Supply',
  language: 'en',
  body: 'Supply for {{client}}.',
  fields: [{ key: 'client', label: 'Client', required: true }],
};
const DAY = 86_400;

describe('the console Workflows page, in Chromium', { timeout: 420_000 }, () => {
  let s: TestServer;
  let a: TeamAccount;
  let browser: TestBrowser;
  let tab: { page: Page; watch: PageWatch };
  let workflowId = '';
  const owner = 'owner.flows@acme.test';
  const viewer = 'viewer.flows@acme.test';

  before(async () => {
    ensureConsole();
    s = await startTestServer(CONSOLE_TEST_ENV);
    a = await teamAccount(s, TEMPLATE, { overrides: { name: 'Flows Co' } });
    // The return URL's domain must be one the account accepts (spec 4.2).
    await updateAccount(s.ctx.store.db, a.id, { accepted_domains: ['acme.test'] });
    await consoleUser(s, a.id, owner, 'owner');
    await consoleUser(s, a.id, viewer, 'viewer');
    browser = await launchBrowser();
    tab = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  const visit = (path: string, lang: 'ar' | 'en', ready: string) => visitConsole(browser, tab.page, s.url, path, lang, ready);

  /** A session from the workflow through the public API with the account's test secret key. */
  const newSession = () =>
    s.call('POST', '/sessions', {
      key: a.keys.secret_test,
      body: { workflow_id: workflowId, signers: [{ name: 'Mona Adel', email: a.team[1], fields: { client: 'Acme' } }] },
    });

  /** Focus a control by Tab and replace its text by typing. */
  async function typeInto(page: Page, name: string, text: string) {
    const control = page.locator(`.wf-editor [name="${name}"]`);
    await tabTo(page, control, { max: 40 });
    await page.keyboard.press('Control+A');
    await page.keyboard.type(text);
  }

  /** Focus a select by Tab and move its choice down with the arrow key until `expected` is chosen (bounded). */
  async function choose(page: Page, name: string, expected: string) {
    const control = page.locator(`.wf-editor select[name="${name}"]`);
    await tabTo(page, control, { max: 40 });
    for (let i = 0; i < 10 && (await control.inputValue()) !== expected; i++) await page.keyboard.press('ArrowDown');
    assert.equal(await control.inputValue(), expected);
  }

  /** Focus a checkbox by Tab and tick it with Space. */
  async function tick(page: Page, name: string) {
    const box = page.locator(`.wf-editor input[name="${name}"]`);
    await tabTo(page, box, { max: 40 });
    await page.keyboard.press('Space');
    assert.equal(await box.isChecked(), true);
  }

  /** Answer a confirm dialog by keyboard: Tab from "Keep" (focused first) to the confirm button, Enter. */
  async function confirmByKeyboard(page: Page, confirm: string) {
    const dialog = page.locator('dialog.confirm-dialog');
    await dialog.waitFor();
    await tabTo(page, dialog.getByRole('button', { name: confirm }));
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
  }

  test('the owner creates a workflow by keyboard; a bad value is refused on its field; published, a session carries its settings', async () => {
    const { page } = tab;
    await signInPage(browser, page, s.url, owner, 'test');
    await visit('/console/workflows', 'en', 'table.data-table');
    assert.equal(await page.locator('tr[data-workflow="wf_default"]').count(), 1, 'the built-in default is listed');
    await checkConsolePage(page, 'workflows-list', 'en');
    const add = page.getByRole('link', { name: 'New workflow' });
    await tabTo(page, add, { max: 40 });
    await page.keyboard.press('Enter');
    await page.locator('.wf-editor').waitFor();

    await typeInto(page, 'name', 'Supply contracts');
    // The document: a fixed template (Arrow Up in the radio pair), the account's template.
    await tabTo(page, page.locator('.wf-editor input[type="radio"]:checked'), { max: 40 });
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.locator('.wf-editor input[value="fixed"]').isChecked(), true);
    await choose(page, 'template_id', a.templateId);
    await choose(page, 'channel', 'link');
    await typeInto(page, 'cc', 'audit@acme.test');
    await typeInto(page, 'expires_in', '45');
    await choose(page, 'language', 'en');
    await typeInto(page, 'return_url', 'https://acme.test/done');
    await tick(page, 'ordered');
    await tick(page, 'reminders.enabled');
    await page.keyboard.press('Enter');

    // 45 days: the server's rule (1 to 30), on the field, which takes the focus.
    const expires = page.locator('.wf-editor [name="expires_in"]');
    await until('expires_in refused', async () => (await expires.getAttribute('aria-invalid')) === 'true');
    assert.equal(await isFocused(expires), true);
    const message = await page.locator(`#${(await expires.getAttribute('aria-describedby'))!.split(' ').pop()}`).textContent();
    assert.match(message ?? '', /expires_in/);
    await checkConsolePage(page, 'workflows-new-refused', 'en');
    assert.equal((await s.ctx.store.db.selectFrom('workflows').select('id').where('account_id', '=', a.id).execute()).length, 0);

    await page.keyboard.press('Control+A');
    await page.keyboard.type('10');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/console\/workflows\/wf_/);
    workflowId = page.url().split('/').pop()!;
    await page.locator('.wf-state').waitFor();
    assert.match((await page.locator('.wf-state').textContent()) ?? '', /Draft/);

    const publish = page.getByRole('button', { name: 'Publish' });
    await tabTo(page, publish, { max: 60 });
    await page.keyboard.press('Enter');
    await confirmByKeyboard(page, 'Publish');
    await page.locator('.page-messages .tone-ok').getByText('Version 1 is published.').waitFor();
    await page.locator('tr[data-version="1"]').waitFor();
    await checkConsolePage(page, 'workflows-detail', 'en');

    const r = await newSession();
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.workflow_id, workflowId);
    assert.equal(r.body.workflow_version, 1);
    assert.equal(r.body.channel, 'link');
    assert.equal(r.body.return_url, 'https://acme.test/done');
    assert.equal(r.body.expires_at - r.body.created_at, 10 * DAY);
    const session = await getSession(s.ctx.store.db, r.body.id);
    assert.deepEqual(session?.settings.cc, ['audit@acme.test']);
    const request = await getRequestById(s.ctx.store.db, r.body.id);
    assert.equal(request?.template_id, a.templateId);
    assert.equal(request?.language, 'en');
    assert.equal(request?.ordered, true);
    // The version has the reminders ticked in the page; on the link channel a request sends none (spec 4.2).
    assert.equal((await getWorkflowVersion(s.ctx.store.db, workflowId, 1))?.settings.reminders.enabled, true);
    assert.equal(request?.reminders.enabled, false);
  });

  test('the working copy is edited and version 2 published: both versions listed, a new session uses version 2', async () => {
    const { page } = tab;
    await visit(`/console/workflows/${workflowId}`, 'en', '.wf-editor');
    await typeInto(page, 'expires_in', '12');
    await page.keyboard.press('Enter');
    await page.locator('.page-messages .tone-ok').getByText('The working copy is saved.').waitFor();
    assert.match((await page.locator('.wf-state').textContent()) ?? '', /Unpublished changes/);
    // Saved, not published: sessions still use version 1.
    const before = await newSession();
    assert.equal(before.body.workflow_version, 1, before.text);

    await tabTo(page, page.getByRole('button', { name: 'Publish' }), { max: 60 });
    await page.keyboard.press('Enter');
    await confirmByKeyboard(page, 'Publish');
    await page.locator('.page-messages .tone-ok').getByText('Version 2 is published.').waitFor();
    await page.locator('tr[data-version="2"]').waitFor();
    assert.equal(await page.locator('.wf-versions tbody tr').count(), 2);
    const r = await newSession();
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.workflow_version, 2);
    assert.equal(r.body.expires_at - r.body.created_at, 12 * DAY);
    await visit(`/console/workflows/${workflowId}`, 'ar', '.wf-editor');
    await page.locator('tr[data-version="2"] summary').click();
    await checkConsolePage(page, 'workflows-detail', 'ar');
    await visit('/console/workflows', 'ar', 'table.data-table');
    await checkConsolePage(page, 'workflows-list', 'ar');
    await visit('/console/workflows/new', 'ar', '.wf-editor');
    await checkConsolePage(page, 'workflows-new', 'ar');
  });

  test('the console API refuses a bad value naming the field, in Arabic and English; the default workflow cannot be changed', async () => {
    for (const lang of ['ar', 'en'] as const) {
      const c = await signedInClient(s, owner, lang === 'en' ? 'en' : undefined);
      const bad = await c.call('PATCH', `/workflows/${workflowId}`, { body: { reminders: { max: 11 } } });
      assertError(bad, 'parameter_invalid', lang);
      assert.equal(bad.body.error.param, 'reminders.max');
      const tpl = await c.call('PATCH', `/workflows/${workflowId}`, { body: { template_id: 'tpl_nothere' } });
      assertError(tpl, 'parameter_invalid', lang);
      assert.equal(tpl.body.error.param, 'template_id');
      assertError(await c.call('POST', '/workflows/wf_default/publish', { body: {} }), 'invalid_state', lang);
    }
  });

  test('the built-in default is read-only in the page', async () => {
    const { page } = tab;
    await visit('/console/workflows/wf_default', 'en', '.wf-settings');
    assert.equal(await page.locator('.wf-editor').count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Publish' }).count(), 0);
    await checkConsolePage(page, 'workflows-default', 'en');
  });

  test('archived from the page: the API answers 409 workflow_not_live', async () => {
    const { page } = tab;
    await visit(`/console/workflows/${workflowId}`, 'en', '.wf-editor');
    await tabTo(page, page.getByRole('button', { name: 'Archive' }), { max: 60 });
    await page.keyboard.press('Enter');
    await confirmByKeyboard(page, 'Archive');
    await page.locator('.page-messages .tone-ok').getByText('The workflow is archived.').waitFor();
    assert.match((await page.locator('.wf-state').textContent()) ?? '', /Archived/);
    assertError(await newSession(), 'workflow_not_live');
    const actions = await s.ctx.store.db
      .selectFrom('audit_log')
      .select(['action', 'target'])
      .where('account_id', '=', a.id)
      .where('action', 'like', 'workflow.%')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      actions.map((x) => x.action),
      ['workflow.created', 'workflow.published', 'workflow.updated', 'workflow.published', 'workflow.archived'],
    );
    assert.ok(actions.every((x) => x.target === workflowId));
  });

  test('a viewer sees the workflow read-only and the server refuses the viewer’s writes', async () => {
    const { page } = tab;
    await signInPage(browser, page, s.url, viewer, 'test');
    await visit(`/console/workflows/${workflowId}`, 'en', '.wf-settings');
    assert.equal(await page.locator('.wf-editor').count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Archive' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Publish' }).count(), 0);
    await checkConsolePage(page, 'workflows-viewer', 'en');
    await visit('/console/workflows', 'en', 'table.data-table');
    assert.equal(await page.getByRole('link', { name: 'New workflow' }).count(), 0);
    const c = await signedInClient(s, viewer, 'en');
    assert.equal((await c.call('GET', `/workflows/${workflowId}`)).status, 200);
    for (const [method, path, body] of [
      ['POST', '/workflows', { name: 'Mine' }],
      ['PATCH', `/workflows/${workflowId}`, { expires_in: 3 }],
      ['POST', `/workflows/${workflowId}/publish`, {}],
      ['POST', `/workflows/${workflowId}/archive`, {}],
    ] as const)
      assertError(await c.call(method, path, { body }), 'forbidden', 'en');
    const stored = await s.ctx.store.db.selectFrom('workflows').selectAll().where('account_id', '=', a.id).execute();
    assert.equal(stored.length, 1);
    assert.equal(stored[0]!.status, 'archived');
  });
});
