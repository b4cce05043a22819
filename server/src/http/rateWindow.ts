/**
 * Fixed-window counters in memory: the per-account rate limit and the per-address limit before
 * authentication. One process owns them (SQLite deployment); see README for scale-out.
 */
export interface WindowResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  resetAt: number;
  retryAfter: number;
}

export class WindowLimiter {
  private windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  hit(key: string, nowMs: number): WindowResult {
    const start = Math.floor(nowMs / this.windowMs) * this.windowMs;
    this.sweep(start);
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(key, w);
    }
    const resetMs = start + this.windowMs;
    const allowed = w.count < this.limit;
    if (allowed) w.count++;
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, this.limit - w.count),
      resetAt: Math.ceil(resetMs / 1000),
      retryAfter: Math.max(1, Math.ceil((resetMs - nowMs) / 1000)),
    };
  }

  private sweep(currentStart: number): void {
    if (currentStart === this.lastSweep) return;
    this.lastSweep = currentStart;
    for (const [k, w] of this.windows) if (w.start < currentStart) this.windows.delete(k);
  }
}
