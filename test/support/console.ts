/**
 * Console tests in Chromium (test/console/): open a console page in a chosen language, run axe-core
 * on it (failing on any serious or critical violation), and keep screenshots of each screen in
 * test-artifacts/console/ (git-ignored) for a person to look at.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { TestBrowser } from './browser.js';

export const CONSOLE_ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/console/', import.meta.url));

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}

/**
 * axe-core's WCAG 2.x A/AA and best-practice rules on the page (injected through the debugging
 * protocol, so the page's CSP does not apply); fails on a serious or critical violation.
 */
export async function assertAccessible(page: Page, label: string): Promise<void> {
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(AXE_TAGS)} } })`)) as AxeResult;
  const serious = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  assert.deepEqual(serious, [], `axe-core on ${label}`);
}

/** Save the whole page as test-artifacts/console/<name>.png. */
export async function consoleScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(CONSOLE_ARTIFACTS, { recursive: true });
  const file = path.join(CONSOLE_ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
  return file;
}

/** The console language for the next page loads of this browser (the cookie the language switch sets). */
export async function useConsoleLanguage(browser: TestBrowser, baseUrl: string, lang: 'ar' | 'en'): Promise<void> {
  // The path the switch itself uses (Path=/console), so this replaces the switch's cookie rather than adding a second one.
  const domain = new URL(baseUrl).hostname;
  await browser.context.addCookies([{ name: 'tawqi_console_lang', value: lang, domain, path: '/console', sameSite: 'Lax' }]);
}

/** The page reads in `lang`'s direction, axe-core finds nothing serious on it, and it is kept as `<name>-<lang>.png`. */
export async function checkConsolePage(page: Page, name: string, lang: 'ar' | 'en'): Promise<void> {
  assert.equal(await page.evaluate('document.documentElement.dir'), lang === 'ar' ? 'rtl' : 'ltr');
  await assertAccessible(page, `${name} (${lang})`);
  await consoleScreenshot(page, `${name}-${lang}`);
}
