/**
 * The operator's admin pages in real Chromium against a real server (issue 16 point 5): an operator
 * signs in and lands on /console/admin (its own navigation, no account screens, no live/test switch);
 * finds an account by a user's email; changes its plan (seen in GET /api/v1/usage); tops up its
 * wallet — the entry appears in the account's ledger on the page and in GET /usage of the account's
 * key — and a refused amount lands on its field; adds sends. A new account's owner, through the
 * console API over HTTP, uploads documents, has the representative's (simulated) check approved and
 * submits: the round is in the queue, the operator opens it, downloads a document (the same bytes)
 * and approves, and the account's live key, 403 kyb_required before, works. Another round is
 * rejected with a reason by keyboard. The status page lists the certificates with days left (a
 * warning under 30 days, by the injected clock); every operator action is on the audit log page; an
 * account's owner who opens /console/admin gets the not-allowed state. axe-core and screenshots in
 * Arabic and English. The configured engine (SQLite or PostgreSQL).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ensureConsole } from '../support/bundles.js';
import { isFocused, launchBrowser, tabTo, type PageWatch, type TestBrowser } from '../support/browser.js';
import { checkConsolePage, useConsoleLanguage } from '../support/console.js';
import { CONSOLE_TEST_ENV, consoleUser, signedInClient, TEST_PASSWORD } from '../support/consoleClient.js';
import { COMPANY_PDF, submitCompanyVerification } from '../support/companyVerification.js';
import { loaded, visitConsole } from '../support/consolePage.js';
import { assertError } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';

const DAY = 86_400;
const OPERATOR = 'ops@tawqi.example';

describe('the operator’s admin pages, in Chromium', { timeout: 600_000 }, () => {
  let s: TestServer;
  let browser: TestBrowser;
  let tab: { page: Page; watch: PageWatch };
  let nile: Awaited<ReturnType<TestServer['account']>>;
  let acme: Awaited<ReturnType<TestServer['account']>>;
  let badco: Awaited<ReturnType<TestServer['account']>>;

  const visit = (path: string, lang: 'ar' | 'en', ready: string) => visitConsole(browser, tab.page, s.url, path, lang, ready);
  const liveTemplate = (key: string, title: string) =>
    s.call('POST', '/templates', { key, body: { title, language: 'en', body: 'Hello.', fields: [] } });
  const usage = async () => (await s.call('GET', '/usage', { key: nile.keys.secret_test })).body;

  /** Sign in through the sign-in screen in English; an operator ends on /console/admin. */
  async function signIn(email: string): Promise<void> {
    const { page } = tab;
    await useConsoleLanguage(browser, s.url, 'en');
    await page.goto(`${s.url}/console/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.console-main h1').waitFor();
    await loaded(page);
  }

  /** A new unverified account whose owner has submitted documents and an approved representative check. */
  async function submittedCompany(slug: string, representative: string) {
    const account = await s.account({ name: `${slug} Co`, kyb: 'none', ownerEmail: `owner@${slug}.example` });
    await consoleUser(s, account.id, `owner@${slug}.example`, 'owner');
    await submitCompanyVerification(await signedInClient(s, `owner@${slug}.example`), representative);
    return account;
  }

  before(async () => {
    ensureConsole();
    s = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000' });
    nile = await s.account({ name: 'Nile Traders', ownerEmail: 'boss@nile.example', walletMinor: 5_000, balanceSends: 10 });
    await consoleUser(s, nile.id, 'owner@nile.example', 'owner');
    await consoleUser(s, nile.id, 'dev@nile.example', 'developer');
    await s.account({ name: 'Delta Foods', ownerEmail: 'boss@delta.example' });
    await consoleUser(s, null, OPERATOR, 'operator');
    acme = await submittedCompany('acme', 'Mona Adel');
    badco = await submittedCompany('badco', 'Karim Nabil');
    browser = await launchBrowser();
    tab = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('the operator lands on /console/admin with the admin’s navigation, no account screens and no live/test switch', async () => {
    const { page } = tab;
    await signIn(OPERATOR);
    assert.equal(new URL(page.url()).pathname, '/console/admin');
    const nav = page.getByRole('navigation', { name: 'Console' });
    assert.deepEqual(
      (await nav.getByRole('link').allTextContents()).map((t) => t.trim()),
      ['Accounts', 'Company verification', 'Platform status', 'Audit log'],
    );
    assert.equal(await nav.getByRole('link', { name: 'Accounts' }).getAttribute('aria-current'), 'page');
    assert.equal(await page.getByRole('switch').count(), 0, 'no live/test switch');
    assert.equal(await page.locator('.account-name').textContent(), 'Operator');
    // An account's screen is not the operator's: back to the admin.
    await page.goto(`${s.url}/console/requests`);
    await page.waitForURL(`${s.url}/console/admin`);
    for (const lang of ['ar', 'en'] as const) {
      await visit('/console/admin', lang, '.adm-accounts');
      assert.ok((await page.locator('tr[data-account]').count()) >= 4);
      await checkConsolePage(page, 'admin-accounts', lang);
    }
  });

  test('search by a user’s email (kept in the address), open the account: plan, balances, verification, users', async () => {
    const { page } = tab;
    await visit('/console/admin', 'en', '.adm-accounts');
    await page.getByLabel('Account id, name or email').fill('dev@nile.example');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\?q=dev%40nile\.example$/);
    await loaded(page);
    assert.deepEqual(await page.locator('tr[data-account]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-account'))), [
      nile.id,
    ]);
    await page.getByRole('link', { name: 'Nile Traders' }).click();
    await page.waitForURL(`${s.url}/console/admin/accounts/${nile.id}`);
    await page.locator('.adm-facts').waitFor();
    await loaded(page);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Nile Traders');
    const facts = (await page.locator('.adm-facts').textContent()) ?? '';
    assert.match(facts, /Business · until/);
    assert.match(facts, /EGP\s50\.00/);
    assert.match(facts, /Approved/);
    assert.deepEqual((await page.locator('section[aria-labelledby="adm-users"] tbody td.contact').allTextContents()).sort(), [
      'dev@nile.example',
      'owner@nile.example',
    ]);
    assert.equal(
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Accounts' }).getAttribute('aria-current'),
      'true',
    );
    for (const lang of ['ar', 'en'] as const) {
      await visit(`/console/admin/accounts/${nile.id}`, lang, '.adm-ledger');
      await checkConsolePage(page, 'admin-account', lang);
    }
  });

  test('change the plan and its expiry behind a confirm step: GET /usage shows it', async () => {
    const { page } = tab;
    await visit(`/console/admin/accounts/${nile.id}`, 'en', '.adm-ledger');
    const until = new Date(s.clock.nowMs() + 200 * DAY * 1000).toISOString().slice(0, 10);
    const form = page.locator('section[aria-labelledby="adm-plan"]');
    await form.getByLabel('Plan', { exact: true }).selectOption('enterprise');
    await form.getByLabel('Plan expiry').fill(until);
    await form.getByRole('button', { name: 'Change the plan' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change the plan?' });
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? '', /Nile Traders moves to the Enterprise plan/);
    assert.equal((await usage()).plan.name, 'business', 'nothing changes before the yes');
    await dialog.getByRole('button', { name: 'Change the plan' }).click();
    await page.getByRole('status').filter({ hasText: 'Nile Traders is now on the Enterprise plan.' }).waitFor();
    const plan = (await usage()).plan;
    assert.equal(plan.name, 'enterprise');
    assert.equal(plan.expires_at, Date.parse(`${until}T23:59:59Z`) / 1000);
    assert.match((await page.locator('.adm-facts').textContent()) ?? '', /Enterprise · until/);
  });

  test('a wallet top-up appears in the ledger on the page and in GET /usage of the account’s key; a refused amount lands on its field; sends are added', async () => {
    const { page, watch } = tab;
    await visit(`/console/admin/accounts/${nile.id}`, 'en', '.adm-ledger');
    const topup = page.locator('section[aria-labelledby="adm-topup"]');
    await topup.getByLabel('Amount (EGP)').fill('250.50');
    await topup.getByLabel('Note').fill('bank transfer 7781');
    await topup.getByRole('button', { name: 'Top up the wallet' }).click();
    const dialog = page.getByRole('dialog', { name: 'Top up the wallet?' });
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? '', /EGP\s250\.50 goes into the wallet of Nile Traders/);
    await dialog.getByRole('button', { name: 'Top up the wallet' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /EGP\s250\.50 added to the wallet of Nile Traders\./ })
      .waitFor();
    const first = page.locator('.adm-ledger tbody tr').first();
    assert.match((await first.textContent()) ?? '', /Wallet top-up.*\+EGP\s250\.50.*bank transfer 7781/);
    const entryId = await first.getAttribute('data-entry');
    const u = await usage();
    assert.deepEqual(u.balance.wallet, { amount: 300.5, currency: 'EGP' });
    const ledger = await (await signedInClient(s, OPERATOR)).call('GET', `/admin/accounts/${nile.id}/ledger?limit=1`);
    assert.equal(ledger.body.data[0].id, entryId, 'the page shows the ledger’s newest entry');
    assert.match((await page.locator('.adm-facts').textContent()) ?? '', /EGP\s300\.50/);

    // The server refuses an amount above what a wallet takes: its message lands on the amount field.
    watch.expect(/400/);
    await topup.getByLabel('Amount (EGP)').fill('999999999');
    await topup.getByRole('button', { name: 'Top up the wallet' }).click();
    await dialog.getByRole('button', { name: 'Top up the wallet' }).click();
    const amount = topup.getByLabel('Amount (EGP)');
    await topup.locator('input[name="amount"][aria-invalid="true"]').waitFor();
    assert.ok(await isFocused(amount), 'the refused field has the focus');
    assert.ok(((await topup.locator('.field-message').first().textContent()) ?? '').length > 5);
    assert.deepEqual((await usage()).balance.wallet, { amount: 300.5, currency: 'EGP' }, 'a refusal changes nothing');

    const sends = page.locator('section[aria-labelledby="adm-sends"]');
    await sends.getByLabel('Number of sends').fill('40');
    await sends.getByRole('button', { name: 'Add the sends' }).click();
    await page.getByRole('dialog', { name: 'Add sends?' }).getByRole('button', { name: 'Add the sends' }).click();
    await page.getByRole('status').filter({ hasText: '40 sends added to Nile Traders.' }).waitFor();
    assert.match((await page.locator('.adm-ledger tbody tr').first().textContent()) ?? '', /Sends added.*\+40/);
    assert.equal((await usage()).balance.sends, 50);
    watch.assertClean();
  });

  test('the queue lists the submitted rounds; the operator opens one, downloads a document and approves: the live key works', async () => {
    const { page } = tab;
    assertError(await liveTemplate(acme.keys.secret_live, 'Before'), 'kyb_required');
    for (const lang of ['ar', 'en'] as const) {
      await visit('/console/admin/company-verifications', lang, '.adm-queue');
      await checkConsolePage(page, 'admin-queue', lang);
    }
    const pending = page.locator('tr[data-status="pending"]');
    assert.deepEqual((await pending.locator('th').allTextContents()).sort(), ['acme Co', 'badco Co']);
    await page.getByRole('link', { name: 'acme Co' }).click();
    await page.locator('.adm-decide').waitFor();
    await loaded(page);
    const rep = (await page.locator('.adm-rep').textContent()) ?? '';
    assert.match(rep, /Mona Adel/);
    assert.match(rep, /identity approved · simulated/);
    const roundPath = new URL(page.url()).pathname;
    for (const lang of ['ar', 'en'] as const) {
      await visit(roundPath, lang, '.adm-decide');
      await checkConsolePage(page, 'admin-round', lang);
    }

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'السجل التجاري.pdf' }).click()]);
    assert.deepEqual(readFileSync((await download.path())!), COMPANY_PDF, 'the bytes the owner uploaded');

    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve this company?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'acme Co is approved; its live keys work now.' }).waitFor();
    assert.equal(await page.locator('.adm-decide').count(), 0, 'a decided round has no decision left');
    assert.match((await page.locator('.adm-facts').first().textContent()) ?? '', /Approved/);
    const live = await liveTemplate(acme.keys.secret_live, 'After');
    assert.equal(live.status, 201, live.text);
  });

  test('reject with a reason by keyboard: the confirm dialog starts on “Not now”; the owner reads the reason', async () => {
    const { page } = tab;
    await visit('/console/admin/company-verifications', 'en', '.adm-queue');
    await page.getByRole('link', { name: 'badco Co' }).click();
    await page.locator('.adm-decide').waitFor();
    await loaded(page);
    const reason = page.getByLabel('Reason for rejection');
    await page.getByRole('heading', { level: 1 }).focus();
    await tabTo(page, reason, { max: 40 });
    // Too short: the page's own check, on the field.
    await page.keyboard.type('no');
    await page.keyboard.press('Enter');
    await page.locator('input[name="reason"][aria-invalid="true"]').waitFor();
    assert.equal(await page.getByRole('dialog').count(), 0);
    const text = 'The tax card photo is unreadable; upload a clear scan.';
    await reason.fill('');
    await page.keyboard.type(text);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Reject this company?' });
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? '', /badco Co is told: “The tax card photo is unreadable/);
    assert.ok(await isFocused(dialog.getByRole('button', { name: 'Not now' })), 'the safe answer has the focus');
    await page.keyboard.press('Tab');
    assert.ok(await isFocused(dialog.getByRole('button', { name: 'Reject' })));
    await page.keyboard.press('Enter');
    const done = page.getByRole('status').filter({ hasText: 'badco Co is rejected; the owner reads the reason.' });
    await done.waitFor();
    assert.ok(await isFocused(done), 'the outcome takes the focus');
    const seen = await (await signedInClient(s, 'owner@badco.example')).call('GET', '/company_verification');
    assert.equal(seen.body.status, 'rejected');
    assert.equal(seen.body.submission.rejection_reason, text);
    assertError(await liveTemplate(badco.keys.secret_live, 'Rejected'), 'kyb_required');
  });

  test('every operator action is on the audit log page, with the operator as actor; the account’s own log too', async () => {
    const { page } = tab;
    for (const lang of ['ar', 'en'] as const) {
      await visit('/console/admin/audit-log', lang, '.audit-table');
      await checkConsolePage(page, 'admin-audit', lang);
    }
    const actions = await page.locator('tr[data-action]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
    for (const action of [
      'admin.plan_changed',
      'admin.wallet_topped_up',
      'admin.sends_added',
      'admin.company_document_downloaded',
      'admin.company_verification_approved',
      'admin.company_verification_rejected',
    ])
      assert.ok(actions.includes(action), action);
    for (const who of await page.locator('tr[data-action^="admin."] td.contact').allTextContents()) assert.equal(who, OPERATOR);
    assert.match(
      (await page.locator('tr[data-action="admin.company_verification_rejected"]').textContent()) ?? '',
      /Rejected the company verification: The tax card photo is unreadable/,
    );
    await visit(`/console/admin/accounts/${nile.id}`, 'en', '.adm-ledger');
    await page.getByRole('link', { name: 'This account’s audit log' }).click();
    await page.locator('.audit-table').waitFor();
    await loaded(page);
    const mine = await page.locator('tr[data-action]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
    assert.ok(mine.includes('admin.wallet_topped_up') && !mine.includes('admin.company_verification_approved'), mine.join());
  });

  test('an account’s owner who opens /console/admin gets the not-allowed state (the server refuses them too)', async () => {
    const { page } = tab;
    await signIn('owner@nile.example');
    for (const lang of ['ar', 'en'] as const) {
      await visit('/console/admin', lang, '.empty');
      await checkConsolePage(page, 'admin-not-allowed', lang);
    }
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Operator’s admin');
    assert.match((await page.locator('.empty').textContent()) ?? '', /Only the installation’s operators can open the admin/);
    const nav = page.getByRole('navigation', { name: 'Console' });
    assert.equal(await nav.getByRole('link', { name: 'Platform status' }).count(), 0);
    assert.equal(await nav.getByRole('link', { name: 'Requests' }).count(), 1);
    await visit('/console/admin/status', 'en', '.empty');
    assert.equal(await page.locator('.adm-certs').count(), 0);
    assertError(await (await signedInClient(s, 'owner@nile.example')).call('GET', '/admin/status'), 'forbidden');
  });

  test('the status page lists the PKI certificates with days left, a warning under 30 days by the injected clock; refresh checks again', async () => {
    const { page } = tab;
    await signIn(OPERATOR);
    for (const lang of ['ar', 'en'] as const) {
      await visit('/console/admin/status', lang, '.adm-certs');
      await checkConsolePage(page, 'admin-status', lang);
    }
    assert.deepEqual(
      await page.locator('tr[data-certificate]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-certificate'))),
      ['ca', 'seal', 'tsa', 'ocsp'],
    );
    for (const left of await page.locator('tr[data-certificate] td .pill').allTextContents()) assert.match(left, /^\d+ days left$/);
    assert.equal(await page.locator('tr[data-certificate] .pill-warn').count(), 0, 'fresh certificates');
    assert.deepEqual(await page.locator('tr[data-service] th').allTextContents(), [
      'Email (SMTP)',
      'WhatsApp',
      'Identity provider',
      'Timestamp authority (TSA)',
    ]);
    assert.match((await page.locator('tr[data-service="identity_provider"]').textContent()) ?? '', /Simulation/);
    await page.getByRole('button', { name: 'Check again' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Checked again/ })
      .waitFor();

    // Ten days before the first certificate expires (by the injected clock): that one warns.
    const status = (await (await signedInClient(s, OPERATOR)).call('GET', '/admin/status')).body;
    const soonest = [...status.pki.certificates].sort((x, y) => x.not_after - y.not_after)[0];
    s.clock.set((soonest.not_after - 10 * DAY) * 1000);
    await signIn(OPERATOR);
    await visit('/console/admin/status', 'en', '.adm-certs');
    const row = page.locator(`tr[data-certificate="${soonest.name}"]`);
    assert.equal(await row.locator('.pill-warn').textContent(), '10 days left');
  });
});
