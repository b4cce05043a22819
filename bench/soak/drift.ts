/**
 * The verdict on drift: a least-squares line through each figure per interval (the first interval
 * left out as warm-up when there are three or more), its slope per minute, how much it explains
 * (R²), and whether the figure grows over the run. "Grows" needs both a trend (R² ≥ 0.5) and a
 * growth over the run above the rule's allowance: noise around a level is steady, a slow creep
 * that a longer run would make large is not.
 */

export interface Fit {
  slope: number;
  intercept: number;
  r2: number;
}

/** Ordinary least squares of ys on xs (at least two points; a flat line explains everything). */
export function linearFit(xs: readonly number[], ys: readonly number[]): Fit {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const r2 = syy === 0 || sxx === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  return { slope, intercept: my - slope * mx, r2 };
}

/** What growth over a run is allowed before a figure "grows": the larger of `floor` and `relative` × its mean. */
export interface Rule {
  floor: number;
  relative: number;
}

/** Data, not code: the allowances per figure (memory in MB, queues in entries). */
export const RULES: Readonly<Record<string, Rule>> = {
  rss_anon_mb: { floor: 5, relative: 0.1 },
  heap_used_mb: { floor: 5, relative: 0.1 },
  queue_due_total: { floor: 10, relative: 0 },
  awaiting_seal: { floor: 10, relative: 0 },
  active_handles: { floor: 10, relative: 0 },
};

/**
 * Reported with their slope but not judged: the database, its WAL, the stored PDFs and the queues'
 * waiting entries grow with the data the load adds, by design (the waiting jobs include each
 * request's expiry job, pending until its time). RSS is reported whole and file-backed (mapped
 * files: the binary, libraries, the SQLite file as far as it is read, reclaimable by the kernel);
 * its anonymous part (rss_anon_mb: heaps and native allocations, where a leak shows) is judged.
 */
export const GROW_WITH_DATA = ['rss_mb', 'rss_file_mb', 'queue_depth_total', 'db_mb', 'wal_mb', 'files_mb'] as const;

const MIN_TREND_R2 = 0.5;

export interface FigureDrift {
  per_min: number;
  r2: number;
  /** The line's rise from the first to the last interval fitted. */
  over_run: number;
  verdict: 'steady' | 'grows';
}

export interface DriftReport {
  fitted_intervals: number;
  figures: Record<string, FigureDrift>;
  /** Slopes per minute of GROW_WITH_DATA. */
  growth_per_min: Record<string, number>;
  p99_first_ms: number | null;
  p99_last_ms: number | null;
  eventloop_p99_first_ms: number;
  eventloop_p99_last_ms: number;
  verdict: string;
}

export interface DriftInput {
  t_min: number;
  p99_ms: number | null;
  eventloop_p99_ms: number;
  figures: Record<string, number>;
}

const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

export function drift(rows: readonly DriftInput[]): DriftReport {
  const fitted = rows.length >= 3 ? rows.slice(1) : rows;
  const xs = fitted.map((r) => r.t_min);
  const figures: Record<string, FigureDrift> = {};
  for (const [name, rule] of Object.entries(RULES)) {
    const ys = fitted.map((r) => r.figures[name]!);
    const fit = fitted.length >= 2 ? linearFit(xs, ys) : { slope: 0, intercept: ys[0] ?? 0, r2: 1 };
    const overRun = fit.slope * ((xs.at(-1) ?? 0) - (xs[0] ?? 0));
    const mean = ys.reduce((a, b) => a + b, 0) / Math.max(1, ys.length);
    const grows = overRun > Math.max(rule.floor, rule.relative * mean) && fit.r2 >= MIN_TREND_R2;
    figures[name] = { per_min: round(fit.slope), r2: round(fit.r2), over_run: round(overRun), verdict: grows ? 'grows' : 'steady' };
  }
  const growth: Record<string, number> = {};
  for (const name of GROW_WITH_DATA) {
    const ys = fitted.map((r) => r.figures[name]!);
    growth[name] = round(fitted.length >= 2 ? linearFit(xs, ys).slope : 0);
  }
  const growing = Object.entries(figures)
    .filter(([, f]) => f.verdict === 'grows')
    .map(([n]) => n);
  return {
    fitted_intervals: fitted.length,
    figures,
    growth_per_min: growth,
    p99_first_ms: fitted[0]?.p99_ms ?? null,
    p99_last_ms: fitted.at(-1)?.p99_ms ?? null,
    eventloop_p99_first_ms: fitted[0]?.eventloop_p99_ms ?? 0,
    eventloop_p99_last_ms: fitted.at(-1)?.eventloop_p99_ms ?? 0,
    verdict: growing.length === 0 ? 'steady' : `grows: ${growing.join(', ')}`,
  };
}
