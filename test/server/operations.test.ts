/**
 * Operating the server (issue 13, point 7): /healthz, /readyz and /metrics on a real server on
 * 127.0.0.1. Readiness is cached for a second of the injected clock: tests move it, never sleep.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../../server/src/http/app.js';
import { Lifecycle } from '../../server/src/http/operations.js';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { emitEvent } from '../../server/src/events/emit.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import { LATEST_MIGRATION } from '../../server/src/store/operations.js';
import { assertError } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { pngDataUrl } from '../support/signing.js';
import { makeTestCa, startWebhookTestServer, WebhookReceiver, type TestCa } from '../support/webhookReceiver.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const OWNER = 'owner@example.com';
const ORIGIN = { ip: '198.51.100.7', user_agent: 'OperationsTest/1.0' };
const PUBLIC_CALLER = { 'x-forwarded-for': '203.0.113.9' };

/** The value of one sample: `name` with at least these labels (0 when the series does not exist). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  let found = false;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have: Record<string, string> = {};
    for (const pair of (m[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)) have[pair[1]!] = pair[2]!;
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) {
      total += Number(m[3]);
      found = true;
    }
  }
  return found ? total : 0;
}

const get = (s: TestServer, p: string, headers: Record<string, string> = {}) => s.call('GET', p, { prefix: '', headers });

describe('operations endpoints', () => {
  let ca: TestCa;
  let s: TestServer;
  before(async () => {
    ca = makeTestCa();
    s = await startWebhookTestServer(ca, { TAWQI_METRICS_TOKEN: TOKEN, TAWQI_TRUSTED_PROXIES: '127.0.0.1' });
  });
  after(async () => {
    await s.close();
    ca.cleanup();
  });

  const scrape = async () => {
    const r = await get(s, '/metrics');
    assert.equal(r.status, 200, r.text);
    return r.text;
  };

  test('GET /healthz: 200 without a key, from any caller, no store work', async () => {
    const r = await get(s, '/healthz', PUBLIC_CALLER);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { status: 'ok' });
    assert.equal(r.headers.get('cache-control'), 'no-store');
  });

  test('GET /readyz: 200 when migrated; 503 when the schema is behind, the answer reused for a second', async () => {
    assert.deepEqual((await get(s, '/readyz')).body, { status: 'ready' });
    const latest = s.ctx.store.raw.prepare('SELECT * FROM schema_migrations WHERE id = ?').get(LATEST_MIGRATION) as {
      id: number;
      name: string;
      applied_at: number;
    };
    s.ctx.store.raw.prepare('DELETE FROM schema_migrations WHERE id = ?').run(LATEST_MIGRATION);
    try {
      // Within the second the cached answer stands.
      assert.equal((await get(s, '/readyz')).status, 200);
      s.clock.advanceSeconds(2);
      const behind = await get(s, '/readyz');
      assert.equal(behind.status, 503);
      assert.deepEqual(behind.body, { status: 'not_ready', reason: 'migrations' });
    } finally {
      s.ctx.store.raw
        .prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)')
        .run(latest.id, latest.name, latest.applied_at);
    }
    s.clock.advanceSeconds(2);
    assert.equal((await get(s, '/readyz')).status, 200);
  });

  test('while draining: /readyz 503 and every response closes its connection', async () => {
    const life = new Lifecycle();
    const server = http.createServer(createApp(s.ctx, life));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const fetchRaw = (p: string) =>
      new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: p, agent: false }, (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
          })
          .on('error', reject);
      });
    try {
      assert.equal((await fetchRaw('/readyz')).status, 200);
      life.beginDrain();
      const r = await fetchRaw('/readyz');
      assert.equal(r.status, 503);
      assert.deepEqual(JSON.parse(r.body), { status: 'not_ready', reason: 'draining' });
      assert.equal(r.connection, 'close');
      assert.equal((await fetchRaw('/healthz')).connection, 'close');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('GET /metrics: Prometheus text with the process metrics; requests counted by route pattern, method and status', async () => {
    const before = await scrape();
    const key = s.keys.secret_live;
    assert.equal((await s.call('GET', '/signature_requests/sr_doesnotexist1', { key })).status, 404);
    assert.equal((await s.call('GET', '/signature_requests/sr_doesnotexist2', { key, prefix: '/en/api/v1' })).status, 404);
    assert.equal((await s.call('GET', '/templates', { key })).status, 200);
    assert.equal((await s.call('GET', '/no/such/path', { key })).status, 404);
    assert.equal((await get(s, '/wp-login.php')).status, 404);
    const res = await fetch(`${s.url}/metrics`);
    assert.match(res.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const count = (t: string, labels: Record<string, string>) => sample(t, 'tawqi_http_request_duration_seconds_count', labels);
    const byId = { route: '/api/v1/signature_requests/:id', method: 'GET', status: '404' };
    assert.equal(count(text, byId) - count(before, byId), 2, 'both languages under one pattern');
    const list = { route: '/api/v1/templates', method: 'GET', status: '200' };
    assert.equal(count(text, list) - count(before, list), 1);
    assert.equal(count(text, { route: '/api/v1/*', status: '404' }) - count(before, { route: '/api/v1/*', status: '404' }), 1);
    assert.ok(count(text, { route: 'unmatched', status: '404' }) >= 1);
    assert.ok(count(text, { route: '/healthz', method: 'GET', status: '200' }) >= 1, 'the operations endpoints are counted too');
    assert.ok(sample(text, 'tawqi_http_request_duration_seconds_bucket', { ...list, le: '+Inf' }) >= 1, 'a latency histogram');
    assert.doesNotMatch(text, /sr_doesnotexist|no\/such|wp-login/, 'no raw paths in labels');
    for (const name of [
      'process_cpu_user_seconds_total',
      'nodejs_eventloop_lag_seconds',
      'process_resident_memory_bytes',
      'tawqi_http_requests_in_flight',
    ]) {
      assert.match(text, new RegExp(`^${name} `, 'm'), name);
    }
  });

  /** An account whose owner may sign, with money for live requests and a one-line template. */
  async function account() {
    const acct = await s.account({ ownerEmail: OWNER, plan: 'enterprise', balanceSends: 1000, walletMinor: 1_000_000 });
    await updateAccount(s.ctx.store.db, acct.id, { team_emails: [OWNER] });
    const tpl = await s.call('POST', '/templates', {
      key: acct.keys.secret_live,
      body: { title: 'Ops', language: 'en', body: 'Agreed.', fields: [] },
    });
    assert.equal(tpl.status, 201, tpl.text);
    return { ...acct, template: tpl.body.id as string };
  }

  async function createRequest(acct: Awaited<ReturnType<typeof account>>): Promise<{ id: string; signers: { id: string }[] }> {
    const r = await s.call('POST', '/signature_requests', {
      key: acct.keys.secret_live,
      body: {
        title: 'Ops',
        legal_level: 'ses',
        source: { type: 'template', template_id: acct.template },
        signers: [{ name: 'Ali Hassan', email: OWNER }],
      },
    });
    assert.equal(r.status, 201, r.text);
    return r.body;
  }

  test('queue gauges: waiting and due entries and the oldest due age, read at scrape time', async () => {
    await s.jobs.runDue();
    const idle = await scrape();
    assert.equal(sample(idle, 'tawqi_queue_due', { queue: 'messages' }), 0);
    assert.equal(sample(idle, 'tawqi_queue_oldest_due_age_seconds', { queue: 'messages' }), 0);
    const acct = await account();
    await createRequest(acct);
    s.clock.advanceSeconds(90);
    const text = await scrape();
    assert.ok(sample(text, 'tawqi_queue_depth', { queue: 'messages' }) >= 1, 'the invitation is queued');
    assert.ok(sample(text, 'tawqi_queue_due', { queue: 'messages' }) >= 1);
    assert.ok(sample(text, 'tawqi_queue_oldest_due_age_seconds', { queue: 'messages' }) >= 90);
    assert.ok(sample(text, 'tawqi_queue_depth', { queue: 'jobs' }) >= 1, 'the request scheduled jobs (expiry, reminders)');
    assert.match(text, /^tawqi_queue_depth\{queue="webhook_deliveries"\} /m);
    await s.jobs.runDue();
    const drained = await scrape();
    assert.equal(sample(drained, 'tawqi_queue_due', { queue: 'messages' }), 0);
    assert.equal(sample(drained, 'tawqi_queue_oldest_due_age_seconds', { queue: 'messages' }), 0);
  });

  test('seal duration: observed by format and level once a completed request is sealed', async () => {
    const labels = { format: 'platform-evidence', level: 'ses' };
    const before = sample(await scrape(), 'tawqi_seal_duration_seconds_count', labels);
    const acct = await account();
    const request = await createRequest(acct);
    for (const signer of request.signers) {
      await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signer.id, 'otp_verified', ORIGIN));
      await s.ctx.store.db.updateTable('signers').set({ signature_image: pngDataUrl() }).where('id', '=', signer.id).execute();
      await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signer.id, 'sign', ORIGIN));
    }
    await s.jobs.runDue();
    const pdf = await s.call('GET', `/signature_requests/${request.id}`, { key: acct.keys.secret_live });
    assert.equal(pdf.body.status, 'completed', pdf.text);
    const text = await scrape();
    assert.equal(sample(text, 'tawqi_seal_duration_seconds_count', labels) - before, 1);
    assert.ok(sample(text, 'tawqi_seal_duration_seconds_sum', labels) > 0);
  });

  test('webhook attempts counted by outcome', async () => {
    const receiver = await WebhookReceiver.start(ca);
    try {
      const acct = await account();
      receiver.answer = (n) => ({ status: n === 0 ? 200 : 500 });
      const ep = await s.call('POST', '/webhook_endpoints', {
        key: acct.keys.secret_live,
        body: { url: receiver.url(), enabled_events: ['*'] },
      });
      assert.equal(ep.status, 201, ep.text);
      const before = await scrape();
      const emit = () =>
        s.ctx.store.tx((trx) =>
          emitEvent(trx, s.clock, {
            accountId: acct.id,
            livemode: true,
            type: 'signature_request.sent',
            object: { object: 'signature_request', id: 'sr_x' },
          }),
        );
      await emit();
      await s.webhooks.runDue();
      await emit();
      await s.webhooks.runDue();
      const text = await scrape();
      const delta = (outcome: string) =>
        sample(text, 'tawqi_webhook_delivery_attempts_total', { outcome }) -
        sample(before, 'tawqi_webhook_delivery_attempts_total', { outcome });
      assert.equal(delta('succeeded'), 1);
      assert.equal(delta('retry'), 1);
      assert.equal(delta('failed'), 0);
      await s.call('DELETE', `/webhook_endpoints/${ep.body.id}`, { key: acct.keys.secret_live });
    } finally {
      await receiver.close();
    }
  });

  test('access with a token configured: loopback and trusted proxies without it; anyone else only with the right bearer', async () => {
    assert.equal((await get(s, '/metrics')).status, 200, 'loopback');
    const refused = await get(s, '/metrics', PUBLIC_CALLER);
    assertError(refused, 'metrics_token_invalid');
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer');
    assertError(await get(s, '/metrics', { ...PUBLIC_CALLER, 'accept-language': 'en' }), 'metrics_token_invalid', 'en');
    assert.equal((await get(s, '/metrics', { ...PUBLIC_CALLER, authorization: `Bearer ${TOKEN}` })).status, 200);
    assertError(await get(s, '/metrics', { ...PUBLIC_CALLER, authorization: `Bearer ${TOKEN}x` }), 'metrics_token_invalid');
    assertError(await get(s, '/metrics', { ...PUBLIC_CALLER, authorization: TOKEN }), 'metrics_token_invalid');
    // A wrong token is refused even from loopback: a presented token is always checked.
    assertError(await get(s, '/metrics', { authorization: 'Bearer wrong' }), 'metrics_token_invalid');
  });
});

describe('operations without a metrics token', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ TAWQI_TRUSTED_PROXIES: '127.0.0.1', TAWQI_IP_RATE_LIMIT: '3' });
  });
  after(async () => {
    await s.close();
  });

  test('/metrics: 403 metrics_forbidden to callers neither loopback nor trusted; any bearer is refused', async () => {
    assert.equal((await get(s, '/metrics')).status, 200);
    assertError(await get(s, '/metrics', PUBLIC_CALLER), 'metrics_forbidden');
    assertError(await get(s, '/metrics', { ...PUBLIC_CALLER, authorization: `Bearer ${TOKEN}` }), 'metrics_token_invalid');
    // The health endpoints are open to everyone.
    assert.equal((await get(s, '/readyz', PUBLIC_CALLER)).status, 200);
  });

  test('rate-limit refusals counted by limit', async () => {
    const before = sample((await get(s, '/metrics')).text, 'tawqi_rate_limited_total', { limit: 'ip' });
    const from = { 'x-forwarded-for': '198.51.100.77' };
    for (let i = 0; i < 3; i++) assert.equal((await s.call('GET', '/', { key: s.keys.secret_live, headers: from })).status, 200);
    assertError(await s.call('GET', '/', { key: s.keys.secret_live, headers: from }), 'too_many_requests');
    assert.equal(sample((await get(s, '/metrics')).text, 'tawqi_rate_limited_total', { limit: 'ip' }) - before, 1);
  });

  test('/readyz: 503 once the store cannot answer', async () => {
    assert.equal((await get(s, '/readyz')).status, 200);
    await s.ctx.store.close();
    s.clock.advanceSeconds(2);
    const r = await get(s, '/readyz');
    assert.equal(r.status, 503);
    assert.deepEqual(r.body, { status: 'not_ready', reason: 'database' });
    assert.equal((await get(s, '/healthz')).status, 200, 'the process is still alive');
    const metrics = await get(s, '/metrics');
    assert.equal(metrics.status, 200, 'metrics still answer, without the queue series');
    assert.doesNotMatch(metrics.text, /^tawqi_queue_depth\{/m);
  });
});
