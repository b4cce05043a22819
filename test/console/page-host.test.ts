/**
 * The console's page host over plain HTTP: one HTML shell for /console and every /console/* path
 * (the client routes), its headers (the strict CSP, never framed, no referrer, no sniffing, never
 * cached), its language from the console's cookie, and the bundle under /console/assets with
 * content-hashed names cached for a year. /console/api/* is never the shell.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ensureConsole } from '../support/bundles.js';
import { startTestServer, type TestServer } from '../support/server.js';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const MANIFEST = fileURLToPath(new URL('../../console/dist/manifest.json', import.meta.url));

describe('the console page host', () => {
  let s: TestServer;
  let bundle: { 'app.js': string; 'app.css': string };

  before(async () => {
    ensureConsole();
    bundle = JSON.parse(readFileSync(MANIFEST, 'utf8'));
    s = await startTestServer();
  });
  after(() => s.close());

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${s.url}${path}`, { headers });
  const errorCode = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

  test('/console serves the shell with the strict headers: exact CSP, frame-ancestors none, nosniff, no referrer, no-store', async () => {
    const res = await get('/console');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    assert.equal(res.headers.get('content-security-policy'), CSP);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const html = await res.text();
    assert.match(html, /<html lang="ar" dir="rtl">/);
    assert.ok(html.includes(`<script type="module" src="/console/assets/${bundle['app.js']}"></script>`), html);
    assert.ok(html.includes(`<link rel="stylesheet" href="/console/assets/${bundle['app.css']}">`), html);
    assert.ok(html.includes('<div id="console">'));
    // No inline script or style for the CSP to refuse.
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/);
    assert.doesNotMatch(html, /<style|style=/);
  });

  test('every screen path and unknown /console/x paths get the same shell; the query string is no matter', async () => {
    const shell = await (await get('/console')).text();
    for (const path of [
      '/console/',
      '/console/sign-in',
      '/console/developers/api-keys',
      '/console/x',
      '/console/x/y/z',
      '/console/reset?token=abc',
    ]) {
      const res = await get(path);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('content-security-policy'), CSP, path);
      assert.equal(await res.text(), shell, path);
    }
  });

  test('the pages an emailed token opens send no Referer anywhere (Referrer-Policy: no-referrer), links old and new', async () => {
    // A new link's token is in the fragment, which no request carries; an older link's is in the query.
    for (const path of ['/console/reset', '/console/invite', '/console/reset?token=abc', '/console/invite?token=abc']) {
      const res = await get(path);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer', path);
      assert.equal(res.headers.get('cache-control'), 'no-store', path);
    }
  });

  test('the language cookie of the console switch gives an English, left-to-right shell; anything else stays Arabic', async () => {
    const en = await (await get('/console/sign-in', { cookie: 'other=1; tawqi_console_lang=en' })).text();
    assert.match(en, /<html lang="en" dir="ltr">/);
    assert.match(en, /<title>Tawqi Console<\/title>/);
    for (const cookie of ['tawqi_console_lang=fr', 'tawqi_console_lang=english', 'xtawqi_console_lang=en']) {
      assert.match(await (await get('/console', { cookie })).text(), /<html lang="ar" dir="rtl">/, cookie);
    }
  });

  test('/console/api/* is never the shell: an unknown API path is the JSON not_found envelope', async () => {
    for (const path of ['/console/api', '/console/api/nothing-here']) {
      const res = await get(path, { 'accept-language': 'en' });
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(await errorCode(res), 'not_found');
    }
  });

  test('the bundle is served with its types, nosniff, and a year of immutable cache; an unknown asset is a 404', async () => {
    for (const [name, type] of [
      [bundle['app.js'], /^(text|application)\/javascript/],
      [bundle['app.css'], /^text\/css/],
    ] as const) {
      assert.match(name, /^app-[A-Z0-9]{8}\.(js|css)$/, 'a content-hashed name');
      const res = await get(`/console/assets/${name}`);
      assert.equal(res.status, 200, name);
      assert.match(res.headers.get('content-type') ?? '', type);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.ok((await res.text()).length > 1000);
    }
    const missing = await get('/console/assets/app-NOTTHERE.js');
    assert.equal(missing.status, 404);
    assert.equal(await errorCode(missing), 'not_found');
    const traversal = await get('/console/assets/..%2f..%2fpackage.json');
    assert.equal(traversal.status, 404);
  });

  test('a state-changing method on a page path is not the shell', async () => {
    const res = await fetch(`${s.url}/console/sign-in`, { method: 'POST' });
    assert.equal(res.status, 404);
    assert.equal(await errorCode(res), 'not_found');
  });
});
