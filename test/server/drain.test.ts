/**
 * SIGTERM and SIGINT drain (issue 13, point 8), on the real entry point `server/src/main.ts` run as a
 * child process: new connections are refused, a request in flight (its body still arriving) is
 * answered with `Connection: close`, an idle keep-alive connection does not hold the drain open, a
 * webhook attempt in flight finishes and its lease is released, and the process exits 0 well inside
 * TAWQI_SHUTDOWN_TIMEOUT_MS — or 1 once that bound is passed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { systemClock } from '../../server/src/clock.js';
import { emitEvent } from '../../server/src/events/emit.js';
import { openStore } from '../../server/src/store/db.js';
import { databaseEnv, storeOptions } from '../support/database.js';
import { call } from '../support/server.js';
import { killIfRunning, spawnServer, type ServerProcess } from '../support/serverProcess.js';
import { makeTestCa, WebhookReceiver, type TestCa } from '../support/webhookReceiver.js';

const SHUTDOWN_TIMEOUT_MS = 10_000;

type Started = ServerProcess & { key: string; dataDir: string };

describe('draining on SIGTERM / SIGINT', () => {
  let ca: TestCa;
  let rx: WebhookReceiver;
  const dirs: string[] = [];
  const procs: ChildProcess[] = [];

  before(async () => {
    ca = makeTestCa();
    rx = await WebhookReceiver.start(ca);
  });
  after(async () => {
    for (const p of procs) killIfRunning(p);
    await rx.close();
    ca.cleanup();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** Start `server/src/main.ts` on a fresh DATA_DIR; resolve with its address and the operator's live key. */
  async function start(settings: Record<string, string> = {}): Promise<Started> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-drain-'));
    dirs.push(dataDir);
    const started = await spawnServer({
      DATA_DIR: dataDir,
      TAWQI_WEBHOOK_ALLOW_PRIVATE: 'true',
      NODE_EXTRA_CA_CERTS: ca.caFile,
      TAWQI_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      ...(await databaseEnv(dataDir)),
      ...settings,
    });
    procs.push(started.proc);
    return { ...started, key: started.operatorKey, dataDir };
  }

  /** Resolves true once a TCP connect to the port is refused (the listener is closed); bounded. */
  async function refusedSoon(port: number, tries = 250): Promise<boolean> {
    for (let i = 0; i < tries; i++) {
      const refused = await new Promise<boolean>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(false);
        });
        socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
      });
      if (refused) return true;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return false;
  }

  /** The in-flight gauge as /metrics reports it (the scrape itself is one of them). */
  async function inFlight(base: string): Promise<number> {
    const text = await (await fetch(`${base}/metrics`)).text();
    return Number(/^tawqi_http_requests_in_flight (\S+)$/m.exec(text)?.[1]);
  }

  test('SIGTERM: in-flight request and webhook attempt finish, new connections are refused, exit 0 within the bound', async () => {
    const server = await start();
    const api = `${server.base}/api/v1`;

    // A webhook attempt in flight at the signal: the receiver answers 1.5 s after it arrives.
    const endpoint = await call(server.base, 'POST', '/webhook_endpoints', {
      key: server.key,
      body: { url: rx.url('/drain'), enabled_events: ['*'] },
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    rx.answer = () => ({ status: 200, delayMs: 1500 });
    const store = await openStore(server.dataDir, await storeOptions(server.dataDir));
    let eventId: string;
    try {
      const account = await store.db.selectFrom('accounts').select('id').executeTakeFirstOrThrow();
      const event = await store.tx((trx) =>
        emitEvent(trx, systemClock, {
          accountId: account.id,
          livemode: true,
          type: 'signature_request.sent',
          object: { object: 'signature_request', id: 'sr_drain' },
        }),
      );
      eventId = event.id;
    } finally {
      await store.close();
    }
    await rx.waitFor(1); // the dispatcher's poll found it and the attempt is now waiting for the answer

    // An idle keep-alive connection: it must not hold the drain open.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const idle = await new Promise<number>((resolve, reject) => {
      http
        .get(`${server.base}/healthz`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        })
        .on('error', reject);
    });
    assert.equal(idle, 200);

    // A request in flight: its headers and half its body are sent, the rest waits for the signal.
    const body = JSON.stringify({ title: 'Sent during the drain', language: 'en', body: 'Agreed.' });
    const slow = http.request(`${api}/templates`, {
      method: 'POST',
      agent: false,
      headers: {
        authorization: `Bearer ${server.key}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
    });
    const answered = new Promise<{ status: number; connection: string | undefined; text: string }>((resolve, reject) => {
      slow.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, text }));
      });
      slow.on('error', reject);
    });
    slow.write(body.slice(0, 20));
    for (let i = 0; i < 200 && (await inFlight(server.base)) < 2; i++);
    assert.equal(await inFlight(server.base), 2, 'the slow request is in flight beside the scrape');

    const signalled = performance.now();
    server.proc.kill('SIGTERM');
    assert.ok(await refusedSoon(server.port), 'new connections are refused while draining');
    assert.equal(server.proc.exitCode, null, 'still running: the request in flight holds it');

    slow.end(body.slice(20));
    const r = await answered;
    assert.equal(r.status, 201, r.text);
    assert.equal(r.connection, 'close', 'the response closes its connection');

    const exit = await server.exited;
    const tookMs = performance.now() - signalled;
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.ok(tookMs < SHUTDOWN_TIMEOUT_MS, `drained in ${Math.round(tookMs)} ms`);
    agent.destroy();

    // The webhook attempt in flight finished and was recorded: no lease is left behind.
    const after = await openStore(server.dataDir, await storeOptions(server.dataDir));
    try {
      const delivery = await after.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'leased_until'])
        .where('event_id', '=', eventId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(delivery, { status: 'succeeded', leased_until: null });
      const made = await after.db.selectFrom('templates').select('id').where('title', '=', 'Sent during the drain').execute();
      assert.equal(made.length, 1);
    } finally {
      await after.close();
    }
  });

  test('SIGINT drains the same way; past TAWQI_SHUTDOWN_TIMEOUT_MS a stuck request makes it exit 1', async () => {
    const quiet = await start();
    quiet.proc.kill('SIGINT');
    assert.deepEqual(await quiet.exited, { code: 0, signal: null });

    const stuck = await start({ TAWQI_SHUTDOWN_TIMEOUT_MS: '500' });
    // A body that never completes: the drain cannot finish.
    const req = http.request(`${stuck.base}/api/v1/templates`, {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${stuck.key}`, 'content-type': 'application/json', 'content-length': '1000' },
    });
    req.on('error', () => {});
    req.write('{"title":');
    for (let i = 0; i < 200 && (await inFlight(stuck.base)) < 2; i++);
    const signalled = performance.now();
    stuck.proc.kill('SIGTERM');
    assert.deepEqual(await stuck.exited, { code: 1, signal: null });
    const tookMs = performance.now() - signalled;
    assert.ok(tookMs >= 450 && tookMs < 5000, `forced exit after ${Math.round(tookMs)} ms`);
    req.destroy();
  });
});
