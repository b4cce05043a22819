/**
 * The retry policy of webhook deliveries (spec 6.1): the first attempt right after the event
 * commits, then nine retries with exponential backoff over about 46 hours; after the ninth retry
 * fails the delivery is marked failed. Published in the README.
 */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = [
  60, //          1 min
  5 * 60, //      5 min
  30 * 60, //    30 min
  3600, //        1 h
  2 * 3600, //    2 h
  4 * 3600, //    4 h
  8 * 3600, //    8 h
  14 * 3600, //  14 h
  16.5 * 3600, // 16.5 h   (total 165,960 s = 46.1 h after the first attempt)
];

/** The first attempt plus one per retry. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_SECONDS.length + 1;

/**
 * When to try again after `attemptsMade` attempts have failed (Unix seconds), or null when the
 * retries are exhausted and the delivery is failed.
 */
export function nextRetryAt(attemptsMade: number, now: number): number | null {
  if (attemptsMade < 1) return now;
  const delay = RETRY_SCHEDULE_SECONDS[attemptsMade - 1];
  return delay === undefined ? null : now + delay;
}
