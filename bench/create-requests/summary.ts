/**
 * The create-requests driver's summary lines: per connection count, the medians over the rounds of
 * each server's figures and of each round's own ratios (each round measures its servers close in
 * time, so a machine whose speed drifts between runs disturbs the ratios far less than one pair
 * would). Targets are judged at 16 connections only.
 */

/** baseline: bare Express + the engine's driver; tawqi: one Tawqi process; tawqi-2: two Tawqi processes on one database. */
export type ServerName = 'baseline' | 'tawqi' | 'tawqi-2';

export interface Measured {
  bench: 'create-requests';
  server: ServerName;
  /** SQLite's synchronous setting of both servers (SQLite runs). */
  synchronous?: 'full' | 'normal';
  /** PostgreSQL runs: the engine, the cluster's synchronous_commit and the server's processes. */
  database?: 'postgres';
  synchronous_commit?: 'on' | 'off';
  processes?: number;
  /** Which round of (baseline, Tawqi…) this run belongs to. */
  round: number;
  connections: number;
  req_per_s: number;
  p50_ms: number;
  p99_ms: number;
  non_2xx: number;
  non_201: number;
  errors: number;
  timeouts: number;
  requests: number;
  /** CPU time (user + system) the server process(es) spent per response: less sensitive to other load than req/s. */
  server_cpu_ms_per_req: number | null;
  /** PostgreSQL runs: CPU time of the cluster's processes (postmaster, backends, WAL writer…) per response. */
  postgres_cpu_ms_per_req?: number | null;
  /** 1-minute load average when the run ended: other work on the machine skews every figure. */
  loadavg_1m: number;
}

export const TARGET_CONNECTIONS = 16;
const TARGET_THROUGHPUT_RATIO = 0.6;
const TARGET_P99_RATIO = 1.5;
/** PostgreSQL: two Tawqi processes on one database against one. */
const TARGET_TWO_PROCESSES_RATIO = 1.3;

const out = (line: unknown): void => console.log(JSON.stringify(line));

export const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const round3 = (x: number): number => Math.round(x * 1000) / 1000;

const clean = (r: Measured): boolean => r.non_2xx === 0 && r.non_201 === 0 && r.errors === 0 && r.timeouts === 0 && r.requests > 0;

/** The rounds at `connections` in which every one of `servers` was measured, each as server → run. */
function roundsOf(results: Measured[], servers: readonly ServerName[], connections: number): Map<ServerName, Measured>[] {
  const rounds = new Map<number, Map<ServerName, Measured>>();
  for (const r of results) {
    if (r.connections !== connections || !servers.includes(r.server)) continue;
    if (!rounds.has(r.round)) rounds.set(r.round, new Map());
    rounds.get(r.round)!.set(r.server, r);
  }
  return [...rounds.values()].filter((byServer) => byServer.size === servers.length);
}

/** Each round's ratio of a figure between two servers, and their median. */
function ratio(rounds: Map<ServerName, Measured>[], num: ServerName, den: ServerName, figure: 'req_per_s' | 'p99_ms') {
  const byRound = rounds.map((r) => round3(r.get(num)![figure] / r.get(den)![figure]));
  return { median: round3(median(byRound)), byRound };
}

/** The median over the rounds of one server's figure (null when a round has none). */
function medianOf(rounds: Map<ServerName, Measured>[], server: ServerName, figure: keyof Measured): number | null {
  const xs = rounds.map((r) => r.get(server)![figure]).filter((x): x is number => typeof x === 'number');
  return xs.length === rounds.length ? round3(median(xs)) : null;
}

/** SQLite: Tawqi against the bare Express + better-sqlite3 baseline. Returns whether every run was clean. */
export function summariseSqlite(results: Measured[], connectionCounts: readonly number[], synchronous: 'full' | 'normal'): boolean {
  let valid = true;
  for (const connections of connectionCounts) {
    const rounds = roundsOf(results, ['baseline', 'tawqi'], connections);
    if (rounds.length === 0) continue;
    const allClean = rounds.every((r) => [...r.values()].every(clean));
    valid &&= allClean;
    const throughput = ratio(rounds, 'tawqi', 'baseline', 'req_per_s');
    const p99 = ratio(rounds, 'tawqi', 'baseline', 'p99_ms');
    const tawqiCpu = medianOf(rounds, 'tawqi', 'server_cpu_ms_per_req');
    const baseCpu = medianOf(rounds, 'baseline', 'server_cpu_ms_per_req');
    out({
      bench: 'create-requests',
      summary: true,
      synchronous,
      connections,
      rounds: rounds.length,
      tawqi_req_per_s: medianOf(rounds, 'tawqi', 'req_per_s'),
      baseline_req_per_s: medianOf(rounds, 'baseline', 'req_per_s'),
      ratio_throughput: throughput.median,
      ratio_throughput_by_round: throughput.byRound,
      tawqi_p99_ms: medianOf(rounds, 'tawqi', 'p99_ms'),
      baseline_p99_ms: medianOf(rounds, 'baseline', 'p99_ms'),
      ratio_p99: p99.median,
      ratio_p99_by_round: p99.byRound,
      tawqi_cpu_ms_per_req: tawqiCpu,
      baseline_cpu_ms_per_req: baseCpu,
      ratio_cpu_per_req: tawqiCpu !== null && baseCpu ? Math.round((tawqiCpu / baseCpu) * 100) / 100 : null,
      valid: allClean,
      ...(connections === TARGET_CONNECTIONS
        ? {
            target_throughput: `>= ${TARGET_THROUGHPUT_RATIO}`,
            throughput_met: throughput.median >= TARGET_THROUGHPUT_RATIO,
            target_p99: `<= ${TARGET_P99_RATIO}`,
            p99_met: p99.median <= TARGET_P99_RATIO,
            targets_met: allClean && throughput.median >= TARGET_THROUGHPUT_RATIO && p99.median <= TARGET_P99_RATIO,
          }
        : { targets: `judged at ${TARGET_CONNECTIONS} connections only` }),
    });
    if (!allClean) console.error(`[create-requests] ${connections} connections: errors or non-201 responses, so this is not a result`);
  }
  return valid;
}

/** Per server: req/s, p99 and CPU per create of the server process(es) and of PostgreSQL (medians). */
function figures(rounds: Map<ServerName, Measured>[], server: ServerName, prefix: string): Record<string, number | null> {
  return {
    [`${prefix}_req_per_s`]: medianOf(rounds, server, 'req_per_s'),
    [`${prefix}_p99_ms`]: medianOf(rounds, server, 'p99_ms'),
    [`${prefix}_cpu_ms_per_req`]: medianOf(rounds, server, 'server_cpu_ms_per_req'),
    [`${prefix}_postgres_cpu_ms_per_req`]: medianOf(rounds, server, 'postgres_cpu_ms_per_req'),
  };
}

/**
 * PostgreSQL: one Tawqi process against the bare Express + pg baseline, and two Tawqi processes
 * against one. Returns whether every run was clean.
 */
export function summarisePostgres(results: Measured[], connectionCounts: readonly number[], synchronousCommit: 'on' | 'off'): boolean {
  let valid = true;
  for (const connections of connectionCounts) {
    const rounds = roundsOf(results, ['baseline', 'tawqi', 'tawqi-2'], connections);
    if (rounds.length === 0) continue;
    const allClean = rounds.every((r) => [...r.values()].every(clean));
    valid &&= allClean;
    const throughput = ratio(rounds, 'tawqi', 'baseline', 'req_per_s');
    const two = ratio(rounds, 'tawqi-2', 'tawqi', 'req_per_s');
    const p99 = ratio(rounds, 'tawqi', 'baseline', 'p99_ms');
    const p99Two = ratio(rounds, 'tawqi-2', 'tawqi', 'p99_ms');
    out({
      bench: 'create-requests',
      summary: true,
      database: 'postgres',
      synchronous_commit: synchronousCommit,
      connections,
      rounds: rounds.length,
      ...figures(rounds, 'baseline', 'baseline'),
      ...figures(rounds, 'tawqi', 'tawqi'),
      ...figures(rounds, 'tawqi-2', 'tawqi_2'),
      ratio_throughput: throughput.median,
      ratio_throughput_by_round: throughput.byRound,
      ratio_two_processes: two.median,
      ratio_two_processes_by_round: two.byRound,
      ratio_p99: p99.median,
      ratio_p99_by_round: p99.byRound,
      ratio_p99_two_processes: p99Two.median,
      ratio_p99_two_processes_by_round: p99Two.byRound,
      valid: allClean,
      ...(connections === TARGET_CONNECTIONS
        ? {
            target_throughput: `>= ${TARGET_THROUGHPUT_RATIO}`,
            throughput_met: throughput.median >= TARGET_THROUGHPUT_RATIO,
            target_two_processes: `>= ${TARGET_TWO_PROCESSES_RATIO}`,
            two_processes_met: two.median >= TARGET_TWO_PROCESSES_RATIO,
            targets_met: allClean && throughput.median >= TARGET_THROUGHPUT_RATIO && two.median >= TARGET_TWO_PROCESSES_RATIO,
          }
        : { targets: `judged at ${TARGET_CONNECTIONS} connections only` }),
    });
    if (!allClean) console.error(`[create-requests] ${connections} connections: errors or non-201 responses, so this is not a result`);
  }
  return valid;
}
