/**
 * The console's signed-out screens in real Chromium: sign-in, the second-factor step, forgot
 * password, reset password and invitation links (the token leaves the address bar at once). Each is
 * axe-core clean in Arabic (right to left, the default) and English, with no console error or CSP
 * violation, and screenshotted to test-artifacts/console/. The sign-in form works by keyboard
 * alone: labels, errors tied to their fields and the focus on the first wrong one. The language
 * switch turns the page around and is remembered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ensureConsole } from '../support/bundles.js';
import { isFocused, launchBrowser, tabTo, until, type PageWatch, type TestBrowser } from '../support/browser.js';
import { assertAccessible, consoleScreenshot, useConsoleLanguage } from '../support/console.js';
import { startTestServer, type TestServer } from '../support/server.js';

const L = {
  ar: {
    signIn: 'تسجيل الدخول إلى حسابك',
    email: 'البريد الإلكتروني',
    password: 'كلمة المرور',
    emailRequired: 'أدخل بريدك الإلكتروني.',
    switchTo: 'English',
  },
  en: {
    signIn: 'Sign in to your account',
    email: 'Email',
    password: 'Password',
    emailRequired: 'Enter your email address.',
    switchTo: 'العربية',
  },
} as const;

describe('the console signed out, in Chromium', { timeout: 180_000 }, () => {
  let s: TestServer;
  let browser: TestBrowser;
  const open: { page: Page; watch: PageWatch }[] = [];

  before(async () => {
    ensureConsole();
    s = await startTestServer();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  async function visit(path: string, lang: 'ar' | 'en', viewport?: { width: number; height: number }) {
    await useConsoleLanguage(browser, s.url, lang);
    const tab = await browser.newPage(viewport);
    open.push(tab);
    await tab.page.goto(`${s.url}${path}`);
    await tab.page.locator('h1').first().waitFor();
    return tab;
  }

  for (const lang of ['ar', 'en'] as const) {
    test(`sign-in (${lang}): ${lang === 'ar' ? 'right to left' : 'left to right'}, labelled fields, axe-core clean`, async () => {
      const { page, watch } = await visit('/console/sign-in', lang);
      assert.equal(await page.locator('h1').textContent(), L[lang].signIn);
      assert.equal(await page.evaluate('document.documentElement.dir'), lang === 'ar' ? 'rtl' : 'ltr');
      await page.getByLabel(L[lang].email).waitFor();
      await page.getByLabel(L[lang].password).waitFor();
      assert.match(await page.title(), lang === 'ar' ? /توقيع/ : /Tawqi Console/);
      await assertAccessible(page, `sign-in (${lang})`);
      await consoleScreenshot(page, `sign-in-${lang}`);
      // A phone's width: the same card, nothing cut off.
      await page.setViewportSize({ width: 390, height: 800 });
      await consoleScreenshot(page, `sign-in-${lang}-phone`);
      watch.assertClean();
      await page.close();
    });
  }

  test('sign-in by keyboard alone: Tab order, an empty submit marks the fields and focuses the first, a bad email says why', async () => {
    const { page, watch } = await visit('/console/sign-in', 'en');
    const email = page.getByLabel('Email');
    const password = page.getByLabel('Password');
    const forgot = page.getByRole('link', { name: 'Forgot your password?' });
    const submit = page.getByRole('button', { name: 'Sign in' });
    await tabTo(page, email);
    await page.keyboard.press('Tab');
    assert.ok(await isFocused(password), 'Tab: email → password');
    await page.keyboard.press('Tab');
    assert.ok(await isFocused(forgot), 'password → the forgot-password link');
    await page.keyboard.press('Tab');
    assert.ok(await isFocused(submit), '→ the submit button');
    // The focus ring is visible (the page's :focus-visible outline, not the browser's none).
    const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
    assert.equal(outline, 'solid');

    await page.keyboard.press('Enter');
    await until('the focus on the first wrong field', () => isFocused(email));
    assert.equal(await email.getAttribute('aria-invalid'), 'true');
    assert.equal(await password.getAttribute('aria-invalid'), 'true');
    const describedBy = (await email.getAttribute('aria-describedby'))!.split(' ');
    const messages = await Promise.all(describedBy.map((id) => page.locator(`#${id}`).textContent()));
    assert.ok(messages.includes(L.en.emailRequired), `the error is tied to the field: ${messages}`);
    await assertAccessible(page, 'sign-in with errors (en)');
    await consoleScreenshot(page, 'sign-in-errors-en');

    await page.keyboard.type('not-an-email');
    await page.keyboard.press('Tab');
    await page.keyboard.type('secret password');
    await page.keyboard.press('Enter');
    await until('the email error', async () =>
      (await page.locator('.field-message.is-error').first().textContent())?.includes('name@example.com'),
    );
    assert.ok(await isFocused(email));
    assert.equal(await password.getAttribute('aria-invalid'), null, 'the password is fine now');
    watch.assertClean();
    await page.close();
  });

  test('the language switch: Arabic ⇄ English in place, the focus kept on the switch, remembered on the next visit', async () => {
    const { page, watch } = await visit('/console/sign-in', 'ar');
    assert.equal(await page.locator('h1').textContent(), L.ar.signIn);
    const toEnglish = page.getByRole('button', { name: 'English' });
    await tabTo(page, toEnglish);
    await page.keyboard.press('Enter');
    await until('English', async () => (await page.locator('h1').textContent()) === L.en.signIn);
    assert.equal(await page.evaluate('document.documentElement.lang'), 'en');
    assert.equal(await page.evaluate('document.documentElement.dir'), 'ltr');
    assert.ok(await isFocused(page.getByRole('button', { name: 'العربية' })), 'the focus stays on the switch');
    assert.match(await page.title(), /Tawqi Console/);

    await page.reload();
    await page.locator('h1').waitFor();
    assert.equal(await page.locator('h1').textContent(), L.en.signIn, 'remembered after a reload');
    assert.equal(await page.evaluate('document.documentElement.dir'), 'ltr');

    await page.getByRole('button', { name: 'العربية' }).click();
    await until('Arabic', async () => (await page.locator('h1').textContent()) === L.ar.signIn);
    assert.equal(await page.evaluate('document.documentElement.dir'), 'rtl');
    watch.assertClean();
    await page.close();
  });

  for (const lang of ['ar', 'en'] as const) {
    test(`forgot password, second factor, reset and invitation screens (${lang}): axe-core clean, screenshotted`, async () => {
      const screens: [string, string][] = [
        ['/console/forgot-password', 'forgot-password'],
        ['/console/sign-in/two-factor', 'two-factor'],
        ['/console/reset', 'reset-no-token'],
        ['/console/invite', 'invite-no-token'],
      ];
      for (const [path, name] of screens) {
        const { page, watch } = await visit(path, lang);
        await assertAccessible(page, `${name} (${lang})`);
        await consoleScreenshot(page, `${name}-${lang}`);
        watch.assertClean();
        await page.close();
      }
    });
  }

  test('a reset link: the token (in the fragment) leaves the address bar at once (no history entry), the form asks for the password twice', async () => {
    const { page, watch } = await visit('/console/reset#token=tok_reset_secret', 'en');
    await until('the clean address', () => page.url() === `${s.url}/console/reset`);
    assert.equal(await page.locator('h1').textContent(), 'Choose a new password');
    await page.getByLabel('New password').fill('short');
    await page.getByLabel('Confirm the password').fill('different');
    await page.getByRole('button', { name: 'Save the new password' }).click();
    await until('the focus on the password', () => isFocused(page.getByLabel('New password')));
    assert.match((await page.locator('.field-message.is-error').allTextContents()).join(' '), /at least 10 characters.*do not match/);
    await assertAccessible(page, 'reset (en)');
    await consoleScreenshot(page, 'reset-en');
    // The language switch keeps the token read at first (the address no longer has it).
    await page.getByRole('button', { name: 'العربية' }).click();
    await until('Arabic', async () => (await page.locator('h1').textContent()) === 'اختر كلمة مرور جديدة');
    await consoleScreenshot(page, 'reset-ar');
    // Replaced, not pushed: Back leaves the console rather than returning to the address with the token.
    await page.goBack();
    assert.equal(page.url(), 'about:blank');
    watch.assertClean();
    await page.close();
  });

  test('reset and invitation links, new (#token=) and older (?token=): the screen uses the token and the address is clean at once', async () => {
    for (const [screen, link] of [
      ['reset', '#token=tok_reset_fragment'],
      ['reset', '?token=tok_reset_query'],
      ['invite', '#token=tok_invite_fragment'],
      ['invite', '?token=tok_invite_query'],
    ] as const) {
      const token = link.slice('#token='.length);
      await useConsoleLanguage(browser, s.url, 'en');
      const tab = await browser.newPage();
      open.push(tab);
      const { page } = tab;
      const invitation = screen === 'invite' ? page.waitForRequest((r) => r.url().endsWith('/console/api/invitations/lookup')) : null;
      await page.goto(`${s.url}/console/${screen}${link}`);
      await until(`the clean address of ${link}`, () => page.url() === `${s.url}/console/${screen}`);
      if (screen === 'reset') {
        // The form (not the invalid-link screen), and the token it holds is the one of the link.
        await page.locator('h1').first().waitFor();
        assert.equal(await page.locator('h1').textContent(), 'Choose a new password', link);
        await page.getByLabel('New password').fill('a long enough passphrase');
        await page.getByLabel('Confirm the password').fill('a long enough passphrase');
        const sent = page.waitForRequest((r) => r.url().endsWith('/console/api/password_reset/confirm'));
        await page.getByRole('button', { name: 'Save the new password' }).click();
        assert.equal(JSON.parse((await sent).postData() ?? '{}').token, token, link);
      } else {
        // Looked up with the token in the body: no address the server or a proxy logs carries it.
        assert.equal(JSON.parse((await invitation!).postData() ?? '{}').token, token, link);
      }
      await page.close();
    }
  });

  test('the second factor: switching to a recovery code and back by keyboard moves the focus to the new field', async () => {
    const { page, watch } = await visit('/console/sign-in/two-factor', 'en');
    const code = page.getByLabel('Authentication code');
    assert.equal(await code.getAttribute('autocomplete'), 'one-time-code');
    assert.equal(await code.getAttribute('inputmode'), 'numeric');
    const toRecovery = page.getByRole('button', { name: 'Use a recovery code instead' });
    await tabTo(page, toRecovery);
    await page.keyboard.press('Enter');
    await until('the recovery field focused', () => isFocused(page.getByLabel('Recovery code')));
    await page.keyboard.press('Enter');
    await until('the error', async () => (await page.getByLabel('Recovery code').getAttribute('aria-invalid')) === 'true');
    await tabTo(page, page.getByRole('button', { name: 'Use your authenticator app instead' }));
    await page.keyboard.press('Enter');
    await until('the code field focused', () => isFocused(page.getByLabel('Authentication code')));
    watch.assertClean();
    await page.close();
  });
});
