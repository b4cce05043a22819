import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { hashSecret, ipAllowed, normaliseIpEntry } from '../../server/src/domain/keys.js';
import { issueKey, revokeKey, rotateKey } from '../../server/src/services/accounts.js';
import { listRequestLog } from '../../server/src/store/requestLog.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ORIGIN = 'https://shop.example.com';

describe('API keys', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ TAWQI_TRUSTED_PROXIES: '127.0.0.1' });
  });
  after(() => s.close());

  const newKey = (
    accountId: string,
    kind: 'secret' | 'publishable',
    opts: Parameters<typeof issueKey>[5] = {},
    mode: 'live' | 'test' = 'live',
  ) => s.ctx.store.tx((trx) => issueKey(trx, s.clock, accountId, kind, mode, opts));

  test('the four keys have the documented formats and are stored only as SHA-256 digests', async () => {
    assert.match(s.keys.secret_live, /^sk_[0-9a-f]{40}$/);
    assert.match(s.keys.publishable_live, /^pk_[0-9a-f]{40}$/);
    assert.match(s.keys.secret_test, /^sk_test_[0-9a-f]{40}$/);
    assert.match(s.keys.publishable_test, /^pk_test_[0-9a-f]{40}$/);
    const dump = JSON.stringify(await s.ctx.store.db.selectFrom('api_keys').selectAll().execute());
    for (const k of Object.values(s.keys)) {
      assert.ok(!dump.includes(k), 'a plain key is stored');
      assert.ok(dump.includes(hashSecret(k)));
    }
  });

  test('no key: 401 api_key_missing; unknown or malformed key: 401 invalid_api_key', async () => {
    await assertErrorBothLanguages((prefix) => s.call('GET', '/', { prefix }), 'api_key_missing');
    await assertErrorBothLanguages((prefix) => s.call('GET', '/', { key: 'sk_' + 'a'.repeat(40), prefix }), 'invalid_api_key');
    await assertErrorBothLanguages((prefix) => s.call('GET', '/', { key: 'not-a-key', prefix }), 'invalid_api_key');
    assertError(await s.call('GET', '/', { headers: { authorization: `Basic ${s.keys.secret_live}` } }), 'invalid_api_key');
  });

  test('rotation: the old key lives 24 hours then gives 401; it can be stopped earlier', async () => {
    const acct = await s.account();
    const keyId = await findKeyId(acct.keys.secret_live);
    const rotated = await rotateKey(s.ctx.store, s.clock, keyId);
    assert.match(rotated.secret, /^sk_[0-9a-f]{40}$/);
    assert.equal(rotated.key.name, 'default');
    assert.equal((await s.call('GET', '/', { key: acct.keys.secret_live })).status, 200);
    assert.equal((await s.call('GET', '/', { key: rotated.secret })).status, 200);
    s.clock.advanceSeconds(24 * 3600 - 1);
    assert.equal((await s.call('GET', '/', { key: acct.keys.secret_live })).status, 200);
    s.clock.advanceSeconds(1);
    assertError(await s.call('GET', '/', { key: acct.keys.secret_live }), 'invalid_api_key');
    assert.equal((await s.call('GET', '/', { key: rotated.secret })).status, 200);

    const again = await rotateKey(s.ctx.store, s.clock, rotated.key.id);
    await revokeKey(s.ctx.store, s.clock, rotated.key.id);
    assertError(await s.call('GET', '/', { key: rotated.secret }), 'invalid_api_key');
    assert.equal((await s.call('GET', '/', { key: again.secret })).status, 200);

    const immediate = await rotateKey(s.ctx.store, s.clock, again.key.id, 0);
    assertError(await s.call('GET', '/', { key: again.secret }), 'invalid_api_key');
    assert.equal((await s.call('GET', '/', { key: immediate.secret })).status, 200);
  });

  test('rotation keeps permissions and the address list', async () => {
    const acct = await s.account();
    const k = await newKey(acct.id, 'secret', { readOnly: true, allowedIps: ['127.0.0.1', '::1'] });
    const r = await rotateKey(s.ctx.store, s.clock, k.key.id);
    assert.equal(r.key.read_only, true);
    assert.deepEqual(r.key.allowed_ips, ['127.0.0.1', '::1']);
    assertError(await s.call('POST', '/templates', { key: r.secret, body: {} }), 'forbidden');
  });

  test('read-only key: reads pass, writes give 403 forbidden', async () => {
    const acct = await s.account();
    const k = await newKey(acct.id, 'secret', { readOnly: true });
    assert.equal((await s.call('GET', '/usage', { key: k.secret })).status, 200);
    assert.equal((await s.call('GET', '/templates', { key: k.secret })).status, 200);
    await assertErrorBothLanguages(
      (prefix) => s.call('POST', '/templates', { key: k.secret, body: { title: 'T', body: 'x' }, prefix }),
      'forbidden',
    );
  });

  test('IP allowlist: outside gives 403 ip_not_allowed before the rate limit, and is logged', async () => {
    const acct = await s.account();
    const k = await newKey(acct.id, 'secret', { allowedIps: ['10.1.0.0/16', '2001:db8::/32'] });
    const from = (ip: string) => ({ key: k.secret, headers: { 'x-forwarded-for': ip } });
    assert.equal((await s.call('GET', '/', from('10.1.2.3'))).status, 200);
    assert.equal((await s.call('GET', '/', from('2001:db8::7'))).status, 200);
    const refused = await assertErrorBothLanguages((prefix) => s.call('GET', '/', { ...from('10.2.0.1'), prefix }), 'ip_not_allowed');
    assert.equal(refused.headers.get('x-ratelimit-limit'), null, 'refused before the rate limit');
    assertError(await s.call('GET', '/', from('2001:db9::1')), 'ip_not_allowed');
    await s.ctx.requestLog.flush();
    const log = await listRequestLog(s.ctx.store.db, acct.id, { filter: { code: 'ip_not_allowed' } });
    assert.ok(log.length >= 3);
    assert.equal(log[0]!.code, 'ip_not_allowed');
    assert.equal(log[0]!.ip, '2001:db9::1');
    assert.equal(log[0]!.status, 403);
    // A key with no list is accepted from anywhere; publishable keys are exempt.
    assert.equal((await s.call('GET', '/', { key: acct.keys.secret_live, headers: { 'x-forwarded-for': '203.0.113.9' } })).status, 200);
  });

  test('a key is stored as its SHA-256 digest in hex (FIPS 180-2 test vectors; UTF-8 text)', () => {
    assert.equal(hashSecret('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal(hashSecret(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(hashSecret('مفتاح'), createHash('sha256').update(Buffer.from('مفتاح', 'utf8')).digest('hex'));
  });

  test('allowlist entries: IPv4, IPv6 and CIDR are validated and matched', () => {
    assert.equal(normaliseIpEntry('192.168.1.0/24'), '192.168.1.0/24');
    assert.equal(normaliseIpEntry('::1'), '::1');
    assert.equal(normaliseIpEntry('10.0.0.0/33'), null);
    assert.equal(normaliseIpEntry('nonsense'), null);
    assert.equal(normaliseIpEntry('1.2.3.4/8/9'), null);
    assert.equal(ipAllowed('192.168.1.77', ['192.168.1.0/24']), true);
    assert.equal(ipAllowed('::ffff:192.168.1.77', ['192.168.1.0/24']), true);
    assert.equal(ipAllowed('192.168.2.1', ['192.168.1.0/24']), false);
    assert.equal(ipAllowed('fe80::1', ['fe80::/10']), true);
    assert.equal(ipAllowed('anything', []), true);
  });

  async function findKeyId(secret: string): Promise<string> {
    const row = await s.ctx.store.db
      .selectFrom('api_keys')
      .select('id')
      .where('secret_hash', '=', hashSecret(secret))
      .executeTakeFirstOrThrow();
    return row.id;
  }

  describe('publishable keys (spec part 5, rules 1–4 and 8)', () => {
    let pk: string;
    before(async () => {
      const acct = await s.account();
      pk = (await newKey(acct.id, 'publishable', { allowedOrigins: [ORIGIN] })).secret;
    });
    const withOrigin = (extra: Record<string, string> = {}) => ({ origin: ORIGIN, ...extra });

    test('rule 1: only /, /templates, /signature_requests, /signers, /flows', async () => {
      assert.equal((await s.call('GET', '/', { key: pk, headers: withOrigin() })).status, 200);
      assert.equal((await s.call('GET', '/templates', { key: pk, headers: withOrigin() })).status, 200);
      for (const p of ['/usage', '/balance', '/events', '/webhook_endpoints', '/sessions']) {
        await assertErrorBothLanguages((prefix) => s.call('GET', p, { key: pk, headers: withOrigin(), prefix }), 'forbidden');
      }
    });

    test('rule 2: /templates, /signers and /flows are read-only', async () => {
      for (const p of ['/templates', '/signers', '/flows']) {
        assertError(await s.call('POST', p, { key: pk, headers: withOrigin(), body: {} }), 'forbidden');
      }
    });

    test('rule 3: listing signature requests is forbidden', async () => {
      await assertErrorBothLanguages(
        (prefix) => s.call('GET', '/signature_requests', { key: pk, headers: withOrigin(), prefix }),
        'forbidden',
      );
    });

    test('rule 4: locked to allowed origins; no Origin header is refused too', async () => {
      assertError(await s.call('GET', '/templates', { key: pk }), 'forbidden');
      const other = await s.call('GET', '/templates', { key: pk, headers: { origin: 'https://evil.example.net' } });
      assertError(other, 'forbidden');
      assert.equal(other.body.error.param, 'Origin');
    });

    test('rule 8: session endpoints refuse publishable keys', async () => {
      assertError(await s.call('POST', '/sessions', { key: pk, headers: withOrigin(), body: {} }), 'forbidden');
      assertError(await s.call('GET', '/sessions', { key: pk, headers: withOrigin() }), 'forbidden');
    });

    test('secret-key-only operations refuse publishable keys', async () => {
      assertError(await s.call('GET', '/usage', { key: pk, headers: withOrigin() }), 'forbidden');
    });

    test('publishable keys are exempt from IP allowlists', async () => {
      assert.equal((await s.call('GET', '/', { key: pk, headers: withOrigin({ 'x-forwarded-for': '198.51.100.4' }) })).status, 200);
    });
  });
});
