/**
 * The console's Billing page in real Chromium against a real server (issue 16 point 4): the owner
 * sees the plan and its year end, the send and wallet balances and the prices; a live send charged
 * to the balance and the wallet appears in the ledger linked to its request (the link opens it); a
 * wallet top-up made by the operator through the admin API appears in the ledger on the page and
 * in GET /api/v1/usage; the usage chart and table show the month's sends; the publishable-key
 * daily-cap notices at 80% and 100% appear once the key's requests reach them (an empty state
 * before); the ledger's cursor pages are walked by keyboard; a developer and a viewer have no
 * Billing link and the address shows a "not allowed" state. axe-core clean and screenshotted in
 * Arabic and English.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { issueKey } from '../../server/src/services/accounts.js';
import { ensureConsole } from '../support/bundles.js';
import { isFocused, launchBrowser, tabTo, until, type PageWatch, type TestBrowser } from '../support/browser.js';
import { assertAccessible, checkConsolePage, consoleScreenshot } from '../support/console.js';
import { CONSOLE_TEST_ENV, consoleUser, signedInClient, type ConsoleClient } from '../support/consoleClient.js';
import { loaded, signInPage, visitConsole } from '../support/consolePage.js';
import { NDA_FIELDS } from '../support/ndaFields.js';
import { startTestServer, type TestServer } from '../support/server.js';

const DAY = 86_400;
/** An element's text with Intl's no-break spaces (EGP 39.50) as plain ones. */
const plain = (text: string | null | undefined): string => (text ?? '').replace(/\s+/g, ' ').trim();

describe('the console Billing page, in Chromium', { timeout: 300_000 }, () => {
  let s: TestServer;
  let browser: TestBrowser;
  let tab: { page: Page; watch: PageWatch };
  let acct: { id: string; keys: TestServer['keys'] };
  let operator: ConsoleClient;
  let requestId = '';
  let month = '';
  const owner = 'owner.billing@acme.test';
  const developer = 'dev.billing@acme.test';
  const viewer = 'viewer.billing@acme.test';
  const OPERATOR = 'ops.billing@tawqi.test';
  const PAGE = '/console/billing';

  const visit = (lang: 'ar' | 'en', query = '') => visitConsole(browser, tab.page, s.url, `${PAGE}${query}`, lang, '.page h1');
  const ledgerRows = () => tab.page.locator('.bill-ledger tbody tr');
  const usage = async () => (await s.call('GET', '/usage', { key: acct.keys.secret_live })).body;

  before(async () => {
    ensureConsole();
    s = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000' });
    // Ten days into a month, so the month's charges stay in it whatever day the test runs.
    const now = new Date(s.clock.nowMs());
    s.clock.set(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 10, 9));
    month = new Date(s.clock.nowMs()).toISOString().slice(0, 7);
    // One send left in the balance and 50.00 in the wallet (business: 9.00 a send beyond the balance).
    acct = await s.account({ name: 'Acme', ownerEmail: owner, balanceSends: 1, walletMinor: 5000 });
    await consoleUser(s, acct.id, owner, 'owner');
    await consoleUser(s, acct.id, developer, 'developer');
    await consoleUser(s, acct.id, viewer, 'viewer');
    await consoleUser(s, null, OPERATOR, 'operator');
    operator = await signedInClient(s, OPERATOR, 'en');
    // Two signers: one from the balance, one from the wallet at 9.00, with an identity check (1.50).
    const created = await s.call('POST', '/signature_requests', {
      key: acct.keys.secret_live,
      body: {
        title: 'Supply contract',
        legal_level: 'ses',
        source: { type: 'template', template_id: 'tpl_nda_ar' },
        signers: [
          { name: 'Mona', email: 'mona@acme.test', fields: NDA_FIELDS },
          { name: 'Omar', email: 'omar@acme.test', require_identity: true, fields: NDA_FIELDS },
        ],
      },
    });
    assert.equal(created.status, 201, created.text);
    requestId = created.body.id;
    browser = await launchBrowser();
    tab = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('the owner sees the plan, its year end, the balances, the prices and the charge linked to its request', async () => {
    const { page } = tab;
    await signInPage(browser, page, s.url, owner, 'live');
    await page.getByRole('link', { name: 'Billing' }).click();
    await until('the billing page', async () => new URL(page.url()).pathname === PAGE);
    await loaded(page);
    const fact = (label: string) => page.locator('.bill-facts .req-fact', { has: page.getByText(label, { exact: true }) }).locator('dd');
    assert.match((await fact('Plan').textContent()) ?? '', /^BusinessActive$/);
    const expires = (await usage()).plan.expires_at as number;
    const daysLeft = Math.floor((expires - Math.floor(s.clock.nowMs() / 1000)) / DAY);
    assert.match((await fact('Plan year ends').textContent()) ?? '', new RegExp(`${daysLeft} days left$`));
    assert.equal(await fact('Sends left').locator('.bill-figure').textContent(), '0');
    // 50.00 − 9.00 − 1.50
    assert.equal(plain(await fact('Wallet balance').locator('.bill-figure').textContent()), 'EGP 39.50');
    const price = (plan: string) =>
      page
        .locator(`.bill-prices tr[data-plan="${plan}"] > *`)
        .evaluateAll((cells) => cells.map((c) => c.textContent))
        .then((cells) => cells.map(plain).join(' | '));
    assert.equal(await price('starter'), 'Starter | 100 | EGP 12.00');
    assert.equal(await price('business'), 'BusinessYour plan | 1,000 | EGP 9.00');
    assert.equal(await price('enterprise'), 'Enterprise | 10,000 | EGP 6.00');
    assert.equal(plain(await page.locator('.bill-identity-price').textContent()), 'Identity check: EGP 1.50 per signer.');

    // The charge: one send from the balance, 10.50 from the wallet, linked to its request.
    const charge = page.locator('.bill-ledger tbody tr[data-kind="send"]');
    assert.equal(await charge.count(), 1);
    const cells = (await charge.locator('th, td').evaluateAll((els) => els.map((c) => c.textContent))).map(plain);
    assert.deepEqual(cells.slice(1), ['Charge for a send', requestId, '-1', '-EGP 10.50']);
    assert.equal(await ledgerRows().last().getAttribute('data-kind'), 'opening_balance', 'newest first: the opening balance last');
    await checkConsolePage(page, 'billing', 'en');
    await visit('ar');
    assert.equal(await page.locator('.bill-ledger tbody tr[data-kind="send"] th').textContent(), 'خصم مقابل إرسال');
    assert.equal(await page.locator('h1').textContent(), 'الفوترة');
    await checkConsolePage(page, 'billing', 'ar');

    await visit('en');
    await charge.getByRole('link', { name: requestId }).click();
    await until('the request page', async () => new URL(page.url()).pathname === `/console/requests/${requestId}`);
    await page.getByRole('heading', { name: 'Supply contract' }).waitFor();
  });

  test('a wallet top-up by the operator (admin API) appears in the ledger on the page and in GET /usage', async () => {
    const { page } = tab;
    const before = (await usage()).balance.wallet.amount as number;
    const topup = await operator.call('POST', `/admin/accounts/${acct.id}/wallet_topups`, {
      body: { amount: '250', note: 'Bank transfer 7781' },
    });
    assert.equal(topup.status, 201, topup.text);
    assert.deepEqual((await usage()).balance.wallet, { amount: before + 250, currency: 'EGP' });
    await visit('en');
    const top = ledgerRows().first();
    assert.equal(await top.getAttribute('data-kind'), 'wallet_topup');
    assert.equal(await top.getAttribute('data-id'), topup.body.id);
    assert.deepEqual((await top.locator('th, td').evaluateAll((els) => els.map((c) => c.textContent))).map(plain).slice(1), [
      'Wallet top-upBank transfer 7781',
      '—',
      '—',
      '+EGP 250.00',
    ]);
    const wallet = page
      .locator('.bill-facts .req-fact', { has: page.getByText('Wallet balance', { exact: true }) })
      .locator('.bill-figure');
    assert.equal(plain(await wallet.textContent()), 'EGP 289.50');
  });

  test("the usage chart and table show the month's sends, identity checks and wallet spend", async () => {
    const { page } = tab;
    await visit('en');
    const bar = (kind: string) => page.locator(`.bill-svg-${kind} g[data-month="${month}"]`);
    assert.equal(await bar('sends').getAttribute('data-value'), '2');
    assert.equal(await bar('identity').getAttribute('data-value'), '1');
    assert.equal(await bar('wallet').getAttribute('data-value'), '10.5');
    // The tallest bar of each series is this month's, the others empty.
    const height = Number(await bar('sends').locator('rect').getAttribute('height'));
    assert.ok(height > 50, `the month's bar is drawn (${height})`);
    assert.equal(await page.locator('.bill-svg-sends g').count(), 12);
    assert.equal(await page.locator('.bill-svg-sends rect[height="0"]').count(), 11);
    const row = await page
      .locator(`.bill-usage tbody tr[data-month="${month}"] > *`)
      .evaluateAll((cells) => cells.map((c) => c.textContent))
      .then((cells) => cells.map(plain));
    const name = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${month}-01`));
    assert.deepEqual(row, [name, '2', '1', 'EGP 10.50']);
    assert.equal(await page.locator('.bill-usage tbody tr').first().getAttribute('data-month'), month, 'newest first');
    // The chart is drawing only; the table carries every figure for a screen reader.
    assert.equal(await page.locator('.bill-charts').getAttribute('aria-hidden'), 'true');
    await visit('ar');
    const arName = new Intl.DateTimeFormat('ar-EG-u-nu-latn', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
      new Date(`${month}-01`),
    );
    assert.equal(await page.locator(`.bill-usage tbody tr[data-month="${month}"] th`).textContent(), arName);
    // Right to left: this month's bar is the leftmost in Arabic (the oldest at the right).
    const xOf = async (m: string) => Number(await page.locator(`.bill-svg-sends g[data-month="${m}"] rect`).getAttribute('x'));
    const oldest = await page.locator('.bill-svg-sends g').first().getAttribute('data-month');
    assert.ok((await xOf(month)) < (await xOf(oldest!)));
  });

  test('the publishable-key daily-cap notices: none, then 80% and 100% once its requests reach them', async () => {
    const { page } = tab;
    await visit('en');
    assert.equal(await page.locator('#bill-notices .empty').textContent(), 'No publishable key has come near its daily cap.');
    const origin = 'https://shop.acme.test';
    const pk = await s.ctx.store.tx((trx) =>
      issueKey(trx, s.clock, acct.id, 'publishable', 'live', { allowedOrigins: [origin], dailyCap: 5 }),
    );
    for (let i = 0; i < 5; i++) await s.call('POST', '/signature_requests', { key: pk.secret, headers: { origin }, body: {} });
    await visit('en');
    const notices = page.locator('.bill-notices li');
    assert.deepEqual(await notices.evaluateAll((els) => els.map((e) => e.getAttribute('data-level'))), ['100', '80']);
    const today = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' }).format(s.clock.nowMs());
    assert.equal(
      await notices.nth(0).textContent(),
      `The publishable key ${pk.key.id} reached its daily cap of 5 requests on ${today}; further requests that day were refused.`,
    );
    assert.equal(await notices.nth(1).textContent(), `The publishable key ${pk.key.id} used 4 of its 5 daily requests (80%) on ${today}.`);
    await assertAccessible(page, 'billing notices (en)');
    await visit('ar');
    assert.equal(await page.locator('.bill-notices li').count(), 2);
    await checkConsolePage(page, 'billing-notices', 'ar');
  });

  test('the ledger pages, by keyboard: next and back, the focus on the ledger', async () => {
    const { page } = tab;
    for (let i = 0; i < 20; i++) {
      const r = await operator.call('POST', `/admin/accounts/${acct.id}/sends`, { body: { sends: 1, note: `Batch ${i + 1}` } });
      assert.equal(r.status, 201, r.text);
    }
    await visit('en');
    assert.equal(await ledgerRows().count(), 20);
    const topId = () => ledgerRows().first().getAttribute('data-id');
    const first = await topId();
    const pages = page.getByRole('navigation', { name: 'Wallet ledger pages' });
    await tabTo(page, pages.getByRole('link', { name: 'Next page' }), { max: 60 });
    await page.keyboard.press('Enter');
    await until('the second page', async () => /after=/.test(page.url()) && (await topId()) !== first);
    await loaded(page);
    assert.ok(await isFocused(page.locator('#bill-ledger-title')), 'the focus is on the ledger heading');
    assert.equal(await ledgerRows().last().getAttribute('data-kind'), 'opening_balance');
    await consoleScreenshot(page, 'billing-ledger-page-2-en');
    await tabTo(page, pages.getByRole('link', { name: 'Previous page' }), { max: 60 });
    await page.keyboard.press('Enter');
    await until('back on the first page', async () => !/after=/.test(page.url()) && (await topId()) === first);
  });

  for (const who of [developer, viewer]) {
    test(`${who.split('.')[0]}: no Billing link, and the address shows a "not allowed" state`, async () => {
      const { page } = tab;
      await browser.context.clearCookies();
      await signInPage(browser, page, s.url, who);
      assert.equal(await page.getByRole('link', { name: 'Billing' }).count(), 0);
      for (const lang of ['en', 'ar'] as const) {
        await visit(lang);
        assert.equal(await page.locator('.bill-block').count(), 0);
        await page.locator('.empty').waitFor();
        if (lang === 'en')
          assert.equal(await page.locator('.empty p').textContent(), 'Only the account’s owner and administrators can see billing.');
        if (who === developer) await checkConsolePage(page, 'billing-not-allowed', lang);
        else await assertAccessible(page, `billing not allowed (${lang})`);
      }
      // The server refuses the read as well.
      const c = await signedInClient(s, who, 'en');
      assert.equal((await c.call('GET', '/billing/ledger')).status, 403);
    });
  }
});
