import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { issueKey } from '../../server/src/services/accounts.js';
import { listNotices } from '../../server/src/store/notices.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ORIGIN = 'https://shop.example.com';

describe('account rate limit: 100 requests per 10 seconds, shared by test and live keys', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ TAWQI_IP_RATE_LIMIT: '100000' });
  });
  after(() => s.close());

  test('headers on every authenticated response, 429 too_many_requests with Retry-After past the limit', async () => {
    const acct = await s.account();
    // Start at the beginning of a window so the whole burst shares it.
    s.clock.set(Math.ceil(s.clock.nowMs() / 10_000) * 10_000);
    const first = await s.call('GET', '/', { key: acct.keys.secret_live });
    assert.equal(first.headers.get('x-ratelimit-limit'), '100');
    assert.equal(first.headers.get('x-ratelimit-remaining'), '99');
    assert.equal(Number(first.headers.get('x-ratelimit-reset')), s.clock.nowMs() / 1000 + 10);
    for (let i = 1; i < 100; i++) {
      const key = i % 2 === 0 ? acct.keys.secret_live : acct.keys.secret_test;
      const r = await s.call('GET', '/', { key });
      assert.equal(r.status, 200, `request ${i + 1}`);
    }
    s.clock.advanceSeconds(3);
    const over = await assertErrorBothLanguages(
      (prefix) => s.call('GET', '/', { key: acct.keys.secret_test, prefix }),
      'too_many_requests',
    );
    assert.equal(over.headers.get('retry-after'), '7');
    assert.equal(over.headers.get('x-ratelimit-remaining'), '0');
    // Another account is not affected.
    assert.equal((await s.call('GET', '/', { key: s.keys.secret_live })).status, 200);
    s.clock.advanceSeconds(7);
    assert.equal((await s.call('GET', '/', { key: acct.keys.secret_live })).status, 200);
  });
});

describe('per-address limit before authentication', () => {
  test('bounds unauthenticated floods and is configurable', async () => {
    const s = await startTestServer({ TAWQI_IP_RATE_LIMIT: '5' });
    try {
      s.clock.set(Math.ceil(s.clock.nowMs() / 10_000) * 10_000);
      for (let i = 0; i < 5; i++) assertError(await s.call('GET', '/', { key: 'sk_' + 'b'.repeat(40) }), 'invalid_api_key');
      const r = await s.call('GET', '/', { key: s.keys.secret_live });
      assertError(r, 'too_many_requests');
      assert.ok(Number(r.headers.get('retry-after')) > 0);
      s.clock.advanceSeconds(10);
      assert.equal((await s.call('GET', '/', { key: s.keys.secret_live })).status, 200);
    } finally {
      await s.close();
    }
  });
});

describe('publishable-key quota (rule 5) and daily cap (rule 6)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ TAWQI_TRUSTED_PROXIES: '127.0.0.1' });
  });
  after(() => s.close());

  const post = (key: string, ip: string, prefix = '/api/v1') =>
    s.call('POST', '/signature_requests', { key, prefix, headers: { origin: ORIGIN, 'x-forwarded-for': ip }, body: {} });

  test('5 POST /signature_requests… per hour per visitor (key + address), then 429', async () => {
    const acct = await s.account();
    const pk = (await s.ctx.store.tx((trx) => issueKey(trx, s.clock, acct.id, 'publishable', 'live', { allowedOrigins: [ORIGIN] }))).secret;
    s.clock.set(Math.ceil(s.clock.nowMs() / 3_600_000) * 3_600_000);
    for (let i = 0; i < 5; i++) assert.notEqual((await post(pk, '198.51.100.1')).status, 429);
    s.clock.advanceSeconds(600);
    const over = await assertErrorBothLanguages((prefix) => post(pk, '198.51.100.1', prefix), 'too_many_requests');
    assert.equal(over.headers.get('retry-after'), String(3600 - 600));
    // Another visitor with the same key is counted apart.
    assert.notEqual((await post(pk, '198.51.100.2')).status, 429);
    // Reads are not counted.
    assert.equal(
      (await s.call('GET', '/templates', { key: pk, headers: { origin: ORIGIN, 'x-forwarded-for': '198.51.100.1' } })).status,
      200,
    );
    s.clock.advanceSeconds(3000);
    assert.notEqual((await post(pk, '198.51.100.1')).status, 429);
  });

  test('daily cap per key across addresses: 429 daily_cap_reached until the next UTC day, owner notified at 80% and at the cap', async () => {
    const acct = await s.account();
    const pk = await s.ctx.store.tx((trx) =>
      issueKey(trx, s.clock, acct.id, 'publishable', 'live', { allowedOrigins: [ORIGIN], dailyCap: 10 }),
    );
    const dayMs = 86_400_000;
    s.clock.set(Math.ceil(s.clock.nowMs() / dayMs) * dayMs + 5 * 3_600_000);
    for (let i = 0; i < 10; i++) assert.notEqual((await post(pk.secret, `203.0.113.${i}`)).status, 429, `call ${i + 1}`);
    const notices = await listNotices(s.ctx.store.db, acct.id);
    assert.deepEqual(
      notices.map((n) => n.kind),
      ['publishable_daily_cap_80', 'publishable_daily_cap_reached'],
    );
    assert.equal(notices[0]!.data.count, 8);
    assert.equal(notices[0]!.data.key_id, pk.key.id);
    const capped = await assertErrorBothLanguages((prefix) => post(pk.secret, '203.0.113.200', prefix), 'daily_cap_reached');
    assert.equal(capped.headers.get('retry-after'), String(19 * 3600));
    assert.equal((await listNotices(s.ctx.store.db, acct.id)).length, 2, 'notified once per threshold');
    s.clock.advanceSeconds(19 * 3600);
    assert.notEqual((await post(pk.secret, '203.0.113.201')).status, 429);
  });
});
