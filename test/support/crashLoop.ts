/**
 * The crash loop (issue 17, point 3): the real entry point as a child process under a mixed workload
 * (creates with Idempotency-Keys, signings through the signing page's API, cancels, webhook
 * deliveries to a local HTTPS receiver, sealing), killed with SIGKILL at a seeded random moment of
 * each burst, restarted on the same data, and checked: nothing acknowledged lost, nothing done twice.
 * Shared by test/e2e/crash-loop.test.ts (20 cycles, fixed seed) and bench/crash-loop (any count).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../../server/src/clock.js';
import { createAccount } from '../../server/src/services/accounts.js';
import { openStore, type Store } from '../../server/src/store/db.js';
import { ledgerTotals } from '../../server/src/store/ledger.js';
import { databaseEnv, dropDatabaseOf, storeOptions } from './database.js';
import { call, type CallResult } from './server.js';
import { killIfRunning, spawnServer, type ServerProcess } from './serverProcess.js';
import { lastOtp, PageClient, pngDataUrl } from './signing.js';
import { makeTestCa, WebhookReceiver, type TestCa } from './webhookReceiver.js';

/**
 * Short leases so that, on PostgreSQL, what a killed process had claimed (jobs, deliveries,
 * Idempotency-Keys) is taken over within seconds instead of minutes: the lease must be at least twice
 * the webhook and WhatsApp timeouts (config.ts leaseProblem), 10 s is the smallest allowed.
 */
const SETTINGS = {
  TAWQI_LEASE_SECONDS: '10',
  TAWQI_IDEMPOTENCY_LEASE_SECONDS: '5',
  TAWQI_WEBHOOK_TIMEOUT_MS: '2000',
  TAWQI_WHATSAPP_TIMEOUT_MS: '2000',
  TAWQI_WEBHOOK_ALLOW_PRIVATE: 'true',
  TAWQI_RATE_LIMIT: '100000',
  TAWQI_IP_RATE_LIMIT: '100000',
};
/** Concurrent clients of a burst. */
const WORKERS = 3;
/** The kill lands this long after the server is ready, drawn uniformly (ms). */
const KILL_AFTER_MS = [300, 3000] as const;
/** How long the final drain (seals, webhook deliveries, leases of the dead) may take, polled. */
const DRAIN_BOUND_MS = 120_000;
const SIGNER_EMAIL = 'signer@example.com';

/** mulberry32: a small seeded generator, so a failing run is replayed by its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Created {
  id: string;
  signerId: string;
  /** The signing link's path and query (the origin changes with each restart's port). */
  signingPath: string;
}

export interface CycleReport {
  killAfterMs: number;
  creates: number;
  signings: number;
  cancels: number;
}

export class CrashLoop {
  /** Idempotency-Key → the request the client was answered with (2xx received). */
  readonly acked = new Map<string, Created>();
  /** Every key sent, answered or not. */
  readonly attempted = new Set<string>();
  readonly signAttempted = new Set<string>();
  /** Answers that break the contract (a 5xx, a failure while the server was up). */
  readonly problems: string[] = [];
  private server!: ServerProcess;
  private store!: Store;
  private key = '';
  private templateId = '';
  private accountId = '';
  private keyCount = 0;
  private killed = false;

  private constructor(
    readonly dataDir: string,
    private readonly ca: TestCa,
    readonly rx: WebhookReceiver,
    private readonly env: Record<string, string>,
  ) {}

  static async create(): Promise<CrashLoop> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-crash-'));
    const ca = makeTestCa();
    const rx = await WebhookReceiver.start(ca);
    const env = { DATA_DIR: dataDir, NODE_EXTRA_CA_CERTS: ca.caFile, ...SETTINGS, ...(await databaseEnv(dataDir)) };
    const loop = new CrashLoop(dataDir, ca, rx, env);
    await loop.start();
    await loop.setUp();
    return loop;
  }

  get base(): string {
    return this.server.base;
  }

  private async start(): Promise<void> {
    this.server = await spawnServer(this.env, 'built');
    this.killed = false;
  }

  /** An enterprise account with sends to spend, a template, and a webhook endpoint for every event. */
  private async setUp(): Promise<void> {
    this.store = await openStore(this.dataDir, await storeOptions(this.dataDir));
    const created = await createAccount(this.store, systemClock, {
      name: 'Crash Loop Co',
      ownerEmail: SIGNER_EMAIL,
      plan: 'enterprise',
      planExpiresAt: Math.floor(Date.now() / 1000) + 365 * 86400,
      kyb: 'approved',
      balanceSends: 10_000,
      walletMinor: 10_000_000,
      currency: 'EGP',
    });
    this.key = created.keys.secret_live;
    this.accountId = created.account.id;
    const tpl = await this.api('POST', '/templates', { title: 'Crash loop', language: 'en', body: 'Agreed.', fields: [] });
    assert.equal(tpl.status, 201, tpl.text);
    this.templateId = tpl.body.id;
    const endpoint = await this.api('POST', '/webhook_endpoints', { url: this.rx.url('/crash'), enabled_events: ['*'] });
    assert.equal(endpoint.status, 201, endpoint.text);
  }

  private api(method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<CallResult> {
    return call(this.server.base, method, p, { key: this.key, body, headers });
  }

  /** One burst of the workload, cut by SIGKILL at a random moment, then a restart on the same data. */
  async cycle(random: () => number): Promise<CycleReport> {
    const report: CycleReport = { killAfterMs: 0, creates: 0, signings: 0, cancels: 0 };
    report.killAfterMs = Math.round(KILL_AFTER_MS[0] + random() * (KILL_AFTER_MS[1] - KILL_AFTER_MS[0]));
    const workers = Array.from({ length: WORKERS }, (_, n) => this.worker(random, report, n === 0));
    await new Promise((resolve) => setTimeout(resolve, report.killAfterMs));
    this.killed = true;
    this.server.proc.kill('SIGKILL');
    await this.server.exited;
    await Promise.all(workers);
    await this.start();
    return report;
  }

  /** A worker of the burst; the first one signs (a signing is five calls, so it gets a worker of its own). */
  private async worker(random: () => number, report: CycleReport, signer: boolean): Promise<void> {
    while (!this.killed) {
      const roll = signer ? 0.6 : random();
      try {
        if (roll < 0.55) await this.createOne(report);
        else if (roll < 0.9) await this.signOne(random, report);
        else await this.cancelOne(random, report);
      } catch (err) {
        // A request cut by the kill fails on the client: expected. Before the kill it is a fault.
        if (!this.killed) this.problems.push(`failed while the server was up: ${String(err)}`);
        return;
      }
    }
  }

  private note(what: string, r: { status: number; body: unknown }, ok: number[]): void {
    if (r.status >= 500 || !ok.includes(r.status)) this.problems.push(`${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  }

  private createBody(key: string) {
    return {
      title: 'Crash loop agreement',
      source: { type: 'template', template_id: this.templateId },
      signers: [{ name: 'Ali Hassan', email: SIGNER_EMAIL }],
      metadata: { idempotency_key: key },
    };
  }

  private remember(key: string, r: CallResult): void {
    const s = r.body.signers[0];
    const url = new URL(s.signing_url);
    this.acked.set(key, { id: r.body.id, signerId: s.id, signingPath: url.pathname + url.search });
  }

  private async createOne(report: CycleReport): Promise<void> {
    const key = `crash-${process.pid}-${++this.keyCount}`;
    this.attempted.add(key);
    const r = await this.api('POST', '/signature_requests', this.createBody(key), { 'idempotency-key': key });
    this.note('create', r, [201]);
    if (r.status === 201) {
      this.remember(key, r);
      report.creates++;
    }
  }

  private pick(random: () => number, unsignedOnly: boolean): Created | undefined {
    const all = [...this.acked.values()].filter((c) => !unsignedOnly || !this.signAttempted.has(c.id));
    return all.length ? all[Math.floor(random() * all.length)] : undefined;
  }

  /** Sign one request through the page API: view, one-time code (read from the held message), sign. */
  private async signOne(random: () => number, report: CycleReport): Promise<void> {
    const c = this.pick(random, true);
    if (!c) return this.createOne(report);
    this.signAttempted.add(c.id);
    await this.signThrough(c, report).catch((err: unknown) => {
      // Cut by the kill: the request may be signed again in a later burst.
      this.signAttempted.delete(c.id);
      throw err;
    });
  }

  private async signThrough(c: Created, report: CycleReport): Promise<void> {
    const page = await PageClient.open(`${this.server.base}${c.signingPath}`);
    const view = await page.call('POST', '/view');
    // A request canceled or completed meanwhile has no page to sign on: nothing more to do.
    if (view.status >= 500) this.note('view', view, []);
    if (view.status !== 200) return;
    // A burst the kill cut may have left the signer further on: a code sent a moment ago (429
    // otp_too_soon: that code is still the one to enter) or already verified (409 otp_not_expected).
    const sent = await page.call('POST', '/otp/send');
    this.note('otp/send', sent, [200, 409, 429]);
    if (sent.status !== 409) {
      const verified = await page.call('POST', '/otp/verify', { code: await lastOtp(this.store, c.signerId) });
      this.note('otp/verify', verified, [200, 409]);
      if (verified.status !== 200) return;
    }
    const signed = await page.call('POST', '/sign', { signature: pngDataUrl(), consent: true });
    this.note('sign', signed, [200, 409]);
    if (signed.status === 200) report.signings++;
  }

  private async cancelOne(random: () => number, report: CycleReport): Promise<void> {
    const c = this.pick(random, false);
    if (!c) return this.createOne(report);
    const r = await this.api('POST', `/signature_requests/${c.id}/cancel`, undefined, { 'idempotency-key': `cancel-${c.id}` });
    // Completed or already canceled: 409 request_not_cancelable is the documented answer.
    this.note('cancel', r, [200, 409]);
    if (r.status === 200) report.cancels++;
  }

  /** The account's requests by the key that created them (metadata), as stored. */
  private async requestsByKey(): Promise<Map<string, string[]>> {
    const rows = await this.store.db
      .selectFrom('signature_requests')
      .select(['id', 'metadata'])
      .where('account_id', '=', this.accountId)
      .execute();
    const byKey = new Map<string, string[]>();
    for (const r of rows) {
      const key = (JSON.parse(r.metadata) as { idempotency_key: string }).idempotency_key;
      byKey.set(key, [...(byKey.get(key) ?? []), r.id]);
    }
    return byKey;
  }

  /**
   * What must hold after every restart: each acknowledged create stored exactly once (no key twice),
   * the balance equal to the ledger, exactly one send charge per request, at most one completion
   * (event and sealed document) per request.
   */
  async checkInvariants(): Promise<void> {
    assert.deepEqual(this.problems, [], 'every answer was a documented one');
    const byKey = await this.requestsByKey();
    for (const [key, ids] of byKey) assert.equal(ids.length, 1, `key ${key} created ${ids.length} requests`);
    for (const [key, c] of this.acked) assert.deepEqual(byKey.get(key), [c.id], `acknowledged create ${key} is stored once`);
    const requests = [...byKey.values()].flat();

    const account = await this.store.db
      .selectFrom('accounts')
      .select(['balance_sends', 'wallet_minor'])
      .where('id', '=', this.accountId)
      .executeTakeFirstOrThrow();
    const totals = await ledgerTotals(this.store.db, this.accountId);
    assert.deepEqual({ sends: Number(account.balance_sends), walletMinor: Number(account.wallet_minor) }, totals, 'balance = ledger');

    const charges = await this.store.db
      .selectFrom('ledger')
      .select('signature_request_id')
      .where('account_id', '=', this.accountId)
      .where('kind', '=', 'send')
      .execute();
    assert.deepEqual(charges.map((c) => c.signature_request_id).sort(), [...requests].sort(), 'one send charge per request');

    const completions = await this.store.db
      .selectFrom('events')
      .select('signature_request_id')
      .where('account_id', '=', this.accountId)
      .where('type', '=', 'signature_request.completed')
      .execute();
    const completed = completions.map((e) => e.signature_request_id!);
    assert.equal(new Set(completed).size, completed.length, 'one completion event per request');
  }

  /**
   * After the last restart: every key sent (answered or not) retried — an acknowledged one answers
   * the same request, replayed — then the background work drained (bounded poll) and checked:
   * no job stuck or failed, every delivery done, every event received, every completed request
   * sealed once with a PDF whose SHA-256 is the recorded one.
   */
  async finalCheck(): Promise<{ completed: number; events: number; deliveries: number }> {
    for (const key of this.attempted) await this.retryCreate(key);
    await this.checkInvariants();
    assert.equal((await this.requestsByKey()).size, this.attempted.size, 'every key sent ends as exactly one request');
    await this.drained();
    const completed = await this.checkSealed();
    const events = await this.checkEventsDelivered();
    return { completed, events, deliveries: this.rx.received.length };
  }

  private async retryCreate(key: string): Promise<void> {
    const deadline = Date.now() + DRAIN_BOUND_MS;
    for (;;) {
      const r = await this.api('POST', '/signature_requests', this.createBody(key), { 'idempotency-key': key });
      // PostgreSQL: a claim of the killed process holds the key until its lease passes.
      if (r.status === 409 && r.body.error.code === 'idempotency_in_progress' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      assert.equal(r.status, 201, r.text);
      const before = this.acked.get(key);
      if (before) {
        assert.equal(r.body.id, before.id, `the retry of ${key} answers the acknowledged request`);
        assert.equal(r.headers.get('idempotent-replayed'), 'true');
      } else this.remember(key, r);
      return;
    }
  }

  /** Poll until no job due within a day is pending and no delivery is pending (expiry jobs are 30 days out). */
  private async drained(): Promise<void> {
    const deadline = Date.now() + DRAIN_BOUND_MS;
    for (;;) {
      const dayAhead = Math.floor(Date.now() / 1000) + 86_400;
      const jobs = await this.store.db
        .selectFrom('jobs')
        .select(['id', 'kind', 'state', 'run_at'])
        .where('state', '=', 'pending')
        .where('run_at', '<', dayAhead)
        .execute();
      const deliveries = await this.store.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').execute();
      if (jobs.length === 0 && deliveries.length === 0) break;
      if (Date.now() > deadline)
        assert.fail(`not drained in ${DRAIN_BOUND_MS} ms: jobs ${JSON.stringify(jobs)}, ${deliveries.length} deliveries pending`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const failedJobs = await this.store.db.selectFrom('jobs').select(['kind', 'last_error']).where('state', '=', 'failed').execute();
    assert.deepEqual(failedJobs, [], 'no job failed');
    const failed = await this.store.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'failed').execute();
    assert.deepEqual(failed, [], 'no delivery failed');
  }

  private async checkSealed(): Promise<number> {
    const completed = await this.store.db
      .selectFrom('signature_requests')
      .select('id')
      .where('account_id', '=', this.accountId)
      .where('status', '=', 'completed')
      .execute();
    for (const { id } of completed) {
      const d = await this.api('GET', `/signature_requests/${id}/download`);
      assert.equal(d.status, 200, d.text);
      assert.equal(d.body.pdf_status, 'ready', d.text);
      const pdf = await fetch(`${this.server.base}/api/v1/signature_requests/${id}/download/pdf`, {
        headers: { authorization: `Bearer ${this.key}` },
      });
      assert.equal(pdf.status, 200);
      const hash = createHash('sha256')
        .update(Buffer.from(await pdf.arrayBuffer()))
        .digest('hex');
      assert.equal(hash, d.body.pdf_sha256, `the PDF of ${id} has its recorded hash`);
      assert.equal(pdf.headers.get('x-file-sha256'), hash);
    }
    return completed.length;
  }

  /** Every event of the account (GET /events, every page) reached the receiver at least once. */
  private async checkEventsDelivered(): Promise<number> {
    const ids: string[] = [];
    let after = '';
    for (;;) {
      const page = await this.api('GET', `/events?limit=100${after ? `&starting_after=${after}` : ''}`);
      assert.equal(page.status, 200, page.text);
      ids.push(...page.body.data.map((e: { id: string }) => e.id));
      if (!page.body.has_more) break;
      after = ids[ids.length - 1]!;
    }
    const received = new Set(this.rx.eventIds());
    const missing = ids.filter((id) => !received.has(id));
    assert.deepEqual(missing, [], `every one of ${ids.length} events delivered`);
    return ids.length;
  }

  async close(): Promise<void> {
    if (this.server) {
      killIfRunning(this.server.proc);
      await this.server.exited;
    }
    await this.store?.close();
    await this.rx.close();
    this.ca.cleanup();
    await dropDatabaseOf(this.dataDir);
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
