/**
 * The console's Developers → Webhooks and Events screens in real Chromium against a real server
 * (issue 15 points 4, 7, 8): an endpoint is created in the page by keyboard, its secret read from
 * the shown-once dialog; a test event reaches a real HTTPS receiver on 127.0.0.1 that verifies the
 * Stripe-style signature, and the attempt — with the excerpt the receiver answered — appears in the
 * page's delivery log; the secret is rotated in the page and the next delivery carries v1= twice,
 * verified by a receiver holding only the old secret and by one holding only the new; a delivery
 * is redelivered from the page. The Events screen lists the test events and opens one. A viewer
 * sees no write control and the server refuses the viewer anyway. Deliveries are sent by the
 * server's dispatcher (`webhooks.runDue()`), never by waiting. axe-core and screenshots ar/en.
 */
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ensureConsole } from '../support/bundles.js';
import { isFocused, launchBrowser, tabTo, until, type PageWatch, type TestBrowser } from '../support/browser.js';
import { assertAccessible, consoleScreenshot, useConsoleLanguage } from '../support/console.js';
import { signInPage } from '../support/consolePage.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import type { TestServer } from '../support/server.js';
import { teamAccount } from '../support/teamAccount.js';
import { makeTestCa, startWebhookTestServer, WebhookReceiver, type Received, type TestCa } from '../support/webhookReceiver.js';

/** A receiver's check of spec part 5, written apart from the server: t and every v1, HMAC-SHA256 hex, constant-time, 300 s tolerance. */
function holding(secret: string, nowSeconds: () => number): (r: Received) => boolean {
  return (r) => {
    const parts = String(r.headers['svc-signature'] ?? '').split(',');
    const t = parts.find((p) => p.startsWith('t='))?.slice(2);
    if (!t || !/^\d+$/.test(t) || Math.abs(nowSeconds() - Number(t)) > 300) return false;
    const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${r.rawBody}`, 'utf8').digest('hex'));
    return parts
      .filter((p) => p.startsWith('v1='))
      .some((p) => {
        const given = Buffer.from(p.slice(3));
        return given.length === expected.length && timingSafeEqual(given, expected);
      });
  };
}

const TEMPLATE = {
  title: 'Supply',
  language: 'en',
  body: 'Supply for {{client}}.',
  fields: [{ key: 'client', label: 'Client', required: true }],
};

const v1Count = (r: Received) =>
  String(r.headers['svc-signature'])
    .split(',')
    .filter((p) => p.startsWith('v1=')).length;

/** Nothing on the page is loading (polled from the test: the page's CSP forbids the evaluated predicate of waitForFunction). */
const settled = (page: Page) => until('the page loaded', async () => (await page.locator('[aria-busy="true"]').count()) === 0);

describe('the console Webhooks and Events pages, in Chromium', { timeout: 420_000 }, () => {
  let ca: TestCa;
  let s: TestServer;
  let rx: WebhookReceiver;
  let browser: TestBrowser;
  let tab: { page: Page; watch: PageWatch };
  let accountId: string;
  let testKey: string;
  let team: string[];
  let templateId: string;
  const owner = 'owner.hooks@acme.test';
  const viewer = 'viewer.hooks@acme.test';
  /** The secrets the receiver holds: it answers which of them verified the delivery. */
  const held = new Map<string, (r: Received) => boolean>();
  let endpointId = '';
  let firstSecret = '';
  const now = () => Math.floor(s.clock.nowMs() / 1000);

  before(async () => {
    ensureConsole();
    ca = makeTestCa();
    s = await startWebhookTestServer(ca, CONSOLE_TEST_ENV);
    rx = await WebhookReceiver.start(ca);
    rx.answer = (_n, r) => {
      const id = (JSON.parse(r.rawBody) as { id: string }).id;
      const by = [...held].filter(([, check]) => check(r)).map(([name]) => name);
      return by.length ? { status: 200, body: `verified ${id} with ${by.join('+')}` } : { status: 400, body: 'bad signature' };
    };
    const a = await teamAccount(s, TEMPLATE, { overrides: { name: 'Hooks Co' } });
    accountId = a.id;
    testKey = a.keys.secret_test;
    team = a.team;
    templateId = a.templateId;
    await consoleUser(s, accountId, owner, 'owner');
    await consoleUser(s, accountId, viewer, 'viewer');
    browser = await launchBrowser();
    tab = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await rx?.close();
    ca?.cleanup();
  });

  const signIn = (email: string) => signInPage(browser, tab.page, s.url, email, 'test');

  async function visit(path: string, lang: 'ar' | 'en', ready: string) {
    const { page } = tab;
    await useConsoleLanguage(browser, s.url, lang);
    await page.goto(`${s.url}${path}`);
    await page.locator(ready).first().waitFor();
    await settled(page);
  }

  /** The owner, signed in through the console API (for the audit log and a credential). */
  async function ownerApi(): Promise<ConsoleClient> {
    const c = new ConsoleClient(s.url, 'en');
    assert.equal((await c.signIn(owner, TEST_PASSWORD)).status, 200);
    return c;
  }

  async function checkPage(name: string, lang: 'ar' | 'en') {
    const { page } = tab;
    assert.equal(await page.evaluate('document.documentElement.dir'), lang === 'ar' ? 'rtl' : 'ltr');
    await assertAccessible(page, `${name} (${lang})`);
    await consoleScreenshot(page, `webhooks-${name}-${lang}`);
  }

  /** The secret in the shown-once dialog, then "saved" by keyboard (Tab from the copy button, Enter). */
  async function takeSecret(shot: string): Promise<string> {
    const { page } = tab;
    const dialog = page.locator('dialog.once-dialog');
    await dialog.waitFor();
    const secret = await dialog.locator('.once-value').inputValue();
    assert.match(secret, /^whsec_/);
    await assertAccessible(page, shot);
    await consoleScreenshot(page, `webhooks-${shot}-en`);
    const saved = dialog.locator('.actions button');
    await tabTo(page, saved);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    return secret;
  }

  /** The dispatcher sends what is due; then "Refresh" in the page and wait for `count` deliveries in the log. */
  async function deliverAndRefresh(count: number) {
    const { page } = tab;
    assert.ok((await s.webhooks.runDue()) >= 1, 'a delivery was due');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await until(`${count} deliveries in the log`, async () => (await page.locator('.hook-delivery').count()) === count);
    await settled(page);
  }

  test('an endpoint created by keyboard; its secret shown once; a test event verified by the receiver and logged with its answer', async () => {
    await signIn(owner);
    const { page } = tab;
    for (const lang of ['en', 'ar'] as const) {
      await visit('/console/developers/webhooks', lang, '.empty');
      await checkPage('empty', lang);
    }
    await visit('/console/developers/webhooks', 'en', '.empty');
    const add = page.getByRole('link', { name: 'Add an endpoint' }).first();
    await tabTo(page, add, { max: 40 });
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Add an endpoint', level: 1 }).waitFor();
    for (const lang of ['ar', 'en'] as const) {
      await visit('/console/developers/webhooks/new', lang, '.form-slot form');
      await checkPage('new', lang);
    }
    const url = page.getByLabel('Endpoint URL');
    await tabTo(page, url, { max: 40 });
    await page.keyboard.type(rx.url('/hooks'));
    await page.keyboard.press('Tab');
    await page.keyboard.type('Orders service');
    await page.keyboard.press('Tab');
    assert.ok(await isFocused(page.getByLabel('All events, including types added later')));
    await page.keyboard.press('ArrowDown');
    assert.ok(await page.getByLabel('Selected events').isChecked());
    // A selection with none chosen is refused in the page, before any call.
    const submit = page.getByRole('button', { name: 'Add the endpoint' });
    await tabTo(page, submit, { max: 40 });
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'Choose at least one event' }).waitFor();
    await tabTo(page, page.getByLabel('signature_request.completed'), { max: 40 });
    await page.keyboard.press('Space');
    await tabTo(page, page.getByLabel('signer.signed'), { max: 40 });
    await page.keyboard.press('Space');
    await tabTo(page, submit, { max: 40 });
    await page.keyboard.press('Enter');
    firstSecret = await takeSecret('secret-once');
    held.set('old', holding(firstSecret, now));
    await page.getByRole('heading', { name: rx.url('/hooks'), level: 1 }).waitFor();
    endpointId = page.url().split('/').pop()!;
    const made = await s.call('GET', `/webhook_endpoints/${endpointId}`, { key: (await s.account()).keys.secret_test });
    assert.equal(made.status, 404, 'another account does not see it');
    const mine = await (await ownerApi()).call('POST', '/credentials', { body: { livemode: false } });
    const api = await s.call('GET', `/webhook_endpoints/${endpointId}`, { key: mine.body.token });
    assert.equal(api.status, 200, api.text);
    assert.deepEqual(api.body.enabled_events, ['signature_request.completed', 'signer.signed']);
    assert.equal(api.body.description, 'Orders service');
    assert.equal(api.body.livemode, false, 'the layout was in test mode');

    // Send a test event by keyboard; the server's dispatcher delivers it; the receiver verifies it.
    await tabTo(page, page.getByRole('button', { name: 'Send a test event' }), { max: 40 });
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'A test event' }).first().waitFor();
    await deliverAndRefresh(1);
    assert.equal(rx.received.length, 1);
    const first = rx.received[0]!;
    const event = JSON.parse(first.rawBody) as { id: string; type: string };
    assert.equal(event.type, 'webhook_endpoint.test');
    assert.ok(holding(firstSecret, now)(first), 'verified with the secret shown once');
    assert.equal(first.answered, 200);
    const row = page.locator('.hook-delivery').first();
    assert.equal(await row.locator('.hook-attempts tbody tr th').textContent(), '1');
    assert.match((await row.locator('.hook-attempts tbody td').first().textContent()) ?? '', /HTTP 200/);
    assert.equal(await row.locator('pre.excerpt').textContent(), `verified ${event.id} with old`);
    assert.equal(await row.getByRole('link', { name: event.id }).count(), 1);
    for (const lang of ['en', 'ar'] as const) {
      await visit(`/console/developers/webhooks/${endpointId}`, lang, '.hook-delivery');
      await checkPage('detail', lang);
    }
    for (const lang of ['en', 'ar'] as const) {
      await visit('/console/developers/webhooks', lang, '.data-table');
      await checkPage('list', lang);
    }
    assert.deepEqual(tab.watch.problems, []);
  });

  test('rotate the secret in the page: the next delivery carries v1= twice, verified with either secret alone; redeliver', async () => {
    const { page } = tab;
    await visit(`/console/developers/webhooks/${endpointId}`, 'en', '.hook-delivery');
    const rotate = page.getByRole('button', { name: 'Rotate the secret' });
    await tabTo(page, rotate, { max: 40 });
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? '', /two v1= signatures/);
    assert.ok(await isFocused(dialog.getByRole('button', { name: 'Keep the current secret' })), 'the safe answer has the focus');
    await assertAccessible(page, 'rotate dialog');
    await consoleScreenshot(page, 'webhooks-rotate-dialog-en');
    // Escape keeps the secret and gives the focus back.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.ok(await isFocused(rotate));
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    assert.equal(await dialog.getByLabel('Old secret keeps signing for').inputValue(), '24');
    await tabTo(page, dialog.getByRole('button', { name: 'Rotate the secret' }));
    await page.keyboard.press('Enter');
    const secret = await takeSecret('new-secret-once');
    assert.notEqual(secret, firstSecret);
    await page.getByRole('status').filter({ hasText: 'The old secret keeps signing until' }).first().waitFor();

    // A receiver holding only the old secret and one holding only the new both verify the next delivery.
    held.set('new', holding(secret, now));
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByRole('status').filter({ hasText: 'A test event' }).first().waitFor();
    await deliverAndRefresh(2);
    const second = rx.received[1]!;
    assert.equal(v1Count(second), 2, 'v1= twice during the overlap');
    assert.ok(holding(firstSecret, now)(second), 'verified by a receiver with only the old secret');
    assert.ok(holding(secret, now)(second), 'verified by a receiver with only the new secret');
    const secondId = (JSON.parse(second.rawBody) as { id: string }).id;
    assert.equal(await page.locator('.hook-delivery').first().locator('pre.excerpt').textContent(), `verified ${secondId} with old+new`);

    // Redeliver the first test event from the log: a new delivery of the same event.
    const firstId = (JSON.parse(rx.received[0]!.rawBody) as { id: string }).id;
    await page.getByRole('button', { name: `Redeliver ${firstId}` }).click();
    await page.getByRole('status').filter({ hasText: 'will be delivered again' }).first().waitFor();
    await deliverAndRefresh(3);
    const third = rx.received[2]!;
    assert.equal((JSON.parse(third.rawBody) as { id: string }).id, firstId);
    const newest = page.locator('.hook-delivery').first();
    assert.equal(await newest.locator('.pill', { hasText: 'Redelivery' }).count(), 1);
    assert.equal(await newest.locator('pre.excerpt').textContent(), `verified ${firstId} with old+new`);
    const audit = await (await ownerApi()).call('GET', '/audit_log?limit=20');
    assert.ok(
      (audit.body.data as { action: string; target: string }[]).some(
        (x) => x.action === 'webhook_secret.rotated' && x.target === endpointId,
      ),
      audit.text,
    );
  });

  test('the Events screen lists the test events, filters by type, and opens one with its payload', async () => {
    const { page } = tab;
    for (const lang of ['en', 'ar'] as const) {
      await visit('/console/developers/events', lang, '.data-table');
      await checkPage('events', lang);
    }
    await visit('/console/developers/events', 'en', '.data-table');
    await page.getByLabel('Event type').selectOption('webhook_endpoint.test');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await until('the filtered list', async () => page.url().includes('type=webhook_endpoint.test'));
    await settled(page);
    const ids = rx.received.slice(0, 2).map((r) => (JSON.parse(r.rawBody) as { id: string }).id);
    assert.deepEqual(await page.locator('.data-table tbody td:nth-child(2)').allTextContents(), [...ids].reverse(), 'newest first');
    await page.getByRole('link', { name: 'webhook_endpoint.test' }).first().click();
    await page.getByRole('heading', { name: 'webhook_endpoint.test', level: 1 }).waitFor();
    await settled(page);
    const payload = JSON.parse((await page.locator('pre.payload').textContent()) ?? '') as { id: string; data: { object: { id: string } } };
    assert.equal(payload.id, ids[1]);
    assert.equal(payload.data.object.id, endpointId);
    for (const lang of ['en', 'ar'] as const) {
      await visit(`/console/developers/events/${ids[1]}`, lang, 'pre.payload');
      await checkPage('event', lang);
    }

    // A request's event links to the request's page.
    const made = await s.call('POST', '/signature_requests', {
      key: testKey,
      body: {
        title: 'Supply Epsilon',
        source: { type: 'template', template_id: templateId },
        signers: [{ name: 'Member', email: team[1], fields: { client: 'Nile' } }],
      },
    });
    assert.equal(made.status, 201, made.text);
    await visit('/console/developers/events?type=signature_request.*', 'en', '.data-table');
    const types = await page.locator('.data-table tbody th').allTextContents();
    assert.ok(types.includes('signature_request.sent') && types.every((t) => t.startsWith('signature_request.')), types.join());
    await page.getByRole('link', { name: 'signature_request.sent' }).click();
    await page.getByRole('heading', { name: 'signature_request.sent', level: 1 }).waitFor();
    await page.getByRole('link', { name: made.body.id }).click();
    await page.getByRole('heading', { name: 'Supply Epsilon', level: 1 }).waitFor();
    // An API error in the page's language.
    await visit('/console/developers/events/evt_missing', 'ar', '.notice.tone-bad');
    assert.match((await page.locator('.notice.tone-bad').textContent()) ?? '', /[\u0600-\u06FF]/, 'Arabic message');
    await consoleScreenshot(page, 'webhooks-event-missing-ar');
  });

  test('a viewer sees the log but no write control, and the server refuses the viewer’s writes', async () => {
    const { page } = tab;
    await browser.context.clearCookies();
    await signIn(viewer);
    await visit(`/console/developers/webhooks/${endpointId}`, 'en', '.hook-delivery');
    for (const name of ['Send a test event', 'Rotate the secret', 'Disable', 'Delete the endpoint']) {
      assert.equal(await page.getByRole('button', { name }).count(), 0, name);
    }
    assert.equal(await page.getByRole('button', { name: /^Redeliver/ }).count(), 0);
    await visit('/console/developers/webhooks', 'en', '.data-table');
    assert.equal(await page.getByRole('link', { name: 'Add an endpoint' }).count(), 0);
    await assertAccessible(page, 'list as viewer');
    const c = new ConsoleClient(s.url, 'en');
    assert.equal((await c.signIn(viewer, TEST_PASSWORD)).status, 200);
    const refused = await c.call('POST', `/webhook_endpoints/${endpointId}/rotate_secret`, { body: {} });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.code, 'forbidden');
    const cred = await c.call('POST', '/credentials', { body: { livemode: false } });
    const write = await s.call('DELETE', `/webhook_endpoints/${endpointId}`, { key: cred.body.token });
    assert.equal(write.status, 403, write.text);
  });

  test('delete after a dialog that names the URL; disable and enable', async () => {
    const { page } = tab;
    await browser.context.clearCookies();
    await signIn(owner);
    await visit(`/console/developers/webhooks/${endpointId}`, 'en', '.hook-delivery');
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('status').filter({ hasText: 'The endpoint was disabled' }).first().waitFor();
    assert.equal(await page.getByRole('button', { name: 'Send a test event' }).count(), 0);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('status').filter({ hasText: 'The endpoint was enabled' }).first().waitFor();
    const remove = page.getByRole('button', { name: 'Delete the endpoint' });
    await remove.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? '', new RegExp(rx.url('/hooks').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
    await assertAccessible(page, 'delete dialog');
    await consoleScreenshot(page, 'webhooks-delete-dialog-en');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.ok(await isFocused(remove));
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Delete the endpoint' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.locator('.empty').waitFor();
    assert.match((await page.locator('.flash').textContent()) ?? '', /was deleted/);
  });
});
