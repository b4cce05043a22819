import type { ServiceContext } from './context.js';
import type { Claim } from './store/types.js';

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

/** One look for due work by the runner: the claim its entries are taken under, and its outcomes' commits. */
export interface QueueTurn {
  claim: Claim;
  /** The commits of the outcomes recorded so far; the runner awaits them before its next look. */
  marking: Promise<void>[];
  /**
   * False once the server drains or the claim's lease is too far gone (Leases.mayStart): take no
   * further entry after the current one, and give back the ones taken but not started.
   */
  mayStart(): boolean;
}

/**
 * A durable queue kept in rows of its own table, drained with the jobs (the message outbox,
 * delivery/outbox.ts). `runDue` claims what is due at `turn.claim.now`, runs it, pushes the
 * commits of its outcomes onto `turn.marking`, and returns how many entries it started.
 */
export interface DueQueue {
  runDue(ctx: ServiceContext, turn: QueueTurn): Promise<number>;
}
