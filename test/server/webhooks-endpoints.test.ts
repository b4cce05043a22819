/**
 * Webhook endpoints (spec 2.4, 4, 6.1): create (secret once), list with cursors, retrieve, update,
 * delete, the key rules, and the reachability rules — https only, and no loopback, private,
 * link-local, shared, multicast or reserved target (IPv4, IPv6, IPv4-mapped), checked at
 * registration by this server (TAWQI_WEBHOOK_ALLOW_PRIVATE unset) and by the address classifier.
 * No test here sends a delivery: a public address accepted below is never contacted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { issueKey } from '../../server/src/services/accounts.js';
import { checkEndpointUrl, EndpointUrlProblem } from '../../server/src/webhooks/endpoints.js';
import { EVENT_TYPES } from '../../server/src/domain/eventTypes.js';
import {
  addressProblem,
  checkedLookup,
  ipv6Groups,
  resolveTarget,
  TargetRefused,
  type Resolver,
} from '../../server/src/webhooks/reachability.js';
import { signatureHeader, signPayload } from '../../server/src/webhooks/signing.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** A public address (never contacted: nothing is delivered in this file). */
const PUBLIC_URL = 'https://93.184.215.14/hooks/tawqi';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('webhook endpoints API', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const create = (key: string, body: unknown, prefix?: string) => s.call('POST', '/webhook_endpoints', { key, body, prefix });

  test('create answers 201 with the whsec_ secret, once; retrieve and list never show it', async () => {
    const a = await s.account();
    const r = await create(a.keys.secret_test, {
      url: PUBLIC_URL,
      enabled_events: ['signature_request.completed', 'signer.signed', 'signer.signed'],
      description: ' ERP ',
    });
    assert.equal(r.status, 201, r.text);
    const { secret, ...rest } = r.body;
    assert.match(rest.id, /^we_[0-9A-Za-z]{24}$/);
    assert.deepEqual(rest, {
      id: rest.id,
      object: 'webhook_endpoint',
      url: PUBLIC_URL,
      enabled_events: ['signature_request.completed', 'signer.signed'],
      status: 'enabled',
      description: 'ERP',
      livemode: false,
      created_at: Math.floor(s.clock.nowMs() / 1000),
    });
    // At least 192 random bits: 43 base62 characters carry 256.
    assert.match(secret, /^whsec_[0-9A-Za-z]{43}$/);
    assert.ok(43 * Math.log2(62) >= 192);
    const other = await create(a.keys.secret_test, { url: PUBLIC_URL, enabled_events: ['*'] });
    assert.notEqual(other.body.secret, secret, 'one secret per endpoint');

    const got = await s.call('GET', `/webhook_endpoints/${rest.id}`, { key: a.keys.secret_test });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, rest);
    const list = await s.call('GET', '/webhook_endpoints', { key: a.keys.secret_test });
    assert.equal(list.status, 200);
    assert.ok(!list.text.includes('whsec_') && !got.text.includes('whsec_'), 'the secret is never shown again');
    assert.deepEqual(
      list.body.data.map((e: Json) => e.id),
      [other.body.id, rest.id],
      'newest first',
    );

    const live = await create(a.keys.secret_live, { url: PUBLIC_URL, enabled_events: ['*'] });
    assert.equal(live.body.livemode, true, 'a live key makes a live endpoint');
    // Each mode sees its own endpoints only.
    assertError(await s.call('GET', `/webhook_endpoints/${live.body.id}`, { key: a.keys.secret_test }), 'not_found');
    assert.deepEqual(
      (await s.call('GET', '/webhook_endpoints', { key: a.keys.secret_live })).body.data.map((e: Json) => e.id),
      [live.body.id],
    );
    // And each account its own.
    const b = await s.account();
    assertError(await s.call('GET', `/webhook_endpoints/${rest.id}`, { key: b.keys.secret_test }), 'not_found');
    assert.deepEqual((await s.call('GET', '/webhook_endpoints', { key: b.keys.secret_test })).body.data, []);
  });

  test('list pages with limit, has_more, next_cursor and starting_after', async () => {
    const a = await s.account();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.unshift((await create(a.keys.secret_live, { url: `${PUBLIC_URL}/${i}`, enabled_events: ['*'] })).body.id);
    const first = await s.call('GET', '/webhook_endpoints?limit=2', { key: a.keys.secret_live });
    assert.deepEqual(
      first.body.data.map((e: Json) => e.id),
      ids.slice(0, 2),
    );
    assert.equal(first.body.has_more, true);
    assert.equal(first.body.next_cursor, ids[1]);
    const second = await s.call('GET', `/webhook_endpoints?limit=2&starting_after=${first.body.next_cursor}`, { key: a.keys.secret_live });
    assert.deepEqual(
      second.body.data.map((e: Json) => e.id),
      ids.slice(2, 4),
    );
    const third = await s.call('GET', `/webhook_endpoints?limit=2&starting_after=${second.body.next_cursor}`, { key: a.keys.secret_live });
    assert.deepEqual(
      third.body.data.map((e: Json) => e.id),
      ids.slice(4),
    );
    assert.equal(third.body.has_more, false);
    assert.equal(third.body.next_cursor, null);
    assertError(await s.call('GET', '/webhook_endpoints?limit=0', { key: a.keys.secret_live }), 'parameter_invalid');
  });

  test('input rules: url and enabled_events are required; types must be known (or *); no unknown fields', async () => {
    const a = await s.account();
    const k = a.keys.secret_test;
    const check = async (body: unknown, code: 'parameter_missing' | 'parameter_invalid' | 'parameter_unknown', param: string) => {
      const r = await create(k, body);
      assertError(r, code);
      assert.equal(r.body.error.param, param, JSON.stringify(body));
    };
    await check({ enabled_events: ['*'] }, 'parameter_missing', 'url');
    await check({ url: PUBLIC_URL }, 'parameter_missing', 'enabled_events');
    await check({ url: PUBLIC_URL, enabled_events: [] }, 'parameter_invalid', 'enabled_events');
    await check({ url: PUBLIC_URL, enabled_events: ['signer.signed', 'signer.teleported'] }, 'parameter_invalid', 'enabled_events[1]');
    await check({ url: PUBLIC_URL, enabled_events: 'signer.signed' }, 'parameter_invalid', 'enabled_events');
    await check({ url: PUBLIC_URL, enabled_events: ['*'], secret: 'whsec_mine' }, 'parameter_unknown', 'secret');
    await check({ url: 42, enabled_events: ['*'] }, 'parameter_invalid', 'url');
    const all = await create(k, { url: PUBLIC_URL, enabled_events: [...EVENT_TYPES] });
    assert.equal(all.status, 201, 'every event type of spec 6.3 is accepted');
    assert.equal((await create(k, { url: PUBLIC_URL, enabled_events: ['*'] })).body.enabled_events[0], '*');
  });

  test('the url must be https, well formed, and publicly reachable: 400 parameter_invalid on url', async () => {
    const a = await s.account();
    const k = a.keys.secret_test;
    const refused = async (url: string, pattern: RegExp) => {
      const r = await create(k, { url, enabled_events: ['*'] }, '/en/api/v1');
      assertError(r, 'parameter_invalid', 'en');
      assert.equal(r.body.error.param, 'url', url);
      assert.match(r.body.error.message, pattern, url);
    };
    await refused('http://hooks.example.com/x', /must use https/);
    await refused('hooks.example.com/x', /absolute URL/);
    await refused('https://user:pw@hooks.example.com/x', /credentials/);
    await refused('https://hooks.example.com/x#frag', /fragment/);
    await refused(`https://example.com/${'x'.repeat(2100)}`, /at most 2048/);
    const notPublic: [string, string][] = [
      ['https://127.0.0.1/x', 'loopback'],
      ['https://127.8.9.10:8443/x', 'loopback'],
      ['https://localhost:9443/x', 'loopback'],
      ['https://2130706433/x', 'loopback'], // 127.0.0.1 written as a number: URL parsing normalises it
      ['https://0x7f.1/x', 'loopback'],
      ['https://[::1]/x', 'loopback'],
      ['https://[::ffff:127.0.0.1]/x', 'IPv4-mapped loopback'],
      ['https://[::ffff:a00:1]/x', 'IPv4-mapped private'],
      ['https://0.0.0.0/x', 'this network'],
      ['https://10.1.2.3/x', 'private'],
      ['https://172.16.0.1/x', 'private'],
      ['https://172.31.255.254/x', 'private'],
      ['https://192.168.1.1/x', 'private'],
      ['https://100.64.0.1/x', 'shared address space'],
      ['https://100.127.255.254/x', 'shared address space'],
      ['https://169.254.169.254/latest/meta-data', 'link-local'],
      ['https://192.0.2.10/x', 'documentation'],
      ['https://198.18.0.1/x', 'benchmarking'],
      ['https://224.0.0.1/x', 'multicast'],
      ['https://240.0.0.1/x', 'reserved'],
      ['https://255.255.255.255/x', 'reserved'],
      ['https://[fd00::1]/x', 'unique local'],
      ['https://[fc00::5]/x', 'unique local'],
      ['https://[fe80::1]/x', 'link-local'],
      ['https://[ff02::1]/x', 'multicast'],
      ['https://[::]/x', 'unspecified'],
      ['https://[2001:db8::1]/x', 'documentation'],
      ['https://[64:ff9b::a9fe:a9fe]/x', 'NAT64 of link-local'],
    ];
    for (const [url, why] of notPublic) {
      await refused(url, /must be publicly reachable: .* not a public address \(/);
      const r = await create(k, { url, enabled_events: ['*'] }, '/en/api/v1');
      assert.ok(r.body.error.message.includes(`${why})`), `${url}: ${r.body.error.message}`);
    }
    // The message is Arabic by default, and names the rule.
    await assertErrorBothLanguages(
      (prefix) => create(k, { url: 'https://10.0.0.7/x', enabled_events: ['*'] }, prefix),
      'parameter_invalid',
    );
    // Public addresses pass (not contacted).
    for (const url of [
      'https://93.184.215.14/x',
      'https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/x',
      'https://[::ffff:5db8:d70e]/x',
      'https://100.128.0.1/x',
      'https://172.32.0.1/x',
    ]) {
      const r = await create(k, { url, enabled_events: ['*'] });
      assert.equal(r.status, 201, `${url}: ${r.text}`);
    }
  });

  test('update (POST /webhook_endpoints/{id}) and delete', async () => {
    const a = await s.account();
    const k = a.keys.secret_live;
    const e = (await create(k, { url: PUBLIC_URL, enabled_events: ['signer.signed'], description: 'one' })).body;
    const up = await s.call('POST', `/webhook_endpoints/${e.id}`, {
      key: k,
      body: { url: `${PUBLIC_URL}/v2`, enabled_events: ['*'], description: 'two' },
    });
    assert.equal(up.status, 200, up.text);
    const { secret: _secret, ...shown } = e;
    assert.deepEqual(up.body, { ...shown, url: `${PUBLIC_URL}/v2`, enabled_events: ['*'], description: 'two' });
    assert.ok(!('secret' in up.body));
    const off = await s.call('POST', `/webhook_endpoints/${e.id}`, { key: k, body: { disabled: true } });
    assert.equal(off.body.status, 'disabled');
    assert.equal(off.body.url, `${PUBLIC_URL}/v2`, 'unnamed fields keep their values');
    const cleared = await s.call('POST', `/webhook_endpoints/${e.id}`, { key: k, body: { description: null, disabled: false } });
    assert.equal(cleared.body.description, null);
    assert.equal(cleared.body.status, 'enabled');
    assert.equal((await s.call('GET', `/webhook_endpoints/${e.id}`, { key: k })).body.status, 'enabled');

    const bad = await s.call('POST', `/webhook_endpoints/${e.id}`, { key: k, body: { url: 'https://192.168.0.10/hook' } });
    assertError(bad, 'parameter_invalid');
    assert.equal(bad.body.error.param, 'url');
    assertError(await s.call('POST', `/webhook_endpoints/${e.id}`, { key: k, body: { status: 'disabled' } }), 'parameter_unknown');
    assertError(await s.call('POST', `/webhook_endpoints/${e.id}`, { key: k, body: { enabled_events: ['nope'] } }), 'parameter_invalid');
    assertError(await s.call('POST', '/webhook_endpoints/we_nope', { key: k, body: { disabled: true } }), 'not_found');
    assertError(await s.call('POST', `/webhook_endpoints/${e.id}`, { key: a.keys.secret_test, body: { disabled: true } }), 'not_found');

    const del = await s.call('DELETE', `/webhook_endpoints/${e.id}`, { key: k });
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.body, { id: e.id, object: 'webhook_endpoint', deleted: true });
    assertError(await s.call('GET', `/webhook_endpoints/${e.id}`, { key: k }), 'not_found');
    assertError(await s.call('DELETE', `/webhook_endpoints/${e.id}`, { key: k }), 'not_found');
    assertError(await s.call('POST', `/webhook_endpoints/${e.id}`, { key: k, body: { disabled: false } }), 'not_found');
    assert.ok(!(await s.call('GET', '/webhook_endpoints', { key: k })).body.data.some((x: Json) => x.id === e.id));
    const stored = await s.ctx.store.db
      .selectFrom('webhook_endpoints')
      .select(['secret', 'previous_secret', 'deleted_at'])
      .where('id', '=', e.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.secret, null, 'a deleted endpoint keeps no secret');
    assert.ok(stored.deleted_at !== null);
  });

  test('publishable and read-only keys are refused (403 forbidden); creation is idempotent with Idempotency-Key', async () => {
    const a = await s.account();
    const body = { url: PUBLIC_URL, enabled_events: ['*'] };
    for (const key of [a.keys.publishable_live, a.keys.publishable_test]) {
      assertError(await s.call('POST', '/webhook_endpoints', { key, body, headers: { origin: 'https://shop.example.com' } }), 'forbidden');
      assertError(await s.call('GET', '/webhook_endpoints', { key, headers: { origin: 'https://shop.example.com' } }), 'forbidden');
    }
    const readOnly = await s.ctx.store.tx((trx) => issueKey(trx, s.clock, a.id, 'secret', 'live', { readOnly: true }));
    assertError(await s.call('POST', '/webhook_endpoints', { key: readOnly.secret, body }), 'forbidden');
    assert.equal((await s.call('GET', '/webhook_endpoints', { key: readOnly.secret })).status, 200, 'a read-only key may list');

    const headers = { 'idempotency-key': 'we-create-1' };
    const first = await s.call('POST', '/webhook_endpoints', { key: a.keys.secret_live, body, headers });
    const again = await s.call('POST', '/webhook_endpoints', { key: a.keys.secret_live, body, headers });
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body.id, first.body.id);
    assert.equal((await s.call('GET', '/webhook_endpoints', { key: a.keys.secret_live })).body.data.length, 1);
  });
});

describe('reachability rules', () => {
  test('address classes: IPv4, IPv6, IPv4-mapped and NAT64', () => {
    const cases: [string, string | null][] = [
      ['8.8.8.8', null],
      ['1.1.1.1', null],
      ['93.184.215.14', null],
      ['0.1.2.3', 'this network'],
      ['10.255.255.255', 'private'],
      ['100.63.255.255', null],
      ['100.64.0.0', 'shared address space'],
      ['100.128.0.0', null],
      ['127.255.255.255', 'loopback'],
      ['169.254.0.1', 'link-local'],
      ['172.15.255.255', null],
      ['172.16.0.0', 'private'],
      ['172.32.0.0', null],
      ['192.0.0.8', 'reserved'],
      ['192.0.2.1', 'documentation'],
      ['192.88.99.1', 'reserved'],
      ['192.168.255.255', 'private'],
      ['198.19.255.255', 'benchmarking'],
      ['198.51.100.7', 'documentation'],
      ['203.0.113.9', 'documentation'],
      ['223.255.255.255', null],
      ['239.1.1.1', 'multicast'],
      ['250.0.0.1', 'reserved'],
      ['2606:4700:4700::1111', null],
      ['2a00:1450:4001:80b::200e', null],
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['0:0:0:0:0:0:0:1', 'loopback'],
      ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
      ['::ffff:7f00:1', 'IPv4-mapped loopback'],
      ['::ffff:192.168.1.1', 'IPv4-mapped private'],
      ['::ffff:8.8.8.8', null],
      ['::127.0.0.1', 'reserved (IPv4-compatible)'],
      ['64:ff9b::8.8.8.8', null],
      ['64:ff9b::10.0.0.1', 'NAT64 of private'],
      ['64:ff9b:1::1', 'reserved (local NAT64)'],
      ['100::1', 'reserved (discard)'],
      ['2001::1', 'reserved (IETF protocol assignments)'],
      ['2001:db8:1::1', 'documentation'],
      ['2002:7f00:1::1', 'reserved (6to4)'],
      ['3fff::1', 'documentation'],
      ['fc00::1', 'private (unique local)'],
      ['fdff:ffff::1', 'private (unique local)'],
      ['fe80::1%eth0', 'link-local'],
      ['febf::1', 'link-local'],
      ['fec0::1', 'reserved (site-local)'],
      ['ff05::2', 'multicast'],
      ['4000::1', 'reserved'],
      ['not-an-ip', 'not an address'],
    ];
    for (const [ip, expected] of cases) assert.equal(addressProblem(ip), expected, ip);
    assert.deepEqual(ipv6Groups('1:2::7:8'), [1, 2, 0, 0, 0, 0, 7, 8]);
    assert.deepEqual(ipv6Groups('::ffff:1.2.3.4'), [0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
  });

  const fake =
    (table: Record<string, string[]>): Resolver =>
    async (host) => {
      const list = table[host];
      if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
  const resolver = fake({
    'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'inside.example.com': ['10.0.0.5'],
    'mixed.example.com': ['93.184.215.14', '127.0.0.1'],
    'mapped.example.com': ['::ffff:169.254.169.254'],
  });

  test('names are resolved and every address must be public; unresolvable names are refused', async () => {
    assert.equal(await checkEndpointUrl('https://hooks.example.com/x', false, resolver), 'https://hooks.example.com/x');
    const refusal = async (url: string, allowPrivate: boolean, pattern: RegExp) => {
      await assert.rejects(
        checkEndpointUrl(url, allowPrivate, resolver),
        (err: unknown) => err instanceof EndpointUrlProblem && pattern.test(err.en) && /[\u0600-\u06FF]/.test(err.ar),
      );
    };
    await refusal(
      'https://inside.example.com/x',
      false,
      /inside\.example\.com resolves to 10\.0\.0\.5, which is not a public address \(private\)/,
    );
    await refusal('https://mixed.example.com/x', false, /resolves to 127\.0\.0\.1, which is not a public address \(loopback\)/);
    await refusal('https://mapped.example.com/x', false, /IPv4-mapped link-local/);
    await refusal('https://nowhere.example.com/x', false, /nowhere\.example\.com could not be resolved/);
    await refusal('https://nowhere.example.com/x', true, /could not be resolved/);
    // The operator setting lets internal targets through; https stays mandatory.
    assert.equal(await checkEndpointUrl('https://inside.example.com/x', true, resolver), 'https://inside.example.com/x');
    await refusal('http://inside.example.com/x', true, /must use https/);
  });

  test('the connection lookup hands the socket exactly the addresses it checked', async () => {
    const lookup = (host: string, allowPrivate: boolean, options: { all?: boolean; family?: number }) =>
      new Promise<unknown>((resolve, reject) =>
        checkedLookup(allowPrivate, resolver)(
          host,
          options as never,
          ((err: Error | null, address: unknown, family?: number) =>
            err ? reject(err) : resolve(options.all ? address : [address, family])) as never,
        ),
      );
    assert.deepEqual(await lookup('hooks.example.com', false, { all: true }), [
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
    assert.deepEqual(await lookup('hooks.example.com', false, { family: 6 }), ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', 6]);
    await assert.rejects(
      lookup('mixed.example.com', false, { all: true }),
      (err: unknown) => err instanceof TargetRefused && err.reason === 'not_public',
    );
    await assert.rejects(lookup('inside.example.com', false, {}), TargetRefused);
    assert.deepEqual(await lookup('inside.example.com', true, {}), ['10.0.0.5', 4]);
    // A name whose answer changes between checks (DNS rebinding) is checked on every connection.
    let calls = 0;
    const rebinding: Resolver = async () => [{ address: calls++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    assert.deepEqual(await resolveTarget('rebind.example.com', false, rebinding), [{ address: '93.184.215.14', family: 4 }]);
    await assert.rejects(
      new Promise((resolve, reject) =>
        checkedLookup(false, rebinding)(
          'rebind.example.com',
          {} as never,
          ((err: Error | null, a: string) => (err ? reject(err) : resolve(a))) as never,
        ),
      ),
      /not a public address \(loopback\)/,
    );
  });

  test('signing: t=…,v1=HMAC-SHA256(secret, "t.body") hex, one v1 per secret', () => {
    // Reference value computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
    assert.equal(signPayload('whsec_test', 1700000000, '{"a":1}'), '38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789');
    const header = signatureHeader(['whsec_new', 'whsec_old'], 1700000000, '{}');
    assert.match(header, /^t=1700000000,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    assert.equal(header.split(',')[1], `v1=${signPayload('whsec_new', 1700000000, '{}')}`);
  });
});
