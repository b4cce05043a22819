/**
 * The console's developer settings (issue 15 point 4, 5): API keys, webhook secret rotation, a
 * test event, an endpoint's delivery log, the request log, the version pin and the identity review
 * queue — and, route by route, that a user of account A cannot see or change account B's, and a
 * viewer cannot write. Real HTTP, a real HTTPS webhook receiver, the configured engine.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/envelope.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { aesRequest, holdOnNameMatch, putInReview } from '../support/identityReview.js';
import type { TestServer } from '../support/server.js';
import { makeTestCa, startWebhookTestServer, WebhookReceiver, type Received, type TestCa } from '../support/webhookReceiver.js';

let ca: TestCa;
let s: TestServer;
let rx: WebhookReceiver;
let a: { id: string; keys: TestServer['keys'] };
let b: { id: string; keys: TestServer['keys'] };
let owner: ConsoleClient;
let viewer: ConsoleClient;
let other: ConsoleClient;
const OWNER = 'owner@a.example.com';
const now = () => Math.floor(s.clock.nowMs() / 1000);

async function signedIn(email: string, lang?: 'en'): Promise<ConsoleClient> {
  const c = new ConsoleClient(s.url, lang);
  const r = await c.signIn(email, TEST_PASSWORD);
  assert.equal(r.status, 200, r.text);
  return c;
}

async function credential(c: ConsoleClient, livemode: boolean): Promise<string> {
  const r = await c.call('POST', '/credentials', { body: { livemode } });
  assert.equal(r.status, 201, r.text);
  return r.body.token;
}

async function auditActions(c: ConsoleClient): Promise<{ action: string; target: string | null; detail: Record<string, unknown> }[]> {
  const r = await c.call('GET', '/audit_log?limit=100');
  assert.equal(r.status, 200, r.text);
  return r.body.data;
}

function signedWith(r: Received, secret: string): boolean {
  const header = String(r.headers['svc-signature']);
  const t = /t=(\d+)/.exec(header)![1];
  const expected = createHmac('sha256', secret).update(`${t}.${r.rawBody}`, 'utf8').digest('hex');
  return header.split(',').some((p) => p === `v1=${expected}`);
}

/** Moving the clock past the idle time ends the sessions: sign everyone in again. */
async function advance(seconds: number): Promise<void> {
  s.clock.advanceSeconds(seconds);
  owner = await signedIn(OWNER);
  viewer = await signedIn('viewer@a.example.com');
  other = await signedIn('owner@b.example.com');
}

before(async () => {
  ca = makeTestCa();
  s = await startWebhookTestServer(ca, { ...CONSOLE_TEST_ENV, TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000', TAWQI_TRUSTED_PROXIES: '127.0.0.1' });
  rx = await WebhookReceiver.start(ca);
  a = await s.account({ name: 'A Co', ownerEmail: OWNER, walletMinor: 100_000 });
  b = await s.account({ name: 'B Co' });
  await consoleUser(s, a.id, OWNER, 'owner');
  await consoleUser(s, a.id, 'dev@a.example.com', 'developer');
  await consoleUser(s, a.id, 'viewer@a.example.com', 'viewer');
  await consoleUser(s, b.id, 'owner@b.example.com', 'owner');
  owner = await signedIn(OWNER);
  viewer = await signedIn('viewer@a.example.com');
  other = await signedIn('owner@b.example.com');
});
after(async () => {
  await s.close();
  await rx.close();
  ca.cleanup();
});

describe('API keys', () => {
  test('create a test secret key: shown once, works on the API, listed by its hint only; audited', async () => {
    const r = await owner.call('POST', '/keys', { body: { type: 'secret', mode: 'test', name: 'CI' } });
    assert.equal(r.status, 201, r.text);
    assert.match(r.body.secret, /^sk_test_[0-9a-f]{40}$/);
    assert.equal(r.body.key.name, 'CI');
    assert.equal(r.body.key.hint, `sk_test_…${r.body.secret.slice(-4)}`);
    assert.equal((await s.call('GET', '/', { key: r.body.secret })).status, 200);
    const list = await owner.call('GET', '/keys');
    assert.ok(list.body.data.some((k: { id: string }) => k.id === r.body.key.id));
    assert.ok(!list.text.includes(r.body.secret), 'the secret is never listed');
    const entry = (await auditActions(owner)).find((e) => e.action === 'key.created' && e.target === r.body.key.id);
    assert.deepEqual(entry?.detail, { type: 'secret', mode: 'test', name: 'CI', read_only: false });
  });

  test('a read-only key reads only; a publishable key takes origins and a daily cap, a secret key neither (400, both languages)', async () => {
    const ro = await owner.call('POST', '/keys', { body: { type: 'secret', mode: 'test', read_only: true } });
    assert.equal(ro.status, 201, ro.text);
    assertError(
      await s.call('POST', '/templates', { key: ro.body.secret, body: { title: 'x', language: 'en', body: 'x', fields: [] } }),
      'forbidden',
    );
    const pk = await owner.call('POST', '/keys', {
      body: { type: 'publishable', mode: 'live', allowed_origins: ['https://shop.example.com'], daily_cap: 50 },
    });
    assert.equal(pk.status, 201, pk.text);
    assert.match(pk.body.secret, /^pk_[0-9a-f]{40}$/);
    assert.deepEqual(pk.body.key.allowed_origins, ['https://shop.example.com']);
    assert.equal(pk.body.key.daily_cap, 50);
    const bad = await owner.call('POST', '/keys', { body: { type: 'secret', mode: 'live', daily_cap: 5 } });
    assertError(bad, 'parameter_invalid');
    assert.equal(bad.body.error.param, 'daily_cap');
    const en = await signedIn(OWNER, 'en');
    assertError(
      await en.call('POST', '/keys', { body: { type: 'publishable', mode: 'live', allowed_ips: ['10.0.0.1'] } }),
      'parameter_invalid',
      'en',
    );
    assertError(
      await owner.call('POST', '/keys', { body: { type: 'secret', mode: 'live', allowed_ips: ['not-an-ip'] } }),
      'parameter_invalid',
    );
    assertError(await owner.call('POST', '/keys', { body: { type: 'secret', mode: 'live', extra: 1 } }), 'parameter_unknown');
  });

  test('rotate with the 24-hour grace, rotate at once, revoke; each audited', async () => {
    const made = (await owner.call('POST', '/keys', { body: { type: 'secret', mode: 'test' } })).body;
    const rotated = await owner.call('POST', `/keys/${made.key.id}/rotate`, { body: { expire: '24h' } });
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(rotated.body.previous.expires_at, now() + 24 * 3600);
    assert.equal(rotated.body.previous.state, 'expiring');
    assert.equal((await s.call('GET', '/', { key: made.secret })).status, 200);
    assert.equal((await s.call('GET', '/', { key: rotated.body.secret })).status, 200);
    await advance(24 * 3600);
    assertError(await s.call('GET', '/', { key: made.secret }), 'invalid_api_key');

    const now1 = await owner.call('POST', `/keys/${rotated.body.key.id}/rotate`, { body: { expire: 'now' } });
    assert.equal(now1.status, 200, now1.text);
    assert.equal(now1.body.previous.state, 'expired');
    assertError(await s.call('GET', '/', { key: rotated.body.secret }), 'invalid_api_key');
    const again = await owner.call('POST', `/keys/${rotated.body.key.id}/rotate`, {});
    assertError(again, 'invalid_state');

    const revoked = await owner.call('POST', `/keys/${now1.body.key.id}/revoke`, {});
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal(revoked.body.state, 'revoked');
    assertError(await s.call('GET', '/', { key: now1.body.secret }), 'invalid_api_key');
    const actions = (await auditActions(owner)).map((e) => `${e.action} ${e.target}`);
    for (const line of [`key.rotated ${made.key.id}`, `key.rotated ${rotated.body.key.id}`, `key.revoked ${now1.body.key.id}`])
      assert.ok(actions.includes(line), line);
  });

  test('an IP allowlist refuses other addresses: 403 ip_not_allowed, in the request log; clearing it lets them in', async () => {
    const made = (await owner.call('POST', '/keys', { body: { type: 'secret', mode: 'live', name: 'server' } })).body;
    const set = await owner.call('PATCH', `/keys/${made.key.id}`, { body: { allowed_ips: ['198.51.100.0/24', '2001:db8::1'] } });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.allowed_ips, ['198.51.100.0/24', '2001:db8::1']);
    const refused = await s.call('GET', '/', { key: made.secret, headers: { 'x-forwarded-for': '203.0.113.7' } });
    assertError(refused, 'ip_not_allowed');
    assert.equal((await s.call('GET', '/', { key: made.secret, headers: { 'x-forwarded-for': '198.51.100.20' } })).status, 200);

    await s.ctx.requestLog.flush();
    const log = await owner.call('GET', '/request_log?limit=1&status=403');
    assert.equal(log.status, 200, log.text);
    assert.deepEqual(
      { code: log.body.data[0].code, status: log.body.data[0].status, ip: log.body.data[0].ip, key: log.body.data[0].key },
      { code: 'ip_not_allowed', status: 403, ip: '203.0.113.7', key: made.key.id },
    );
    assert.equal(log.body.data[0].request_id, refused.headers.get('svc-request-id'));
    assert.equal((await viewer.call('GET', '/request_log')).status, 200, 'requests.read');
    assert.deepEqual((await other.call('GET', '/request_log')).body.data, [], 'B sees none of A’s');
    assertError(await other.call('GET', `/request_log?starting_after=${log.body.data[0].id}`), 'parameter_invalid');

    const cleared = await owner.call('PATCH', `/keys/${made.key.id}`, { body: { allowed_ips: [] } });
    assert.deepEqual(cleared.body.allowed_ips, []);
    assert.equal((await s.call('GET', '/', { key: made.secret, headers: { 'x-forwarded-for': '203.0.113.7' } })).status, 200);
    const entry = (await auditActions(owner)).find((e) => e.action === 'key.updated' && e.target === made.key.id);
    assert.deepEqual(entry?.detail, { allowed_ips: [] });
    assertError(await owner.call('PATCH', `/keys/${made.key.id}`, { body: {} }), 'parameter_invalid');
    assertError(
      await owner.call('PATCH', `/keys/${made.key.id}`, { body: { allowed_origins: ['https://x.example'] } }),
      'parameter_invalid',
    );
  });
});

describe('webhook endpoints', () => {
  test('an endpoint made with a live credential; a test event signed and delivered; the delivery log shows the attempt', async () => {
    const live = await credential(owner, true);
    const made = await s.call('POST', '/webhook_endpoints', { key: live, body: { url: rx.url('/a'), enabled_events: ['*'] } });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.livemode, true);
    const sent = await owner.call('POST', `/webhook_endpoints/${made.body.id}/test`, {});
    assert.equal(sent.status, 201, sent.text);
    assert.equal(sent.body.event.type, 'webhook_endpoint.test');
    assert.equal(sent.body.event.data.object.id, made.body.id);
    assert.equal(await s.webhooks.runDue(), 1);
    await rx.waitFor(1);
    const got = rx.received.at(-1)!;
    assert.equal(JSON.parse(got.rawBody).id, sent.body.event.id);
    assert.ok(signedWith(got, made.body.secret));

    const log = await owner.call('GET', `/webhook_endpoints/${made.body.id}/deliveries`);
    assert.equal(log.status, 200, log.text);
    assert.equal(log.body.data[0].id, sent.body.delivery.id);
    assert.equal(log.body.data[0].status, 'succeeded');
    assert.equal(log.body.data[0].attempts[0].response_status, 200);
    assert.equal(log.body.data[0].attempts[0].response_excerpt, 'ok', "the receiver's answer");
    assert.equal(log.body.data[0].attempts[0].created_at, now());
    assert.equal((await viewer.call('GET', `/webhook_endpoints/${made.body.id}/deliveries`)).status, 200, 'requests.read');
    assert.ok((await auditActions(owner)).some((e) => e.action === 'webhook_endpoint.tested' && e.target === made.body.id));
  });

  test('rotate the secret: deliveries carry v1= for both secrets during the overlap, the new one only after; redeliver through the API', async () => {
    const live = await credential(owner, true);
    const made = (await s.call('POST', '/webhook_endpoints', { key: live, body: { url: rx.url('/b'), enabled_events: ['*'] } })).body;
    const rotated = await owner.call('POST', `/webhook_endpoints/${made.id}/rotate_secret`, { body: { overlap_hours: 1 } });
    assert.equal(rotated.status, 200, rotated.text);
    assert.match(rotated.body.secret, /^whsec_/);
    assert.equal(rotated.body.endpoint.previous_secret_signs_until, now() + 3600);
    const sent = (await owner.call('POST', `/webhook_endpoints/${made.id}/test`, {})).body;
    const before = rx.received.length;
    await s.webhooks.runDue();
    await rx.waitFor(before + 1);
    const during = rx.received.at(-1)!;
    assert.ok(signedWith(during, made.secret) && signedWith(during, rotated.body.secret), 'both secrets sign');

    await advance(3600);
    const again = await s.call('POST', `/events/${sent.event.id}/redeliver`, {
      key: await credential(owner, true),
      body: { endpoint: made.id },
    });
    assert.equal(again.status, 200, again.text);
    await s.webhooks.runDue();
    await rx.waitFor(before + 2);
    const afterOverlap = rx.received.at(-1)!;
    assert.ok(signedWith(afterOverlap, rotated.body.secret) && !signedWith(afterOverlap, made.secret), 'the new secret only');
    const log = await owner.call('GET', `/webhook_endpoints/${made.id}/deliveries?limit=1`);
    assert.equal(log.body.data[0].trigger, 'redeliver');
    assert.equal(log.body.has_more, true);
    const next = await owner.call('GET', `/webhook_endpoints/${made.id}/deliveries?limit=1&starting_after=${log.body.next_cursor}`);
    assert.equal(next.body.data[0].id, sent.delivery.id);
    const entry = (await auditActions(owner)).find((e) => e.action === 'webhook_secret.rotated' && e.target === made.id);
    assert.deepEqual(entry?.detail, { livemode: true, overlap_seconds: 3600 });
  });

  test('another account’s endpoint is 404 on every route; a disabled endpoint gets no test event (409)', async () => {
    const live = await credential(owner, true);
    const made = (await s.call('POST', '/webhook_endpoints', { key: live, body: { url: rx.url('/c'), enabled_events: ['*'] } })).body;
    assertError(await other.call('POST', `/webhook_endpoints/${made.id}/rotate_secret`, {}), 'not_found');
    assertError(await other.call('POST', `/webhook_endpoints/${made.id}/test`, {}), 'not_found');
    assertError(await other.call('GET', `/webhook_endpoints/${made.id}/deliveries`), 'not_found');
    await s.call('POST', `/webhook_endpoints/${made.id}`, { key: live, body: { disabled: true } });
    assertError(await owner.call('POST', `/webhook_endpoints/${made.id}/test`, {}), 'invalid_state');
  });
});

describe('the version pin', () => {
  test('pin a known version (applied to credential and key requests), unpin; an unknown one is 400; audited', async () => {
    const got = await owner.call('GET', '/version_pin');
    assert.equal(got.body.version_pin, null);
    assert.ok(got.body.versions.some((v: { date: string }) => v.date === '2026-01-01'));
    const pinned = await owner.call('PUT', '/version_pin', { body: { version_pin: '2026-01-01' } });
    assert.equal(pinned.status, 200, pinned.text);
    const token = await credential(owner, false);
    assert.equal((await s.call('GET', '/', { key: token })).headers.get('svc-version'), '2026-01-01');
    assert.equal((await s.call('GET', '/', { key: a.keys.secret_test })).headers.get('svc-version'), '2026-01-01');
    assertError(await owner.call('PUT', '/version_pin', { body: { version_pin: '2020-01-01' } }), 'parameter_invalid');
    assert.equal((await owner.call('PUT', '/version_pin', { body: { version_pin: null } })).body.version_pin, null);
    const changes = (await auditActions(owner)).filter((e) => e.action === 'version_pin.changed').map((e) => e.detail);
    assert.deepEqual(changes.slice(0, 2), [
      { from: '2026-01-01', to: null },
      { from: null, to: '2026-01-01' },
    ]);
  });
});

describe('the identity review queue', () => {
  test('a held name mismatch (both names, document type, last four) and a check in review; decided through the API', async () => {
    const token = await credential(owner, false);
    const held = await aesRequest(s, token, 'Held', { name: 'Amira Saleh', email: OWNER });
    const reviewed = await aesRequest(s, token, 'Reviewed', { name: 'Amira Saleh', email: OWNER });
    const heldSigner = held.signerId;
    const reviewedSigner = reviewed.signerId;
    await holdOnNameMatch(s, heldSigner, 'أميرة صالح');
    await putInReview(s, reviewedSigner);

    const queue = await viewer.call('GET', '/identity_reviews?livemode=false');
    assert.equal(queue.status, 200, queue.text);
    assert.deepEqual(
      queue.body.data.map((r: { kind: string; signer: { id: string } }) => [r.kind, r.signer.id]),
      [
        ['in_review', reviewedSigner],
        ['name_match', heldSigner],
      ],
    );
    const item = queue.body.data[1];
    assert.equal(item.sent_name, 'Amira Saleh');
    assert.equal(item.document_name, 'أميرة صالح');
    assert.equal(item.document_type, 'simulated_id');
    assert.equal(item.document_last4, '0000');
    assert.equal(item.signature_request.title, 'Held');
    assert.deepEqual((await owner.call('GET', '/identity_reviews?livemode=true')).body.data, []);
    assert.deepEqual((await other.call('GET', '/identity_reviews?livemode=false')).body.data, [], 'B sees none of A’s');
    assertError(await owner.call('GET', '/identity_reviews'), 'parameter_missing');

    const viewerToken = await credential(viewer, false);
    assertError(
      await s.call('POST', `/signers/${heldSigner}/identity_match`, { key: viewerToken, body: { decision: 'approve' } }),
      'forbidden',
    );
    const decided = await s.call('POST', `/signers/${heldSigner}/identity_match`, { key: token, body: { decision: 'approve' } });
    assert.equal(decided.status, 200, decided.text);
    const after = await owner.call('GET', '/identity_reviews?livemode=false');
    assert.deepEqual(
      after.body.data.map((r: { signer: { id: string } }) => r.signer.id),
      [reviewedSigner],
    );
    const events = await s.call('GET', `/events?signature_request=${held.id}&type=signer.identity_match_decided`, { key: token });
    assert.equal(events.body.data.length, 1);
  });
});

describe('authorization, route by route', () => {
  test('account B’s user gets 404 on account A’s keys', async () => {
    const made = (await owner.call('POST', '/keys', { body: { type: 'secret', mode: 'test' } })).body;
    assert.ok(!(await other.call('GET', '/keys')).body.data.some((k: { id: string }) => k.id === made.key.id));
    assertError(await other.call('POST', `/keys/${made.key.id}/rotate`, {}), 'not_found');
    assertError(await other.call('POST', `/keys/${made.key.id}/revoke`, {}), 'not_found');
    assertError(await other.call('PATCH', `/keys/${made.key.id}`, { body: { name: 'mine' } }), 'not_found');
    assert.equal((await s.call('GET', '/', { key: made.secret })).status, 200, 'untouched');
  });

  test('a viewer gets 403 forbidden on every write and on the key list; a developer manages', async () => {
    const made = (await owner.call('POST', '/keys', { body: { type: 'secret', mode: 'test' } })).body;
    const endpoint = (
      await s.call('POST', '/webhook_endpoints', { key: a.keys.secret_test, body: { url: rx.url('/v'), enabled_events: ['*'] } })
    ).body;
    const writes: [string, string, unknown][] = [
      ['POST', '/keys', { type: 'secret', mode: 'test' }],
      ['POST', `/keys/${made.key.id}/rotate`, {}],
      ['POST', `/keys/${made.key.id}/revoke`, {}],
      ['PATCH', `/keys/${made.key.id}`, { name: 'x' }],
      ['POST', `/webhook_endpoints/${endpoint.id}/rotate_secret`, {}],
      ['POST', `/webhook_endpoints/${endpoint.id}/test`, {}],
      ['PUT', '/version_pin', { version_pin: null }],
    ];
    for (const [method, path, body] of writes) assertError(await viewer.call(method, path, { body }), 'forbidden');
    assertError(await viewer.call('GET', '/keys'), 'forbidden');
    const en = await signedIn('viewer@a.example.com', 'en');
    assertError(await en.call('POST', '/keys', { body: { type: 'secret', mode: 'test' } }), 'forbidden', 'en');
    const dev = await signedIn('dev@a.example.com');
    assert.equal((await dev.call('PATCH', `/keys/${made.key.id}`, { body: { name: 'by dev' } })).status, 200);
    assert.equal((await dev.call('POST', `/webhook_endpoints/${endpoint.id}/rotate_secret`, {})).status, 200);
  });
});
