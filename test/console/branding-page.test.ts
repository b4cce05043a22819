/**
 * The console's Branding screen in real Chromium against a real server (issue 16 point 2): the owner
 * fills the form by keyboard (name, colours, welcome texts, custom domain) and uploads a real PNG; the
 * live preview — the real signing page bundle in two frames, Arabic and English — shows the draft
 * before anything is saved; a light sign button colour shows its contrast ratio as it is typed and
 * the server's refusal lands on the field; after saving, the DNS record and its state (a real DNS
 * server on 127.0.0.1) are shown, and a real signing link of a request of that account carries the
 * branding. A Starter account is told why and how to upgrade; a developer has no access. axe-core
 * and screenshots in Arabic and English, of the preview too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import type { Frame, Locator, Page } from 'playwright-core';
import { ensureConsole } from '../support/bundles.js';
import { frameOf, isFocused, launchBrowser, tabTo, until, type PageWatch, type TestBrowser } from '../support/browser.js';
import { checkConsolePage, consoleScreenshot } from '../support/console.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { signInPage, visitConsole } from '../support/consolePage.js';
import { DnsPeer } from '../support/dnsPeer.js';
import { NDA_FIELDS } from '../support/ndaFields.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PAGE = '/console/branding';
const WELCOME_AR = 'أهلًا بكم في Acme';
const WELCOME_EN = 'Welcome to Acme Legal';

describe('the console Branding screen, in Chromium', { timeout: 300_000 }, () => {
  let s: TestServer;
  let dns: DnsPeer;
  let browser: TestBrowser;
  let tab: { page: Page; watch: PageWatch };
  let accountId: string;
  let key: string;
  const owner = 'owner.brand@acme.test';
  const developer = 'dev.brand@acme.test';
  const starterOwner = 'owner.brand@small.test';

  const visit = (lang: 'ar' | 'en', ready = '.bp-form') => visitConsole(browser, tab.page, s.url, PAGE, lang, ready);
  /** A preview frame once the page inside has rendered its sample request. */
  const previewFrame = async (lang: 'ar' | 'en'): Promise<Frame> => {
    const frame = await frameOf(tab.page, `iframe.bp-frame-${lang}`);
    await frame.locator('main .card').first().waitFor();
    return frame;
  };
  const cssVar = (frame: Frame | Page, name: string) =>
    frame.evaluate(`getComputedStyle(document.documentElement).getPropertyValue(${JSON.stringify(name)}).trim()`);
  /** The image has loaded and is the test's 96-pixel-wide PNG. */
  const loadedLogo = (img: Locator) =>
    img.evaluate((el) => {
      const i = el as unknown as { complete: boolean; naturalWidth: number };
      return i.complete && i.naturalWidth === 96;
    });
  /** Focus a form field by Tab from the page heading, and type into it (after clearing it). */
  const typeInto = async (label: string, text: string) => {
    const { page } = tab;
    const input = page.getByRole('textbox', { name: label, exact: true });
    await page.getByRole('heading', { level: 1 }).focus();
    await tabTo(page, input, { max: 80 });
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(text);
  };

  before(async () => {
    ensureConsole();
    dns = await DnsPeer.start({ 'sign.acme.example': { a: ['127.0.0.1'] } });
    s = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_DNS_SERVERS: dns.server });
    const a = await s.account({ name: 'Acme', ownerEmail: owner });
    accountId = a.id;
    key = a.keys.secret_test;
    await consoleUser(s, a.id, owner, 'owner');
    await consoleUser(s, a.id, developer, 'developer');
    const small = await s.account({ name: 'Small Co', ownerEmail: starterOwner, plan: 'starter' });
    await consoleUser(s, small.id, starterOwner, 'owner');
    browser = await launchBrowser();
    tab = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    await dns?.close();
  });

  test('by keyboard: the preview follows the draft in both languages before saving; a light colour is refused with its ratio; saved; the DNS record and its state', async () => {
    const { page } = tab;
    await signInPage(browser, page, s.url, owner);
    await visit('en');
    const [ar, en] = [await previewFrame('ar'), await previewFrame('en')];
    assert.equal(await ar.evaluate('document.documentElement.dir'), 'rtl');
    assert.equal(await en.evaluate('document.documentElement.dir'), 'ltr');
    // Nothing set yet: the page's own name, no welcome text.
    assert.equal((await en.locator('.brand-name').textContent())?.trim(), 'Tawqi');
    assert.equal(await en.locator('.welcome').isHidden(), true);

    await typeInto('Brand name', 'Acme Legal');
    await typeInto('Brand colour', '#0A7D3B');
    await typeInto('Sign button colour', '#777777');
    const contrast = page.locator('.bp-contrast');
    assert.equal(
      await contrast.textContent(),
      'Too light: the white text has a contrast of 4.48:1; at least 4.5:1 is needed. Choose a darker colour.',
    );
    await typeInto('Welcome text in Arabic', WELCOME_AR);
    await typeInto('Welcome text in English', WELCOME_EN);
    assert.equal(await page.locator('.bp-counter').nth(1).textContent(), `${WELCOME_EN.length} of 240 characters`);

    // The logo: a real PNG made here, checked and stored at once.
    await page.getByLabel('Upload a logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: logoPng() });
    await page.getByRole('status').filter({ hasText: 'Logo uploaded and saved.' }).waitFor();
    const stored = page.locator('img.bp-logo');
    await until('the stored logo shown', () => loadedLogo(stored));
    const logoUrl = await page.getByRole('textbox', { name: 'Logo address', exact: true }).inputValue();
    assert.match(logoUrl, /^\/branding\/logos\/acct_\w+-[0-9a-f]{64}\.png$/);

    // Both previews show the draft, which is not saved.
    for (const [frame, welcome] of [
      [ar, WELCOME_AR],
      [en, WELCOME_EN],
    ] as const) {
      await until('the preview shows the draft', async () => (await frame.locator('.brand-name').textContent())?.trim() === 'Acme Legal');
      assert.equal(await frame.locator('.welcome').textContent(), welcome);
      assert.equal(await cssVar(frame, '--brand'), '#0A7D3B');
      assert.equal(await cssVar(frame, '--button'), '#777777');
      const sign = await frame.evaluate(`getComputedStyle(document.querySelector('main .btn-primary')).backgroundColor`);
      assert.equal(sign, 'rgb(119, 119, 119)', 'the primary button in the button colour');
      const logo = frame.locator('img.logo');
      assert.equal(new URL((await logo.getAttribute('src'))!).pathname, logoUrl);
      await until('the preview logo loaded', () => loadedLogo(logo));
    }
    const api = new ConsoleClient(s.url);
    assert.equal((await api.signIn(owner, TEST_PASSWORD)).status, 200);
    const before = (await api.call('GET', '/branding')).body.branding;
    assert.deepEqual(Object.keys(before), ['logo_url'], 'only the uploaded logo is saved so far');

    // Save: the server refuses the light colour, on its field, with the ratio and the minimum.
    tab.watch.expect(/responded with a status of 400/);
    await page.getByRole('button', { name: 'Save branding' }).focus();
    await page.keyboard.press('Enter');
    const buttonColor = page.getByRole('textbox', { name: 'Sign button colour', exact: true });
    await until('the refusal on the field', async () => (await buttonColor.getAttribute('aria-invalid')) === 'true');
    assert.ok(await isFocused(buttonColor), 'the refused field has the focus');
    const fieldMessage = page.locator('.field-message.is-error');
    assert.match((await fieldMessage.textContent()) ?? '', /contrast ratio of 4\.48:1; WCAG AA needs at least 4\.5:1/);
    await checkConsolePage(page, 'branding-refused', 'en');

    await typeInto('Sign button colour', '#1a237e');
    assert.match((await contrast.textContent()) ?? '', /^Contrast of the white text: 13\.\d+:1 \(at least 4\.5:1 needed\): readable\.$/);
    await typeInto('Custom domain', 'sign.acme.example');
    const hide = page.getByLabel('Hide “Powered by Tawqi” on the signing page and in emails');
    await tabTo(page, hide, { max: 10 });
    await page.keyboard.press('Space');
    await until('the preview hides Powered by', async () => (await en.locator('footer.footer').textContent()) === '');
    await tabTo(page, page.getByRole('button', { name: 'Save branding' }), { max: 5 });
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Branding saved.' }).waitFor();
    assert.equal(await buttonColor.getAttribute('aria-invalid'), null);
    const saved = (await api.call('GET', '/branding')).body.branding;
    assert.deepEqual(saved, {
      brand_name: 'Acme Legal',
      logo_url: logoUrl,
      brand_color: '#0a7d3b',
      sign_button_color: '#1a237e',
      custom_domain: 'sign.acme.example',
      hide_powered: true,
      sign_welcome_ar: WELCOME_AR,
      sign_welcome_en: WELCOME_EN,
    });

    // The custom domain: the record to create, and that it resolves here (the DNS peer says 127.0.0.1).
    const dnsRows = page.locator('.bp-dns dd');
    await dnsRows.first().waitFor();
    assert.deepEqual(await dnsRows.locator('code').allTextContents(), ['A', 'sign.acme.example', '127.0.0.1']);
    const state = page.locator('.bp-dns-state');
    await state.waitFor();
    assert.equal(await state.getAttribute('data-state'), 'points_here');
    assert.equal(await state.textContent(), 'sign.acme.example points to this server: signing links can use it.');
    await page.getByRole('button', { name: 'Check again' }).click();
    await state.waitFor();
    await page.getByRole('button', { name: 'Copy the Value' }).waitFor();

    for (const lang of ['en', 'ar'] as const) {
      await visit(lang);
      const frame = await previewFrame(lang);
      await until(
        'the preview has the saved branding',
        async () => (await frame.locator('.brand-name').textContent())?.trim() === 'Acme Legal',
      );
      await page.locator('.bp-dns-state').waitFor();
      await checkConsolePage(page, 'branding', lang);
      await consoleScreenshot(page, `branding-preview-frames-${lang}`);
    }
    tab.watch.assertClean('the branding screen');
  });

  test('the preview page: the real shell with no page token, framed by this origin only; checked on its own', async () => {
    const res = await fetch(`${s.url}/sign/preview?lang=en`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'self'$/);
    const html = await res.text();
    assert.doesNotMatch(html, /tawqi-page-token/);
    assert.match(html, /<meta name="tawqi-preview" content="branding">/);
    assert.match(html, /<script type="module" src="\/sign\/assets\/app\.js"><\/script>/, 'the real page bundle');
    const { page } = tab;
    for (const lang of ['ar', 'en'] as const) {
      await page.goto(`${s.url}/sign/preview?lang=${lang}`);
      await page.locator('main .card').first().waitFor();
      assert.equal(await page.evaluate('document.querySelector("main").inert'), true, 'nothing in the preview can act');
      await checkConsolePage(page, 'branding-preview-page', lang);
    }
  });

  test('a real signing link of a request of that account shows the branding: logo, name, colours, welcome text', async () => {
    const created = await s.call('POST', '/signature_requests', {
      key,
      body: {
        title: 'Branded contract',
        language: 'en',
        source: { type: 'template', template_id: 'tpl_nda_ar' },
        signers: [{ name: 'Sara Ahmed', email: owner, fields: NDA_FIELDS }],
      },
    });
    assert.equal(created.status, 201, created.text);
    const signer = await browser.newPage();
    try {
      const { page } = signer;
      await page.goto(created.body.signers[0].signing_url);
      await page.locator('.brand-name').waitFor();
      assert.equal((await page.locator('.brand-name').textContent())?.trim(), 'Acme Legal');
      assert.equal(await page.locator('.welcome').textContent(), WELCOME_EN);
      const logo = page.locator('header img.logo');
      await until('the logo loaded', () => loadedLogo(logo));
      assert.match((await logo.getAttribute('src')) ?? '', /\/branding\/logos\/acct_\w+-[0-9a-f]{64}\.png$/);
      assert.equal(await logo.getAttribute('alt'), 'Acme Legal logo');
      assert.equal(await cssVar(page, '--brand'), '#0a7d3b');
      assert.equal(await cssVar(page, '--button'), '#1a237e');
      assert.equal(await page.locator('footer.footer').textContent(), '', 'Powered by Tawqi is hidden');
      await consoleScreenshot(page, 'branding-signing-link-en');
      signer.watch.assertClean('the signing link');
    } finally {
      await signer.page.close();
    }
    assert.ok(accountId);
  });

  test('a Starter account is told why branding is not there and how to upgrade', async () => {
    const { page } = tab;
    await signInPage(browser, page, s.url, starterOwner);
    for (const lang of ['en', 'ar'] as const) {
      await visit(lang, '.bp-upgrade');
      assert.equal(await page.locator('.bp-form').count(), 0);
      assert.equal(await page.locator('iframe').count(), 0);
      const link = page.locator('.bp-upgrade a.btn');
      assert.match((await link.getAttribute('href')) ?? '', /\/billing$/);
      assert.match((await link.textContent()) ?? '', /business/);
      await checkConsolePage(page, 'branding-upgrade', lang);
    }
    assert.match((await page.locator('.bp-upgrade .notice').textContent()) ?? '', /[\u0600-\u06FF]/, 'the server’s reason in Arabic');
  });

  test('a developer has no Branding link and the page refuses', async () => {
    const { page } = tab;
    await signInPage(browser, page, s.url, developer);
    await visit('en', '.empty');
    assert.equal(await page.getByRole('link', { name: 'Branding' }).count(), 0, 'no nav link without branding.manage');
    assert.equal(await page.locator('.bp-form').count(), 0);
    assert.equal(await page.locator('iframe').count(), 0);
    const api = new ConsoleClient(s.url, 'en');
    assert.equal((await api.signIn(developer, TEST_PASSWORD)).status, 200);
    const refused = await api.call('GET', '/branding');
    assert.equal(refused.status, 403, refused.text);
    assert.equal((await page.locator('.empty p').textContent())?.trim(), refused.body.error.message);
  });
});

/** A real 96×48 PNG made here (a green bar with a white square, RGB), as a user's logo file. */
function logoPng(): Buffer {
  const [w, hgt] = [96, 48];
  const rows: Buffer[] = [];
  for (let y = 0; y < hgt; y++) {
    const row = Buffer.alloc(1 + w * 3);
    for (let x = 0; x < w; x++) {
      const white = x > 12 && x < 36 && y > 12 && y < 36;
      row.set(white ? [255, 255, 255] : [10, 125, 59], 1 + x * 3);
    }
    rows.push(row);
  }
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(hgt, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
