import type { ServiceContext } from './context.js';

/**
 * How often a job or a queued message is tried and when it is tried again: one plan, used by the
 * job runner (jobs/runner.ts), the message outbox (delivery/outbox.ts) and the seal job.
 */

export const MAX_JOB_ATTEMPTS = 10;

/** Backoff for a failed job: 30 s, 1 min, 2 min … capped at one hour. */
export function jobBackoffSeconds(attempts: number): number {
  return Math.min(30 * 2 ** attempts, 3600);
}

/**
 * What follows a failed attempt of a job or a queued message that had failed `attemptsSoFar` times
 * before: its new attempt count, whether it is given up (after MAX_JOB_ATTEMPTS), and when it is
 * due again (Unix seconds; ignored when given up).
 */
export function retryPlan(attemptsSoFar: number, now: number): { attempts: number; giveUp: boolean; retryAt: number } {
  const attempts = attemptsSoFar + 1;
  return { attempts, giveUp: attempts >= MAX_JOB_ATTEMPTS, retryAt: now + jobBackoffSeconds(attempts) };
}

/**
 * A durable queue kept in rows of its own table, drained with the jobs (the message outbox,
 * delivery/outbox.ts). `runDue` runs what is due now, pushes the commits of its outcomes onto
 * `marking`, and returns how many entries it took.
 */
export interface DueQueue {
  /** `stopping()` turns true when the server drains: take no further entry after the current one. */
  runDue(ctx: ServiceContext, now: number, marking: Promise<void>[], stopping?: () => boolean): Promise<number>;
}
