/**
 * The hot-paths summary: per path, the medians over the rounds of each server's figures and of
 * each round's own Tawqi/bare ratios — CPU per operation first, then throughput and p99. Only the
 * read has a target in the issue (≥ 0.8 of the bare read's throughput).
 */
import { median } from '../create-requests/summary.js';
import type { Measured, PathName } from './load.js';

const TARGETS: Partial<Record<PathName, { throughput: number }>> = { read: { throughput: 0.8 } };

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** A clean run: every response the expected 200, no connection errors or timeouts, and for a sign every checked request completed. */
export const clean = (r: Measured): boolean =>
  r.requests > 0 &&
  r.non_2xx === 0 &&
  r.non_200 === 0 &&
  r.errors === 0 &&
  r.timeouts === 0 &&
  (r.completed_checked === undefined || /^(\d+)\/\1$/.test(r.completed_checked));

type Pair = { baseline: Measured; tawqi: Measured };
type Figure = 'req_per_s' | 'p99_ms' | 'server_cpu_ms_per_req' | 'postgres_cpu_ms_per_req' | 'drained_cpu_ms_per_req';

/** The rounds of one path in which both servers were measured. */
function pairsOf(results: readonly Measured[], path: PathName): Pair[] {
  const rounds = new Map<number, Partial<Pair>>();
  for (const r of results.filter((x) => x.path === path)) rounds.set(r.round, { ...rounds.get(r.round), [r.server]: r });
  return [...rounds.values()].filter((p): p is Pair => p.baseline !== undefined && p.tawqi !== undefined);
}

function medianOf(pairs: Pair[], server: keyof Pair, figure: Figure): number | null {
  const xs = pairs.map((p) => p[server][figure]).filter((x): x is number => typeof x === 'number');
  return xs.length === pairs.length && xs.length > 0 ? round3(median(xs)) : null;
}

/** Each round's Tawqi/bare ratio of a figure, and their median (null when a round lacks it). */
function ratio(pairs: Pair[], figure: Figure): { median: number | null; byRound: (number | null)[] } {
  const byRound = pairs.map((p) => {
    const t = p.tawqi[figure];
    const b = p.baseline[figure];
    return typeof t === 'number' && typeof b === 'number' && b > 0 ? round3(t / b) : null;
  });
  const known = byRound.filter((x): x is number => x !== null);
  return { median: known.length === byRound.length && known.length > 0 ? round3(median(known)) : null, byRound };
}

function pathSummary(path: PathName, pairs: Pair[], postgres: boolean) {
  const cpu = ratio(pairs, 'server_cpu_ms_per_req');
  const throughput = ratio(pairs, 'req_per_s');
  const p99 = ratio(pairs, 'p99_ms');
  const allClean = pairs.every((p) => clean(p.baseline) && clean(p.tawqi));
  const target = TARGETS[path];
  return {
    bench: 'hot-paths',
    summary: true,
    path,
    rounds: pairs.length,
    tawqi_cpu_ms_per_req: medianOf(pairs, 'tawqi', 'server_cpu_ms_per_req'),
    baseline_cpu_ms_per_req: medianOf(pairs, 'baseline', 'server_cpu_ms_per_req'),
    ratio_cpu_per_req: cpu.median,
    ratio_cpu_per_req_by_round: cpu.byRound,
    ...(postgres
      ? {
          tawqi_postgres_cpu_ms_per_req: medianOf(pairs, 'tawqi', 'postgres_cpu_ms_per_req'),
          baseline_postgres_cpu_ms_per_req: medianOf(pairs, 'baseline', 'postgres_cpu_ms_per_req'),
          ratio_postgres_cpu_per_req: ratio(pairs, 'postgres_cpu_ms_per_req').median,
        }
      : {}),
    ...(path === 'sign' ? { tawqi_drained_cpu_ms_per_req: medianOf(pairs, 'tawqi', 'drained_cpu_ms_per_req') } : {}),
    tawqi_req_per_s: medianOf(pairs, 'tawqi', 'req_per_s'),
    baseline_req_per_s: medianOf(pairs, 'baseline', 'req_per_s'),
    ratio_throughput: throughput.median,
    ratio_throughput_by_round: throughput.byRound,
    tawqi_p99_ms: medianOf(pairs, 'tawqi', 'p99_ms'),
    baseline_p99_ms: medianOf(pairs, 'baseline', 'p99_ms'),
    ratio_p99: p99.median,
    ratio_p99_by_round: p99.byRound,
    valid: allClean,
    ...(target
      ? {
          target_throughput: `>= ${target.throughput}`,
          targets_met: allClean && throughput.median !== null && throughput.median >= target.throughput,
        }
      : { target: 'none set by the issue' }),
  };
}

/** One summary line per path; returns whether every run was clean. */
export function summarise(
  results: readonly Measured[],
  paths: readonly PathName[],
  engine: { database?: string; synchronous?: string; synchronous_commit?: string },
): boolean {
  let valid = true;
  for (const path of paths) {
    const pairs = pairsOf(results, path);
    if (pairs.length === 0) continue;
    const line = pathSummary(path, pairs, engine.database === 'postgres');
    valid &&= line.valid;
    console.log(JSON.stringify({ ...line, ...engine }));
    if (!line.valid) console.error(`[hot-paths] ${path}: errors, unexpected statuses or unsigned requests, so this is not a result`);
  }
  return valid;
}
