/**
 * Driving the console in Chromium: sign in through the sign-in screen (in English) and choose the
 * live/test mode with the layout's switch; open a console path in a language and wait until it
 * has loaded (no `aria-busy` left).
 */
import type { Page } from 'playwright-core';
import type { TestBrowser } from './browser.js';
import { useConsoleLanguage } from './console.js';
import { TEST_PASSWORD } from './consoleClient.js';

export async function signInPage(
  browser: TestBrowser,
  page: Page,
  baseUrl: string,
  email: string,
  mode: 'test' | 'live' = 'test',
): Promise<void> {
  await useConsoleLanguage(browser, baseUrl, 'en');
  await page.goto(`${baseUrl}/console/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.console-main').waitFor();
  await setMode(page, mode);
}

/** The layout's live/test switch (kept in localStorage for the next loads); aria-checked = test mode. */
export async function setMode(page: Page, mode: 'test' | 'live'): Promise<void> {
  const toggle = page.getByRole('switch');
  if ((await toggle.getAttribute('aria-checked')) !== String(mode === 'test')) await toggle.click();
}

export async function visitConsole(
  browser: TestBrowser,
  page: Page,
  baseUrl: string,
  path: string,
  lang: 'ar' | 'en',
  ready: string,
): Promise<void> {
  await useConsoleLanguage(browser, baseUrl, lang);
  await page.goto(`${baseUrl}${path}`);
  await page.locator(ready).first().waitFor();
  await loaded(page);
}

/**
 * Until no part of the screen is loading (`aria-busy`). A locator, not waitForFunction with a
 * string: that is evaluated with eval in the page, which the console's CSP refuses when it polls.
 */
export async function loaded(page: Page): Promise<void> {
  await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
}
