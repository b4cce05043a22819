/**
 * Issue 17 point 6: the security headers of every response. Every GET route of the app — found by
 * walking its routers, so a new page cannot be left out — is requested over plain HTTP, through a
 * trusted proxy reporting HTTPS, and over the server's own TLS; every response carries nosniff, HSTS
 * exactly when the request came over HTTPS, and every HTML response a strict CSP (no inline or eval
 * script, frame-ancestors stated) and a referrer policy. The pages that need state to render (a
 * signing link, a sealed request's /verify page and final document) are opened with real fixtures.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../../server/src/http/app.js';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { FALLBACK_PAGE_CSP, HSTS, securityHeaders } from '../../server/src/http/pageHeaders.js';
import { accountWithTemplate, sealedRequest } from '../support/installation.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { makeTestCa, type TestCa } from '../support/webhookReceiver.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
}

/** One GET with node's own client (fetch cannot be given the test CA); the body is read and dropped. */
function get(url: string, headers: Record<string, string> = {}, ca?: string): Promise<Answer> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(url, { headers, ca }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
  });
}

interface Layer {
  rawPath?: string | RegExp | (string | RegExp)[];
  route?: { path: string | RegExp | (string | RegExp)[]; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/** A concrete path for a route pattern: every parameter `x`, optional parts left out, a RegExp's sample `x`. */
function sample(pattern: string | RegExp): string {
  if (pattern instanceof RegExp) return '/x';
  return pattern
    .replace(/\{[^}]*\}/g, '')
    .replace(/[:*]\w+/g, 'x')
    .replace(/\/$/, '');
}

/** Every GET path of the app's routers, mount prefixes included, each pattern once with a sample. */
function getPaths(stack: Layer[], prefix = ''): string[] {
  const paths: string[] = [];
  const each = (p: Layer['rawPath']) => (Array.isArray(p) ? p : p === undefined ? [] : [p]);
  for (const layer of stack) {
    if (layer.route) {
      if (layer.route.methods.get) for (const p of each(layer.route.path)) paths.push(prefix + sample(p) || '/');
    } else if (layer.handle.stack) {
      const mount = each(layer.rawPath)[0] ?? '/';
      paths.push(...getPaths(layer.handle.stack, prefix + (mount === '/' ? '' : sample(mount))));
    }
  }
  return [...new Set(paths)];
}

/** What every HTML page must say: a CSP without inline or eval script that states who may frame it, and a referrer policy. */
function assertPageHeaders(url: string, a: Answer): void {
  const csp = String(a.headers['content-security-policy'] ?? '');
  assert.match(csp, /default-src 'none'/, `${url}: CSP ${csp}`);
  assert.match(csp, /frame-ancestors /, `${url}: CSP ${csp}`);
  assert.match(csp, /base-uri 'none'/, `${url}: CSP ${csp}`);
  const script = /(?:^|;\s*)script-src ([^;]*)/.exec(csp)?.[1] ?? '';
  assert.doesNotMatch(script, /unsafe-inline|unsafe-eval|\*|data:/, `${url}: script-src ${script}`);
  assert.ok(['no-referrer', 'same-origin'].includes(String(a.headers['referrer-policy'])), `${url}: Referrer-Policy`);
}

/** Request each URL; check every response's nosniff and HSTS and every HTML one's page headers. The HTML URLs. */
async function sweep(
  base: string,
  urls: string[],
  opts: { hsts: boolean; headers?: Record<string, string>; ca?: string },
): Promise<string[]> {
  const html: string[] = [];
  for (const u of urls) {
    const a = await get(base + u, { accept: 'text/html,*/*', ...opts.headers }, opts.ca);
    assert.notEqual(a.status, 500, u);
    assert.equal(a.headers['x-content-type-options'], 'nosniff', `${u} (${a.status})`);
    assert.equal(a.headers['strict-transport-security'], opts.hsts ? HSTS : undefined, `${u} (${a.status})`);
    if (/^text\/html/.test(String(a.headers['content-type']))) {
      assertPageHeaders(u, a);
      html.push(u);
    }
  }
  return html;
}

/** The pages that render without any state: the API docs in both languages, the console's screens, the branding preview. */
const STATELESS_PAGES = ['/docs', '/docs?lang=en', '/console', '/console/sign-in', '/console/keys', '/sign/preview', '/verify/TQ-NOPE'];

describe('security headers on every response', () => {
  let s: TestServer;
  let routes: string[];
  const pages: string[] = [...STATELESS_PAGES];
  let documentUrl = '';
  let secretKey = '';

  before(async () => {
    s = await startTestServer({ TAWQI_TRUSTED_PROXIES: '127.0.0.1' });
    routes = getPaths((createApp(s.ctx) as unknown as { router: { stack: Layer[] } }).router.stack);
    const { keys, templateId } = await accountWithTemplate(s);
    const sealed = await sealedRequest(s, keys.secret_live, templateId);
    const sent = await s.call('POST', '/signature_requests', {
      key: keys.secret_live,
      body: {
        title: 'Headers',
        source: { type: 'template', template_id: templateId },
        signers: [{ name: 'Sara Ali', email: 'sara@example.com' }],
      },
    });
    assert.equal(sent.status, 201, sent.text);
    const link = new URL(sent.body.signers[0].signing_url as string);
    pages.push(
      link.pathname,
      '/sign/not-a-link',
      '/sign/s/not-a-session',
      `/verify/${sealed.reference}`,
      `/verify/${sealed.reference}?lang=en`,
    );
    pages.push('/identity/simulate/idv_nope');
    // The final document as HTML is an API route (produces text/html): its key travels in the header.
    documentUrl = `/api/v1/signature_requests/${sealed.id}/document`;
    secretKey = keys.secret_live;
  });
  after(async () => s?.close());

  it('finds the routers’ GET routes, page routes among them', () => {
    console.log(`# ${routes.length} GET routes swept, ${pages.length} page URLs with fixtures`);
    for (const p of ['/docs', '/verify/x', '/sign/x', '/sign/s/x', '/sign/preview', '/console/x', '/api/v1/signature_requests/x/document'])
      assert.ok(routes.includes(p), `${p} in ${routes.length} routes`);
  });

  it('over plain HTTP: nosniff everywhere, no HSTS, every HTML page with its CSP and referrer policy', async () => {
    const html = await sweep(s.url, [...routes, ...pages], { hsts: false });
    for (const p of pages) assert.ok(html.includes(p), `${p} is an HTML page`);
    const doc = await sweep(s.url, [documentUrl], { hsts: false, headers: { authorization: `Bearer ${secretKey}` } });
    assert.deepEqual(doc, [documentUrl]);
    // A JSON answer of the API keeps nosniff and sets no page policy.
    const json = await get(`${s.url}/api/v1/signature_requests`, { authorization: `Bearer ${secretKey}` });
    assert.equal(json.status, 200);
    assert.equal(json.headers['x-content-type-options'], 'nosniff');
    assert.match(String(json.headers['content-type']), /^application\/json/);
  });

  it('behind a trusted proxy that reports HTTPS: HSTS on every response', async () => {
    const html = await sweep(s.url, [...routes, ...pages], { hsts: true, headers: { 'x-forwarded-proto': 'https' } });
    for (const p of pages) assert.ok(html.includes(p), `${p} is an HTML page`);
  });

  describe('over the server’s own TLS', () => {
    let tls: TestServer;
    let ca: TestCa;
    before(async () => {
      ca = makeTestCa();
      tls = await startTestServer({ TAWQI_TLS_CERT: path.join(ca.dir, 'leaf.pem'), TAWQI_TLS_KEY: path.join(ca.dir, 'leaf.key') });
    });
    after(async () => {
      await tls?.close();
      ca?.cleanup();
    });

    it('HSTS with a year’s max-age on every response, and the page headers', async () => {
      assert.match(tls.url, /^https:/);
      assert.match(HSTS, /^max-age=31536000$/);
      const html = await sweep(tls.url, [...routes, ...STATELESS_PAGES], { hsts: true, ca: ca.caPem });
      for (const p of STATELESS_PAGES) assert.ok(html.includes(p), `${p} is an HTML page`);
    });
  });
});

describe('an HTML response that declares no policy', () => {
  it('gets the fallback CSP and no referrer, whichever way it is sent', async () => {
    // The middleware on its own, in front of handlers that forget setPageHeaders (a future page's mistake).
    const app = express();
    app.use(securityHeaders());
    app.get('/send', (_req, res) => void res.type('html').send('<p>forgot</p>'));
    app.get('/end', (_req, res) => {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end('<p>forgot</p>');
    });
    app.get('/json', (_req, res) => void res.json({ ok: true }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const p of ['/send', '/end']) {
        const a = await get(base + p);
        assert.equal(a.headers['content-security-policy'], FALLBACK_PAGE_CSP, p);
        assert.equal(a.headers['referrer-policy'], 'no-referrer', p);
        assert.equal(a.headers['x-content-type-options'], 'nosniff', p);
      }
      const json = await get(`${base}/json`);
      assert.equal(json.headers['content-security-policy'], undefined);
      assert.equal(json.headers['x-content-type-options'], 'nosniff');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
