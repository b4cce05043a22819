/**
 * The load's side of each interval: every request's latency and outcome, and what the lifecycles
 * got done. `take()` hands the interval over and starts the next, so a figure always belongs to
 * the interval it happened in.
 */

/** The counters of one interval (lifecycles and their steps). */
export interface LoadCounts {
  requests: number;
  /** Answers with another status than the one the step expects, and transport failures. */
  errors: number;
  lifecycles_started: number;
  /** Starts the scheduler left out because `concurrency` lifecycles were already running. */
  skipped: number;
  created: number;
  idempotent_replays: number;
  signed: number;
  cancelled: number;
  sealed: number;
  webhooks_received: number;
}

export interface IntervalLoad extends LoadCounts {
  p50_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
}

const zero = (): LoadCounts => ({
  requests: 0,
  errors: 0,
  lifecycles_started: 0,
  skipped: 0,
  created: 0,
  idempotent_replays: 0,
  signed: 0,
  cancelled: 0,
  sealed: 0,
  webhooks_received: 0,
});

/** The value at quantile q (nearest rank) of ascending `sorted`; null when empty. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? sorted[0]!;
}

const round = (n: number | null): number | null => (n === null ? null : Math.round(n * 10) / 10);

export class Recorder {
  private latencies: number[] = [];
  private counts = zero();
  /** The first few errors, for stderr: a soak with errors is not a result. */
  readonly firstErrors: string[] = [];
  totalErrors = 0;

  count(name: Exclude<keyof LoadCounts, 'requests' | 'errors'>, n = 1): void {
    this.counts[name] += n;
  }

  /** One request answered (or failed) after `ms`. */
  request(ms: number): void {
    this.counts.requests++;
    this.latencies.push(ms);
  }

  error(what: string): void {
    this.counts.errors++;
    this.totalErrors++;
    if (this.firstErrors.length < 10) this.firstErrors.push(what);
  }

  take(): IntervalLoad {
    const sorted = this.latencies.sort((a, b) => a - b);
    const load = {
      ...this.counts,
      p50_ms: round(quantile(sorted, 0.5)),
      p99_ms: round(quantile(sorted, 0.99)),
      max_ms: round(sorted.at(-1) ?? null),
    };
    this.latencies = [];
    this.counts = zero();
    return load;
  }
}
