/**
 * CORS for browser keys (Stripe-style): preflights are answered, before authentication, for an
 * origin that at least one active publishable key allows (one indexed lookup), and refused without
 * any Access-Control-* header otherwise; actual responses carry Access-Control-Allow-Origin only
 * for a publishable key whose allowed origins hold the request's Origin; secret keys never.
 * The same in a real browser: test/e2e/cors.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { issueKey, revokeKey, rotateKey } from '../../server/src/services/accounts.js';
import { activeOriginQuery, updateKey } from '../../server/src/store/apiKeys.js';
import { sqliteConnection } from '../../server/src/store/db.js';
import { MIGRATIONS } from '../../server/src/store/migrations.js';
import { onPostgres } from '../support/database.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type CallResult, type TestServer } from '../support/server.js';

const SHOP = 'https://shop.example';
const OTHER = 'https://evil.example';
const REQUEST_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'svc-version', 'accept-language'];
const EXPOSED = [
  'svc-request-id',
  'svc-version',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  'idempotent-replayed',
];

const list = (header: string | null): string[] =>
  (header ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
const corsHeaders = (r: CallResult): string[] => [...r.headers.keys()].filter((h) => h.startsWith('access-control-'));

describe('CORS for publishable keys', () => {
  let s: TestServer;
  let accountId: string;
  let pk: string;
  before(async () => {
    s = await startTestServer();
    const acct = await s.account();
    accountId = acct.id;
    const issued = await s.ctx.store.tx((trx) => issueKey(trx, s.clock, accountId, 'publishable', 'test', { allowedOrigins: [SHOP] }));
    pk = issued.secret;
  });
  after(() => s.close());

  const preflight = (p: string, origin: string | null, method = 'GET', prefix = '/api/v1') =>
    s.call('OPTIONS', p, {
      prefix,
      headers: {
        ...(origin === null ? {} : { origin }),
        'access-control-request-method': method,
        'access-control-request-headers': REQUEST_HEADERS.join(','),
      },
    });

  test('a preflight from an origin a publishable key allows: 204 with that origin, methods, headers, max-age, Vary: Origin', async () => {
    for (const [p, method, prefix] of [
      ['/templates', 'GET', '/api/v1'],
      ['/signature_requests', 'POST', '/api/v1'],
      ['/signature_requests', 'POST', '/en/api/v1'],
    ] as const) {
      const r = await preflight(p, SHOP, method, prefix);
      assert.equal(r.status, 204, `${prefix}${p}: ${r.text}`);
      assert.equal(r.text, '');
      assert.equal(r.headers.get('access-control-allow-origin'), SHOP);
      assert.deepEqual(list(r.headers.get('access-control-allow-methods')), ['get', 'post']);
      assert.deepEqual(list(r.headers.get('access-control-allow-headers')).sort(), [...REQUEST_HEADERS].sort());
      assert.equal(r.headers.get('access-control-max-age'), '600');
      assert.ok(list(r.headers.get('vary')).includes('origin'));
      assert.equal(r.headers.get('access-control-allow-credentials'), null, 'keys, not cookies');
    }
  });

  test('a preflight from an origin no key allows, or without Origin: 403 forbidden and no Access-Control-* header', async () => {
    const r = await assertErrorBothLanguages((prefix) => preflight('/templates', OTHER, 'GET', prefix), 'forbidden');
    assert.equal(r.body.error.param, 'Origin');
    assert.deepEqual(corsHeaders(r), []);
    assert.ok(list(r.headers.get('vary')).includes('origin'));
    const none = await preflight('/templates', null);
    assertError(none, 'forbidden');
    assert.deepEqual(corsHeaders(none), []);
    // Origins are compared exactly, as browsers serialise them.
    for (const near of ['https://shop.example:443x', 'http://shop.example', 'https://shop.example.evil', 'https://SHOP.example/']) {
      const n = await preflight('/templates', near);
      assert.equal(n.status, 403, near);
      assert.deepEqual(corsHeaders(n), [], near);
    }
  });

  test('only active keys count: revoked or expired keys no longer open an origin; origins follow key changes', async () => {
    const site = 'https://site.example';
    const other = await s.account();
    const issued = await s.ctx.store.tx((trx) => issueKey(trx, s.clock, other.id, 'publishable', 'live', { allowedOrigins: [site] }));
    assert.equal((await preflight('/templates', site)).status, 204);

    // Rotation: the new key allows the same origins; the old one counts until its grace ends.
    const rotated = await rotateKey(s.ctx.store, s.clock, issued.key.id, 3600);
    await revokeKey(s.ctx.store, s.clock, rotated.key.id);
    assert.equal((await preflight('/templates', site)).status, 204, 'the old key is still in its grace period');
    s.clock.advanceSeconds(3600);
    assert.equal((await preflight('/templates', site)).status, 403, 'the old key expired and the new one is revoked');

    // `tawqi key set --allowed-origin` (updateKey) adds and removes origins.
    const later = await s.ctx.store.tx((trx) => issueKey(trx, s.clock, other.id, 'publishable', 'live', {}));
    assert.equal((await preflight('/templates', 'https://later.example')).status, 403);
    await s.ctx.store.tx((trx) => updateKey(trx, later.key.id, { allowed_origins: ['https://later.example', site] }));
    assert.equal((await preflight('/templates', 'https://later.example')).status, 204);
    assert.equal((await preflight('/templates', site)).status, 204);
    await s.ctx.store.tx((trx) => updateKey(trx, later.key.id, { allowed_origins: [site] }));
    assert.equal((await preflight('/templates', 'https://later.example')).status, 403);
    assert.equal((await preflight('/templates', site)).status, 204);
  });

  test(
    'the preflight lookup is a search of an index by origin, not a scan of the keys',
    { skip: onPostgres && "SQLite's query plan" },
    () => {
      const plan = sqliteConnection(s.ctx.store)
        .prepare(`EXPLAIN QUERY PLAN ${activeOriginQuery.sql}`)
        // The values do not change the plan; one per placeholder (constants are bound too).
        .all(...Array.from(activeOriginQuery.sql.matchAll(/\?/g), () => SHOP))
        .map((row) => (row as { detail: string }).detail);
      assert.ok(
        plan.some((d) => /^SEARCH o USING PRIMARY KEY \(origin=\?\)/.test(d)),
        plan.join('\n'),
      );
      assert.ok(
        plan.some((d) => /^SEARCH k USING INDEX sqlite_autoindex_api_keys_1 \(id=\?\)|^SEARCH k USING (INTEGER )?PRIMARY KEY/.test(d)),
        plan.join('\n'),
      );
      assert.ok(!plan.some((d) => d.startsWith('SCAN')), plan.join('\n'));
    },
  );

  test('a response to a publishable key carries Access-Control-Allow-Origin for its allowed origin, errors included', async () => {
    const ok = await s.call('GET', '/templates', { key: pk, headers: { origin: SHOP } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.headers.get('access-control-allow-origin'), SHOP);
    assert.deepEqual(list(ok.headers.get('access-control-expose-headers')).sort(), [...EXPOSED, 'svc-deprecation'].sort());
    assert.ok(list(ok.headers.get('vary')).includes('origin'));
    assert.ok(ok.headers.get('x-ratelimit-limit'), 'the exposed rate-limit headers are there to read');

    // A refusal by the publishable-key rules is readable by the page that caused it.
    const listing = await s.call('GET', '/signature_requests', { key: pk, headers: { origin: SHOP } });
    assertError(listing, 'forbidden');
    assert.equal(listing.headers.get('access-control-allow-origin'), SHOP);

    // Another origin, or none: the origin lock refuses (spec part 5 rule 4), with no CORS header.
    const variants: Record<string, string>[] = [{ origin: OTHER }, {}];
    for (const headers of variants) {
      const r = await s.call('GET', '/templates', { key: pk, headers });
      assertError(r, 'forbidden');
      assert.equal(r.body.error.param, 'Origin');
      assert.deepEqual(corsHeaders(r), []);
    }
  });

  test('secret keys never get CORS headers, even from an origin a publishable key allows', async () => {
    const r = await s.call('GET', '/templates', { key: s.keys.secret_test, headers: { origin: SHOP } });
    assert.equal(r.status, 200);
    assert.deepEqual(corsHeaders(r), []);
    const created = await s.call('POST', '/templates', {
      key: s.keys.secret_test,
      headers: { origin: SHOP },
      body: { title: 'CORS', language: 'en', body: 'Hello {{name}}', fields: [{ key: 'name', label: 'Name' }] },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(corsHeaders(created), []);
  });

  test('an OPTIONS that is not a preflight is an ordinary request (no key: 401)', async () => {
    const r = await s.call('OPTIONS', '/templates', { headers: { origin: SHOP } });
    assertError(r, 'api_key_missing');
    assert.deepEqual(corsHeaders(r), []);
  });

  test('keys issued before the origin index existed are indexed by its migration', async () => {
    // The table as if this database predated migration 11, then the migration's own text (later
    // migrations are applied, so the Migrator would not run an earlier one again).
    const migration = MIGRATIONS.find((m) => m.id === 11)!;
    await sql`DROP TABLE key_origins`.execute(s.ctx.store.db);
    if (onPostgres) await sql.raw(migration.postgres!).execute(s.ctx.store.db);
    else sqliteConnection(s.ctx.store).exec(migration.sql);
    assert.equal((await preflight('/templates', SHOP)).status, 204);
    assert.equal((await preflight('/templates', OTHER)).status, 403);
  });
});
