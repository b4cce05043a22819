/**
 * The operator's platform status (issue 16 point 5: GET /console/api/admin/status) and, route by
 * route, who may call the branding, billing and status routes: nobody signed in (401), each role,
 * a user of another account (their own data only), an operator (admin only). Outside services are
 * 127.0.0.1 peers: a listening TCP port for the TSA, a closed port for SMTP. Real HTTP, the
 * configured engine.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { NDA_FIELDS } from '../support/ndaFields.js';
import { startTestServer, type TestServer } from '../support/server.js';

const DAY = 86_400;
let s: TestServer;
let tsa: Server;
let closedPort: number;
let a: { id: string; keys: TestServer['keys'] };
let b: { id: string; keys: TestServer['keys'] };
const clients: Record<string, ConsoleClient> = {};

async function listening(): Promise<Server> {
  const server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
const portOf = (server: Server): number => (server.address() as { port: number }).port;

async function signedIn(email: string): Promise<ConsoleClient> {
  const c = new ConsoleClient(s.url, 'en');
  const r = await c.signIn(email, TEST_PASSWORD);
  assert.equal(r.status, 200, r.text);
  return c;
}

before(async () => {
  tsa = await listening();
  const closed = await listening();
  closedPort = portOf(closed);
  await new Promise((resolve) => closed.close(resolve));
  s = await startTestServer({
    ...CONSOLE_TEST_ENV,
    TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000',
    TAWQI_SMTP_URL: `smtp://127.0.0.1:${closedPort}`,
    TAWQI_SMTP_FROM: 'no-reply@tawqi.example',
    TAWQI_TSA_URL: `http://127.0.0.1:${portOf(tsa)}/tsa`,
  });
  a = await s.account({ name: 'A Co', ownerEmail: 'owner@a.example.com' });
  b = await s.account({ name: 'B Co', ownerEmail: 'owner@b.example.com' });
  for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) await consoleUser(s, a.id, `${role}@a.example.com`, role);
  await consoleUser(s, b.id, 'owner@b.example.com', 'owner');
  await consoleUser(s, null, 'op@tawqi.example', 'operator');
  for (const role of ['owner', 'admin', 'developer', 'viewer']) clients[role] = await signedIn(`${role}@a.example.com`);
  clients.other = await signedIn('owner@b.example.com');
  clients.operator = await signedIn('op@tawqi.example');
});
after(async () => {
  await s.close();
  await new Promise((resolve) => tsa.close(resolve));
});

describe('GET /console/api/admin/status', () => {
  test('services, database, queues and PKI certificates, by the injected clock', async () => {
    const first = await clients.operator!.call('GET', '/admin/status');
    assert.equal(first.status, 200, first.text);
    const st = first.body;
    assert.equal(st.object, 'platform_status');
    assert.deepEqual(st.smtp.endpoint, { host: '127.0.0.1', port: closedPort });
    assert.equal(st.smtp.configured, true);
    assert.equal(st.smtp.probe.reachable, false);
    assert.equal(st.smtp.probe.error, 'ECONNREFUSED');
    assert.equal(st.smtp.last_send, null);
    assert.doesNotMatch(first.text, /password|secret|token/i, 'no credential in the answer');
    assert.deepEqual(
      { ...st.tsa, probe: { reachable: st.tsa.probe.reachable } },
      {
        configured: true,
        endpoint: { host: '127.0.0.1', port: portOf(tsa) },
        probe: { reachable: true },
        mode: 'external',
      },
    );
    assert.deepEqual(st.whatsapp, { configured: false, endpoint: null, probe: null, last_send: null });
    assert.deepEqual(st.identity_provider, { configured: false, endpoint: null, probe: null, mode: 'simulation' });
    assert.equal(st.database.engine, s.ctx.store.dialect);
    assert.match(st.database.version, /^\d+\.\d+/);
    assert.deepEqual(
      st.pki.certificates.map((c: { name: string }) => c.name),
      ['ca', 'seal', 'tsa', 'ocsp'],
    );
    for (const c of st.pki.certificates) {
      assert.equal(c.days_left, Math.floor((c.not_after - Math.floor(s.clock.nowMs() / 1000)) / DAY), c.name);
      assert.ok(c.days_left > 300, `${c.name} is fresh`);
    }
    assert.equal(st.pki.evidence_key.algorithm, 'Ed25519');
    assert.equal(st.queues.outbox.pending, 0);

    // A live request queues its invitation; an attempt against the closed SMTP port fails and is kept.
    const created = await s.call('POST', '/signature_requests', {
      key: a.keys.secret_live,
      body: {
        title: 'Status',
        source: { type: 'template', template_id: 'tpl_nda_ar' },
        signers: [{ name: 'Mona', email: 'mona@a.example.com', fields: NDA_FIELDS }],
      },
    });
    assert.equal(created.status, 201, created.text);
    s.clock.advanceSeconds(120);
    await s.jobs.runDue();
    const later = (await clients.operator!.call('GET', '/admin/status')).body;
    assert.ok(later.queues.outbox.pending >= 1, JSON.stringify(later.queues));
    assert.ok(later.queues.outbox.oldest_age_seconds >= 120, JSON.stringify(later.queues.outbox));
    assert.equal(typeof later.queues.jobs.pending, 'number');
    assert.equal(typeof later.queues.webhook_deliveries.pending, 'number');
    assert.equal(later.smtp.last_send.state, 'queued');
    assert.equal(later.smtp.last_send.attempts, 1);
    assert.match(later.smtp.last_send.error, /ECONNREFUSED|connect/i);

    // A year on, the days left have moved with the clock.
    const ca = st.pki.certificates[0];
    s.clock.advanceSeconds(365 * DAY);
    clients.operator = await signedIn('op@tawqi.example');
    const yearOn = (await clients.operator.call('GET', '/admin/status')).body.pki.certificates[0];
    assert.equal(yearOn.not_after, ca.not_after);
    assert.equal(yearOn.days_left, Math.floor((ca.not_after - Math.floor(s.clock.nowMs() / 1000)) / DAY));
    assert.ok(yearOn.days_left <= ca.days_left - 365);
    for (const role of ['owner', 'admin', 'developer', 'viewer']) clients[role] = await signedIn(`${role}@a.example.com`);
    clients.other = await signedIn('owner@b.example.com');
  });
});

describe('authorization, route by route', () => {
  const ROUTES: { method: 'GET' | 'PUT'; path: string; body?: unknown; who: string[] }[] = [
    { method: 'GET', path: '/branding', who: ['owner', 'admin', 'other'] },
    { method: 'PUT', path: '/branding', body: { brand_name: 'Mine' }, who: ['owner', 'admin', 'other'] },
    { method: 'GET', path: '/branding/custom_domain', who: ['owner', 'admin', 'other'] },
    { method: 'GET', path: '/billing', who: ['owner', 'admin', 'other'] },
    { method: 'GET', path: '/billing/ledger', who: ['owner', 'admin', 'other'] },
    { method: 'GET', path: '/billing/usage', who: ['owner', 'admin', 'other'] },
    { method: 'GET', path: '/billing/prices', who: ['owner', 'admin', 'other'] },
    { method: 'GET', path: '/billing/notices', who: ['owner', 'admin', 'other'] },
    { method: 'GET', path: '/admin/status', who: ['operator'] },
  ];

  test('no session: 401 console_session_required on every route', async () => {
    const anonymous = new ConsoleClient(s.url);
    for (const r of [...ROUTES, { method: 'PUT' as const, path: '/branding/logo', body: undefined }]) {
      const res = await anonymous.call(r.method, r.path, { body: r.body });
      assert.equal(res.body?.error?.code, 'console_session_required', `${r.method} ${r.path}: ${res.text}`);
      assert.match(res.body.error.message, /[\u0600-\u06FF]/, 'Arabic by default');
    }
  });

  test('each role, another account and an operator: allowed exactly where the permission table says', async () => {
    for (const r of ROUTES) {
      for (const who of ['owner', 'admin', 'developer', 'viewer', 'other', 'operator']) {
        const res = await clients[who]!.call(r.method, r.path, { body: r.body });
        if (r.who.includes(who)) assert.equal(res.status, 200, `${who} ${r.method} ${r.path}: ${res.text}`);
        else assert.equal(res.body?.error?.code, 'forbidden', `${who} ${r.method} ${r.path}: ${res.status} ${res.text}`);
      }
    }
    const logo = await fetch(`${s.url}/console/api/branding/logo`, {
      method: 'PUT',
      headers: { cookie: `tawqi_console=${clients.viewer!.cookie}`, 'x-csrf-token': clients.viewer!.csrf!, 'content-type': 'image/png' },
      body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    });
    assert.equal(((await logo.json()) as { error: { code: string } }).error.code, 'forbidden');
  });

  test('another account sees and changes only its own branding and billing', async () => {
    await clients.owner!.call('PUT', '/branding', { body: { brand_name: 'A Brand' } });
    await clients.other!.call('PUT', '/branding', { body: { brand_name: 'B Brand' } });
    assert.equal((await clients.owner!.call('GET', '/branding')).body.branding.brand_name, 'A Brand');
    assert.equal((await clients.other!.call('GET', '/branding')).body.branding.brand_name, 'B Brand');
    assert.equal((await clients.other!.call('GET', '/branding')).body.account, b.id);
    const ledgerB = (await clients.other!.call('GET', '/billing/ledger?limit=100')).body.data;
    assert.ok(
      ledgerB.every((e: { signature_request: string | null }) => e.signature_request === null),
      'no charge of account A',
    );
    const ledgerA = (await clients.owner!.call('GET', '/billing/ledger?limit=100')).body;
    const cursor = ledgerA.data[0].id;
    const foreign = await clients.other!.call('GET', `/billing/ledger?starting_after=${cursor}`);
    assert.equal(foreign.body.error.code, 'parameter_invalid', "A's cursor is not in B's list");
  });

  test('a state change without the CSRF token is refused', async () => {
    const res = await clients.owner!.call('PUT', '/branding', { body: { brand_name: 'X' }, noCsrf: true });
    assert.equal(res.body.error.code, 'csrf_failed');
  });
});
