/**
 * The console's Developers → API keys page in real Chromium against a real server (issue 15 points
 * 4, 7, 8): a test secret key is created by keyboard, its shown-once secret read from the page and
 * used on the public API over real HTTP; rotating at once stops the old secret (401) and the new
 * one works; an IP allowlist set in the page (after a refusal shown on the field, in both
 * languages) turns 127.0.0.1 away with 403 ip_not_allowed; revoking ends the key; a publishable key
 * takes origins and a daily cap, and a 24-hour rotation shows the old key as expiring; the version
 * pin is pinned and unpinned; a viewer sees no write control and the server refuses the write.
 * Each state is axe-core clean and screenshotted (ar and en) to test-artifacts/console/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { ensureConsole } from '../support/bundles.js';
import { isFocused, launchBrowser, tabTo, until, type PageWatch, type TestBrowser } from '../support/browser.js';
import { assertAccessible, consoleScreenshot, useConsoleLanguage } from '../support/console.js';
import { loaded, signInPage } from '../support/consolePage.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('the console API keys page, in Chromium', { timeout: 300_000 }, () => {
  let s: TestServer;
  let accountId: string;
  let browser: TestBrowser;
  let tab: { page: Page; watch: PageWatch };
  const owner = 'owner.keys@acme.test';
  const viewer = 'viewer.keys@acme.test';
  /** The secrets read from the page, by the step that showed them. */
  const secrets: Record<'created' | 'rotated', string> = { created: '', rotated: '' };

  /** The public API over real HTTP with a key read from the page. */
  const api = async (secret: string) => {
    const res = await fetch(`${s.url}/api/v1/`, { headers: { authorization: `Bearer ${secret}` } });
    const body = (await res.json()) as { error?: { code: string } };
    return { status: res.status, code: body.error?.code ?? null, version: res.headers.get('svc-version') };
  };

  before(async () => {
    ensureConsole();
    s = await startTestServer(CONSOLE_TEST_ENV);
    accountId = (await s.account()).id;
    await consoleUser(s, accountId, owner, 'owner');
    await consoleUser(s, accountId, viewer, 'viewer');
    // The account's opening test keys are revoked, so the page starts empty in test mode.
    const c = new ConsoleClient(s.url, 'en');
    assert.equal((await c.signIn(owner, TEST_PASSWORD)).status, 200);
    for (const k of (await c.call('GET', '/keys')).body.data as { id: string; mode: string }[])
      if (k.mode === 'test') assert.equal((await c.call('POST', `/keys/${k.id}/revoke`, { body: {} })).status, 200);
    browser = await launchBrowser();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.url });
    tab = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  const signIn = (email: string) => signInPage(browser, tab.page, s.url, email, 'test');

  async function visit(lang: 'ar' | 'en') {
    const { page } = tab;
    await useConsoleLanguage(browser, s.url, lang);
    await page.goto(`${s.url}/console/developers/api-keys`);
    await page.locator('.version-pin').waitFor();
    await loaded(page);
  }

  async function checkPage(name: string, lang: 'ar' | 'en') {
    const { page } = tab;
    assert.equal(await page.evaluate('document.documentElement.dir'), lang === 'ar' ? 'rtl' : 'ltr');
    await assertAccessible(page, `${name} (${lang})`);
    await consoleScreenshot(page, `keys-${name}-${lang}`);
  }

  const row = (name: string): Locator => tab.page.locator('.keys-table tbody tr').filter({ hasText: name });

  /** Read the shown-once secret, check the copy button and the warning, and close it by keyboard. */
  async function takeSecret(shot?: string): Promise<string> {
    const { page } = tab;
    const dialog = page.locator('dialog.once-dialog');
    await dialog.waitFor();
    const secret = await dialog.locator('input.once-value').inputValue();
    assert.match((await dialog.textContent()) ?? '', /will not be shown again/);
    const copy = dialog.getByRole('button', { name: 'Copy' });
    assert.ok(await isFocused(copy), 'the focus starts on Copy');
    await page.keyboard.press('Enter');
    await dialog.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
    if (shot) {
      await assertAccessible(page, 'the shown-once panel');
      await consoleScreenshot(page, shot);
    }
    // Escape does not lose the secret by accident.
    await page.keyboard.press('Escape');
    assert.equal(await dialog.count(), 1);
    await tabTo(page, dialog.getByRole('button', { name: 'I have saved it' }));
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    return secret;
  }

  test('the empty page; a test secret key created by keyboard, shown once, works on the public API', async () => {
    await signIn(owner);
    const { page } = tab;
    for (const lang of ['en', 'ar'] as const) {
      await visit(lang);
      await checkPage('empty', lang);
    }
    await visit('en');
    await page.getByText('No keys in this mode yet.').waitFor();
    await tabTo(page, page.getByLabel('Key type'));
    assert.equal(await page.getByLabel('Key type').inputValue(), 'secret');
    await page.keyboard.press('Tab');
    assert.ok(await isFocused(page.getByLabel('Name')));
    await page.keyboard.type('CI server');
    await page.keyboard.press('Enter');
    secrets.created = await takeSecret('keys-shown-once-en');
    assert.match(secrets.created, /^sk_test_[0-9a-f]{40}$/);
    assert.ok(await isFocused(page.getByLabel('Name')), 'the focus is back where it was');
    assert.equal(await page.getByLabel('Name').inputValue(), '');
    const r = row('CI server');
    await until('the new row', () => r.count());
    assert.match((await r.textContent()) ?? '', /sk_test_….{4}Secret keyActiveAny IP address/);
    assert.ok(((await r.textContent()) ?? '').includes(secrets.created.slice(-4)));
    assert.ok(!(await page.content()).includes(secrets.created), 'the secret is gone from the page');
    assert.deepEqual(await api(secrets.created), { status: 200, code: null, version: '2026-07-01' });
  });

  test('the shown-once panel in Arabic; a publishable key with origins and a daily cap, rotated with the 24-hour grace', async () => {
    const { page } = tab;
    await visit('ar');
    await page.getByLabel('نوع المفتاح').selectOption('publishable');
    await page.getByLabel('الاسم').fill('متجر الويب');
    await page.getByRole('button', { name: 'إنشاء المفتاح' }).click();
    await page.locator('dialog.once-dialog').waitFor();
    await checkPage('shown-once', 'ar');
    await page.getByRole('button', { name: 'حفظته' }).click();

    await visit('en');
    await row('متجر الويب').getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: /^Edit / });
    await dialog.getByLabel('Allowed origins').fill('https://shop.example.com');
    await dialog.getByLabel('Daily cap').fill('50');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await until('the new limits', async () =>
      /Origins: https:\/\/shop\.example\.comDaily cap: 50/.test((await row('متجر الويب').textContent()) ?? ''),
    );

    await row('متجر الويب').getByRole('button', { name: 'Rotate' }).click();
    await page
      .getByRole('dialog', { name: /^Rotate / })
      .getByRole('button', { name: 'Rotate key' })
      .click();
    assert.match(await takeSecret(), /^pk_test_[0-9a-f]{40}$/);
    await until('two rows: the old one expiring', async () => (await row('متجر الويب').count()) === 2);
    const states = await row('متجر الويب').locator('td:nth-child(3)').allTextContents();
    assert.ok(states.includes('Active'), states.join());
    assert.ok(
      states.some((t) => /^Expires .+ \(rotated\)$/.test(t)),
      states.join(),
    );
    for (const lang of ['en', 'ar'] as const) {
      await visit(lang);
      await checkPage('list', lang);
    }
  });

  test('rotate at once: the old secret is refused (401), the new one works', async () => {
    const { page } = tab;
    for (const lang of ['ar', 'en'] as const) {
      await visit(lang);
      await row('CI server')
        .getByRole('button', { name: lang === 'en' ? 'Rotate' : 'استبدال' })
        .click();
      await page.locator('dialog.confirm-dialog').waitFor();
      await checkPage('rotate-dialog', lang);
      if (lang === 'ar') await page.keyboard.press('Escape');
    }
    const dialog = page.getByRole('dialog', { name: /^Rotate \u2068?CI server/ });
    assert.ok(await dialog.getByLabel('In 24 hours').isChecked(), 'the grace is the default');
    await dialog.getByLabel('Now').check();
    await dialog.getByRole('button', { name: 'Rotate key' }).click();
    secrets.rotated = await takeSecret();
    assert.notEqual(secrets.rotated, secrets.created);
    assert.deepEqual(await api(secrets.created), { status: 401, code: 'invalid_api_key', version: '2026-07-01' });
    assert.equal((await api(secrets.rotated)).status, 200);
    await until('one CI server row', async () => (await row('CI server').count()) === 1);
    await until('the focus on the new key’s Rotate', () => isFocused(row('CI server').getByRole('button', { name: 'Rotate' })));
    await page.getByText('Revoked or expired keys not shown: 3.').waitFor();
  });

  test('an IP allowlist: a bad entry is refused on the field (ar, en); one without 127.0.0.1 gives 403 ip_not_allowed', async () => {
    const { page } = tab;
    const messages = { ar: /ليس عنوان IPv4\/IPv6 ولا نطاق CIDR: not-an-ip/, en: /Not an IPv4\/IPv6 address or CIDR range: not-an-ip/ };
    for (const lang of ['ar', 'en'] as const) {
      await visit(lang);
      await row('CI server')
        .getByRole('button', { name: lang === 'en' ? 'Edit' : 'تعديل' })
        .click();
      const ips = page.getByLabel(lang === 'en' ? 'Allowed IP addresses' : 'عناوين IP المسموح بها');
      assert.ok(await isFocused(ips));
      await ips.fill('not-an-ip');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await until('the refusal on the field', async () => (await ips.getAttribute('aria-invalid')) === 'true');
      assert.ok(await isFocused(ips));
      assert.match((await page.locator('dialog .field-message').first().textContent()) ?? '', messages[lang]);
      await checkPage('edit-error', lang);
    }
    await page.getByLabel('Allowed IP addresses').fill('198.51.100.0/24\n2001:db8::1');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('dialog').waitFor({ state: 'detached' });
    await until('the allowlist in the row', async () =>
      ((await row('CI server').textContent()) ?? '').includes('IP addresses: 198.51.100.0/24, 2001:db8::1'),
    );
    // The reload replaced the row: the focus is on the Edit button of its new row.
    await until('the focus back on Edit', () => isFocused(row('CI server').getByRole('button', { name: 'Edit' })));
    assert.deepEqual(await api(secrets.rotated), { status: 403, code: 'ip_not_allowed', version: '2026-07-01' });
  });

  test('revoke after a dialog that names the key: the secret stops working', async () => {
    const { page } = tab;
    await visit('en');
    const revoke = row('CI server').getByRole('button', { name: 'Revoke' });
    await revoke.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: /^Revoke \u2068?CI server \(sk_test_….{4}\)\u2069?\?$/ });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.ok(await isFocused(revoke));
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await until('the row gone', async () => (await row('CI server').count()) === 0);
    await page
      .getByRole('status')
      .filter({ hasText: /The key \u2068?CI server .* was revoked\./ })
      .first()
      .waitFor();
    assert.deepEqual(await api(secrets.rotated), { status: 401, code: 'invalid_api_key', version: '2026-07-01' });
  });

  test('the version pin: pinned in the page, applied to the API, unpinned', async () => {
    const { page } = tab;
    await visit('en');
    await page.getByLabel('Version').selectOption('2026-01-01');
    await page.getByRole('button', { name: 'Pin this version' }).click();
    await page.locator('.pin-current').filter({ hasText: 'Pinned to 2026-01-01' }).waitFor();
    assert.ok(await isFocused(page.getByLabel('Version')));
    const c = new ConsoleClient(s.url, 'en');
    await c.signIn(owner, TEST_PASSWORD);
    const made = await c.call('POST', '/keys', { body: { type: 'secret', mode: 'test', name: 'pin check' } });
    assert.equal((await api(made.body.secret)).version, '2026-01-01');
    await page.getByRole('button', { name: 'Unpin' }).click();
    await page.locator('.pin-current').filter({ hasText: "Not pinned; the server's default applies: 2026-07-01" }).waitFor();
    assert.equal((await api(made.body.secret)).version, '2026-07-01');
    // The only failed loads are the allowlist refusals the edit test provoked.
    const unexpected = tab.watch.problems.filter((p) => !(p.text.includes('status of 400') && /\/console\/api\/keys\/key_/.test(p.url)));
    assert.deepEqual(unexpected, []);
  });

  test('a viewer sees the page without write controls, and the server refuses the viewer a key', async () => {
    const { page } = tab;
    await browser.context.clearCookies();
    await signIn(viewer);
    for (const lang of ['en', 'ar'] as const) {
      await visit(lang);
      await checkPage('viewer', lang);
    }
    await visit('en');
    await page.getByText('Your role can see the account but cannot manage API keys.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Create key' }).count(), 0);
    assert.equal(
      await page
        .getByRole('button')
        .filter({ hasText: /^(Rotate|Revoke|Edit|Pin this version|Unpin)$/ })
        .count(),
      0,
    );
    await page.locator('.pin-current').filter({ hasText: "Not pinned; the server's default applies: 2026-07-01" }).waitFor();
    const c = new ConsoleClient(s.url, 'en');
    assert.equal((await c.signIn(viewer, TEST_PASSWORD)).status, 200);
    const refused = await c.call('POST', '/keys', { body: { type: 'secret', mode: 'test' } });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.code, 'forbidden');
  });
});
