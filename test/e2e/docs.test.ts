/**
 * The API reference at /docs (issue 14, point 6): rendered by the server from its OpenAPI document;
 * every operation appears with a curl and a @tawqi/node example (the method from CLIENT_METHODS) and
 * an example answer, each example valid against the document; the webhook recipe, the error table in
 * both languages and the changelog of the dated versions; no URL outside the server, a strict CSP,
 * escaped text; Arabic RTL by default, English with ?lang=en or Accept-Language. In Chromium: no CSP
 * violation or console error, axe-core finds nothing, in both languages (screenshots in
 * test-artifacts/e2e/).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { CLIENT_METHODS } from '@tawqi/node';
import { ERRORS } from '@tawqi/shared';
import { API_VERSIONS } from '../../server/src/domain/versions.js';
import { operationExamples } from '../../server/src/http/docs/examples.js';
import { launchBrowser, screenshot, type TestBrowser } from '../support/browser.js';
import { DocumentValidator } from '../support/openapiCheck.js';
import { startTestServer, type TestServer } from '../support/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** HTML text back to characters (the five escapes the page uses). */
const decode = (html: string) =>
  html
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

describe('/docs, the API reference', () => {
  let s: TestServer;
  let doc: Json;
  let browser: TestBrowser;
  before(async () => {
    s = await startTestServer({ TAWQI_PUBLIC_URL: 'https://sign.example.com' });
    doc = (await s.call('GET', '/openapi.json')).body;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
    await s.close();
  });

  const page = (query = '', headers: Record<string, string> = {}) => fetch(`${s.url}/docs${query}`, { headers });

  test('every operation of the document appears with its curl and @tawqi/node examples and an example answer', async () => {
    const res = await page('?lang=en');
    assert.equal(res.status, 200);
    const html = await res.text();
    const operations = Object.values<Json>(doc.paths).flatMap((item) => Object.values<Json>(item));
    assert.equal(operations.length, Object.keys(CLIENT_METHODS).length);
    for (const op of operations) {
      const section = new RegExp(`<section class="operation" id="op-${op.operationId}"[\\s\\S]*?</section>`).exec(html)?.[0];
      assert.ok(section, `${op.operationId} is on the page`);
      const curl = /data-example="curl"[^>]*><code>([\s\S]*?)<\/code>/.exec(section)?.[1];
      const node = /data-example="node"[^>]*><code>([\s\S]*?)<\/code>/.exec(section)?.[1];
      assert.ok(curl && node, `${op.operationId}: both examples`);
      assert.match(decode(curl), /^curl /);
      assert.ok(
        decode(node).includes(`tawqi.${CLIENT_METHODS[op.operationId as keyof typeof CLIENT_METHODS]}(`),
        `${op.operationId}: ${decode(node)}`,
      );
      const json = Object.values<Json>(op.responses)[0].content['application/json'];
      assert.equal(section.includes('data-example="response"'), json !== undefined, `${op.operationId}: an example answer`);
    }
  });

  test('every example is valid against the document: request bodies against the body schema, answers against the success schema', () => {
    const validator = new DocumentValidator(doc);
    for (const e of operationExamples(doc, 'https://sign.example.com/api/v1')) {
      const op = doc.paths[e.path][e.method];
      if (e.body !== undefined) {
        const check = validator.compile(op.requestBody.content['application/json'].schema);
        assert.ok(check(e.body), `${e.operationId} body: ${JSON.stringify(check.errors)} ${JSON.stringify(e.body)}`);
      }
      if (e.response !== null) {
        const check = validator.compile(Object.values<Json>(op.responses)[0].content['application/json'].schema);
        assert.ok(check(e.response), `${e.operationId} answer: ${JSON.stringify(check.errors)}`);
      }
    }
  });

  test('the webhook recipe, the error table in both languages, the changelog; no URL outside the server; strict CSP', async () => {
    const res = await page('?lang=en');
    const html = await res.text();
    assert.match(res.headers.get('content-security-policy') ?? '', /^default-src 'none'; style-src 'self';/);
    assert.match(html, /Tawqi\.webhooks\.constructEvent\(Buffer\.concat\(chunks\), req\.headers\[&#39;svc-signature&#39;\], secret, 300\)/);
    assert.match(html, /300 seconds/);
    const table = /<table data-table="errors">[\s\S]*?<\/table>/.exec(html)![0];
    for (const [code, d] of Object.entries(ERRORS)) {
      assert.ok(table.includes(`<code>${code}</code></td><td>${d.status}</td>`), code);
      assert.ok(decode(table).includes(d.ar) && decode(table).includes(d.en), `${code}: both messages`);
    }
    for (const v of API_VERSIONS) assert.ok(html.includes(`data-version="${v.date}"`), v.date);
    // Every URL the page names is this server's, or the example host the examples talk to.
    const urls = [...html.matchAll(/(?:href|src)="([^"]*)"|https?:\/\/[^\s"'<)\\]+/g)].map((m) => m[1] ?? m[0]);
    for (const u of urls) assert.ok(/^(#|\/|\?|https:\/\/(sign|shop)\.example\.com)/.test(u), `an outside URL: ${u}`);
    assert.ok(!/<script/i.test(html), 'no script');
  });

  test('Arabic RTL by default; English with ?lang=en or Accept-Language: en', async () => {
    assert.match(await (await page()).text(), /<html lang="ar" dir="rtl">[\s\S]*مرجع واجهة توقيع البرمجية/);
    assert.match(await (await page('', { 'accept-language': 'en-GB,en;q=0.9' })).text(), /<html lang="en" dir="ltr">/);
    assert.match(await (await page('?lang=ar', { 'accept-language': 'en' })).text(), /<html lang="ar" dir="rtl">/);
    const css = await fetch(`${s.url}/docs/assets/docs.css`);
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
  });

  for (const lang of ['ar', 'en'] as const) {
    test(`in Chromium (${lang}): styled, no CSP violation or console error, axe-core finds nothing`, async () => {
      const { page: tab, watch } = await browser.newPage();
      const res = await tab.goto(`${s.url}/docs?lang=${lang}`);
      assert.equal(res?.status(), 200);
      assert.equal(await tab.evaluate("getComputedStyle(document.querySelector('pre')).direction"), 'ltr', 'code reads left to right');
      assert.equal(await tab.evaluate('document.dir'), lang === 'ar' ? 'rtl' : 'ltr');
      await screenshot(tab, `docs-${lang}`, { fullPage: false });
      await tab.evaluate(AXE_SOURCE);
      const result: Json = await tab.evaluate("axe.run(document, { resultTypes: ['violations'] })");
      const violations = result.violations.map((v: Json) => `${v.id}: ${v.help} (${v.nodes.length}) ${v.nodes[0]?.target}`);
      assert.deepEqual(violations, []);
      watch.assertClean(`/docs?lang=${lang}`);
      await tab.close();
    });
  }
});
