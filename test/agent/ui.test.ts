/**
 * The Electron shell's windows (agent/ui/*.html) opened in real Chromium (playwright-core, Debian's
 * /usr/bin/chromium, fresh profile), with the preload bridge replaced by a recording fake: what the
 * user sees before consenting and before typing the PIN, and what goes back to the agent.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { PREVIEW_PNG } from './helpers.js';

const UI = fileURLToPath(new URL('../../agent/ui/', import.meta.url));
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

let profile: string;
let context: BrowserContext;

before(async () => {
  profile = mkdtempSync(path.join(tmpdir(), 'tawqi-agent-ui-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.TAWQI_CHROMIUM ?? '/usr/bin/chromium',
    args: ARGS,
    headless: true,
  });
});
after(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const pin = (over: Record<string, unknown> = {}) => ({
  count_low: false,
  final_try: false,
  locked: false,
  pin_pad: false,
  retries: 'ok',
  ...over,
});
const certificate = (pinState = pin()) => ({
  cert_sha256: 'ab'.repeat(32),
  name: 'Test Signer RSA',
  issuer: 'CN=Tawqi Test Issuing CA, O=Tawqi Tests',
  not_after: 1_900_000_000,
  token: { label: 'Tawqi Test Token', manufacturer: 'SoftHSM project', model: 'SoftHSM v2', pin: pinState },
});
const consentRequest = (over: Record<string, unknown> = {}) => ({
  lang: 'en',
  origin: 'https://sign.example.com',
  serverKeyFingerprint: '0123456789abcdef'.repeat(4),
  title: 'Lease agreement',
  pages: 3,
  requestId: 'sr_123',
  signerId: 'sgr_456',
  digest: 'cd'.repeat(32),
  expiresAt: 1_900_000_000,
  certificate: certificate(),
  preview: { ok: true, contentType: 'image/png', base64: PREVIEW_PNG.toString('base64') },
  ...over,
});

/** Opens a window with a fake `window.tawqiAgent`; `answers()` returns what it sent back. */
async function open(
  file: string,
  request: unknown,
  extra = '',
): Promise<{ page: Page; answers: () => Promise<unknown[]>; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  // A string, not a function: tsx's transform would leave helpers in a serialized function.
  await page.addInitScript(`
    window.__answers = [];
    window.tawqiAgent = {
      getRequest: () => Promise.resolve(${JSON.stringify(request)}),
      answer: (v) => window.__answers.push(v),
    };
    ${extra}
  `);
  await page.goto(pathToFileURL(path.join(UI, file)).href);
  return { page, answers: () => page.evaluate('window.__answers') as Promise<unknown[]>, problems };
}

const field = (page: Page, key: string) => page.locator(`[data-field="${key}"]`).textContent();

describe('agent windows in Chromium', () => {
  test('consent shows document, first page, server, key, certificate, token and digest; Sign answers true', async () => {
    const { page, answers, problems } = await open('consent.html', consentRequest());
    await page.locator('#sign').waitFor();
    assert.equal(await field(page, 'title'), 'Lease agreement — 3 pages');
    assert.equal(await field(page, 'origin'), 'https://sign.example.com');
    assert.equal(await field(page, 'fingerprint'), '0123 4567 89ab cdef '.repeat(4).trim());
    assert.equal(await field(page, 'certificate'), 'Test Signer RSA');
    assert.equal(await field(page, 'digest'), 'cd'.repeat(32));
    assert.match((await field(page, 'token')) ?? '', /Tawqi Test Token/);
    await page.locator('#preview-image').waitFor();
    assert.equal(
      await page.evaluate("(() => { const i = document.getElementById('preview-image'); return i.complete && i.naturalWidth; })()"),
      1,
      'the preview PNG rendered',
    );
    assert.equal(await page.locator('#pin-state').isHidden(), true);
    assert.deepEqual(await answers(), [], 'nothing answered before a click');
    await page.locator('#sign').click();
    assert.deepEqual(await answers(), [true]);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('consent: a missing preview is a warning; a locked PIN disables signing; Escape cancels; Arabic is RTL', async () => {
    const { page, answers, problems } = await open(
      'consent.html',
      consentRequest({
        lang: 'ar',
        preview: { ok: false, reason: 'the server answered 404' },
        certificate: certificate(pin({ locked: true, retries: 'locked' })),
      }),
    );
    await page.locator('#preview-warning').waitFor();
    assert.match((await page.locator('#preview-warning').textContent()) ?? '', /404/);
    assert.equal(await page.evaluate('document.documentElement.dir'), 'rtl');
    assert.equal(await page.locator('#sign').isDisabled(), true);
    assert.match((await page.locator('#pin-state').getAttribute('class')) ?? '', /danger/);
    await page.keyboard.press('Escape');
    assert.deepEqual(await answers(), [false]);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('PIN: the retry state is shown before typing; the PIN goes to the agent and the field is cleared', async () => {
    const request = {
      lang: 'en',
      origin: 'https://sign.example.com',
      title: 'Lease agreement',
      certificate: certificate(),
      token: certificate().token,
      pin: pin({ count_low: true, retries: 'low' }),
    };
    const { page, answers, problems } = await open('pin.html', request);
    const state = page.locator('#pin-state');
    await state.waitFor();
    assert.equal(await state.getAttribute('data-retries'), 'low');
    assert.match((await state.textContent()) ?? '', /few tries/);
    assert.equal(await page.evaluate('document.activeElement && document.activeElement.id'), 'pin', 'focused, ready to type');
    await page.locator('#pin').fill('123456');
    await page.locator('#pin').press('Enter');
    assert.deepEqual(await answers(), [{ pin: '123456' }]);
    assert.equal(await page.locator('#pin').inputValue(), '');
    assert.deepEqual(problems, []);
    await page.close();

    const last = await open('pin.html', { ...request, pin: pin({ count_low: true, final_try: true, retries: 'final_try' }) });
    await last.page.locator('#pin-state').waitFor();
    assert.match((await last.page.locator('#pin-state').textContent()) ?? '', /Last try/);
    await last.page.locator('#cancel').click();
    assert.deepEqual(await last.answers(), [null]);
    await last.page.close();
  });

  test('PIN pad: no PIN field, the user is told to type on the reader', async () => {
    const { page } = await open('pin.html', {
      lang: 'en',
      origin: 'o',
      title: 't',
      certificate: certificate(),
      token: certificate().token,
      pin: pin({ pin_pad: true }),
    });
    await page.locator('#pin-state').waitFor();
    assert.match((await page.locator('#pin-state').textContent()) ?? '', /PIN pad/);
    assert.equal(await page.locator('#pin').isHidden(), true);
    await page.close();
  });

  test('trust: fetch the key, compare the fingerprint, trust explicitly; remove again', async () => {
    const fingerprint = 'fe'.repeat(32);
    const fake = `
      const w = window; const servers = []; w.__calls = [];
      Object.assign(w.tawqiAgent, {
        listTrusted: () => Promise.resolve(servers.slice()),
        fetchKey: (origin) => { w.__calls.push(['fetch', origin]); return Promise.resolve(origin.startsWith('https://') ? { origin: new URL(origin).origin, fingerprint: ${JSON.stringify(fingerprint)} } : { error: 'a server origin must use https' }); },
        trust: (origin, fp) => { w.__calls.push(['trust', origin, fp]); servers.push({ origin, fingerprint: fp }); return Promise.resolve({ ok: true }); },
        remove: (origin) => { w.__calls.push(['remove', origin]); servers.splice(servers.findIndex((s) => s.origin === origin), 1); return Promise.resolve({ ok: true }); },
      });`;
    const { page, problems } = await open('trust.html', { lang: 'en' }, fake);
    const calls = () => page.evaluate('window.__calls') as Promise<unknown[]>;
    await page.locator('#none').waitFor();
    await page.locator('#origin').fill('http://sign.example.com');
    await page.locator('#fetch').click();
    await page.locator('#error').waitFor();
    await page.locator('#origin').fill('https://sign.example.com/sign/abc');
    await page.locator('#fetch').click();
    await page.locator('#confirm').waitFor();
    assert.equal(await page.locator('#confirm-origin').textContent(), 'https://sign.example.com');
    assert.equal(await page.locator('#confirm-fingerprint').textContent(), 'fefe '.repeat(16).trim());
    assert.equal(
      (await calls()).some((c) => (c as string[])[0] === 'trust'),
      false,
      'not trusted before the click',
    );
    await page.locator('#confirm-trust').click();
    await page.locator('li[data-origin="https://sign.example.com"]').waitFor();
    assert.deepEqual((await calls()).at(-1), ['trust', 'https://sign.example.com', fingerprint]);
    await page.locator('li[data-origin="https://sign.example.com"] button').click();
    await page.locator('#none').waitFor();
    assert.deepEqual((await calls()).at(-1), ['remove', 'https://sign.example.com']);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
