/**
 * Does a memory figure grow with the number of requests served? A least-squares line (soak/drift.ts
 * `linearFit`) through the samples taken after the warm-up (caches, JIT and SQLite's page cache
 * fill up in the first creates), against the number of creates served. The figure grows when the
 * line rises, from the warm-up to the last sample, by more than the bound: the larger of FLOOR_MB
 * and RELATIVE × the figure's mean over those samples (the soak's allowance, soak/drift.ts RULES).
 *
 * Why this bound: the figures judged are read with the load paused, after a full collection and a
 * second of idle (run.ts), so they scatter by a few MB; FLOOR_MB keeps that from being called a
 * trend, and 10% of the figure is what an operator sizing a box would not notice. What it still
 * catches is printed with the verdict (`detects_bytes_per_create`): over 80,000 creates, a steady
 * leak of about 500 bytes a request in RSS, about 70 in the heap. The line's R² is reported but not
 * required: a rise above the bound is growth even when the samples scatter.
 */
import { linearFit } from '../soak/drift.js';

export const FLOOR_MB = 5;
export const RELATIVE = 0.1;
const MB = 1024 * 1024;

export interface Point {
  creates: number;
  value: number;
}

export interface Growth {
  /** The line's slope, MB per 10,000 creates. */
  per_10k_creates_mb: number;
  r2: number;
  /** The line's rise from the warm-up sample to the last one. */
  over_run_mb: number;
  bound_mb: number;
  /** The smallest steady leak per create that would rise above the bound over these creates. */
  detects_bytes_per_create: number | null;
  grows: boolean;
}

const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;

/** The verdict on one figure from the points at or after `warmupCreates`. */
export function growth(points: readonly Point[], warmupCreates: number): Growth {
  const fitted = points.filter((p) => p.creates >= warmupCreates);
  const xs = fitted.map((p) => p.creates);
  const ys = fitted.map((p) => p.value);
  const fit = fitted.length >= 2 ? linearFit(xs, ys) : { slope: 0, r2: 1 };
  const span = (xs.at(-1) ?? 0) - (xs[0] ?? 0);
  const overRun = fit.slope * span;
  const mean = ys.reduce((a, b) => a + b, 0) / Math.max(1, ys.length);
  const bound = Math.max(FLOOR_MB, RELATIVE * mean);
  return {
    per_10k_creates_mb: round(fit.slope * 10_000),
    r2: round(fit.r2, 3),
    over_run_mb: round(overRun, 1),
    bound_mb: round(bound, 1),
    detects_bytes_per_create: span > 0 ? Math.round((bound * MB) / span) : null,
    grows: overRun > bound,
  };
}
