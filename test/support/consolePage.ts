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
  await page.waitForFunction('!document.querySelector(\'[aria-busy="true"]\')');
}
