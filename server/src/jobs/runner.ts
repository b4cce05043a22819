import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../services/context.js';
import type { Db } from '../store/db.js';
import { dueJobs, finishJob, retryJob, type JobRecord } from '../store/jobs.js';

/**
 * A job either changes only the database (it runs inside the transaction that marks it done, so it
 * happens exactly once) or reaches outside (it runs first and is marked done after: at least once,
 * so such handlers are idempotent).
 */
export type JobHandler =
  | { kind: 'transactional'; run: (ctx: ServiceContext, trx: Db, payload: Record<string, unknown>) => Promise<void> }
  | { kind: 'external'; run: (ctx: ServiceContext, payload: Record<string, unknown>, job: JobRecord) => Promise<void> };

export const MAX_JOB_ATTEMPTS = 10;

/** Backoff for a failed job: 30 s, 1 min, 2 min … capped at one hour. */
export function jobBackoffSeconds(attempts: number): number {
  return Math.min(30 * 2 ** attempts, 3600);
}

/**
 * Runs due jobs from the durable jobs table. In production a timer ticks every second and a commit
 * wakes it; tests move the injected clock and call runDue().
 */
export class JobRunner {
  private running: Promise<number> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly handlers: Record<string, JobHandler>,
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
    if (this.running) return;
    void this.runDue().catch((err: unknown) => this.ctx.log.error({ err }, 'job runner failed'));
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.running) await this.running.catch(() => 0);
  }

  private async drain(): Promise<number> {
    let ran = 0;
    for (;;) {
      const jobs = await dueJobs(this.ctx.store.db, nowSeconds(this.ctx.clock), 50);
      if (jobs.length === 0) return ran;
      for (const job of jobs) {
        await this.runOne(job);
        ran++;
      }
    }
  }

  private async runOne(job: JobRecord): Promise<void> {
    const handler = this.handlers[job.kind];
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      if (handler.kind === 'transactional') {
        await this.ctx.store.tx(async (trx) => {
          await handler.run(this.ctx, trx, job.payload);
          await finishJob(trx, job.id);
        });
      } else {
        await handler.run(this.ctx, job.payload, job);
        await finishJob(this.ctx.store.db, job.id);
      }
    } catch (err) {
      const attempts = job.attempts + 1;
      const giveUp = attempts >= MAX_JOB_ATTEMPTS;
      this.ctx.log.warn({ job_id: job.id, kind: job.kind, attempts, err: String(err) }, giveUp ? 'job failed for good' : 'job failed; will retry');
      await retryJob(this.ctx.store.db, job.id, nowSeconds(this.ctx.clock) + jobBackoffSeconds(attempts), String(err), giveUp);
    }
  }
}
