import type https from 'node:https';
import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../services/context.js';
import { presentEvent } from '../services/events.js';
import { dueCandidates, deliveriesToSend, leaseDeliveries, recordAttempts, releaseLeases, type AttemptResult, type DueDelivery } from '../store/webhooks.js';
import { signingSecrets } from './endpoints.js';
import { systemResolver, type Resolver } from './reachability.js';
import { nextRetryAt } from './schedule.js';
import { createWebhookAgent, postWebhook, type SendOutcome } from './sender.js';
import { signatureHeader } from './signing.js';

export interface DispatcherOptions {
  /** A receiver must answer 2xx within this long (TAWQI_WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Attempts in flight at once, all endpoints together (TAWQI_WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Attempts in flight at once to one endpoint (TAWQI_WEBHOOK_ENDPOINT_CONCURRENCY). */
  endpointConcurrency: number;
  /** TAWQI_WEBHOOK_ALLOW_PRIVATE: allow loopback/private targets (internal networks, tests). */
  allowPrivate: boolean;
  /** Svc-Version of deliveries for accounts without a pinned version. */
  defaultVersion: string;
  /** Fallback poll interval when no commit wakes the dispatcher. */
  pollMs?: number;
  /** In-process tests only: the CA of a test receiver. Production trusts Node's store plus NODE_EXTRA_CA_CERTS. */
  ca?: string;
  /** Tests only: a resolver in place of the system one. */
  resolve?: Resolver;
}

const USER_AGENT = 'Tawqi-Webhooks/1';
/**
 * How many due deliveries one claim reads at most. Small: in the steady state a claim fills the one
 * slot an answer freed, and the loop claims again while slots and due deliveries remain.
 */
const CLAIM_BATCH = 32;
/** A lease outlives any attempt: the deadline plus a minute. */
const LEASE_MARGIN_SECONDS = 60;

/**
 * Sends webhook deliveries from the durable outbox. It claims due deliveries (a lease in the row),
 * posts them with at most `endpointConcurrency` attempts per endpoint and `concurrency` overall, so
 * a slow or dead endpoint only ever holds its own slots, and records each attempt with its next
 * retry time from the schedule. Every schedule decision uses the injected clock.
 *
 * Production: `start()` polls every second and `wake()` (chained to each commit) claims at once;
 * a finished attempt frees its slot and claims more. Tests (manualJobs) never start it: they move
 * the clock and call `runDue()`, which sends every due delivery and awaits the answers.
 */
export class WebhookDispatcher {
  private readonly agent: https.Agent;
  private readonly resolve: Resolver;
  private readonly perEndpoint = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private active = 0;
  private claims: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private stopping = false;
  private wakeQueued = false;
  private pendingResults: AttemptResult[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly opts: DispatcherOptions,
  ) {
    this.agent = createWebhookAgent(opts.ca);
    this.resolve = opts.resolve ?? systemResolver;
  }

  /** Start-up: deliveries a killed process had in flight are due again now. Returns how many. */
  async recover(): Promise<number> {
    const released = await this.ctx.store.tx((trx) => releaseLeases(trx, nowSeconds(this.ctx.clock)));
    if (released > 0) this.ctx.log.info({ released }, 'webhook deliveries in flight at the last stop are due again');
    return released;
  }

  start(): void {
    this.running = true;
    this.timer = setInterval(() => this.wake(), this.opts.pollMs ?? 1000);
    this.timer.unref();
    this.wake();
  }

  /** Claim due deliveries soon (coalesced to one claim per turn of the event loop). */
  wake(): void {
    if (!this.running || this.stopping || this.wakeQueued) return;
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      this.claim().catch((err: unknown) => this.ctx.log.error({ err }, 'webhook dispatcher failed to claim deliveries'));
    });
  }

  /** Send every delivery due now and wait for every answer (or timeout). Returns how many attempts were made. */
  async runDue(): Promise<number> {
    let attempts = 0;
    for (;;) {
      attempts += await this.claim();
      if (this.inFlight.size === 0) return attempts;
      await Promise.race(this.inFlight);
    }
  }

  /** Attempts in flight now (for tests and the benchmark). */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.claims.catch(() => undefined);
    await Promise.allSettled([...this.inFlight]);
    this.agent.destroy();
  }

  /** One claim at a time, so the per-endpoint counts a claim reads are never stale. */
  private claim(): Promise<number> {
    const next = this.claims.then(() => this.claimAndStart());
    this.claims = next.catch(() => undefined);
    return next;
  }

  private async claimAndStart(): Promise<number> {
    let started = 0;
    while (!this.stopping && this.active < this.opts.concurrency) {
      const now = nowSeconds(this.ctx.clock);
      const full = [...this.perEndpoint].filter(([, n]) => n >= this.opts.endpointConcurrency).map(([id]) => id);
      const room = this.opts.concurrency - this.active;
      const taken = await this.ctx.store.tx(async (trx) => {
        const due = await dueCandidates(trx, now, full, Math.min(room, CLAIM_BATCH));
        const counts = new Map(this.perEndpoint);
        const picked: string[] = [];
        for (const d of due) {
          const n = counts.get(d.endpoint_id) ?? 0;
          if (n >= this.opts.endpointConcurrency) continue;
          counts.set(d.endpoint_id, n + 1);
          picked.push(d.id);
        }
        await leaseDeliveries(trx, picked, now + Math.ceil(this.opts.timeoutMs / 1000) + LEASE_MARGIN_SECONDS);
        return deliveriesToSend(trx, picked);
      });
      if (taken.length === 0) break;
      for (const d of taken) this.begin(d);
      started += taken.length;
    }
    return started;
  }

  private begin(d: DueDelivery): void {
    this.active++;
    this.perEndpoint.set(d.endpoint_id, (this.perEndpoint.get(d.endpoint_id) ?? 0) + 1);
    const attempt = this.attempt(d)
      .catch((err: unknown) => this.ctx.log.error({ err, delivery_id: d.id }, 'webhook attempt failed unexpectedly; its lease will expire'))
      .finally(() => {
        this.active--;
        const n = (this.perEndpoint.get(d.endpoint_id) ?? 1) - 1;
        if (n === 0) this.perEndpoint.delete(d.endpoint_id);
        else this.perEndpoint.set(d.endpoint_id, n);
        this.inFlight.delete(attempt);
        this.wake();
      });
    this.inFlight.add(attempt);
  }

  private async attempt(d: DueDelivery): Promise<void> {
    const startedAt = nowSeconds(this.ctx.clock);
    // Exactly the envelope GET /events/{id} returns to a secret key.
    const body = JSON.stringify(presentEvent(d.event, { maskRequestInfo: false }));
    const outcome = await postWebhook({
      url: d.url,
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'svc-version': d.version_pin ?? this.opts.defaultVersion,
        'svc-signature': signatureHeader(signingSecrets(d, startedAt), startedAt, body),
      },
      timeoutMs: this.opts.timeoutMs,
      agent: this.agent,
      allowPrivate: this.opts.allowPrivate,
      resolve: this.resolve,
    });
    await this.record(d, startedAt, outcome);
  }

  private record(d: DueDelivery, startedAt: number, o: SendOutcome): Promise<void> {
    const now = nowSeconds(this.ctx.clock);
    const attempt = d.attempt_count + 1;
    let outcome: AttemptResult['outcome'];
    if (o.error === null) outcome = { status: 'succeeded' };
    else {
      const retryAt = nextRetryAt(attempt, now);
      outcome = retryAt === null ? { status: 'failed' } : { status: 'pending', retryAt };
      this.ctx.log.warn(
        { delivery_id: d.id, event_id: d.event.id, endpoint_id: d.endpoint_id, attempt, response_status: o.status, error: o.error, next_retry_at: retryAt },
        retryAt === null ? 'webhook delivery failed for good' : 'webhook delivery failed; will retry',
      );
    }
    this.pendingResults.push({
      deliveryId: d.id,
      entry: { attempt, created_at: startedAt, response_status: o.status, duration_ms: o.durationMs, error: o.error },
      outcome,
      now,
    });
    return this.flushSoon();
  }

  /** Attempts finishing in the same turn of the event loop are written in one transaction. */
  private flushSoon(): Promise<void> {
    this.flushing ??= new Promise<void>((resolve) => {
      setImmediate(() => {
        const batch = this.pendingResults;
        this.pendingResults = [];
        this.flushing = null;
        this.ctx.store
          .tx((trx) => recordAttempts(trx, batch))
          .catch((err: unknown) => this.ctx.log.error({ err, deliveries: batch.length }, 'could not record webhook attempts; their leases will expire and they go again'))
          .finally(resolve);
      });
    });
    return this.flushing;
  }
}
