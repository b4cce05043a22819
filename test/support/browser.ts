/**
 * Real Chromium for end-to-end tests (playwright-core driving Debian's /usr/bin/chromium): one
 * browser per test file with a fresh user-data-dir, pages that record every console error, uncaught
 * page error and Content-Security-Policy violation (tests fail on any they did not expect), and
 * screenshots saved under test-artifacts/e2e/ (git-ignored).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Frame, type Locator, type Page, type Route } from 'playwright-core';

export const CHROMIUM_PATH = process.env.TAWQI_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS_DIR = fileURLToPath(new URL('../../test-artifacts/e2e/', import.meta.url));
/**
 * Every wait in the e2e tests is bounded by this (or less). A bound, not a sleep: 10 s was passed
 * once on a 2-core machine at load 50 (the qes page's "agent not running" after its port probes).
 */
export const WAIT_MS = 20_000;

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The name of the binding the init script reports CSP violations through. */
const CSP_BINDING = '__tawqiCspViolation';

/**
 * Runs in every frame before the page's own scripts (CDP injection, not subject to the page's CSP):
 * forwards each `securitypolicyviolation` event to the test.
 */
const CSP_LISTENER = `(() => {
  const report = globalThis[${JSON.stringify(CSP_BINDING)}];
  if (typeof report !== 'function') return;
  document.addEventListener('securitypolicyviolation', (e) => {
    report(JSON.stringify({ directive: e.effectiveDirective || e.violatedDirective, blocked: e.blockedURI, source: e.sourceFile, line: e.lineNumber, document: e.documentURI }));
  }, true);
})();`;

export interface Problem {
  kind: 'console' | 'pageerror' | 'csp';
  text: string;
  url: string;
}

/** What went wrong on one page (all its frames): console errors, uncaught errors, CSP violations. */
export class PageWatch {
  readonly problems: Problem[] = [];
  private readonly expected: RegExp[] = [];

  constructor(readonly page: Page) {
    page.on('console', (msg) => {
      if (msg.type() !== 'error') return;
      const loc = msg.location();
      // The browser's own favicon probe (no page asked for it): a missing /favicon.ico is not the page's error.
      if (/^https?:\/\/[^/]+\/favicon\.ico$/.test(loc.url)) return;
      this.problems.push({ kind: 'console', text: msg.text(), url: loc.url ? `${loc.url}:${loc.lineNumber}` : page.url() });
    });
    page.on('pageerror', (err) => this.problems.push({ kind: 'pageerror', text: `${err.name}: ${err.message}`, url: page.url() }));
  }

  /** A problem this test causes on purpose (e.g. a frame refused by frame-ancestors); it must then happen. */
  expect(pattern: RegExp): void {
    this.expected.push(pattern);
  }

  /** Fail on any problem not expected, and on any expected problem that did not happen. */
  assertClean(label = this.page.url()): void {
    const unexpected = this.problems.filter((p) => !this.expected.some((re) => re.test(p.text)));
    assert.deepEqual(unexpected, [], `console errors, page errors or CSP violations on ${label}`);
    for (const re of this.expected)
      assert.ok(
        this.problems.some((p) => re.test(p.text)),
        `expected a browser report matching ${re} on ${label}`,
      );
  }
}

export interface TestBrowser {
  context: BrowserContext;
  userDataDir: string;
  /** A new tab (default 1280×800) whose problems are recorded; bounded default timeouts. */
  newPage(viewport?: { width: number; height: number }): Promise<{ page: Page; watch: PageWatch }>;
  close(): Promise<void>;
}

/** Launch Chromium headless with a fresh user-data-dir (removed on close); `javaScriptEnabled: false` for no-script paths. */
export async function launchBrowser(opts: { javaScriptEnabled?: boolean } = {}): Promise<TestBrowser> {
  assert.ok(existsSync(CHROMIUM_PATH), `Chromium not found at ${CHROMIUM_PATH} (apt-get install -y chromium, or set TAWQI_CHROMIUM)`);
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ARGS,
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
      timezoneId: 'UTC',
      timeout: 15_000,
      javaScriptEnabled: opts.javaScriptEnabled ?? true,
    });
  } catch (err) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw err;
  }
  const watches = new WeakMap<Page, PageWatch>();
  await context.exposeBinding(CSP_BINDING, (source, payload: string) => {
    const v = JSON.parse(payload) as { directive: string; blocked: string; source: string; line: number; document: string };
    watches.get(source.page)?.problems.push({
      kind: 'csp',
      text: `CSP ${v.directive} blocked ${v.blocked || '(inline)'} (${v.source}:${v.line})`,
      url: v.document,
    });
  });
  await context.addInitScript({ content: CSP_LISTENER });
  // The persistent context opens with one blank tab; close it so every page is the test's own.
  for (const p of context.pages()) await p.close();

  return {
    context,
    userDataDir,
    async newPage(viewport = { width: 1280, height: 800 }) {
      const page = await context.newPage();
      const watch = new PageWatch(page);
      watches.set(page, watch);
      page.setDefaultTimeout(WAIT_MS);
      page.setDefaultNavigationTimeout(WAIT_MS);
      await page.setViewportSize(viewport);
      return { page, watch };
    },
    async close() {
      try {
        await context.close();
      } finally {
        rmSync(userDataDir, { recursive: true, force: true });
      }
    },
  };
}

/** Save a screenshot to test-artifacts/e2e/<name>.png (the whole page, or one element). */
export async function screenshot(target: Page | Locator, name: string, opts: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  if ('goto' in target) await target.screenshot({ path: file, fullPage: opts.fullPage ?? true, animations: 'disabled' });
  else await target.screenshot({ path: file, animations: 'disabled' });
  return file;
}

/** Draw a signature-like stroke across an element (a canvas) with real mouse moves. */
export async function drawSignature(page: Page, canvas: Locator): Promise<void> {
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  assert.ok(box && box.width > 40 && box.height > 20, 'the signature pad has a size');
  const at = (fx: number, fy: number) => [box.x + box.width * fx, box.y + box.height * fy] as const;
  const strokes: [number, number][][] = [
    [
      [0.15, 0.6],
      [0.25, 0.3],
      [0.35, 0.65],
      [0.45, 0.35],
      [0.55, 0.6],
    ],
    [
      [0.6, 0.55],
      [0.7, 0.4],
      [0.8, 0.6],
      [0.88, 0.45],
    ],
  ];
  for (const stroke of strokes) {
    const [first, ...rest] = stroke;
    await page.mouse.move(...at(first![0], first![1]));
    await page.mouse.down();
    for (const [x, y] of rest) await page.mouse.move(...at(x, y), { steps: 6 });
    await page.mouse.up();
  }
}

/** Whether the element is the focused element of its document. */
export function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => el === el.ownerDocument.activeElement).catch(() => false);
}

/** Press Tab (Shift+Tab when `back`) until `target` has the focus; fails after `max` presses. */
export async function tabTo(page: Page, target: Locator, opts: { max?: number; back?: boolean } = {}): Promise<number> {
  const max = opts.max ?? 25;
  for (let i = 0; i <= max; i++) {
    if (await isFocused(target)) return i;
    await page.keyboard.press(opts.back ? 'Shift+Tab' : 'Tab');
  }
  assert.fail(`${target} not reached with ${max} Tab presses`);
}

/** Wait (bounded) until `check` holds; polls every 50 ms. */
export async function until<T>(what: string, check: () => T | Promise<T>, timeoutMs = WAIT_MS): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The frame an <iframe> element (by selector) holds, once attached. */
export async function frameOf(page: Page, selector: string): Promise<Frame> {
  const handle = await page.waitForSelector(selector, { state: 'attached' });
  const frame = await handle.contentFrame();
  assert.ok(frame, `no frame in ${selector}`);
  return frame;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2.x A/AA rules on the page (evaluated through the debugging protocol, so the page's CSP does not apply). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })`,
  )) as { violations: { id: string; nodes: { target: string[] }[] }[] };
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * axe on a page as a reader without JavaScript gets it. axe cannot run where JavaScript is off (the
 * debugging protocol's evaluation is off there too), so the page's HTML, as the server sent it to
 * that reader, is rendered in `page` (JavaScript on) at `origin`, its stylesheets applying, with its
 * <noscript> content shown and its scripts removed: what a no-script browser lays out.
 */
export async function axeViolationsWithoutScript(page: Page, origin: string, html: string): Promise<string[]> {
  const asWithoutScript = html.replace(/<\/?noscript>/g, '').replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '');
  const url = `${origin}/__no-script-render`;
  const render = (route: Route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: asWithoutScript });
  await page.route(url, render);
  try {
    await page.goto(url);
  } finally {
    await page.unroute(url, render);
  }
  return axeViolations(page);
}
