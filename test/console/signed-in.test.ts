/**
 * Signing in to the console for real in Chromium, against the console API on a test server (users
 * made through the service, as `tawqi user create` does): the signed-in shell (navigation, account,
 * user menu, live/test switch) axe-core clean and screenshotted in both languages, sign-out back to
 * sign-in, a wrong password showing the API envelope's message in the page's language, a signed-in
 * screen asked for without a session coming back after the sign-in, and the second factor with a
 * TOTP code and with a recovery code.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { enableTwoFactor } from '../../server/src/services/consoleUsers.js';
import { updateConsoleUser } from '../../server/src/store/consoleUsers.js';
import { ensureConsole } from '../support/bundles.js';
import { isFocused, launchBrowser, tabTo, until, type TestBrowser } from '../support/browser.js';
import { assertAccessible, consoleScreenshot, useConsoleLanguage } from '../support/console.js';
import { CONSOLE_TEST_ENV, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { startTestServer, type TestServer } from '../support/server.js';

const OWNER = 'layla@nile.example';
const TWO_FACTOR = 'omar@nile.example';
const secret = randomBytes(20);
const totp = (ms: number) =>
  new TOTP({ secret: new Secret({ buffer: new Uint8Array(secret).buffer }), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: ms,
  });

/** The navigation's links for an account owner (console/src/nav.ts NAV, every permission held). */
const OWNER_NAV = [
  '',
  '/requests',
  '/templates',
  '/workflows',
  '/identity-review',
  '/developers/api-keys',
  '/developers/webhooks',
  '/developers/events',
  '/developers/logs',
  '/team',
  '/verification',
  '/security',
  '/audit-log',
  '/billing',
  '/branding',
];

describe('the console signed in, in Chromium', { timeout: 240_000 }, () => {
  let s: TestServer;
  let browser: TestBrowser;
  let recoveryCodes: string[];

  before(async () => {
    ensureConsole();
    // Many sign-ins from one address and for one email in this file: the throttles are tested in auth.test.ts.
    s = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000', TAWQI_CONSOLE_SIGN_IN_EMAIL_LIMIT: '1000' });
    s.clock.set(Date.now());
    const accountId = (await s.account({ name: 'شركة النيل' })).id;
    const owner = await consoleUser(s, accountId, OWNER, 'owner');
    await updateConsoleUser(s.ctx.store.db, owner.id, { name: 'ليلى حسن' });
    const second = await consoleUser(s, accountId, TWO_FACTOR, 'developer');
    recoveryCodes = await enableTwoFactor(s.ctx.store, s.clock, s.ctx.secrets.consoleKey, second, secret, '127.0.0.1');
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  /** A fresh tab in `lang` with no session (each test signs in on its own). */
  async function tab(lang: 'ar' | 'en', path = '/console') {
    await browser.context.clearCookies();
    await useConsoleLanguage(browser, s.url, lang);
    const t = await browser.newPage();
    await t.page.goto(`${s.url}${path}`);
    await t.page.locator('h1').waitFor();
    return t;
  }

  /** Fill the sign-in form by keyboard and send it. */
  async function signIn(page: Page, email: string, password: string) {
    await tabTo(page, page.locator('input[name=email]'));
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
  }

  const heading = (page: Page) => page.locator('h1').textContent();

  test('/console without a session goes to sign-in (no history entry); a wrong password shows the envelope message in Arabic', async () => {
    const { page, watch } = await tab('ar');
    await page.waitForURL(`${s.url}/console/sign-in`);
    assert.equal(await heading(page), 'تسجيل الدخول إلى حسابك');
    // The first screen's request for the session is a 401 the browser reports; nothing else may go wrong.
    watch.expect(/401/);
    await signIn(page, OWNER, 'not the password at all');
    const alert = page.locator('.form-alert[role=alert]');
    await until('the refusal', async () => (await alert.textContent()) === 'البريد الإلكتروني أو كلمة المرور غير صحيحة.');
    assert.equal(await alert.isVisible(), true);
    await assertAccessible(page, 'sign-in refused (ar)');
    await consoleScreenshot(page, 'sign-in-refused-ar');
    watch.assertClean();
    await page.close();
  });

  test('a wrong password in English: the English message', async () => {
    const { page, watch } = await tab('en', '/console/sign-in');
    await signIn(page, OWNER, 'not the password at all');
    await until(
      'the refusal',
      async () => (await page.locator('.form-alert').textContent()) === 'The email or the password is not correct.',
    );
    watch.expect(/401/);
    watch.assertClean();
    await page.close();
  });

  for (const lang of ['ar', 'en'] as const) {
    test(`a real sign-in (${lang}) lands on the signed-in shell; axe-core clean; the user menu signs out by keyboard`, async () => {
      const { page, watch } = await tab(lang, '/console/sign-in');
      await signIn(page, OWNER, TEST_PASSWORD);
      await page.waitForURL(`${s.url}/console`);
      await until('home', async () => (await heading(page)) === (lang === 'ar' ? 'مرحبًا، ليلى حسن' : 'Welcome, ليلى حسن'));
      assert.ok(await isFocused(page.locator('h1')), 'the focus moves to the new screen');
      assert.equal(await page.locator('.account-name').textContent(), 'شركة النيل');
      const nav = page.getByRole('navigation', { name: lang === 'ar' ? 'لوحة التحكم' : 'Console' });
      const hrefs = await nav.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
      assert.deepEqual(hrefs.sort(), OWNER_NAV.map((p) => `/console${p}`).sort(), 'every section an owner may open, and nothing else');
      assert.equal(await nav.locator('[aria-current=page]').textContent(), lang === 'ar' ? 'الرئيسية' : 'Home');
      await assertAccessible(page, `home (${lang})`);
      await consoleScreenshot(page, `home-${lang}`);

      // Navigation without a reload: a section, Back, and the skip link to the content.
      await nav.getByRole('link', { name: lang === 'ar' ? 'مفاتيح API' : 'API keys' }).click();
      await page.waitForURL(`${s.url}/console/developers/api-keys`);
      assert.equal(await nav.locator('[aria-current=page]').textContent(), lang === 'ar' ? 'مفاتيح API' : 'API keys');
      await page.goBack();
      await until('home again', async () => (await page.locator('.tiles').count()) === 1);

      const menuButton = page.locator('.user-button');
      await tabTo(page, menuButton);
      await page.keyboard.press('Enter');
      assert.equal(await menuButton.getAttribute('aria-expanded'), 'true');
      await assertAccessible(page, `user menu (${lang})`);
      await consoleScreenshot(page, `user-menu-${lang}`);
      await page.keyboard.press('Escape');
      assert.equal(await menuButton.getAttribute('aria-expanded'), 'false');
      assert.ok(await isFocused(menuButton), 'Escape gives the focus back to the button');
      await page.keyboard.press('Enter');
      const signOut = page.getByRole('button', { name: lang === 'ar' ? 'تسجيل الخروج' : 'Sign out' });
      await tabTo(page, signOut, { max: 4 });
      await page.keyboard.press('Enter');
      await page.waitForURL(`${s.url}/console/sign-in`);
      await until(
        'the flash',
        async () => (await page.locator('.flash').textContent()) === (lang === 'ar' ? 'سجّلت الخروج.' : 'You signed out.'),
      );

      // The session is over on the server too: the home page asks for a sign-in again.
      await page.goto(`${s.url}/console`);
      await page.waitForURL(`${s.url}/console/sign-in`);
      watch.expect(/401/);
      watch.assertClean();
      await page.close();
    });
  }

  test('the live/test switch: a switch by keyboard, the test banner, remembered on reload', async () => {
    const { page, watch } = await tab('en', '/console/sign-in');
    await signIn(page, OWNER, TEST_PASSWORD);
    await page.locator('.tiles').waitFor();
    const toggle = page.getByRole('switch', { name: 'Test mode' });
    assert.equal(await toggle.getAttribute('aria-checked'), 'false');
    assert.equal(await page.locator('.test-banner').isVisible(), false);
    await tabTo(page, toggle);
    await page.keyboard.press('Space');
    assert.equal(await toggle.getAttribute('aria-checked'), 'true');
    assert.equal(await page.locator('.test-banner').textContent(), 'Test mode: you are looking at test data, which has no legal effect.');
    await page.reload();
    await page.locator('.tiles').waitFor();
    assert.equal(await page.getByRole('switch', { name: 'Test mode' }).getAttribute('aria-checked'), 'true');
    // The first Tab reaches the skip link, which takes the focus past the bars and the navigation.
    await page.keyboard.press('Tab');
    assert.ok(await isFocused(page.getByRole('link', { name: 'Skip to content' })));
    await page.keyboard.press('Enter');
    await until('the focus in <main>', () => isFocused(page.locator('main#main')));
    await assertAccessible(page, 'home in test mode (en)');
    await consoleScreenshot(page, 'home-test-mode-en');
    await page.getByRole('switch', { name: 'Test mode' }).click();
    assert.equal(await page.locator('.test-banner').isVisible(), false);
    watch.assertClean();
    await page.close();
  });

  test('a signed-in screen asked for without a session: sign-in, then back to that screen (never to another site)', async () => {
    const { page, watch } = await tab('en', '/console/team');
    await page.waitForURL(`${s.url}/console/sign-in?next=%2Fconsole%2Fteam`);
    await signIn(page, OWNER, TEST_PASSWORD);
    await page.waitForURL(`${s.url}/console/team`);
    assert.equal(await heading(page), 'Team');
    // `next` is followed only to a console path: another site, or a protocol-relative address, gives the home page.
    for (const next of ['https://evil.example/console', '//evil.example/console']) {
      await page.locator('.user-button').click();
      await page.locator('#user-menu button').click();
      await page.waitForURL(`${s.url}/console/sign-in`);
      await page.goto(`${s.url}/console/sign-in?next=${encodeURIComponent(next)}`);
      await signIn(page, OWNER, TEST_PASSWORD);
      await page.waitForURL(`${s.url}/console`);
    }
    watch.expect(/401/);
    watch.assertClean();
    await page.close();
  });

  test('two-step verification: a TOTP code signs in; a used-up recovery code is refused in the page language, a fresh one signs in', async () => {
    const { page, watch } = await tab('en', '/console/sign-in');
    await signIn(page, TWO_FACTOR, TEST_PASSWORD);
    await page.waitForURL(`${s.url}/console/sign-in/two-factor`);
    await until('the second step', async () => (await heading(page)) === 'Two-step verification');
    assert.ok(await isFocused(page.locator('h1')));
    await tabTo(page, page.getByLabel('Authentication code'));
    await page.keyboard.type(totp(s.clock.nowMs()));
    await page.keyboard.press('Enter');
    await page.waitForURL(`${s.url}/console`);
    await page.locator('.tiles').waitFor();
    // A developer has no audit.read: no Audit log in the navigation.
    assert.equal(await page.getByRole('link', { name: 'Audit log' }).count(), 0);
    await page.locator('.user-button').click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${s.url}/console/sign-in`);

    await useConsoleLanguage(browser, s.url, 'ar');
    await page.reload();
    await signIn(page, TWO_FACTOR, TEST_PASSWORD);
    await until('the second step', async () => (await heading(page)) === 'التحقق بخطوتين');
    await page.getByRole('button', { name: 'استخدم رمز استرداد بدلًا من ذلك' }).click();
    await page.getByLabel('رمز الاسترداد').fill('not-a-recovery-code');
    await page.keyboard.press('Enter');
    await until(
      'the refusal',
      async () => (await page.locator('.form-alert').textContent()) === 'رمز التحقق أو رمز الاسترداد غير صحيح أو مستخدم من قبل.',
    );
    await assertAccessible(page, 'recovery code refused (ar)');
    await consoleScreenshot(page, 'two-factor-recovery-refused-ar');
    await page.getByLabel('رمز الاسترداد').fill(recoveryCodes[0]!);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${s.url}/console`);
    await page.locator('.tiles').waitFor();
    watch.expect(/401/);
    watch.assertClean();
    await page.close();
  });
});
