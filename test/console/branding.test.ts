/**
 * Branding from the console (issue 16 point 2; spec 2.9): GET/PUT /console/api/branding with the
 * rules of the CLI (one implementation), each refusal in Arabic and English, the contrast ratio of a
 * light button colour, the Business plan gate, the logo upload (type by magic bytes, size limit,
 * script-carrying SVG refused), the branding on a real signing link, the custom domain's DNS
 * answer against a real DNS server on 127.0.0.1, and the audit entry of every change.
 * Real HTTP, the configured engine.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkCustomDomain, type DnsLookups } from '../../server/src/services/customDomain.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD, type ConsoleAnswer } from '../support/consoleClient.js';
import { DnsPeer } from '../support/dnsPeer.js';
import { NDA_FIELDS } from '../support/ndaFields.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { PageClient, pngDataUrl } from '../support/signing.js';

const PNG = Buffer.from(pngDataUrl().split(',')[1]!, 'base64');
const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]),
  Buffer.from('JFIF\0'),
  Buffer.alloc(64, 1),
  Buffer.from([0xff, 0xd9]),
]);
const SAFE_SVG =
  '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><title>Acme</title><rect width="10" height="10" fill="#0a7d3b"/></svg>';
const LOGO_MAX = 4096;

let s: TestServer;
let dns: DnsPeer;
let a: { id: string; keys: TestServer['keys'] };
let owner: ConsoleClient;
let ownerEn: ConsoleClient;

async function signedIn(email: string, lang?: 'en'): Promise<ConsoleClient> {
  const c = new ConsoleClient(s.url, lang);
  const r = await c.signIn(email, TEST_PASSWORD);
  assert.equal(r.status, 200, r.text);
  return c;
}

function refusal(r: ConsoleAnswer, code: string, lang: 'ar' | 'en', param?: string | null): void {
  assert.equal(r.body?.error?.code, code, `${r.status} ${r.text}`);
  if (param !== undefined) assert.equal(r.body.error.param, param);
  if (lang === 'ar') assert.match(r.body.error.message, /[\u0600-\u06FF]/, 'Arabic message');
  else assert.doesNotMatch(r.body.error.message, /[\u0600-\u06FF]/, 'English message');
}

/** The same refusal in Arabic (default) and English (Accept-Language: en). */
async function refusedBoth(path: string, body: unknown, code: string, param: string | null, en: RegExp): Promise<ConsoleAnswer> {
  const ar = await owner.call('PUT', path, { body });
  refusal(ar, code, 'ar', param);
  const english = await ownerEn.call('PUT', path, { body });
  refusal(english, code, 'en', param);
  assert.match(english.body.error.message, en);
  return english;
}

async function upload(c: ConsoleClient, bytes: Buffer, type: string): Promise<ConsoleAnswer> {
  const res = await fetch(`${s.url}/console/api/branding/logo`, {
    method: 'PUT',
    headers: {
      cookie: `tawqi_console=${c.cookie}`,
      'x-csrf-token': c.csrf!,
      'content-type': type,
      ...(c.lang === 'en' ? { 'accept-language': 'en' } : {}),
    },
    body: bytes,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

before(async () => {
  dns = await DnsPeer.start({
    'sign.acme.example': { a: ['127.0.0.1'] },
    'elsewhere.acme.example': { a: ['192.0.2.7'] },
    'broken.acme.example': { servfail: true },
  });
  s = await startTestServer({
    ...CONSOLE_TEST_ENV,
    TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000',
    TAWQI_BRANDING_LOGO_MAX_BYTES: String(LOGO_MAX),
    TAWQI_DNS_SERVERS: dns.server,
  });
  a = await s.account({ name: 'A Co', ownerEmail: 'owner@a.example.com' });
  await consoleUser(s, a.id, 'owner@a.example.com', 'owner');
  owner = await signedIn('owner@a.example.com');
  ownerEn = await signedIn('owner@a.example.com', 'en');
});
after(async () => {
  await s.close();
  await dns.close();
});

describe('console branding', () => {
  test('every field of spec 2.9 is saved, shown with the button contrast, and audited', async () => {
    const branding = {
      brand_name: 'Acme Legal',
      brand_color: '#0A7D3B',
      sign_button_color: '#767676',
      custom_domain: 'Sign.Acme.Example',
      from_email: 'contracts@acme.example',
      hide_powered: true,
      sign_welcome_ar: 'أهلًا بك في Acme',
      sign_welcome_en: 'Welcome to Acme',
      logo_url: 'https://acme.example/logo.png',
    };
    const put = await owner.call('PUT', '/branding', { body: branding });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.branding.brand_color, '#0a7d3b');
    assert.equal(put.body.branding.custom_domain, 'sign.acme.example');
    assert.deepEqual(put.body.button_contrast, { color: '#767676', ratio: 4.542, minimum: 4.5 });
    assert.deepEqual(put.body.custom_domain_record, { type: 'A', name: 'sign.acme.example', value: '127.0.0.1' });
    assert.equal(put.body.limits.welcome_max_chars, 240);
    assert.equal(put.body.limits.logo_max_bytes, LOGO_MAX);
    const got = await owner.call('GET', '/branding');
    assert.deepEqual(got.body.branding, put.body.branding);

    const audit = await owner.call('GET', '/audit_log?limit=100');
    const entry = audit.body.data.find((e: { action: string }) => e.action === 'branding.updated');
    assert.ok(entry, 'branding.updated in the audit log');
    assert.equal(entry.target, a.id);
    assert.deepEqual(entry.detail.changes.brand_name, { from: null, to: 'Acme Legal' });

    // The same values again: nothing changes, nothing audited.
    await owner.call('PUT', '/branding', { body: put.body.branding });
    const again = await owner.call('GET', '/audit_log?limit=100');
    assert.equal(again.body.data.filter((e: { action: string }) => e.action === 'branding.updated').length, 1);
  });

  test('each rule refused in Arabic and English; a light button colour carries its contrast ratio and the minimum', async () => {
    const base = (await owner.call('GET', '/branding')).body.branding;
    const light = await refusedBoth(
      '/branding',
      { ...base, sign_button_color: '#777777' },
      'parameter_invalid',
      'sign_button_color',
      /contrast ratio of 4\.48:1; WCAG AA needs at least 4\.5:1/,
    );
    assert.equal(light.body.error.contrast_ratio, 4.478);
    assert.equal(light.body.error.minimum_contrast, 4.5);
    const gold = await owner.call('PUT', '/branding', { body: { sign_button_color: '#FFD700' } });
    assert.match(gold.body.error.message, /1\.4\d:1/, 'Arabic message carries the ratio too');
    const RULES: [field: string, value: unknown, code: string, en: RegExp][] = [
      ['sign_welcome_en', 'w'.repeat(241), 'parameter_invalid', /at most 240 characters/],
      ['sign_welcome_ar', 'ب'.repeat(241), 'parameter_invalid', /at most 240 characters/],
      ['brand_color', 'green', 'parameter_invalid', /#rrggbb/],
      ['logo_url', 'http://acme.example/l.png', 'parameter_invalid', /https URL/],
      ['custom_domain', 'https://x', 'parameter_invalid', /host name/],
      ['from_email', 'nope', 'parameter_invalid', /email address/],
      ['brand_name', 'two\nlines', 'parameter_invalid', /one line/],
      ['hide_powered', 'yes', 'parameter_invalid', /wrong type/],
      ['colour', '#000000', 'parameter_unknown', /not a branding field/],
    ];
    for (const [field, value, code, en] of RULES) await refusedBoth('/branding', { ...base, [field]: value }, code, field, en);
    const many = await ownerEn.call('PUT', '/branding', { body: { brand_color: 'red', sign_welcome_en: '' } });
    assert.deepEqual(
      many.body.error.errors.map((e: { param: string; rule: string }) => `${e.param}:${e.rule}`),
      ['brand_color:hex', 'sign_welcome_en:empty'],
    );
    assert.equal((await owner.call('GET', '/branding')).body.branding.sign_button_color, '#767676', 'nothing saved');
  });

  test('Business plan and above: a starter account gets plan_feature_unavailable with the plan and the upgrade URL', async () => {
    const starter = await s.account({ name: 'Small Co', plan: 'starter' });
    await consoleUser(s, starter.id, 'owner@small.example.com', 'owner');
    const ar = await signedIn('owner@small.example.com');
    const en = await signedIn('owner@small.example.com', 'en');
    for (const [method, path] of [
      ['GET', '/branding'],
      ['PUT', '/branding'],
      ['GET', '/branding/custom_domain'],
    ] as const) {
      const body = method === 'PUT' ? { brand_name: 'Small' } : undefined;
      const r = await ar.call(method, path, { body });
      assert.equal(r.status, 403, `${method} ${path}`);
      refusal(r, 'plan_feature_unavailable', 'ar');
      assert.equal(r.body.error.required_plan, 'business');
      assert.equal(r.body.error.feature, 'branding');
      assert.equal(r.body.error.upgrade_url, '/console/billing');
      refusal(await en.call(method, path, { body }), 'plan_feature_unavailable', 'en');
    }
    const logo = await upload(en, PNG, 'image/png');
    refusal(logo, 'plan_feature_unavailable', 'en');
  });

  test('logo: PNG, JPEG and a plain SVG by their bytes; other content, a lying Content-Type, a scripted SVG and an oversize file refused', async () => {
    const png = await upload(owner, PNG, 'image/png');
    assert.equal(png.status, 200, png.text);
    assert.match(png.body.logo_url, new RegExp(`^/branding/logos/${a.id}-[0-9a-f]{64}\\.png$`));
    const served = await fetch(`${s.url}${png.body.logo_url}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), PNG);
    assert.equal((await owner.call('GET', '/branding')).body.branding.logo_url, png.body.logo_url);
    const audit = (await owner.call('GET', '/audit_log?limit=1')).body.data[0];
    assert.equal(audit.action, 'branding.updated');
    assert.equal(audit.detail.changes.logo_url.to, png.body.logo_url, 'the upload is audited');

    assert.equal((await upload(owner, JPEG, 'image/jpeg')).body.content_type, 'image/jpeg');
    const svg = await upload(owner, Buffer.from(SAFE_SVG), 'image/svg+xml');
    assert.equal(svg.status, 200, svg.text);
    const svgServed = await fetch(`${s.url}${svg.body.logo_url}`);
    assert.match(svgServed.headers.get('content-security-policy')!, /sandbox/);

    const ownerEnUpload = (bytes: Buffer, type: string) => upload(ownerEn, bytes, type);
    refusal(await upload(owner, Buffer.from('GIF89a....'), 'image/gif'), 'parameter_invalid', 'ar', 'logo');
    const text = await ownerEnUpload(Buffer.from('hello'), 'image/png');
    refusal(text, 'parameter_invalid', 'en', 'logo');
    assert.match(text.body.error.message, /PNG, JPEG or SVG/);
    const lying = await ownerEnUpload(PNG, 'image/svg+xml');
    assert.match(lying.body.error.message, /image\/png by its content but was sent as image\/svg\+xml/);
    for (const [bad, why] of [
      ['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', /element <script>/],
      ['<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>', /event handler/],
      ['<svg xmlns="http://www.w3.org/2000/svg"><a href="javascript:alert(1)"><rect/></a></svg>', /element <a>/],
      ['<svg xmlns="http://www.w3.org/2000/svg"><image href="https://x.example/t.png"/></svg>', /element <image>/],
      ['<svg xmlns="http://www.w3.org/2000/svg"><use href="https://x.example/s.svg#a"/></svg>', /element <use>/],
      ['<!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg"/>', /PNG, JPEG or SVG/],
      ['<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(https://x.example/p)"/></svg>', /url\(\)/],
      ['<svg xmlns="http://www.w3.org/2000/svg"><text>&#106;</text></svg>', /character or entity/],
    ] as const) {
      const r = await ownerEnUpload(Buffer.from(bad), 'image/svg+xml');
      refusal(r, 'parameter_invalid', 'en', 'logo');
      assert.match(r.body.error.message, why, bad);
    }
    const ar = await upload(owner, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onclick="x()"/>'), 'image/svg+xml');
    refusal(ar, 'parameter_invalid', 'ar', 'logo');

    const big = Buffer.concat([PNG.subarray(0, 8), Buffer.alloc(LOGO_MAX + 1)]);
    const tooBig = await ownerEnUpload(big, 'image/png');
    refusal(tooBig, 'request_too_large', 'en', 'logo');
    assert.equal(tooBig.body.error.max_bytes, LOGO_MAX);
    refusal(await upload(owner, big, 'image/png'), 'request_too_large', 'ar', 'logo');
    refusal(await ownerEnUpload(Buffer.alloc(0), 'image/png'), 'parameter_missing', 'en', 'logo');
  });

  test('a real signing link shows the branding: logo, name, colours, welcome text', async () => {
    const png = await upload(owner, PNG, 'image/png');
    const current = (await owner.call('GET', '/branding')).body.branding;
    const put = await owner.call('PUT', '/branding', {
      body: {
        ...current,
        brand_name: 'Acme Signing',
        hide_powered: true,
        sign_button_color: '#1a237e',
        sign_welcome_en: 'Hello from Acme',
      },
    });
    assert.equal(put.status, 200, put.text);
    const created = await s.call('POST', '/signature_requests', {
      key: a.keys.secret_test,
      body: {
        title: 'Branded',
        source: { type: 'template', template_id: 'tpl_nda_ar' },
        signers: [{ name: 'Sara', email: 'owner@a.example.com', fields: NDA_FIELDS }],
      },
    });
    assert.equal(created.status, 201, created.text);
    const page = await PageClient.open(created.body.signers[0].signing_url);
    assert.match(page.html, /#1a237e/i, 'the button colour is in the page shell');
    const state = await page.call('GET', '/state');
    assert.equal(state.status, 200);
    assert.equal(state.body.branding.brand_name, 'Acme Signing');
    assert.equal(state.body.branding.button_color, '#1a237e');
    assert.equal(state.body.branding.logo_url, png.body.logo_url);
    assert.equal(state.body.branding.hide_powered, true);
    assert.ok(['Hello from Acme', 'أهلًا بك في Acme'].includes(state.body.branding.welcome), state.body.branding.welcome);
    const logo = await fetch(new URL(state.body.branding.logo_url, created.body.signers[0].signing_url));
    assert.equal(logo.status, 200);
  });

  test('custom domain: the record to create and whether it resolves now (a real DNS server on 127.0.0.1)', async () => {
    const base = (await owner.call('GET', '/branding')).body.branding;
    const state = async (domain: string) => {
      assert.equal((await owner.call('PUT', '/branding', { body: { ...base, custom_domain: domain } })).status, 200);
      const r = await owner.call('GET', '/branding/custom_domain');
      assert.equal(r.status, 200, r.text);
      return r.body;
    };
    const here = await state('sign.acme.example');
    assert.equal(here.state, 'points_here');
    assert.deepEqual(here.record, { type: 'A', name: 'sign.acme.example', value: '127.0.0.1' });
    assert.deepEqual(here.found, ['127.0.0.1']);
    assert.equal((await state('elsewhere.acme.example')).state, 'points_elsewhere');
    const missing = await state('missing.acme.example');
    assert.equal(missing.state, 'not_found');
    assert.deepEqual(missing.found, []);
    const broken = await state('broken.acme.example');
    assert.equal(broken.state, 'lookup_failed');
    assert.equal(broken.error, 'ESERVFAIL');
    const { custom_domain: _removed, ...rest } = base;
    await owner.call('PUT', '/branding', { body: rest });
    assert.deepEqual((await owner.call('GET', '/branding/custom_domain')).body, { object: 'custom_domain', domain: null });
  });

  test('custom domain with a host-name public address: a CNAME, checked through a resolver function', async () => {
    const table: Record<string, Record<string, string[]>> = {
      cname: { 'sign.acme.example': ['tawqi.example.'], 'flat.acme.example': [] },
      a: { 'tawqi.example': ['198.51.100.4'], 'flat.acme.example': ['198.51.100.4'], 'other.acme.example': ['203.0.113.9'] },
    };
    const lookup = (kind: 'cname' | 'a') => async (name: string) => {
      const found = table[kind]![name];
      if (found === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      if (found.length === 0) throw Object.assign(new Error('no data'), { code: 'ENODATA' });
      return found;
    };
    const resolver: DnsLookups = { resolveCname: lookup('cname'), resolve4: lookup('a'), resolve6: async () => [] };
    const cname = await checkCustomDomain(resolver, 'sign.acme.example', 'https://tawqi.example');
    assert.deepEqual(cname.record, { type: 'CNAME', name: 'sign.acme.example', value: 'tawqi.example' });
    assert.equal(cname.state, 'points_here');
    assert.equal(
      (await checkCustomDomain(resolver, 'flat.acme.example', 'https://tawqi.example')).state,
      'points_here',
      'same address (a flattened CNAME)',
    );
    assert.equal((await checkCustomDomain(resolver, 'other.acme.example', 'https://tawqi.example')).state, 'points_elsewhere');
    assert.equal((await checkCustomDomain(resolver, 'none.acme.example', 'https://tawqi.example')).state, 'not_found');
  });
});
