/**
 * CORS in a real browser (playwright-core driving Debian's Chromium): a page served on an origin a
 * publishable key allows — a second HTTP server on 127.0.0.1, another port, so another origin —
 * lists templates and creates a signature request with that `pk_test_` key through `fetch`, and
 * reads the exposed headers; the same page on another origin is blocked by the browser and creates
 * nothing; a secret key is blocked even on the allowed origin (secret keys never get CORS).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { issueKey } from '../../server/src/services/accounts.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { teamAccount, type TeamAccount } from '../support/teamAccount.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const TEMPLATE = {
  title: 'Shop terms',
  language: 'en',
  body: 'Terms for {{customer}}.',
  fields: [{ key: 'customer', label: 'Customer', type: 'text', required: true }],
};

/** A shop's site: one plain page, on its own port (its own origin). */
async function startSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,"></head><body><h1>Shop</h1></body></html>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

interface BrowserCall {
  /** The fetch failed (the browser blocked it): its error, else null. */
  error: string | null;
  status?: number;
  body?: Json;
  headers?: Record<string, string | null>;
}

/** `fetch` from inside the page, as a shop's script would; headers the script tries to read. */
function browserFetch(
  page: Page,
  url: string,
  init: { method?: string; headers: Record<string, string>; body?: unknown },
): Promise<BrowserCall> {
  return page.evaluate(
    async ({ url, init, read }) => {
      try {
        const res = await fetch(url, {
          method: init.method ?? 'GET',
          headers: init.headers,
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
        });
        const headers: Record<string, string | null> = {};
        for (const name of read) headers[name] = res.headers.get(name);
        return { error: null, status: res.status, body: await res.json(), headers };
      } catch (err) {
        return { error: String(err) };
      }
    },
    { url, init, read: ['svc-request-id', 'svc-version', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'idempotent-replayed'] },
  );
}

describe('CORS in Chromium: a shop page with a publishable key', () => {
  let s: TestServer;
  let a: TeamAccount;
  let browser: TestBrowser;
  let shop: Awaited<ReturnType<typeof startSite>>;
  let elsewhere: Awaited<ReturnType<typeof startSite>>;
  let pk: string;

  before(async () => {
    s = await startTestServer();
    a = await teamAccount(s, TEMPLATE);
    shop = await startSite();
    elsewhere = await startSite();
    pk = (await s.ctx.store.tx((trx) => issueKey(trx, s.clock, a.id, 'publishable', 'test', { allowedOrigins: [shop.origin] }))).secret;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await shop?.close();
    await elsewhere?.close();
    await s?.close();
  });

  const api = () => `${s.url}/api/v1`;
  const keyHeaders = (key: string) => ({ Authorization: `Bearer ${key}`, 'Svc-Version': '2026-07-01', 'Accept-Language': 'en' });
  const createBody = () => ({
    title: 'Shop terms',
    source: { type: 'template', template_id: a.templateId },
    signers: [{ name: 'Layla Hassan', email: a.team[1], fields: { customer: 'Layla' } }],
  });
  const requestCount = async () =>
    (await s.call('GET', '/signature_requests?limit=100', { key: a.keys.secret_test })).body.data.length as number;

  test('on the allowed origin: lists templates and creates a request with pk_test_ through fetch, reading the exposed headers', async () => {
    const { page, watch } = await browser.newPage();
    await page.goto(`${shop.origin}/`);
    assert.equal(new URL(page.url()).origin, shop.origin);

    const templates = await browserFetch(page, `${api()}/templates?limit=5&scope=mine`, { headers: keyHeaders(pk) });
    assert.equal(templates.error, null);
    assert.equal(templates.status, 200, JSON.stringify(templates.body));
    assert.deepEqual(
      templates.body.data.map((t: Json) => t.id),
      [a.templateId],
    );
    assert.match(templates.headers!['svc-request-id']!, /^req_/, 'Svc-Request-Id is exposed');
    assert.equal(templates.headers!['svc-version'], '2026-07-01');
    assert.ok(Number(templates.headers!['x-ratelimit-limit']) > 0, 'X-RateLimit-* are exposed');

    const headers = { ...keyHeaders(pk), 'Content-Type': 'application/json', 'Idempotency-Key': 'shop-order-1' };
    const created = await browserFetch(page, `${api()}/signature_requests`, { method: 'POST', headers, body: createBody() });
    assert.equal(created.error, null);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.object, 'signature_request');
    assert.equal(created.body.livemode, false);
    assert.equal(created.body.signers[0].signing_url, null, 'publishable responses carry no signing link');
    assert.equal(created.headers!['idempotent-replayed'], null);

    const replayed = await browserFetch(page, `${api()}/signature_requests`, { method: 'POST', headers, body: createBody() });
    assert.equal(replayed.status, 201);
    assert.equal(replayed.body.id, created.body.id);
    assert.equal(replayed.headers!['idempotent-replayed'], 'true', 'Idempotent-Replayed is exposed');

    // A refusal by the key rules is readable too: listing requests is forbidden for publishable keys.
    watch.expect(/the server responded with a status of 403/);
    const listing = await browserFetch(page, `${api()}/signature_requests`, { headers: keyHeaders(pk) });
    assert.equal(listing.error, null);
    assert.equal(listing.status, 403);
    assert.equal(listing.body.error.code, 'forbidden');

    const got = await s.call('GET', `/signature_requests/${created.body.id}`, { key: a.keys.secret_test });
    assert.equal(got.status, 200);
    assert.equal(got.body.title, 'Shop terms');
    watch.assertClean('the shop page');
    await page.close();
  });

  test('on another origin the browser blocks the same calls, and nothing is created', async () => {
    const before = await requestCount();
    const { page, watch } = await browser.newPage();
    watch.expect(/CORS policy|net::ERR_FAILED/);
    await page.goto(`${elsewhere.origin}/`);
    const templates = await browserFetch(page, `${api()}/templates`, { headers: keyHeaders(pk) });
    assert.match(templates.error ?? '', /TypeError: Failed to fetch/);
    const created = await browserFetch(page, `${api()}/signature_requests`, {
      method: 'POST',
      headers: { ...keyHeaders(pk), 'Content-Type': 'application/json' },
      body: createBody(),
    });
    assert.match(created.error ?? '', /TypeError: Failed to fetch/);
    assert.equal(await requestCount(), before, 'the preflight was refused: the POST never reached the server');
    const problems = watch.problems.map((p) => p.text).join('\n');
    assert.match(problems, new RegExp(`from origin '${elsewhere.origin}' has been blocked by CORS policy`));
    watch.assertClean('the other site');
    await page.close();
  });

  test('a secret key gets no CORS, even on the allowed origin', async () => {
    const { page, watch } = await browser.newPage();
    watch.expect(/CORS policy|net::ERR_FAILED/);
    await page.goto(`${shop.origin}/`);
    const r = await browserFetch(page, `${api()}/templates`, { headers: keyHeaders(a.keys.secret_test) });
    assert.match(r.error ?? '', /TypeError: Failed to fetch/);
    assert.match(watch.problems.map((p) => p.text).join('\n'), /No 'Access-Control-Allow-Origin' header/);
    watch.assertClean('the shop page with a secret key');
    await page.close();
  });
});
