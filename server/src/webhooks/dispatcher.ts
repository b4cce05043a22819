import type https from 'node:https';
import type { Logger } from 'pino';
import { nowSeconds, type Clock } from '../clock.js';
import type { Store } from '../store/db.js';
import { presentEvent } from '../presenters/events.js';
import type { Leases } from '../leases.js';
import {
  deliveriesToSend,
  deliveryWrites,
  leasePicked,
  nextDueByEndpoint,
  pickDue,
  recordAttempts,
  releaseLeases,
  releaseOrphanedLeases,
  type AttemptResult,
  type DueDelivery,
} from '../store/webhooks.js';
import { signingSecrets } from './endpoints.js';
import { systemResolver, type Resolver } from './reachability.js';
import { nextRetryAt } from './schedule.js';
import { createWebhookAgent, postWebhook, type SendOutcome } from './sender.js';
import { deliveryHeaders } from './signing.js';
import { countWebhookAttempt } from '../metrics.js';

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
  /** The process's leases (TAWQI_LEASE_SECONDS, longer than any attempt: config.ts checks it). */
  leases: Leases;
}

interface PendingResult extends AttemptResult {
  /** Settles the attempt once its result is in the database. */
  written: () => void;
}
/**
 * Sends webhook deliveries from the durable outbox. It claims due deliveries (a lease in the row:
 * on PostgreSQL taken with FOR UPDATE SKIP LOCKED, so several processes share the work and each
 * delivery goes to one of them; one whose process died is taken again when its lease ends),
 * posts them with at most `endpointConcurrency` attempts per endpoint and `concurrency` overall, so
 * a slow or dead endpoint only ever holds its own slots, and records each attempt with its next
 * retry time from the schedule. Every schedule decision uses the injected clock.
 *
 * Claims go endpoint by endpoint (an index seek each), round robin, so no backlog is ever scanned:
 * the dispatcher keeps the set of endpoints that may have due deliveries, refreshed from the
 * database (`nextDueByEndpoint`) whenever something may have made more due — a commit, the poll
 * tick (time passed), `runDue()` — and narrowed when an endpoint yields fewer than it was asked for.
 *
 * Production: `start()` polls every second and `wake()` (chained to each commit) claims at once;
 * a finished attempt frees its slot and claims more. Tests (manualJobs) never start it: they move
 * the clock and call `runDue()`, which sends every due delivery and awaits the answers.
 */
/** What the dispatcher needs of the application (the ServiceContext has it). */
export interface DispatcherDeps {
  store: Store;
  clock: Clock;
  log: Logger;
}

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
  private seenDeliveryWrites = -1;
  /** Endpoints that may have due deliveries now, in round-robin order. */
  private readonly mayHaveDue = new Set<string>();
  /** Something may have made deliveries due that `mayHaveDue` does not know of. */
  private stale = true;
  /** Answers not yet written: the next claim writes them in its transaction, else a flush of their own. */
  private pendingResults: PendingResult[] = [];
  private flushQueued = false;
  /** Deliveries whose attempt result could not be written: still leased (delivery id → claim); stop() gives them back. */
  private readonly unrecorded = new Map<string, string>();

  constructor(
    private readonly ctx: DispatcherDeps,
    private readonly opts: DispatcherOptions,
  ) {
    this.agent = createWebhookAgent(opts.ca);
    this.resolve = opts.resolve ?? systemResolver;
  }

  /**
   * Start-up: on SQLite (one process) deliveries the killed previous process had in flight are due
   * again now; on PostgreSQL no lease is taken from a process that may be alive (a dead one's end
   * on their own). Returns how many were released.
   */
  async recover(): Promise<number> {
    const released = await this.ctx.store.lockingTx((trx) => releaseOrphanedLeases(trx, nowSeconds(this.ctx.clock)));
    if (released > 0) this.ctx.log.info({ released }, 'webhook deliveries in flight at the last stop are due again');
    return released;
  }

  start(): void {
    this.running = true;
    this.timer = setInterval(() => this.wake(), this.opts.pollMs ?? 1000);
    this.timer.unref();
    this.wake();
  }

  /** A commit or the poll tick: deliveries may have become due. Claims soon (once per turn of the event loop). */
  wake(): void {
    this.stale = true;
    this.kick();
  }

  /**
   * After a commit: wake only if deliveries were written since the last look. Most commits (a
   * create without webhook endpoints, a page view) write none, and then cost no claim transaction;
   * what else can make a delivery due (time passing, an endpoint enabled again) the poll tick finds.
   */
  wakeAfterCommit(): void {
    const writes = deliveryWrites();
    if (writes === this.seenDeliveryWrites) return;
    this.seenDeliveryWrites = writes;
    this.wake();
  }

  /** Claim soon, e.g. after an answer freed a slot. */
  private kick(): void {
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
      this.stale = true;
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
    if (this.unrecorded.size === 0) return;
    const held = [...this.unrecorded].map(([id, lease]) => ({ id, lease }));
    this.unrecorded.clear();
    // Best effort: if the store still fails, the leases end on their own (or a SQLite restart releases them).
    await this.ctx.store
      .lockingTx((trx) => releaseLeases(trx, nowSeconds(this.ctx.clock), held))
      .catch((err: unknown) => this.ctx.log.error({ err }, 'could not release webhook leases'));
  }

  /** One claim at a time, so the per-endpoint counts a claim reads are never stale. */
  private claim(): Promise<number> {
    const next = this.claims.then(() => this.claimAndStart());
    this.claims = next.catch(() => undefined);
    return next;
  }

  private async claimAndStart(): Promise<number> {
    if (this.stopping || this.active >= this.opts.concurrency) return 0;
    const claim = this.opts.leases.claim(nowSeconds(this.ctx.clock));
    const refresh = this.stale;
    this.stale = false;
    // Answers that came in since the last write commit with this claim (one transaction, not two).
    const results = this.takeResults();
    let taken: DueDelivery[];
    let recorded: Set<string>;
    try {
      // lockingTx: READ COMMITTED on PostgreSQL; every write in it is decided by the rows' own claims.
      [recorded, taken] = await this.ctx.store.lockingTx(async (trx) => {
        const written = await recordAttempts(trx, results);
        if (refresh)
          for (const r of await nextDueByEndpoint(trx))
            if (r.next_due !== null && r.next_due <= claim.now) this.mayHaveDue.add(r.endpoint_id);
        let room = this.opts.concurrency - this.active;
        const picked: string[] = [];
        for (const endpointId of [...this.mayHaveDue]) {
          if (room <= 0) break;
          const free = Math.min(this.opts.endpointConcurrency - (this.perEndpoint.get(endpointId) ?? 0), room);
          if (free <= 0) continue;
          const ids = await pickDue(trx, endpointId, claim, free);
          // Round robin: served endpoints go to the back; one that gave less than asked has no more due now.
          this.mayHaveDue.delete(endpointId);
          if (ids.length === free) this.mayHaveDue.add(endpointId);
          picked.push(...ids);
          room -= ids.length;
        }
        await leasePicked(trx, picked, claim);
        return [written, await deliveriesToSend(trx, picked)] as const;
      });
    } catch (err) {
      this.stale = true;
      this.resultsLost(results, err);
      throw err;
    }
    this.settle(results, recorded);
    for (const d of taken) this.begin(d);
    return taken.length;
  }

  /** Results in the database now, or not written because their lease had passed to another process (logged). */
  private settle(results: readonly PendingResult[], recorded: Set<string>): void {
    for (const r of results) {
      if (!recorded.has(r.deliveryId))
        this.ctx.log.warn(
          { delivery_id: r.deliveryId, attempt: r.entry.attempt },
          'webhook attempt not recorded: its lease had ended and another process holds the delivery',
        );
      r.written();
    }
  }

  /** Start an attempt; it holds its slot until the answer, and stays in `inFlight` until its result is written. */
  private begin(d: DueDelivery): void {
    this.active++;
    this.perEndpoint.set(d.endpoint_id, (this.perEndpoint.get(d.endpoint_id) ?? 0) + 1);
    let freed = false;
    // The row stays leased until its result is written, so the slot can serve another delivery at once.
    const free = () => {
      if (freed) return;
      freed = true;
      this.active--;
      const n = (this.perEndpoint.get(d.endpoint_id) ?? 1) - 1;
      if (n === 0) this.perEndpoint.delete(d.endpoint_id);
      else this.perEndpoint.set(d.endpoint_id, n);
      this.kick();
    };
    const attempt = this.attempt(d, free)
      .catch((err: unknown) => this.ctx.log.error({ err, delivery_id: d.id }, 'webhook attempt failed unexpectedly; its lease will expire'))
      .finally(() => {
        free();
        this.inFlight.delete(attempt);
      });
    this.inFlight.add(attempt);
  }

  private async attempt(d: DueDelivery, answered: () => void): Promise<void> {
    const startedAt = nowSeconds(this.ctx.clock);
    // Exactly the envelope GET /events/{id} returns to a secret key.
    const body = JSON.stringify(presentEvent(d.event, { maskRequestInfo: false }));
    const outcome = await postWebhook({
      url: d.url,
      body,
      headers: deliveryHeaders(signingSecrets(d, startedAt), startedAt, body, d.version_pin ?? this.opts.defaultVersion),
      timeoutMs: this.opts.timeoutMs,
      agent: this.agent,
      allowPrivate: this.opts.allowPrivate,
      resolve: this.resolve,
    });
    // Free the slot first: the claim it schedules runs before the flush and writes this result in its own transaction.
    answered();
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
        {
          delivery_id: d.id,
          event_id: d.event.id,
          endpoint_id: d.endpoint_id,
          attempt,
          response_status: o.status,
          error: o.error,
          next_retry_at: retryAt,
        },
        retryAt === null ? 'webhook delivery failed for good' : 'webhook delivery failed; will retry',
      );
    }
    countWebhookAttempt(outcome.status === 'pending' ? 'retry' : outcome.status);
    return new Promise<void>((written) => {
      this.pendingResults.push({
        deliveryId: d.id,
        lease: d.lease,
        entry: {
          attempt,
          created_at: startedAt,
          response_status: o.status,
          duration_ms: o.durationMs,
          error: o.error,
          response_excerpt: o.excerpt,
        },
        outcome,
        now,
        written,
      });
      this.flushSoon();
    });
  }

  private takeResults(): PendingResult[] {
    const batch = this.pendingResults;
    this.pendingResults = [];
    return batch;
  }

  private resultsLost(batch: readonly PendingResult[], err: unknown): void {
    if (batch.length === 0) return;
    this.ctx.log.error({ err, deliveries: batch.length }, 'could not record webhook attempts; their leases will expire and they go again');
    for (const r of batch) {
      this.unrecorded.set(r.deliveryId, r.lease);
      r.written();
    }
  }

  /** Answers of the same turn of the event loop are written together, unless a claim took them first. */
  private flushSoon(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      const batch = this.takeResults();
      if (batch.length === 0) return;
      this.ctx.store
        .lockingTx((trx) => recordAttempts(trx, batch))
        .then(
          (recorded) => this.settle(batch, recorded),
          (err: unknown) => this.resultsLost(batch, err),
        );
    });
  }
}
