/**
 * Crash safety of webhook delivery (the transactional outbox): the server runs from source as a
 * child process, trusting the test receiver's CA through NODE_EXTRA_CA_CERTS as production would,
 * and is killed with SIGKILL while deliveries are in flight (claimed, their requests hanging) and
 * while more events are being committed. Restarted on the same DATA_DIR, it sends every delivery:
 * each event id committed before the kill reaches the receiver (at least once; receivers
 * deduplicate on evt_ id), including those the dead process had claimed: on SQLite (one process
 * per database) at once, on PostgreSQL (other processes may be alive) once their lease has ended.
 */
import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { call } from '../support/server.js';
import { databaseEnv, dropDatabaseOf, onPostgres } from '../support/database.js';
import { spawnServer } from '../support/serverProcess.js';
import { makeTestCa, WebhookReceiver, type TestCa } from '../support/webhookReceiver.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE_ARGS = ['--conditions=tawqi-source', '--import', 'tsx'];
const OWNER = 'owner@example.com';
/** Test mode allows 20 requests a day per account; each makes two events here. */
const REQUESTS = 20;
/**
 * The first process's answer deadline, long enough that nothing fails before the kill, and its
 * lease (at least twice the deadline). On PostgreSQL the restarted process waits the lease out (real
 * time: these are real processes), so both are shorter there.
 */
const TIMEOUT_MS = onPostgres ? 15_000 : 60_000;
const LEASE_SECONDS = (2 * TIMEOUT_MS) / 1000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('webhook deliveries survive kill -9', () => {
  let ca: TestCa;
  let rx: WebhookReceiver;
  let dataDir: string;
  let database: Record<string, string>;
  let child: ChildProcess | null = null;

  before(async () => {
    ca = makeTestCa();
    rx = await WebhookReceiver.start(ca);
    dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-webhook-crash-'));
    database = await databaseEnv(dataDir);
  });
  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    await rx.close();
    rmSync(dataDir, { recursive: true, force: true });
    await dropDatabaseOf(dataDir);
    ca.cleanup();
  });

  /** The settings of the server and the CLI: this data directory, trusting the receiver's CA as production would. */
  function settings(extra: Record<string, string> = {}): Record<string, string> {
    return {
      DATA_DIR: dataDir,
      ...database,
      TAWQI_LOG_LEVEL: 'error',
      TAWQI_WEBHOOK_ALLOW_PRIVATE: 'true',
      NODE_EXTRA_CA_CERTS: ca.caFile,
      ...extra,
    };
  }

  function env(): NodeJS.ProcessEnv {
    const e: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', ...settings() };
    delete e.NODE_TEST_CONTEXT;
    return e;
  }

  /** Start `server/src/main.ts` (support/serverProcess.ts) and resolve with its API base once it listens. */
  async function startServerProcess(extra: Record<string, string> = {}): Promise<{ proc: ChildProcess; api: string }> {
    const started = await spawnServer(settings(extra));
    child = started.proc;
    return { proc: started.proc, api: started.base };
  }

  function cli(...args: string[]): Promise<Json> {
    return new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        [...NODE_ARGS, 'server/src/cli/main.ts', ...args, '--json'],
        { cwd: ROOT, env: env(), encoding: 'utf8' },
        (err, stdout, stderr) => (err ? reject(new Error(`tawqi ${args.join(' ')}: ${stderr}`)) : resolve(JSON.parse(stdout))),
      );
    });
  }

  async function allEventIds(api: string, key: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor = '';
    for (;;) {
      const r = await call(api, 'GET', `/events?limit=100${cursor ? `&starting_after=${cursor}` : ''}`, { key });
      assert.equal(r.status, 200, r.text);
      ids.push(...r.body.data.map((e: Json) => e.id));
      if (!r.body.has_more) return ids;
      cursor = r.body.next_cursor;
    }
  }

  test('SIGKILL with deliveries in flight and events being written; after restart every event arrives', async () => {
    // Slow at first: every delivery hangs (the deadline is long, so nothing fails before the kill).
    rx.answer = () => ({ hang: true });
    const lease = { TAWQI_LEASE_SECONDS: String(LEASE_SECONDS) };
    let server = await startServerProcess({ TAWQI_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), ...lease });
    const created = await cli('account', 'create', '--name', 'Crash Co', '--owner-email', OWNER);
    const key: string = created.keys.secret_test;
    const tpl = await call(server.api, 'POST', '/templates', { key, body: { title: 'Crash', language: 'en', body: 'Agreed.' } });
    assert.equal(tpl.status, 201, tpl.text);
    const ep = await call(server.api, 'POST', '/webhook_endpoints', { key, body: { url: rx.url(), enabled_events: ['*'] } });
    assert.equal(ep.status, 201, ep.text);

    const createOne = () =>
      call(server.api, 'POST', '/signature_requests', {
        key,
        body: { title: 'Crash', source: { type: 'template', template_id: tpl.body.id }, signers: [{ name: 'Owner', email: OWNER }] },
      });
    // Half the requests first; their deliveries are claimed and hang at the receiver.
    for (let i = 0; i < REQUESTS / 2; i++) assert.equal((await createOne()).status, 201);
    const deadline = Date.now() + 15_000;
    while (rx.hangingCount < 8 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(rx.hangingCount, 8, 'the endpoint concurrency (8) of deliveries is in flight');
    // The rest are being written while the process dies.
    const racing = Array.from({ length: REQUESTS / 2 }, () => createOne().catch(() => null));
    await new Promise((r) => setTimeout(r, 5));
    const exited = new Promise((resolve) => server.proc.once('exit', (_code, signal) => resolve(signal)));
    server.proc.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    await Promise.all(racing);
    const inFlightAtKill = new Set(rx.eventIds());
    assert.ok(inFlightAtKill.size >= 8);
    assert.ok(
      rx.received.every((r) => r.answered === undefined),
      'no delivery had been answered before the kill',
    );

    // The receiver recovers; the server restarts on the same data directory.
    rx.answer = () => ({ status: 200 });
    const receivedBeforeRestart = rx.received.length;
    server = await startServerProcess(lease);
    const ids = await allEventIds(server.api, key);
    assert.ok(ids.length >= REQUESTS, `events committed before the kill: ${ids.length}`);

    const arrived = () => new Set(rx.eventIds((r) => r.answered === 200));
    const until = Date.now() + 30_000 + (onPostgres ? LEASE_SECONDS * 1000 : 0);
    while (ids.some((id) => !arrived().has(id)) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    const missing = ids.filter((id) => !arrived().has(id));
    assert.deepEqual(missing, [], 'every committed event reached the receiver after the restart');
    const afterRestart = new Set(rx.eventIds().slice(receivedBeforeRestart));
    for (const id of inFlightAtKill) assert.ok(afterRestart.has(id), `${id}, claimed by the killed process, was sent again`);
    assert.ok(
      rx.eventIds().every((id) => ids.includes(id)),
      'nothing but committed events was delivered',
    );

    // Each delivery is recorded as succeeded.
    for (const id of ids) {
      const d = await call(server.api, 'GET', `/events/${id}/deliveries`, { key });
      assert.equal(d.status, 200);
      assert.equal(d.body.data.length, 1, id);
      assert.equal(d.body.data[0].status, 'succeeded', id);
      assert.equal(d.body.data[0].attempts.at(-1).response_status, 200);
      assert.equal(d.body.data[0].attempts.at(-1).response_excerpt, 'ok', "the receiver's answer, read by the server process");
    }
    const exitedCleanly = new Promise((resolve) => server.proc.once('exit', (code) => resolve(code)));
    server.proc.kill('SIGTERM');
    assert.equal(await exitedCleanly, 0);
  });
});
