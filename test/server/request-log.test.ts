/**
 * The request log (issue 15 point 4; the console's Developers → Logs): every /api/v1 request of an
 * account — its time, method, path without the query, status and error code, request id, key (or
 * console user), mode, address, Idempotency-Key and duration, never a body — buffered in memory and
 * written in batches (ctx.requestLog.flush() here, a timer in production), read through
 * GET /console/api/request_log with filters and cursor pages, one account never seeing another's,
 * and pruned by the job runner after TAWQI_REQUEST_LOG_RETENTION_DAYS (the injected clock).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import { ERRORS } from '../../shared/src/errors.js';
import { insertRequestLog, listRequestLog, rowsPerInsert, type NewRequestLogEntry } from '../../server/src/store/requestLog.js';
import type { Database } from '../../server/src/store/schema.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { assertError } from '../support/envelope.js';
import { startTestServer, type CallResult, type TestServer } from '../support/server.js';
import { teamAccount, type TeamAccount } from '../support/teamAccount.js';

const TEMPLATE = {
  title: 'Service agreement',
  language: 'en',
  body: 'Between {{client_name}} and us.',
  fields: [{ key: 'client_name', label: 'Client', type: 'text', required: true }],
};
const SIGNER_EMAIL_MARK = 'member1';

let s: TestServer;
let a: TeamAccount;
let b: { id: string; keys: TestServer['keys'] };
let ownerA: ConsoleClient;
let ownerB: ConsoleClient;

interface Entry {
  id: string;
  request_id: string;
  livemode: boolean;
  method: string;
  path: string;
  status: number;
  code: string | null;
  code_message: string | null;
  ip: string;
  key: string | null;
  key_type: string | null;
  key_hint: string | null;
  user: { id: string; email: string } | null;
  idempotency_key: string | null;
  duration_ms: number | null;
  created_at: number;
}

async function signedIn(email: string): Promise<ConsoleClient> {
  const c = new ConsoleClient(s.url);
  const r = await c.signIn(email, TEST_PASSWORD);
  assert.equal(r.status, 200, r.text);
  return c;
}

async function log(c: ConsoleClient, query = ''): Promise<{ data: Entry[]; has_more: boolean; next_cursor: string | null }> {
  const r = await c.call('GET', `/request_log${query ? `?${query}` : ''}`);
  assert.equal(r.status, 200, r.text);
  return r.body;
}

const requestIdOf = (r: CallResult): string => r.headers.get('svc-request-id')!;
const entryOf = async (c: ConsoleClient, r: CallResult): Promise<Entry | undefined> =>
  (await log(c, `request_id=${requestIdOf(r)}`)).data[0];

const createBody = (extra: Record<string, unknown> = {}) => ({
  title: 'Consulting agreement',
  source: { type: 'template', template_id: a.templateId },
  signers: [{ name: 'Layla Hassan', email: a.team[1]!, fields: { client_name: 'Acme' } }],
  ...extra,
});

before(async () => {
  s = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000', TAWQI_TRUSTED_PROXIES: '127.0.0.1' });
  a = await teamAccount(s, TEMPLATE, { members: 2 });
  b = await s.account({ name: 'B Co' });
  await consoleUser(s, a.id, 'owner@a.example.com', 'owner');
  await consoleUser(s, b.id, 'owner@b.example.com', 'owner');
  ownerA = await signedIn('owner@a.example.com');
  ownerB = await signedIn('owner@b.example.com');
});
after(async () => {
  await s.close();
});

describe('what the request log records', () => {
  test('a create and its idempotent replay: written at the flush, not before; everything but the body', async () => {
    const headers = { 'idempotency-key': 'log-create-1' };
    const created = await s.call('POST', '/signature_requests', { key: a.keys.secret_test, body: createBody(), headers });
    assert.equal(created.status, 201, created.text);
    assert.equal(await entryOf(ownerA, created), undefined, 'buffered: nothing written on the request’s path');
    const replay = await s.call('POST', '/signature_requests', { key: a.keys.secret_test, body: createBody(), headers });
    assert.equal(replay.status, 201, replay.text);
    assert.equal(replay.body.id, created.body.id, 'replayed');
    await s.ctx.requestLog.flush();

    const entry = (await entryOf(ownerA, created))!;
    assert.ok(entry, 'written by the flush');
    assert.deepEqual(
      { ...entry, id: undefined, created_at: undefined, duration_ms: undefined },
      {
        id: undefined,
        object: 'request_log_entry',
        request_id: requestIdOf(created),
        livemode: false,
        method: 'POST',
        path: '/api/v1/signature_requests',
        status: 201,
        code: null,
        code_message: null,
        ip: '127.0.0.1',
        key: entry.key,
        key_type: 'secret',
        key_hint: `sk_test_…${a.keys.secret_test.slice(-4)}`,
        user: null,
        idempotency_key: 'log-create-1',
        created_at: undefined,
        duration_ms: undefined,
      },
    );
    assert.match(entry.key!, /^key_/);
    assert.equal(entry.created_at, Math.floor(s.clock.nowMs() / 1000));
    assert.ok(typeof entry.duration_ms === 'number' && entry.duration_ms >= 0);
    const again = (await entryOf(ownerA, replay))!;
    assert.deepEqual([again.status, again.idempotency_key, again.key], [201, 'log-create-1', entry.key]);
    assert.notEqual(again.request_id, entry.request_id, 'each request is its own entry');
    const text = JSON.stringify(await log(ownerA, 'limit=100'));
    assert.ok(!text.includes(SIGNER_EMAIL_MARK) && !text.includes('Consulting agreement'), 'no request body is kept');
  });

  test('a 400 keeps its error code; the query string is not kept', async () => {
    const bad = await s.call('POST', '/signature_requests', { key: a.keys.secret_live, body: createBody({ title: 7 }) });
    assert.equal(bad.status, 400, bad.text);
    const listed = await s.call('GET', '/signature_requests?limit=1&search=private-search-text', { key: a.keys.secret_live });
    assert.equal(listed.status, 200, listed.text);
    await s.ctx.requestLog.flush();
    const entry = (await entryOf(ownerA, bad))!;
    assert.deepEqual(
      [entry.status, entry.code, entry.livemode, entry.key_hint],
      [400, bad.body.error.code, true, `sk_…${a.keys.secret_live.slice(-4)}`],
    );
    const read = (await entryOf(ownerA, listed))!;
    assert.equal(read.path, '/api/v1/signature_requests');
    assert.ok(!JSON.stringify(await log(ownerA, 'limit=100')).includes('private-search-text'));
  });

  test('ip_not_allowed after the key is found is the account’s entry; a bad key is nobody’s', async () => {
    const made = (await ownerA.call('POST', '/keys', { body: { type: 'secret', mode: 'live', name: 'fenced' } })).body;
    assert.equal((await ownerA.call('PATCH', `/keys/${made.key.id}`, { body: { allowed_ips: ['198.51.100.0/24'] } })).status, 200);
    const refused = await s.call('GET', '/usage', { key: made.secret, headers: { 'x-forwarded-for': '203.0.113.7' } });
    assertError(refused, 'ip_not_allowed');
    const badKey = await s.call('GET', '/usage', { key: `sk_${'0'.repeat(40)}` });
    assertError(badKey, 'invalid_api_key');
    await s.ctx.requestLog.flush();
    const entry = (await entryOf(ownerA, refused))!;
    assert.deepEqual(
      [entry.status, entry.code, entry.ip, entry.key, entry.livemode, entry.path],
      [403, 'ip_not_allowed', '203.0.113.7', made.key.id, true, '/api/v1/usage'],
    );
    assert.equal(entry.code_message, ERRORS.ip_not_allowed.ar, 'the code explained in the reader’s language (Arabic by default)');
    const anywhere = await s.ctx.store.db.selectFrom('request_log').select('id').where('request_id', '=', requestIdOf(badKey)).execute();
    assert.deepEqual(anywhere, [], 'no account to attribute a bad key to');
  });

  test('a console user’s request through the internal credential names the user', async () => {
    const cred = await ownerA.call('POST', '/credentials', { body: { livemode: false } });
    assert.equal(cred.status, 201, cred.text);
    const r = await s.call('GET', '/signature_requests?limit=1', { key: cred.body.token });
    assert.equal(r.status, 200, r.text);
    await s.ctx.requestLog.flush();
    const entry = (await entryOf(ownerA, r))!;
    assert.deepEqual([entry.key_type, entry.key_hint, entry.user?.email, entry.livemode], ['console', null, 'owner@a.example.com', false]);
  });
});

describe('reading the request log', () => {
  test('filters: mode, status class or code, method, path prefix, key, request id', async () => {
    await s.call('GET', '/templates', { key: a.keys.secret_test });
    await s.call('GET', '/nowhere', { key: a.keys.secret_test });
    await s.ctx.requestLog.flush();
    const all = (await log(ownerA, 'limit=100')).data;
    const check = async (query: string, keep: (e: Entry) => boolean) => {
      const got = (await log(ownerA, `limit=100&${query}`)).data.map((e) => e.id);
      const want = all.filter(keep).map((e) => e.id);
      assert.ok(want.length > 0, `${query}: the fixture has matching entries`);
      assert.ok(want.length < all.length, `${query}: the fixture has others too`);
      assert.deepEqual(got, want, query);
    };
    await check('livemode=false', (e) => !e.livemode);
    await check('livemode=true', (e) => e.livemode);
    await check('status=2xx', (e) => e.status >= 200 && e.status < 300);
    await check('status=4xx', (e) => e.status >= 400 && e.status < 500);
    await check('status=404', (e) => e.status === 404);
    await check('method=POST', (e) => e.method === 'POST');
    await check('path=%2Fapi%2Fv1%2Ftemplates', (e) => e.path.startsWith('/api/v1/templates'));
    await check(`key=${all[0]!.key}`, (e) => e.key === all[0]!.key);
    await check('livemode=false&status=2xx&method=GET', (e) => !e.livemode && e.status < 300 && e.method === 'GET');
    assertError(await ownerA.call('GET', '/request_log?status=2x'), 'parameter_invalid');
    assertError(await ownerA.call('GET', '/request_log?method=FETCH'), 'parameter_invalid');
  });

  test('cursor pages: newest first, each entry once', async () => {
    const all = (await log(ownerA, 'limit=100')).data.map((e) => e.id);
    assert.deepEqual(
      all,
      [...all].sort((x, y) => Number(y) - Number(x)),
      'newest first',
    );
    const walked: string[] = [];
    let page = await log(ownerA, 'limit=2');
    for (;;) {
      walked.push(...page.data.map((e) => e.id));
      if (!page.has_more) break;
      page = await log(ownerA, `limit=2&starting_after=${page.next_cursor}`);
    }
    assert.deepEqual(walked, all);
  });

  test('account isolation: B never sees A’s entries, by list, request id or cursor', async () => {
    const mine = await s.call('GET', '/usage', { key: b.keys.secret_test });
    await s.ctx.requestLog.flush();
    const aEntries = (await log(ownerA, 'limit=100')).data;
    const bEntries = (await log(ownerB, 'limit=100')).data;
    assert.deepEqual(
      bEntries.map((e) => e.request_id),
      [requestIdOf(mine)],
    );
    assert.ok(!aEntries.some((e) => e.request_id === requestIdOf(mine)));
    assert.deepEqual((await log(ownerB, `request_id=${aEntries[0]!.request_id}`)).data, []);
    assertError(await ownerB.call('GET', `/request_log?starting_after=${aEntries[0]!.id}`), 'parameter_invalid');
  });
});

describe('retention', () => {
  test('the job runner removes entries older than TAWQI_REQUEST_LOG_RETENTION_DAYS (30) by the injected clock', async () => {
    const old = await s.call('GET', '/usage', { key: a.keys.secret_test });
    await s.ctx.requestLog.flush();
    s.clock.advanceSeconds(29 * 86400);
    const recent = await s.call('GET', '/usage', { key: a.keys.secret_test });
    await s.ctx.requestLog.flush();
    const ids = async () => (await listRequestLog(s.ctx.store.db, a.id, { limit: 1000 })).map((e) => e.request_id);
    await s.jobs.runDue();
    assert.ok((await ids()).includes(requestIdOf(old)), 'day 29: kept');
    s.clock.advanceSeconds(2 * 86400);
    await s.jobs.runDue();
    const left = await ids();
    assert.ok(!left.includes(requestIdOf(old)), 'day 31: removed');
    assert.ok(left.includes(requestIdOf(recent)), 'the entry of two days ago stays');
  });
});

describe('writing the request log', () => {
  test('a batch of any size goes in INSERTs of a power of two rows up to 512: at most ten SQL texts, every row once', async () => {
    const texts = new Set<string>();
    let parameters = 0;
    // Kysely compiling for SQLite without a database: every statement it would send is seen, nothing runs.
    const db = new Kysely<Database>({
      dialect: {
        createAdapter: () => new SqliteAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (k) => new SqliteIntrospector(k),
        createQueryCompiler: () => new SqliteQueryCompiler(),
      },
      log: (event) => {
        texts.add(event.query.sql);
        parameters += event.query.parameters.length;
      },
    });
    const entry: NewRequestLogEntry = {
      account_id: 'acct_1',
      key_id: 'key_1',
      request_id: 'req_1',
      method: 'POST',
      path: '/api/v1/signature_requests',
      status: 201,
      code: null,
      ip: '127.0.0.1',
      created_at: 1,
      livemode: 0,
      key_type: 'secret',
      key_hint: 'abcd',
      user_id: null,
      user_email: null,
      idempotency_key: 'k',
      duration_ms: 3,
    };
    const sizes = [...Array.from({ length: 70 }, (_, i) => i + 1), 255, 256, 257, 499, 500, 511, 512, 513, 1000, 1025, 20_000];
    for (const n of sizes)
      await insertRequestLog(
        db,
        Array.from({ length: n }, () => entry),
      );
    assert.ok(texts.size <= 10, `${texts.size} INSERT texts`);
    assert.equal(
      parameters / Object.keys(entry).length,
      sizes.reduce((a, b) => a + b, 0),
      'every row written once',
    );
    assert.deepEqual([1, 2, 3, 300, 512, 513, 1000].map(rowsPerInsert), [1, 2, 2, 256, 512, 512, 512]);
  });
});
