import { sql } from 'kysely';
import { precompile } from './compiled.js';
import type { Db, Store } from './types.js';

/**
 * Fixed-window counters: the per-account rate limit and the per-address limit before
 * authentication. Where the counts live depends on the engine (DESIGN §6):
 * - SQLite: one server process owns the database, so the windows are a Map in its memory — no
 *   database work on the request path, and the answer is synchronous.
 * - PostgreSQL: N processes share the database, so each hit is counted by an autocommit upsert of
 *   the window's row in rate_windows (UNLOGGED), outside any transaction: atomic, never a
 *   serialization conflict, and the limit holds in total whichever process answers. The hits of
 *   one event-loop turn share one upsert (DatabaseWindows).
 */
export interface WindowResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  resetAt: number;
  retryAfter: number;
}

export interface RateWindows {
  /** Count one request for `key` at `nowMs`: synchronous on SQLite, a promise on PostgreSQL. */
  hit(key: string, nowMs: number): WindowResult | Promise<WindowResult>;
}

export interface RateWindowOptions {
  /** Names the limit (its rows on PostgreSQL): keys of two limits never share a window. */
  scope: string;
  limit: number;
  windowMs: number;
  /** Told when sweeping ended windows fails (PostgreSQL; the next window sweeps again). */
  onSweepError?: (err: unknown) => void;
}

/** The limiter for this store's engine. */
export function rateWindows(store: Store, options: RateWindowOptions): RateWindows {
  return store.dialect === 'postgres' ? new DatabaseWindows(store.db, options) : new MemoryWindows(options.limit, options.windowMs);
}

function result(limit: number, allowed: boolean, count: number, windowEndMs: number, nowMs: number): WindowResult {
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - count),
    resetAt: Math.ceil(windowEndMs / 1000),
    retryAfter: Math.max(1, Math.ceil((windowEndMs - nowMs) / 1000)),
  };
}

/** SQLite: the windows of this process, ended ones dropped when a new window starts. */
class MemoryWindows implements RateWindows {
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
    // A refused request is not counted: the count stops at the limit.
    const allowed = w.count < this.limit;
    if (allowed) w.count++;
    return result(this.limit, allowed, w.count, start + this.windowMs, nowMs);
  }

  private sweep(currentStart: number): void {
    if (currentStart === this.lastSweep) return;
    this.lastSweep = currentStart;
    for (const [k, w] of this.windows) if (w.start < currentStart) this.windows.delete(k);
  }
}

// The hits of one turn, one row per key and window, in one statement: each row's count goes up by
// its hits (the keys are distinct: a row cannot be updated twice by one statement). The row is named
// by its table (rate_windows.count): a bare `count` is ambiguous next to excluded.count.
const hitQuery = precompile(
  (_db, $) => sql<{ scope: string; window_start: number; count: number }>`
    INSERT INTO rate_windows (scope, window_start, window_end, count)
    SELECT * FROM unnest(CAST(${$(0)} AS TEXT[]), CAST(${$(1)} AS BIGINT[]), CAST(${$(2)} AS BIGINT[]), CAST(${$(3)} AS BIGINT[]))
    ON CONFLICT (scope, window_start) DO UPDATE SET count = rate_windows.count + excluded.count
    RETURNING scope, window_start, count`,
);
const sweepQuery = precompile((db, $) => db.deleteFrom('rate_windows').where('window_end', '<=', $(0)));

/** The hits of one key and window waiting for this turn's statement, in arrival order. */
interface Waiting {
  scope: string;
  start: number;
  hits: { nowMs: number; resolve: (r: WindowResult) => void; reject: (err: unknown) => void }[];
}

/**
 * PostgreSQL: one row per key and window. Refused requests are counted too (the count passes the
 * limit; the answer is the same). The hits that arrive in one event-loop turn go to the database
 * together, one upsert for all of them (a row's count goes up by its number of hits), and the
 * n hits of one row read the counts n sequential upserts would have returned: the row's new count
 * less n, plus 1, 2, … n in arrival order. Each process sweeps ended windows once per window it
 * sees, without waiting for it.
 */
class DatabaseWindows implements RateWindows {
  private lastSweep = 0;
  private waiting = new Map<string, Waiting>();

  constructor(
    private readonly db: Db,
    private readonly options: RateWindowOptions,
  ) {}

  hit(key: string, nowMs: number): Promise<WindowResult> {
    const { scope, windowMs } = this.options;
    const start = Math.floor(nowMs / windowMs) * windowMs;
    if (start !== this.lastSweep) {
      this.lastSweep = start;
      sweepQuery.run(this.db, [start]).catch((err: unknown) => this.options.onSweepError?.(err));
    }
    const row = `${scope}:${key}`;
    const rowKey = `${start}\u0000${row}`;
    if (this.waiting.size === 0) setImmediate(() => void this.flush());
    let w = this.waiting.get(rowKey);
    if (!w) this.waiting.set(rowKey, (w = { scope: row, start, hits: [] }));
    const hits = w.hits;
    return new Promise((resolve, reject) => hits.push({ nowMs, resolve, reject }));
  }

  private async flush(): Promise<void> {
    const batch = [...this.waiting.values()];
    this.waiting = new Map();
    const { limit, windowMs } = this.options;
    try {
      const { rows } = await hitQuery.run(this.db, [
        batch.map((w) => w.scope),
        batch.map((w) => w.start),
        batch.map((w) => w.start + windowMs),
        batch.map((w) => w.hits.length),
      ]);
      const counts = new Map(rows.map((r) => [`${Number(r.window_start)}\u0000${r.scope}`, Number(r.count)]));
      for (const w of batch) {
        const last = counts.get(`${w.start}\u0000${w.scope}`)!;
        w.hits.forEach((h, i) => {
          const count = last - w.hits.length + i + 1;
          h.resolve(result(limit, count <= limit, count, w.start + windowMs, h.nowMs));
        });
      }
    } catch (err) {
      for (const w of batch) for (const h of w.hits) h.reject(err);
    }
  }
}
