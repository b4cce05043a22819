/**
 * When the client tries a request again, and after how long. A retry is always safe: every POST
 * carries an Idempotency-Key (the same one on every attempt), so the server applies it once and
 * replays its answer; GET and DELETE change nothing twice.
 *
 * Retried: a network failure (no answer), `409 idempotency_in_progress` (the first attempt still
 * runs; the server says Retry-After: 1) and a `429` carrying Retry-After (the rate window). Not
 * retried: every other answer, and a Retry-After longer than `maxRetryAfterSeconds` (a daily cap
 * lasts until midnight: waiting inside a call would hang the caller).
 */
export interface RetryPolicy {
  /** Attempts after the first (default 2). */
  maxNetworkRetries: number;
  /** First backoff delay, doubled per attempt (default 500 ms). */
  initialDelayMs: number;
  /** Longest backoff delay (default 8 s). */
  maxDelayMs: number;
  /** Longest Retry-After the client waits out (default 60 s). */
  maxRetryAfterSeconds: number;
  /** A number in [0, 1) for the jitter (Math.random by default; tests inject it). */
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxNetworkRetries: 2,
  initialDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterSeconds: 60,
  random: Math.random,
};

/** What one attempt ended with, as far as retrying is concerned. */
export type AttemptOutcome =
  { kind: 'network' } | { kind: 'answer'; status: number; code: string | null; retryAfterSeconds: number | null };

/**
 * Exponential backoff with jitter: attempt n (0 for the first retry) waits between half and all of
 * min(initial × 2ⁿ, max), so clients that failed together do not come back together.
 */
export function backoffMs(policy: RetryPolicy, retry: number): number {
  const ceiling = Math.min(policy.initialDelayMs * 2 ** retry, policy.maxDelayMs);
  return Math.round(ceiling * (0.5 + policy.random() / 2));
}

/** The delay before retry number `retry` (0-based), or null when the outcome must not be retried. */
export function retryDelayMs(policy: RetryPolicy, retry: number, outcome: AttemptOutcome): number | null {
  if (retry >= policy.maxNetworkRetries) return null;
  if (outcome.kind === 'network') return backoffMs(policy, retry);
  const after = outcome.retryAfterSeconds;
  const inProgress = outcome.status === 409 && outcome.code === 'idempotency_in_progress';
  const rateLimited = outcome.status === 429 && after !== null;
  if (!inProgress && !rateLimited) return null;
  if (after !== null && after > policy.maxRetryAfterSeconds) return null;
  // The server's Retry-After is a floor: never come back sooner than it asked.
  return Math.max(after === null ? 0 : after * 1000, backoffMs(policy, retry));
}
