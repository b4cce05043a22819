import { nowSeconds } from '../clock.js';
import type { Leases } from '../leases.js';
import { retryPlan, type DueQueue, type QueueTurn } from '../retry.js';
import type { ServiceContext } from '../context.js';
import type { Db } from '../store/db.js';
import { claimDueJobs, finishJob, releaseJobs, retryJob, type JobRecord } from '../store/jobs.js';

/**
 * A job either changes only the database (it runs inside the transaction that marks it done, and
 * only if that mark finds the job still pending under the claim that took it, so it happens
 * exactly once, whichever runners polled at the same moment) or reaches outside (it runs first and
 * is marked done after: at least once, so such handlers are idempotent).
 */
export type JobHandler =
  | { kind: 'transactional'; run: (ctx: ServiceContext, trx: Db, payload: Record<string, unknown>) => Promise<void> }
  | { kind: 'external'; run: (ctx: ServiceContext, payload: Record<string, unknown>, job: JobRecord) => Promise<void> };

/** How many due jobs one look claims. */
const BATCH = 50;

/**
 * Runs due jobs from the durable jobs table, and the queues drained with them (the message outbox).
 * Each look claims its entries (store/jobs.ts: a lease on PostgreSQL, where several processes may
 * run one; a plain read on SQLite) and runs them one after another while its lease is young
 * enough (Leases.mayStart); the entries it does not start are given back. In production a timer
 * ticks every second and a commit wakes it; tests move the injected clock and call runDue().
 */
export class JobRunner {
  private running: Promise<number> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly handlers: Record<string, JobHandler>,
    private readonly leases: Leases,
    private readonly queues: readonly DueQueue[] = [],
  ) {}

  /** Run every job due now, including jobs that due jobs schedule for now. Returns how many ran. */
  runDue(): Promise<number> {
    if (this.running) return this.running.then(() => this.runDue());
    this.running = this.drain().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  start(intervalMs = 1000): void {
    this.timer = setInterval(() => this.wake(), intervalMs);
    this.timer.unref();
  }

  wake(): void {
    if (this.running || this.stopped) return;
    void this.runDue().catch((err: unknown) => this.ctx.log.error({ err }, 'job runner failed'));
  }

  /**
   * Finish the attempt in progress (and record it), start no other; entries claimed but not
   * started are given back (their leases released), so they are due at once for another process
   * or the next start.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.running) await this.running.catch(() => 0);
  }

  private async drain(): Promise<number> {
    let ran = 0;
    for (;;) {
      const claim = this.leases.claim(nowSeconds(this.ctx.clock));
      const turn: QueueTurn = {
        claim,
        marking: [],
        mayStart: () => !this.stopped && this.leases.mayStart(claim, nowSeconds(this.ctx.clock)),
      };
      const jobs = await claimDueJobs(this.ctx.store, claim, BATCH);
      let started = 0;
      while (started < jobs.length && turn.mayStart()) await this.runOne(jobs[started++]!, turn.marking);
      if (started < jobs.length) await releaseJobs(this.ctx.store, jobs.slice(started), nowSeconds(this.ctx.clock));
      let taken = 0;
      for (const queue of this.queues) if (!this.stopped) taken += await queue.runDue(this.ctx, turn);
      ran += started + taken;
      // Every entry of the batch is marked done (or failed) before the next look for due work.
      await Promise.all(turn.marking);
      if (this.stopped || (started === 0 && taken === 0)) return ran;
    }
  }

  /**
   * Run one job. An external job is marked done in a transaction the next job does not wait for:
   * the marks of the jobs run in one turn of the event loop share one commit (store.tx groups
   * them). A crash before that commit runs the job again, as a crash before the mark always has.
   */
  private async runOne(job: JobRecord, marking: Promise<void>[]): Promise<void> {
    const handler = this.handlers[job.kind];
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      if (handler.kind === 'transactional') {
        const held = await this.ctx.store.tx(async (trx) => {
          // Marked done first: a job another runner took over (or finished) is left alone, and nothing runs.
          if (!(await finishJob(trx, job.id, job.lease_owner))) return false;
          await handler.run(this.ctx, trx, job.payload);
          return true;
        });
        if (!held) this.leaseLost(job);
      } else {
        await handler.run(this.ctx, job.payload, job);
        marking.push(
          this.ctx.store
            .tx((trx) => finishJob(trx, job.id, job.lease_owner))
            .then(
              (held) => (held ? undefined : this.leaseLost(job)),
              (err: unknown) => this.failed(job, err),
            ),
        );
      }
    } catch (err) {
      await this.failed(job, err);
    }
  }

  private leaseLost(job: JobRecord): void {
    this.ctx.log.warn(
      { job_id: job.id, kind: job.kind },
      'job no longer held by this runner (its lease ended); its outcome is not recorded',
    );
  }

  private async failed(job: JobRecord, err: unknown): Promise<void> {
    const { attempts, giveUp, retryAt } = retryPlan(job.attempts, nowSeconds(this.ctx.clock));
    this.ctx.log.warn(
      { job_id: job.id, kind: job.kind, attempts, err: String(err) },
      giveUp ? 'job failed for good' : 'job failed; will retry',
    );
    await retryJob(this.ctx.store.db, job, retryAt, String(err), giveUp);
  }
}
