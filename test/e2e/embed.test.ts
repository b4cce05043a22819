/**
 * @tawqi/embed in a real browser (playwright-core driving Debian's Chromium). A partner's site on
 * another origin (http://localhost:<port>; the server is on http://127.0.0.1:<port>) loads the
 * library from the server — the single script at /embed/v1.js, or the module at /embed/v1.mjs —
 * mounts signing sessions created with a secret key, and records the library's events. The signer
 * signs or declines inside the frame; the parent must see viewed → signed (or declined) with the
 * right ids, the frame sized to the page's reported heights, and nothing from a forger: a frame of
 * another origin, the page itself, or another Tawqi frame on the same page. An origin the account
 * does not allow cannot frame a session at all.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { updateAccount } from '../../server/src/store/accounts.js';
import { drawSignature, frameOf, launchBrowser, screenshot, until, type PageWatch, type TestBrowser } from '../support/browser.js';
import { ensureEmbedLibrary, ensureSigningPage } from '../support/bundles.js';
import { PAGE_LABELS } from '../support/pageLabels.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { lastOtp } from '../support/signing.js';

/** What the test's in-page functions touch (the tests are typechecked without the DOM library). */
interface PageGlobals {
  parent: { postMessage(message: unknown, target: string): void };
  postMessage(message: unknown, target: string): void;
  document: { body: { getBoundingClientRect(): { height: number } }; querySelectorAll(selector: string): { length: number } };
  mounted: { on(name: string, handler: (e: unknown) => void): () => void; destroy(): void }[];
  extra: string[];
  lib: { mount(options: object): unknown };
}

const L = PAGE_LABELS.en;

const TEAM = ['owner@example.com', 'amira@example.com', 'bassem@example.com'] as const;

/** A message a forger posts to the partner's page, shaped like the signing page's. */
const FORGED = { type: 'svc:signed', signature_request: 'sr_forged', signer: 'sgr_forged' };

const json = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

/**
 * The partner's site. GET /portal?lib=iife|esm&tawqi=<origin>&url=<signing_url>[&url=…] loads the
 * library from the Tawqi server, mounts each session in its own slot, and records every event the
 * library gives (window.events) and every message the window received (window.raw); it also holds
 * a frame from /forger, served from another origin (127.0.0.1), that the test makes post forgeries.
 */
async function startPartnerSite(): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://partner');
    res.setHeader('cache-control', 'no-store');
    if (url.pathname === '/forger') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><meta charset="utf-8"><title>Ad</title><p>Advert</p>');
      return;
    }
    if (url.pathname !== '/portal') {
      res.writeHead(404).end();
      return;
    }
    const tawqi = url.searchParams.get('tawqi') ?? '';
    const forger = `http://127.0.0.1:${(server.address() as AddressInfo).port}/forger`;
    const load =
      url.searchParams.get('lib') === 'esm'
        ? `<script type="module">import * as lib from ${json(`${tawqi}/embed/v1.mjs`)}; start(lib);</script>`
        : `<script src="${tawqi}/embed/v1.js"></script><script>start(TawqiEmbed);</script>`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme partner portal</title><link rel="icon" href="data:,">
<style>
  body { margin: 0; font-family: sans-serif; background: #eef1f4; }
  header { padding: 12px 20px; background: #17324d; color: #fff; font-size: 18px; }
  #slots { display: flex; gap: 16px; padding: 16px; align-items: flex-start; }
  .slot { flex: 1; background: #fff; border: 1px solid #c9d1d9; border-radius: 8px; overflow: hidden; }
  #ad { width: 160px; height: 60px; border: 1px dashed #999; }
</style></head>
<body>
<header>Acme partner portal: sign your contract</header>
<div id="slots"></div>
<iframe id="ad" title="Advert" src="${forger}"></iframe>
<script type="application/json" id="sessions">${json(url.searchParams.getAll('url'))}</script>
<script>
  window.events = [];
  window.raw = [];
  window.mounted = [];
  addEventListener('message', (e) => window.raw.push({ origin: e.origin, type: e.data && e.data.type }));
  function start(lib) {
    window.lib = lib;
    JSON.parse(document.getElementById('sessions').textContent).forEach((url, i) => {
      const slot = document.createElement('div');
      slot.className = 'slot';
      document.getElementById('slots').append(slot);
      const record = (e) => window.events.push({ frame: i, ...e });
      // The option callback for one event, on() for the others: both styles.
      const f = lib.mount({ url, container: slot, onViewed: record });
      for (const name of ['signed', 'declined', 'resize']) f.on(name, record);
      window.mounted.push(f);
    });
    window.ready = true;
  }
</script>
${load}
</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Recorded {
  frame: number;
  type: string;
  signature_request?: string;
  signer?: string;
  reason?: string | null;
  height?: number;
}

describe('@tawqi/embed in Chromium: a partner page of another origin mounts signing sessions', { timeout: 420_000 }, () => {
  let s: TestServer;
  let browser: TestBrowser;
  let partner: Awaited<ReturnType<typeof startPartnerSite>>;
  let tawqi: string;
  let partnerOrigin: string;
  let key: string;
  let template: string;

  before(async () => {
    ensureSigningPage();
    ensureEmbedLibrary();
    s = await startTestServer();
    tawqi = new URL(s.url).origin;
    partner = await startPartnerSite();
    partnerOrigin = `http://localhost:${partner.port}`;
    const acct = await s.account({ ownerEmail: TEAM[0], plan: 'enterprise', walletMinor: 100_000 });
    await updateAccount(s.ctx.store.db, acct.id, { team_emails: [...TEAM], allowed_origins: [partnerOrigin] });
    key = acct.keys.secret_test;
    const t = await s.call('POST', '/templates', {
      key,
      body: {
        title: 'Supply agreement',
        language: 'en',
        body: 'Supply agreement with {{client}}.\n\n1. The supplier delivers within thirty days.\n2. The client pays on delivery.',
        fields: [{ key: 'client', label: 'Client', required: true }],
      },
    });
    assert.equal(t.status, 201, t.text);
    template = t.body.id;
    browser = await launchBrowser();
  });

  after(async () => {
    const results = await Promise.allSettled([browser?.close(), s?.close(), partner?.close()]);
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  });

  /** A request for one signer and a signing session for them, created with the secret key (as the partner's server would). */
  async function session(title: string, email: string): Promise<{ id: string; signer: string; url: string }> {
    const r = await s.call('POST', '/signature_requests', {
      key,
      body: {
        title,
        source: { type: 'template', template_id: template },
        signers: [{ name: 'Amira Hassan', email, fields: { client: 'Acme' } }],
      },
    });
    assert.equal(r.status, 201, r.text);
    const signer = r.body.signers[0].id as string;
    const sess = await s.call('POST', `/signers/${signer}/signing_session`, { key, body: {} });
    assert.equal(sess.status, 200, sess.text);
    return { id: r.body.id, signer, url: sess.body.signing_url };
  }

  const portal = (origin: string, lib: 'iife' | 'esm', urls: string[]) =>
    `${origin}/portal?lib=${lib}&tawqi=${encodeURIComponent(tawqi)}${urls.map((u) => `&url=${encodeURIComponent(u)}`).join('')}`;
  const events = (page: Page) => page.evaluate('window.events') as Promise<Recorded[]>;
  const moves = async (page: Page) => (await events(page)).filter((e) => e.type !== 'resize');
  const heights = async (page: Page, frame = 0) =>
    (await events(page)).filter((e) => e.type === 'resize' && e.frame === frame).map((e) => e.height!);
  /**
   * Forgeries: the advert's frame (another origin) posts a signed message and a tiny height, and the
   * page posts a signed message to itself. Returns once the window has received all three; the
   * library's listener has then seen them too (a message's listeners all run in the same task).
   */
  async function forge(page: Page): Promise<void> {
    const ad = page.frames().find((f) => f.url().endsWith('/forger'));
    assert.ok(ad, 'the advert frame');
    await ad.evaluate((m) => {
      const { parent } = globalThis as unknown as PageGlobals;
      parent.postMessage(m, '*');
      parent.postMessage({ type: 'svc:resize', height: 3 }, '*');
    }, FORGED);
    await page.evaluate((m) => (globalThis as unknown as PageGlobals).postMessage(m, '*'), FORGED);
    await until('the forged messages in the window', async () => {
      const raw = (await page.evaluate('window.raw')) as { origin: string; type: string }[];
      const forged = raw.filter((m) => m.origin !== tawqi);
      return forged.filter((m) => m.type === 'svc:signed').length === 2 && forged.some((m) => m.type === 'svc:resize');
    });
  }

  async function verifyCode(frame: FrameLocator, signer: string): Promise<void> {
    await frame.getByRole('button', { name: L.sendCode, exact: true }).click();
    const input = frame.getByLabel(L.codeLabel, { exact: true });
    await input.waitFor();
    await input.pressSequentially(await lastOtp(s, signer));
    await frame.getByRole('button', { name: L.verify, exact: true }).click();
  }

  /** The frame's height in the parent is the signing page's content height, as last reported; returns it. */
  async function sizedToContent(page: Page, frame = 0): Promise<number> {
    const inner = await frameOf(page, `.slot:nth-child(${frame + 1}) iframe`);
    return until('the frame sized to its content', async () => {
      const reported = (await heights(page, frame)).at(-1);
      const box = await page.locator('.slot iframe').nth(frame).boundingBox();
      const content = await inner.evaluate(() =>
        Math.ceil((globalThis as unknown as PageGlobals).document.body.getBoundingClientRect().height),
      );
      return reported !== undefined && box && Math.round(box.height) === reported && content === reported ? reported : null;
    });
  }

  async function finish(p: { page: Page; watch: PageWatch }, label: string): Promise<void> {
    p.watch.assertClean(label);
    await p.page.close();
  }

  test('the server serves the library at stable addresses, to any site', async () => {
    for (const [path, marker] of [
      ['/embed/v1.js', 'TawqiEmbed'],
      ['/embed/v1.mjs', 'export'],
    ] as const) {
      const res = await fetch(`${s.url}${path}`, { headers: { origin: 'https://anyone.example' } });
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/javascript; charset=utf-8/);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.equal(res.headers.get('cross-origin-resource-policy'), 'cross-origin');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.match(res.headers.get('cache-control') ?? '', /max-age=3600/);
      assert.ok((await res.text()).includes(marker), `${path} is the library`);
    }
    assert.equal((await fetch(`${s.url}/embed/v2.js`)).status, 404);
  });

  test('single script (/embed/v1.js): the signer signs in the frame; the parent gets viewed then signed, the frame follows the page height, forgeries are ignored', async () => {
    const a = await session('Supply agreement 1', TEAM[1]);
    const p = await browser.newPage();
    const { page } = p;
    const framed = page.waitForResponse((res) => res.url() === a.url);
    await page.goto(portal(partnerOrigin, 'iife', [a.url]));
    const res = await framed;
    assert.match(
      (await res.allHeaders())['content-security-policy'] ?? '',
      new RegExp(`frame-ancestors ${partnerOrigin.replace(/[.:/]/g, '\\$&')}(;|$)`),
    );
    assert.equal(
      await res.request().headerValue('referer'),
      `${partnerOrigin}/`,
      'the frame sends the page origin, which pins the session to it',
    );
    const iframe = page.locator('.slot iframe');
    assert.equal(await iframe.getAttribute('title'), 'Sign the document');
    assert.equal(await iframe.getAttribute('allow'), 'camera; microphone; local-network-access; loopback-network');
    assert.deepEqual((await iframe.getAttribute('sandbox'))?.split(' ').sort(), [
      'allow-downloads',
      'allow-forms',
      'allow-popups',
      'allow-popups-to-escape-sandbox',
      'allow-same-origin',
      'allow-scripts',
    ]);

    const viewed = { frame: 0, type: 'viewed', signature_request: a.id, signer: a.signer };
    await until('viewed in the parent', async () => (await moves(page)).length >= 1);
    const atCode = await sizedToContent(page);
    await forge(page);
    assert.deepEqual(await moves(page), [viewed], 'no forged signed event');
    assert.ok(!(await heights(page)).includes(3), 'the forged height was not applied');

    const frame = page.frameLocator('.slot iframe');
    await verifyCode(frame, a.signer);
    await frame.getByRole('heading', { name: 'Supply agreement 1', level: 1 }).waitFor();
    const atReview = await sizedToContent(page);
    assert.ok(atReview > atCode + 100, `the frame grew with the contract (${atCode} → ${atReview} px)`);
    await drawSignature(page, frame.getByRole('img', { name: L.pad }));
    await frame.getByRole('checkbox', { name: L.consent }).check();
    await screenshot(page, 'embed-review-1280x800');
    await frame.getByRole('button', { name: L.sign, exact: true }).click();
    await frame.getByRole('heading', { name: L.signed }).waitFor();
    await until('signed in the parent', async () => (await moves(page)).length >= 2);
    const atSigned = await sizedToContent(page);
    assert.ok(atSigned < atReview, `the frame shrank to the signed page (${atReview} → ${atSigned} px)`);
    await screenshot(page, 'embed-signed-1280x800');
    assert.deepEqual(await moves(page), [viewed, { frame: 0, type: 'signed', signature_request: a.id, signer: a.signer }]);
    await finish(p, 'embedded with the single script');
    assert.equal((await s.call('GET', `/signature_requests/${a.id}`, { key })).body.status, 'completed');
  });

  test('module (/embed/v1.mjs), two sessions on one page: a decline in one frame reaches only its own listeners; destroy removes a frame; a url off the Tawqi origin is refused', async () => {
    const a = await session('Agreement A', TEAM[1]);
    const b = await session('Agreement B', TEAM[2]);
    const p = await browser.newPage();
    const { page } = p;
    await page.goto(portal(partnerOrigin, 'esm', [a.url, b.url]));
    await until('viewed in both frames', async () => (await moves(page)).length >= 2);
    const byFrame = async (i: number) => (await moves(page)).filter((e) => e.frame === i);
    assert.deepEqual(await byFrame(0), [{ frame: 0, type: 'viewed', signature_request: a.id, signer: a.signer }]);
    assert.deepEqual(await byFrame(1), [{ frame: 1, type: 'viewed', signature_request: b.id, signer: b.signer }]);

    // A destructured on() works; the function it returns stops that handler.
    await page.evaluate(() => {
      const w = globalThis as unknown as PageGlobals;
      w.extra = [];
      const { on } = w.mounted[0]!;
      on('declined', () => w.extra.push('kept'));
      const stop = on('declined', () => w.extra.push('stopped'));
      stop();
    });
    const frame = page.frameLocator('.slot:nth-child(1) iframe');
    await verifyCode(frame, a.signer);
    await frame.getByRole('heading', { name: 'Agreement A', level: 1 }).waitFor();
    await frame.getByRole('button', { name: L.decline, exact: true }).click();
    const dialog = frame.getByRole('dialog');
    await dialog.waitFor();
    const reason = 'The delivery date is wrong.';
    await dialog.getByLabel(L.reason).pressSequentially(reason);
    await dialog.getByRole('button', { name: L.declineConfirm, exact: true }).click();
    await frame.getByRole('heading', { name: L.declined }).waitFor();
    await until('declined in the parent', async () => (await byFrame(0)).length >= 2);
    await sizedToContent(page, 0);
    await screenshot(page, 'embed-two-frames-declined-1280x800');
    assert.deepEqual((await byFrame(0))[1], { frame: 0, type: 'declined', signature_request: a.id, signer: a.signer, reason });
    assert.equal((await byFrame(1)).length, 1, "the other frame's listeners heard nothing of it");
    assert.deepEqual(await page.evaluate('window.extra'), ['kept']);

    const left = await page.evaluate(() => {
      const w = globalThis as unknown as PageGlobals;
      w.mounted[1]!.destroy();
      w.mounted[1]!.destroy();
      return w.document.querySelectorAll('iframe[title="Sign the document"]').length;
    });
    assert.equal(left, 1, 'destroy removed its frame (twice is harmless)');
    const refusals = await page.evaluate((url) => {
      const { lib } = globalThis as unknown as PageGlobals;
      const attempts: object[] = [
        { url, container: '#slots', origin: 'https://sign.elsewhere.example' },
        { url: 'javascript:alert(1)', container: '#slots' },
        { url, container: '#nowhere' },
      ];
      return attempts.map((o) => {
        try {
          lib.mount(o);
          return 'mounted';
        } catch (err) {
          return String(err);
        }
      });
    }, b.url);
    assert.match(refusals[0]!, /^TypeError: TawqiEmbed: url is on http:\/\/127\.0\.0\.1:\d+, not on the Tawqi origin given/);
    assert.match(refusals[1]!, /^TypeError: TawqiEmbed: url must be an https \(or http\) address/);
    assert.match(refusals[2]!, /^TypeError: TawqiEmbed: container must be an element/);
    await finish(p, 'two embedded sessions with the module');
    assert.equal((await s.call('GET', `/signature_requests/${a.id}`, { key })).body.status, 'declined');
    assert.equal((await s.call('GET', `/signature_requests/${b.id}`, { key })).body.status, 'viewed');
  });

  test('a page on an origin the account does not allow loads the library but cannot frame a session: no event, no view recorded', async () => {
    const a = await session('Not for this site', TEAM[1]);
    const q = await browser.newPage();
    q.watch.expect(/frame-ancestors/);
    const other = `http://127.0.0.1:${partner.port}`;
    const framed = q.page.waitForResponse((res) => res.url() === a.url);
    await q.page.goto(portal(other, 'iife', [a.url]));
    assert.equal(await q.page.evaluate('window.ready'), true, 'the library loaded and mounted');
    const csp = (await (await framed).allHeaders())['content-security-policy'] ?? '';
    assert.ok(!csp.includes(other), `${other} is not among the frame ancestors (${csp})`);
    await until('the frame-ancestors refusal', () => q.watch.problems.some((x) => /frame-ancestors/.test(x.text)));
    assert.equal(await q.page.frameLocator('.slot iframe').locator('main#app').count(), 0, 'no signing page in the frame');
    await screenshot(q.page, 'embed-refused-origin-1280x800');
    assert.deepEqual(await events(q.page), []);
    await finish(q, 'embedded on an origin not allowed');
    const r = await s.call('GET', `/signature_requests/${a.id}`, { key });
    assert.equal(r.body.status, 'sent');
    assert.equal(r.body.signers[0].viewed_at ?? null, null, 'the refused frame recorded no view');
  });
});
