import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../server/src/config.js';
import { startServer } from '../../server/src/server.js';
import { call } from '../support/server.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';

const body = (title: string) => ({ title, body: 'Between {{a}} and {{b}}.', fields: [{ key: 'a', label: 'A' }, { key: 'b', label: 'B' }] });

async function countTemplates(s: TestServer, title: string): Promise<number> {
  const rows = await s.ctx.store.db.selectFrom('templates').select('id').where('title', '=', title).execute();
  return rows.length;
}

describe('Idempotency-Key', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('same key, same path: the saved response is replayed with Idempotent-Replayed: true; nothing is created twice', async () => {
    const headers = { 'idempotency-key': 'create-1' };
    const first = await s.call('POST', '/templates', { key: s.keys.secret_live, headers, body: body('Idem one') });
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const second = await s.call('POST', '/templates', { key: s.keys.secret_live, headers, body: body('Idem one') });
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(second.body, first.body);
    assert.equal(await countTemplates(s, 'Idem one'), 1);
    // The English alias is the same path.
    const alias = await s.call('POST', '/templates', { key: s.keys.secret_live, headers, body: body('Idem one'), prefix: '/en/api/v1' });
    assert.equal(alias.headers.get('idempotent-replayed'), 'true');
  });

  test('keys are scoped per account and mode', async () => {
    const headers = { 'idempotency-key': 'scoped' };
    const live = await s.call('POST', '/templates', { key: s.keys.secret_live, headers, body: body('Scoped live') });
    const test2 = await s.call('POST', '/templates', { key: s.keys.secret_test, headers, body: body('Scoped test') });
    assert.equal(live.status, 201);
    assert.equal(test2.status, 201);
    assert.notEqual(live.body.id, test2.body.id);
  });

  test('same key on another path: 409 idempotency_key_reused', async () => {
    const headers = { 'idempotency-key': 'path-bound' };
    assert.equal((await s.call('POST', '/templates', { key: s.keys.secret_live, headers, body: body('Path bound') })).status, 201);
    const r = await assertErrorBothLanguages((prefix) => s.call('POST', '/signature_requests', { key: s.keys.secret_live, headers, body: {}, prefix }), 'idempotency_key_reused');
    assert.equal(r.body.error.param, 'Idempotency-Key');
  });

  test('more than 200 characters: 400 idempotency_key_invalid', async () => {
    await assertErrorBothLanguages(
      (prefix) => s.call('POST', '/templates', { key: s.keys.secret_live, headers: { 'idempotency-key': 'k'.repeat(201) }, body: body('Long key'), prefix }),
      'idempotency_key_invalid',
    );
    const ok = await s.call('POST', '/templates', { key: s.keys.secret_live, headers: { 'idempotency-key': 'k'.repeat(200) }, body: body('Long key') });
    assert.equal(ok.status, 201);
  });

  test('valid 24 hours: after that the key runs anew', async () => {
    const headers = { 'idempotency-key': 'day-long' };
    const first = await s.call('POST', '/templates', { key: s.keys.secret_live, headers, body: body('Day one') });
    s.clock.advanceSeconds(24 * 3600 - 1);
    const replay = await s.call('POST', '/templates', { key: s.keys.secret_live, headers, body: body('Day one') });
    assert.equal(replay.body.id, first.body.id);
    s.clock.advanceSeconds(1);
    const fresh = await s.call('POST', '/templates', { key: s.keys.secret_live, headers, body: body('Day two') });
    assert.equal(fresh.status, 201);
    assert.notEqual(fresh.body.id, first.body.id);
    assert.equal(fresh.headers.get('idempotent-replayed'), null);
  });

  test('a failed request commits nothing and keeps no claim: the retry runs again', async () => {
    const headers = { 'idempotency-key': 'retry-after-error' };
    const bad = await s.call('POST', '/templates', { key: s.keys.secret_live, headers, body: { title: 'Broken', body: '{{x}}' } });
    assertError(bad, 'parameter_invalid');
    const good = await s.call('POST', '/templates', { key: s.keys.secret_live, headers, body: body('Broken fixed') });
    assert.equal(good.status, 201);
  });

  test('concurrent identical requests: one effect; the others see 409 idempotency_in_progress (with Retry-After) or the replay', async () => {
    const headers = { 'idempotency-key': 'concurrent' };
    const results = await Promise.all(
      Array.from({ length: 12 }, () => s.call('POST', '/templates', { key: s.keys.secret_live, headers, body: body('Concurrent') })),
    );
    const created = results.filter((r) => r.status === 201);
    const inProgress = results.filter((r) => r.status === 409);
    assert.equal(created.length + inProgress.length, results.length, results.map((r) => r.text).join('\n'));
    assert.ok(created.length >= 1);
    assert.equal(new Set(created.map((r) => r.body.id)).size, 1, 'every 201 names the same template');
    for (const r of inProgress) {
      assertError(r, 'idempotency_in_progress');
      assert.equal(r.headers.get('retry-after'), '1');
    }
    assert.equal(await countTemplates(s, 'Concurrent'), 1);
  });
});

describe('Idempotency across a restart', () => {
  test('the response is stored with the effect: a restarted server replays it; an unfinished claim is released', async () => {
    const s = await startTestServer();
    const config = loadConfig({ DATA_DIR: s.dataDir, PORT: '0', TAWQI_LOG_LEVEL: 'silent' });
    const headers = { 'idempotency-key': 'durable' };
    const first = await s.call('POST', '/templates', { key: s.keys.secret_live, headers, body: body('Durable') });
    assert.equal(first.status, 201);
    // A claim left by a process that died mid-request.
    const account = (await s.call('GET', '/', { key: s.keys.secret_live })).body.account.id as string;
    await s.ctx.store.db
      .insertInto('idempotency')
      .values({ account_id: account, mode: 'live', idem_key: 'orphan', method: 'POST', path: '/api/v1/templates', state: 'in_progress', response_status: null, response_body: null, created_at: Math.floor(s.clock.nowMs() / 1000) })
      .execute();
    assertError(await s.call('POST', '/templates', { key: s.keys.secret_live, headers: { 'idempotency-key': 'orphan' }, body: body('Orphan') }), 'idempotency_in_progress');
    await s.stop();
    const restarted = await startServer(config, { clock: s.clock });
    try {
      const replay = await call(restarted.url, 'POST', '/templates', { key: s.keys.secret_live, headers, body: body('Durable') });
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, first.body);
      const orphan = await call(restarted.url, 'POST', '/templates', { key: s.keys.secret_live, headers: { 'idempotency-key': 'orphan' }, body: body('Orphan') });
      assert.equal(orphan.status, 201);
    } finally {
      await restarted.close();
      rmSync(s.dataDir, { recursive: true, force: true });
    }
  });
});
