import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('HTTP platform: envelope, request ids, languages, versions', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ TAWQI_BODY_LIMIT_BYTES: '2048' });
  });
  after(() => s.close());

  test('every response carries Svc-Request-Id and Svc-Version, successes included', async () => {
    const ok = await s.call('GET', '/', { key: s.keys.secret_live });
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('svc-request-id')!, /^req_[0-9A-Za-z]+$/);
    assert.equal(ok.headers.get('svc-version'), '2026-07-01');
    const other = await s.call('GET', '/', { key: s.keys.secret_live });
    assert.notEqual(other.headers.get('svc-request-id'), ok.headers.get('svc-request-id'));
  });

  test('GET / returns service info with a documentation link', async () => {
    const r = await s.call('GET', '/', { key: s.keys.secret_test });
    assert.equal(r.body.object, 'service');
    assert.equal(r.body.livemode, false);
    assert.equal(r.body.api_version, '2026-07-01');
    assert.equal(typeof r.body.docs, 'string');
    assert.ok(r.body.docs.length > 0);
  });

  test('unknown route: 404 not_found in the envelope, in both languages, even outside /api/v1', async () => {
    await assertErrorBothLanguages((prefix) => s.call('GET', '/no/such/thing', { key: s.keys.secret_live, prefix }), 'not_found');
    const outside = await s.call('GET', '/nowhere', { prefix: '' });
    assertError(outside, 'not_found');
    assert.ok(outside.headers.get('svc-version'));
  });

  test('a path id that is not valid percent-encoding, or spells a control character, is 404 not_found, not 500 (found by the API fuzzing)', async () => {
    // The router cannot decode %ZZ or an encoded lone surrogate; it used to fall through as 500 internal_error.
    // PostgreSQL refuses text with NUL: an id with %00 was a 500 there.
    for (const id of ['%ZZ', '%ED%A0%80', '%E0%A4', '%', '%00', 'sr_%00x', '%1B', '%C2%85']) {
      await assertErrorBothLanguages(
        (prefix) => s.call('GET', `/signature_requests/${id}`, { key: s.keys.secret_test, prefix }),
        'not_found',
      );
      assertError(await s.call('GET', `/verifications/${id}`), 'not_found');
      for (const page of ['/verify/', '/sign/']) assertError(await s.call('GET', `${page}${id}`, { prefix: '' }), 'not_found');
    }
  });

  test('wrong method on a known path: 405 method_not_allowed with Allow', async () => {
    const r = await assertErrorBothLanguages(
      (prefix) => s.call('DELETE', '/templates', { key: s.keys.secret_live, prefix }),
      'method_not_allowed',
    );
    assert.match(r.headers.get('allow')!, /GET/);
    assert.match(r.headers.get('allow')!, /POST/);
  });

  test('malformed JSON: 400 invalid_json', async () => {
    await assertErrorBothLanguages(
      (prefix) => s.call('POST', '/templates', { key: s.keys.secret_live, rawBody: '{"title": ', prefix }),
      'invalid_json',
    );
  });

  test('oversize body: 413 request_too_large naming the limit', async () => {
    const r = await assertErrorBothLanguages(
      (prefix) => s.call('POST', '/templates', { key: s.keys.secret_live, body: { title: 'x', body: 'y'.repeat(5000) }, prefix }),
      'request_too_large',
    );
    assert.equal(r.body.error.max_bytes, 2048);
  });

  test('language: Arabic by default; English by Accept-Language, ?lang=en or /en prefix; ?lang=ar keeps Arabic', async () => {
    const bad = { key: 'sk_' + '0'.repeat(40) };
    assertError(await s.call('GET', '/', bad), 'invalid_api_key', 'ar');
    assertError(await s.call('GET', '/', { ...bad, headers: { 'accept-language': 'en-US,en;q=0.9' } }), 'invalid_api_key', 'en');
    assertError(await s.call('GET', '/', { ...bad, headers: { 'accept-language': 'ar-EG' } }), 'invalid_api_key', 'ar');
    assertError(await s.call('GET', '/?lang=en', bad), 'invalid_api_key', 'en');
    assertError(await s.call('GET', '/', { ...bad, prefix: '/en/api/v1' }), 'invalid_api_key', 'en');
    assertError(await s.call('GET', '/?lang=ar', { ...bad, headers: { 'accept-language': 'en' } }), 'invalid_api_key', 'ar');
  });

  test('the English alias serves the same API', async () => {
    const ar = await s.call('GET', '/templates?limit=3', { key: s.keys.secret_live });
    const en = await s.call('GET', '/templates?limit=3', { key: s.keys.secret_live, prefix: '/en/api/v1' });
    assert.equal(en.status, 200);
    assert.deepEqual(en.body, ar.body);
  });

  test('versions: explicit version echoed, unknown refused, deprecated flagged, account pin applied', async () => {
    const v = await s.call('GET', '/', { key: s.keys.secret_live, headers: { 'svc-version': '2026-07-01' } });
    assert.equal(v.headers.get('svc-version'), '2026-07-01');
    assert.equal(v.headers.get('svc-deprecation'), null);

    const unknown = await assertErrorBothLanguages(
      (prefix) => s.call('GET', '/', { key: s.keys.secret_live, headers: { 'svc-version': '1999-01-01' }, prefix }),
      'invalid_version',
    );
    assert.equal(unknown.body.error.param, 'Svc-Version');
    assert.equal(unknown.headers.get('svc-version'), '2026-07-01');

    const old = await s.call('GET', '/', { key: s.keys.secret_live, headers: { 'svc-version': '2026-01-01' } });
    assert.equal(old.status, 200);
    assert.equal(old.headers.get('svc-version'), '2026-01-01');
    assert.match(old.headers.get('svc-deprecation')!, /2026-01-01/);

    const { updateAccount } = await import('../../server/src/store/accounts.js');
    const acct = await s.account();
    await updateAccount(s.ctx.store.db, acct.id, { version_pin: '2026-01-01' });
    const pinned = await s.call('GET', '/', { key: acct.keys.secret_live });
    assert.equal(pinned.headers.get('svc-version'), '2026-01-01');
    assert.equal(pinned.body.api_version, '2026-01-01');
    const overridden = await s.call('GET', '/', { key: acct.keys.secret_live, headers: { 'svc-version': '2026-07-01' } });
    assert.equal(overridden.headers.get('svc-version'), '2026-07-01');
  });
});

describe('HTTP platform: an uncaught exception', () => {
  test('leaves as 500 internal_error in the envelope, without a stack trace', async () => {
    const s = await startTestServer();
    try {
      await sql`DROP TABLE templates`.execute(s.ctx.store.db);
      const r = await s.call('GET', '/templates', { key: s.keys.secret_live });
      assertError(r, 'internal_error');
      assert.doesNotMatch(r.text, /at .*\.ts:\d+|no such table|SqliteError|does not exist/);
      assert.ok(r.headers.get('svc-request-id'));
      assert.ok(r.headers.get('svc-version'));
      const en = await s.call('GET', '/templates', { key: s.keys.secret_live, prefix: '/en/api/v1' });
      assertError(en, 'internal_error', 'en');
    } finally {
      await s.close();
    }
  });
});
