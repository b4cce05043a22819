/**
 * Scale-out (issue 13, point 11): three server processes (the real entry point) on one PostgreSQL
 * database behind a real nginx that terminates TLS and round-robins, with TAWQI_TRUSTED_PROXIES
 * naming it. The processes share nothing but the database: each has its own empty DATA_DIR.
 *
 * PostgreSQL only (`npm run test:postgres`); the SQLite run skips it, saying so.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { systemClock } from '../../server/src/clock.js';
import { createAccount, type CreatedAccount } from '../../server/src/services/accounts.js';
import { openStore, type Store } from '../../server/src/store/db.js';
import { createTestDatabase, dropTestDatabase, onPostgres } from '../support/database.js';
import { startNginx, type Nginx } from '../support/nginx.js';
import { freePort } from '../support/postgres.js';
import { killIfRunning, spawnServer, type ServerProcess } from '../support/serverProcess.js';
import { lastOtp, pngDataUrl } from '../support/signing.js';
import { makeTestCa, WebhookReceiver, type TestCa } from '../support/webhookReceiver.js';

const PROCESSES = 3;
/** The account window of these processes (TAWQI_RATE_LIMIT per 10 s), small so the test stays short. */
const ACCOUNT_LIMIT = 40;
/** How long, after a kill -9, the survivors may take to finish the dead process's work. */
const RECOVERY_BOUND_MS = 60_000;
const MASTER_KEY = randomBytes(32).toString('hex');

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

describe(
  'three processes on one PostgreSQL behind nginx (TLS, round-robin)',
  { skip: !onPostgres && 'needs PostgreSQL: npm run test:postgres' },
  () => {
    let ca: TestCa;
    let rx: WebhookReceiver;
    let nginx: Nginx;
    let databaseUrl: string;
    let store: Store;
    let agent: https.Agent;
    const servers: ServerProcess[] = [];
    const dirs: string[] = [];

    before(async () => {
      ca = makeTestCa();
      rx = await WebhookReceiver.start(ca);
      databaseUrl = await createTestDatabase();
      const ports = await Promise.all(Array.from({ length: PROCESSES }, () => freePort()));
      nginx = await startNginx({ upstreamPorts: ports, certPem: ca.certPem, keyPem: ca.keyPem });
      agent = new https.Agent({ ca: ca.caPem, keepAlive: true, maxSockets: 64 });
      // One at a time for the first (it migrates and creates the PKI), then the others together.
      servers.push(await start(ports[0]!));
      servers.push(...(await Promise.all(ports.slice(1).map((p) => start(p)))));
      store = await openStore(dirs[0]!, { databaseUrl });
    });

    after(async () => {
      for (const s of servers) killIfRunning(s.proc);
      await Promise.all(servers.map((s) => s.exited));
      await store?.close();
      await nginx?.stop();
      await rx?.close();
      agent?.destroy();
      ca?.cleanup();
      if (databaseUrl) await dropTestDatabase(databaseUrl);
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    function start(port: number): Promise<ServerProcess> {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-scale-'));
      dirs.push(dataDir);
      return spawnServer({
        DATA_DIR: dataDir,
        PORT: String(port),
        DATABASE_URL: databaseUrl,
        TAWQI_MASTER_KEY: MASTER_KEY,
        TAWQI_PUBLIC_URL: nginx.url,
        TAWQI_TRUSTED_PROXIES: '127.0.0.1',
        TAWQI_RATE_LIMIT: String(ACCOUNT_LIMIT),
        TAWQI_IP_RATE_LIMIT: '100000',
        TAWQI_WEBHOOK_ALLOW_PRIVATE: 'true',
        NODE_EXTRA_CA_CERTS: ca.caFile,
      });
    }

    /** One HTTPS request through nginx. */
    function request(
      method: string,
      p: string,
      opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
    ): Promise<Answer> {
      const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      if (payload !== undefined) headers['content-type'] = 'application/json';
      return new Promise((resolve, reject) => {
        const req = https.request(`${nginx.url}${p}`, { method, agent, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown = text;
            try {
              body = text ? JSON.parse(text) : undefined;
            } catch {
              // nginx's own error pages are HTML
            }
            resolve({ status: res.statusCode ?? 0, body, headers: res.headers });
          });
        });
        req.on('error', reject);
        req.end(payload);
      });
    }

    const api = (method: string, p: string, key: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) =>
      request(method, `/api/v1${p}`, { key, ...opts });

    /** An account with money to spend and (unless told otherwise) a template without fields of its own. */
    async function account(name: string, opts: { template?: boolean } = {}): Promise<CreatedAccount & { templateId: string }> {
      const created = await createAccount(store, systemClock, {
        name,
        plan: 'enterprise',
        planExpiresAt: Math.floor(Date.now() / 1000) + 365 * 86400,
        kyb: 'approved',
        balanceSends: 10_000,
        walletMinor: 10_000_000,
        currency: 'EGP',
      });
      // Without a template: no request of its own counted in the account window.
      if (opts.template === false) return { ...created, templateId: '' };
      const tpl = await api('POST', '/templates', created.keys.secret_live, {
        body: { title: 'Scale-out', language: 'en', body: 'Agreed between the parties.', fields: [] },
      });
      assert.equal(tpl.status, 201, JSON.stringify(tpl.body));
      return { ...created, templateId: tpl.body.id as string };
    }

    const createBody = (a: { templateId: string }, email: string) => ({
      title: 'Scale-out agreement',
      source: { type: 'template', template_id: a.templateId },
      signers: [{ name: 'Ali Hassan', email }],
    });

    /** The page token of a signing link (the meta tag the page carries). */
    async function pageToken(signingUrl: string): Promise<string> {
      const page = await request('GET', new URL(signingUrl).pathname + new URL(signingUrl).search);
      assert.equal(page.status, 200, `signing page: ${page.status}`);
      const m = /<meta name="tawqi-page-token" content="([^"]+)">/.exec(String(page.body));
      assert.ok(m, 'a page token');
      return m[1]!;
    }

    /** Sign through the page API: view, one-time code (read from the held message), sign; each call to whichever process nginx picks. */
    async function sign(signingUrl: string, signerId: string): Promise<void> {
      const token = await pageToken(signingUrl);
      const page = (method: string, p: string, body?: unknown) =>
        request(method, `/sign/api${p}`, { body, headers: { 'x-tawqi-page-token': token } });
      assert.equal((await page('POST', '/view')).status, 200);
      assert.equal((await page('POST', '/otp/send')).status, 200);
      const verified = await page('POST', '/otp/verify', { code: await lastOtp(store, signerId) });
      assert.equal(verified.status, 200, JSON.stringify(verified.body));
      const signed = await page('POST', '/sign', { signature: pngDataUrl(), consent: true });
      assert.equal(signed.status, 200, JSON.stringify(signed.body));
    }

    /** The account's signature requests and its send charges, as stored. */
    async function requestsAndCharges(accountId: string): Promise<{ requests: string[]; charged: string[] }> {
      const requests = await store.db.selectFrom('signature_requests').select('id').where('account_id', '=', accountId).execute();
      const charges = await store.db
        .selectFrom('ledger')
        .select('signature_request_id')
        .where('account_id', '=', accountId)
        .where('kind', '=', 'send')
        .execute();
      return { requests: requests.map((r) => r.id), charged: charges.map((c) => c.signature_request_id!) };
    }

    /** Poll the database until `check` holds (background work of other processes), bounded. */
    async function eventually(what: string, check: () => Promise<boolean>, boundMs = RECOVERY_BOUND_MS): Promise<void> {
      const deadline = Date.now() + boundMs;
      while (!(await check())) {
        if (Date.now() > deadline) assert.fail(`not within ${boundMs} ms: ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }

    test('every process serves the same PKI and answers through the proxy over TLS', async () => {
      const seen = new Set<string>();
      for (let i = 0; i < PROCESSES * 2; i++) {
        const r = await request('GET', '/readyz');
        assert.equal(r.status, 200);
      }
      for (const s of servers) {
        const direct = await fetch(`${s.base}/pki/ca.pem`);
        assert.equal(direct.status, 200);
        seen.add(await direct.text());
      }
      assert.equal(seen.size, 1, 'one CA for every process');
    });

    test('the account window holds in total across the processes', async () => {
      // The processes reckon windows by their own clocks (10 s, aligned to the epoch): a burst that
      // straddles a window's end proves nothing, so such a round is repeated with a fresh account.
      for (let round = 0; round < 3; round++) {
        const a = await account(`Limit Co ${round}`, { template: false });
        while (Date.now() % 10_000 > 5_000) await new Promise((resolve) => setTimeout(resolve, 100));
        const startedAt = Date.now();
        const answers = await Promise.all(Array.from({ length: ACCOUNT_LIMIT + 20 }, () => api('GET', '/templates', a.keys.secret_live)));
        if (Math.floor(startedAt / 10_000) !== Math.floor(Date.now() / 10_000)) continue;
        const ok = answers.filter((r) => r.status === 200).length;
        const limited = answers.filter((r) => r.status === 429);
        assert.equal(ok, ACCOUNT_LIMIT, `statuses: ${answers.map((r) => r.status).join(',')}`);
        assert.equal(limited.length, 20);
        assert.equal(limited[0]!.body.error.code, 'too_many_requests');
        assert.ok(Number(limited[0]!.headers['retry-after']) >= 1);
        return;
      }
      assert.fail('no burst fitted in one window in three rounds');
    });

    test('the same Idempotency-Key through different processes at once: one request, one charge', async () => {
      const a = await account('Idempotent Co');
      for (let round = 0; round < 5; round++) {
        const key = randomUUID();
        const answers = await Promise.all(
          Array.from({ length: PROCESSES }, () =>
            api('POST', '/signature_requests', a.keys.secret_live, {
              body: createBody(a, 'idem@example.com'),
              headers: { 'idempotency-key': key },
            }),
          ),
        );
        const created = answers.filter((r) => r.status === 201);
        assert.ok(created.length >= 1, `statuses: ${answers.map((r) => r.status).join(',')}`);
        for (const r of answers) {
          if (r.status === 201) assert.equal(r.body.id, created[0]!.body.id, 'a replay answers the same request');
          else assert.equal(r.body.error.code, 'idempotency_in_progress');
        }
      }
      const { requests, charged } = await requestsAndCharges(a.account.id);
      assert.equal(requests.length, 5);
      assert.equal(charged.length, 5, 'one charge per request');
    });

    test('created through one process, signed through others, sealed exactly once, its webhook delivered', async () => {
      const a = await account('Seal Co');
      const endpoint = await api('POST', '/webhook_endpoints', a.keys.secret_live, {
        body: { url: rx.url('/scale'), enabled_events: ['*'] },
      });
      assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
      const created = await api('POST', '/signature_requests', a.keys.secret_live, { body: createBody(a, 'seal@example.com') });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      await sign(created.body.signers[0].signing_url, created.body.signers[0].id);
      const id = created.body.id as string;
      await eventually('the final PDF is ready', async () => {
        const d = await api('GET', `/signature_requests/${id}/download`, a.keys.secret_live);
        return d.body.pdf_status === 'ready';
      });
      const evidence = await store.db.selectFrom('evidence_records').selectAll().where('signature_request_id', '=', id).execute();
      assert.equal(evidence.length, 1, 'one evidence record: sealed once');
      await eventually('the completion webhook arrived', async () =>
        rx.received.some((r) => {
          const event = JSON.parse(r.rawBody) as { type: string; data?: { object?: { id?: string } } };
          return event.type === 'signature_request.completed' && event.data?.object?.id === id;
        }),
      );
    });

    test('kill -9 of one process under creates and signings: nothing acknowledged is lost, nothing charged twice, all sealed and delivered', async () => {
      const a = await account('Crash Co');
      const endpoint = await api('POST', '/webhook_endpoints', a.keys.secret_live, {
        body: { url: rx.url('/crash'), enabled_events: ['*'] },
      });
      assert.equal(endpoint.status, 201);
      const acknowledged = new Map<string, { signerId: string; url: string }>();
      let killed = false;
      // A client that retries with its Idempotency-Key, as the SDK does: a 502 from the proxy (the
      // process died with the request) or a dropped connection is retried, a 409 in progress too.
      async function createWithRetries(n: number): Promise<void> {
        const key = `crash-${n}-${randomUUID()}`;
        let last = '';
        for (const giveUpAt = Date.now() + 90_000; Date.now() < giveUpAt;) {
          const r = await api('POST', '/signature_requests', a.keys.secret_live, {
            body: createBody(a, `crash${n}@example.com`),
            headers: { 'idempotency-key': key },
          }).catch((err: unknown) => {
            last = String(err);
            return null;
          });
          if (r) last = `${r.status} ${JSON.stringify(r.body).slice(0, 300)}`;
          if (r?.status === 201) {
            acknowledged.set(r.body.id, { signerId: r.body.signers[0].id, url: r.body.signers[0].signing_url });
            return;
          }
          // 502 (the process died with the request), 409 (its claim has not lapsed yet), 429: wait, retry.
          const wait = r?.status === 429 ? Number(r.headers['retry-after'] ?? 1) * 1000 : 500;
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
        assert.fail(`create ${n} never succeeded; last answer: ${last}`);
      }
      const work: Promise<void>[] = [];
      for (let n = 0; n < 24; n++) {
        work.push(createWithRetries(n));
        if (n === 8) {
          killed = true;
          servers[1]!.proc.kill('SIGKILL');
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await Promise.all(work);
      assert.ok(killed);
      // Sign every request (through the survivors: nginx skips the dead process).
      for (const [, s] of acknowledged) await sign(s.url, s.signerId);

      const ids = [...acknowledged.keys()];
      const { requests, charged } = await requestsAndCharges(a.account.id);
      assert.deepEqual(requests.sort(), ids.sort(), 'every acknowledged create exists, and nothing else');
      assert.equal(charged.length, ids.length, 'one charge per request');
      assert.equal(new Set(charged).size, ids.length);

      await eventually(
        'every request sealed',
        async () => {
          const ready = await store.db
            .selectFrom('sealed_documents')
            .select('signature_request_id')
            .where('signature_request_id', 'in', ids)
            .where('pdf_status', '=', 'ready')
            .execute();
          return ready.length === ids.length;
        },
        RECOVERY_BOUND_MS,
      );
      const evidence = await store.db
        .selectFrom('evidence_records')
        .select('signature_request_id')
        .where('signature_request_id', 'in', ids)
        .execute();
      assert.equal(evidence.length, ids.length, 'sealed once each');

      const events = await store.db.selectFrom('events').select('id').where('account_id', '=', a.account.id).execute();
      await eventually('every event delivered at least once', async () => {
        const got = new Set(rx.eventIds());
        return events.every((e) => got.has(e.id));
      });
    });
  },
);
