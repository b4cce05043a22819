import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { ManualClock } from '../../server/src/clock.js';
import { loadConfig } from '../../server/src/config.js';
import { startServer } from '../../server/src/server.js';
import { databasePath } from '../../server/src/store/db.js';
import { call } from '../support/server.js';
import { databaseEnv, dropDatabaseOf, onPostgres } from '../support/database.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { killIfRunning, spawnServer } from '../support/serverProcess.js';

const body = (title: string) => ({
  title,
  body: 'Between {{a}} and {{b}}.',
  fields: [
    { key: 'a', label: 'A' },
    { key: 'b', label: 'B' },
  ],
});

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
    // The first answer is written directly (commitWrite), the replay through Express: the same headers.
    for (const r of [first, second]) {
      assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(Number(r.headers.get('content-length')), Buffer.byteLength(r.text));
    }
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
    const r = await assertErrorBothLanguages(
      (prefix) => s.call('POST', '/signature_requests', { key: s.keys.secret_live, headers, body: {}, prefix }),
      'idempotency_key_reused',
    );
    assert.equal(r.body.error.param, 'Idempotency-Key');
  });

  test('more than 200 characters: 400 idempotency_key_invalid', async () => {
    await assertErrorBothLanguages(
      (prefix) =>
        s.call('POST', '/templates', {
          key: s.keys.secret_live,
          headers: { 'idempotency-key': 'k'.repeat(201) },
          body: body('Long key'),
          prefix,
        }),
      'idempotency_key_invalid',
    );
    const ok = await s.call('POST', '/templates', {
      key: s.keys.secret_live,
      headers: { 'idempotency-key': 'k'.repeat(200) },
      body: body('Long key'),
    });
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
  /** Another connection holding a lock that stops the server's next write to templates, until released. */
  async function holdWriteLock(dataDir: string): Promise<{ release(): Promise<void> }> {
    const { DATABASE_URL } = await databaseEnv(dataDir);
    if (DATABASE_URL) {
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      await client.query('BEGIN');
      await client.query('LOCK TABLE templates IN EXCLUSIVE MODE');
      return { release: async () => (await client.query('ROLLBACK'), await client.end()) };
    }
    const lock = new SQLite(databasePath(dataDir), { timeout: 5000 });
    lock.exec('BEGIN IMMEDIATE');
    return {
      release: async () => {
        lock.exec('ROLLBACK');
        lock.close();
      },
    };
  }

  test('a process killed mid-request left nothing: the restarted server replays the completed response and runs the unfinished one', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-idem-crash-'));
    const server = await spawnServer({ DATA_DIR: dataDir, ...(await databaseEnv(dataDir)) });
    let lock: { release(): Promise<void> } | null = null;
    try {
      const { base: api, operatorKey: key } = server;
      const durable = await call(api, 'POST', '/templates', { key, headers: { 'idempotency-key': 'durable' }, body: body('Durable') });
      assert.equal(durable.status, 201, durable.text);
      // Hold the database's write lock, so the next request claims its key and then waits in its transaction…
      lock = await holdWriteLock(dataDir);
      const orphan = call(api, 'POST', '/templates', { key, headers: { 'idempotency-key': 'orphan' }, body: body('Orphan') }).then(
        (r) => r.status,
        () => 'no response',
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      // …and kill the process there: it committed nothing, and its claim (in memory on SQLite) dies with it.
      const exited = new Promise((resolve) => server.proc.once('exit', (_code, signal) => resolve(signal)));
      server.proc.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
      assert.equal(await orphan, 'no response', 'the request was still in flight when the process died');
      await lock.release();
      lock = null;

      // The restarted server's clock starts at the real time: on PostgreSQL the dead process's claim
      // (a row) holds the key until its lease (TAWQI_IDEMPOTENCY_LEASE_SECONDS, 60 s) has passed.
      const clock = new ManualClock(Date.now());
      const restarted = await startServer(
        loadConfig({ DATA_DIR: dataDir, ...(await databaseEnv(dataDir)), PORT: '0', HOST: '127.0.0.1', TAWQI_LOG_LEVEL: 'silent' }),
        { clock },
      );
      try {
        const replay = await call(restarted.url, 'POST', '/templates', {
          key,
          headers: { 'idempotency-key': 'durable' },
          body: body('Durable'),
        });
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(replay.body, durable.body);
        const orphanAgain = () =>
          call(restarted.url, 'POST', '/templates', { key, headers: { 'idempotency-key': 'orphan' }, body: body('Orphan') });
        if (onPostgres) {
          assertError(await orphanAgain(), 'idempotency_in_progress');
          clock.advanceSeconds(61);
        }
        const again = await orphanAgain();
        assert.equal(again.status, 201, again.text);
        assert.equal(again.headers.get('idempotent-replayed'), null, 'nothing was stored for the unfinished request: it runs now');
        const orphans = await restarted.ctx.store.db.selectFrom('templates').select('id').where('title', '=', 'Orphan').execute();
        assert.equal(orphans.length, 1, 'the killed request created nothing');
      } finally {
        await restarted.close();
      }
    } finally {
      await lock?.release();
      killIfRunning(server.proc);
      rmSync(dataDir, { recursive: true, force: true });
      await dropDatabaseOf(dataDir);
    }
  });

  test("an 'in_progress' row written by an earlier version (claims were rows then) is released at start", async () => {
    const s = await startTestServer();
    try {
      const account = (await s.call('GET', '/', { key: s.keys.secret_live })).body.account.id as string;
      await s.ctx.store.db
        .insertInto('idempotency')
        .values({
          account_id: account,
          mode: 'live',
          idem_key: 'legacy',
          method: 'POST',
          path: '/api/v1/templates',
          state: 'in_progress',
          response_status: null,
          response_body: null,
          created_at: Math.floor(s.clock.nowMs() / 1000),
        })
        .execute();
      assertError(
        await s.call('POST', '/templates', { key: s.keys.secret_live, headers: { 'idempotency-key': 'legacy' }, body: body('Legacy') }),
        'idempotency_in_progress',
      );
      await s.stop();
      const restarted = await startServer(loadConfig({ DATA_DIR: s.dataDir, ...s.databaseEnv, PORT: '0', TAWQI_LOG_LEVEL: 'silent' }), {
        clock: s.clock,
      });
      try {
        const r = await call(restarted.url, 'POST', '/templates', {
          key: s.keys.secret_live,
          headers: { 'idempotency-key': 'legacy' },
          body: body('Legacy'),
        });
        assert.equal(r.status, 201, r.text);
      } finally {
        await restarted.close();
      }
    } finally {
      rmSync(s.dataDir, { recursive: true, force: true });
    }
  });
});
