import { nowSeconds } from '../clock.js';
import { retryPlan, type DueQueue } from '../retry.js';
import type { ServiceContext } from '../context.js';
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

/**
 * Runs due jobs from the durable jobs table. In production a timer ticks every second and a commit
 * wakes it; tests move the injected clock and call runDue().
 */
export class JobRunner {
  private running: Promise<number> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly handlers: Record<string, JobHandler>,
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

  /** Finish the attempt in progress (and record it), start no other; jobs left stay due for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.running) await this.running.catch(() => 0);
  }

  private async drain(): Promise<number> {
    let ran = 0;
    for (;;) {
      const now = nowSeconds(this.ctx.clock);
      const jobs = await dueJobs(this.ctx.store.db, now, 50);
      const marking: Promise<void>[] = [];
      const stopping = () => this.stopped;
      for (const job of jobs) {
        if (stopping()) break;
        await this.runOne(job, marking);
        ran++;
      }
      let taken = 0;
      for (const queue of this.queues) if (!stopping()) taken += await queue.runDue(this.ctx, now, marking, stopping);
      ran += taken;
      // Every entry of the batch is marked done (or failed) before the next look for due work.
      await Promise.all(marking);
      if (stopping() || (jobs.length === 0 && taken === 0)) return ran;
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
        await this.ctx.store.tx(async (trx) => {
          await handler.run(this.ctx, trx, job.payload);
          await finishJob(trx, job.id);
        });
      } else {
        await handler.run(this.ctx, job.payload, job);
        marking.push(
          this.ctx.store
            .tx(async (trx) => {
              await finishJob(trx, job.id);
            })
            .catch((err: unknown) => this.failed(job, err)),
        );
      }
    } catch (err) {
      await this.failed(job, err);
    }
  }

  private async failed(job: JobRecord, err: unknown): Promise<void> {
    const { attempts, giveUp, retryAt } = retryPlan(job.attempts, nowSeconds(this.ctx.clock));
    this.ctx.log.warn(
      { job_id: job.id, kind: job.kind, attempts, err: String(err) },
      giveUp ? 'job failed for good' : 'job failed; will retry',
    );
    await retryJob(this.ctx.store.db, job.id, retryAt, String(err), giveUp);
  }
}
