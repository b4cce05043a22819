/**
 * The create-requests driver's summary lines: per connection count, the medians over the rounds of
 * each server's figures and of each round's own ratios (each round measures its servers close in
 * time, so a machine whose speed drifts between runs disturbs the ratios far less than one pair
 * would). Targets are judged at 16 connections only.
 */

/**
 * baseline: bare Express + the engine's driver; tawqi: one Tawqi process; tawqi-2: two Tawqi
 * processes on one database; replay: Express + better-sqlite3 running a Tawqi create's own SQL
 * (replay-server.ts, BENCH_REPLAY=1, SQLite).
 */
export type ServerName = 'baseline' | 'tawqi' | 'tawqi-2' | 'replay';

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
  /** The server was being CPU-profiled during this run (--profile): its figures carry the sampling's cost. */
  profiled?: boolean;
}

export const TARGET_CONNECTIONS = 16;
/** Issue 18, judged at 16 connections: Tawqi's CPU per create against the bare server's (SQLite and PostgreSQL). */
const TARGET_CPU_RATIO = 1.5;
/** SQLite only. */
const TARGET_THROUGHPUT_RATIO = 0.8;
const TARGET_P99_RATIO = 1.2;
/** PostgreSQL: two Tawqi processes on one database against one (the earlier target; reported, no longer in targets_met). */
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

type Figure = 'req_per_s' | 'p99_ms' | 'server_cpu_ms_per_req' | 'server_and_postgres_cpu_ms_per_req';

/** A run's figure; `server_and_postgres_cpu_ms_per_req` is the server's CPU per create plus PostgreSQL's. */
function figureOf(r: Measured, figure: Figure): number | null {
  if (figure !== 'server_and_postgres_cpu_ms_per_req') return r[figure];
  return r.server_cpu_ms_per_req === null || typeof r.postgres_cpu_ms_per_req !== 'number'
    ? null
    : r.server_cpu_ms_per_req + r.postgres_cpu_ms_per_req;
}

/**
 * Each round's ratio of a figure between two servers, and their median; null (and no rounds) when
 * a round lacks the figure (CPU off Linux) or the denominator is 0.
 */
function ratio(rounds: Map<ServerName, Measured>[], num: ServerName, den: ServerName, figure: Figure) {
  const byRound = rounds.map((r) => {
    const [n, d] = [figureOf(r.get(num)!, figure), figureOf(r.get(den)!, figure)];
    return n === null || d === null || d === 0 ? null : round3(n / d);
  });
  if (byRound.includes(null)) return { median: null, byRound: [] as number[] };
  const each = byRound as number[];
  return { median: round3(median(each)), byRound: each };
}

const atMost = (x: number | null, target: number): boolean | null => (x === null ? null : x <= target);
const atLeast = (x: number | null, target: number): boolean | null => (x === null ? null : x >= target);

/** The median over the rounds of one server's figure (null when a round has none). */
function medianOf(rounds: Map<ServerName, Measured>[], server: ServerName, figure: keyof Measured): number | null {
  const xs = rounds.map((r) => r.get(server)![figure]).filter((x): x is number => typeof x === 'number');
  return xs.length === rounds.length ? round3(median(xs)) : null;
}

const notJudged = { targets: `judged at ${TARGET_CONNECTIONS} connections only` };

/** SQLite's targets at 16 connections: CPU per create, throughput and p99 against the baseline's. */
function sqliteTargets(allClean: boolean, cpu: number | null, throughput: number | null, p99: number | null) {
  const met = {
    cpu: atMost(cpu, TARGET_CPU_RATIO),
    throughput: atLeast(throughput, TARGET_THROUGHPUT_RATIO),
    p99: atMost(p99, TARGET_P99_RATIO),
  };
  return {
    target_cpu_per_req: `<= ${TARGET_CPU_RATIO}`,
    cpu_met: met.cpu,
    target_throughput: `>= ${TARGET_THROUGHPUT_RATIO}`,
    throughput_met: met.throughput,
    target_p99: `<= ${TARGET_P99_RATIO}`,
    p99_met: met.p99,
    targets_met: allClean && met.cpu === true && met.throughput === true && met.p99 === true,
  };
}

/** SQLite: Tawqi against the bare Express + better-sqlite3 baseline. Returns whether every run was clean. */
export function summariseSqlite(results: Measured[], connectionCounts: readonly number[], synchronous: 'full' | 'normal'): boolean {
  let valid = true;
  for (const connections of connectionCounts) {
    const rounds = roundsOf(results, ['baseline', 'tawqi'], connections);
    if (rounds.length === 0) continue;
    const allClean = rounds.every((r) => [...r.values()].every(clean));
    valid &&= allClean;
    const cpu = ratio(rounds, 'tawqi', 'baseline', 'server_cpu_ms_per_req');
    const throughput = ratio(rounds, 'tawqi', 'baseline', 'req_per_s');
    const p99 = ratio(rounds, 'tawqi', 'baseline', 'p99_ms');
    out({
      bench: 'create-requests',
      summary: true,
      synchronous,
      connections,
      rounds: rounds.length,
      // First: CPU per create, the figure other load on the machine disturbs least.
      ratio_cpu_per_req: cpu.median,
      ratio_cpu_per_req_by_round: cpu.byRound,
      tawqi_cpu_ms_per_req: medianOf(rounds, 'tawqi', 'server_cpu_ms_per_req'),
      baseline_cpu_ms_per_req: medianOf(rounds, 'baseline', 'server_cpu_ms_per_req'),
      tawqi_req_per_s: medianOf(rounds, 'tawqi', 'req_per_s'),
      baseline_req_per_s: medianOf(rounds, 'baseline', 'req_per_s'),
      ratio_throughput: throughput.median,
      ratio_throughput_by_round: throughput.byRound,
      tawqi_p99_ms: medianOf(rounds, 'tawqi', 'p99_ms'),
      baseline_p99_ms: medianOf(rounds, 'baseline', 'p99_ms'),
      ratio_p99: p99.median,
      ratio_p99_by_round: p99.byRound,
      valid: allClean,
      ...(connections === TARGET_CONNECTIONS ? sqliteTargets(allClean, cpu.median, throughput.median, p99.median) : notJudged),
    });
    if (!allClean) console.error(`[create-requests] ${connections} connections: errors or non-201 responses, so this is not a result`);
    if (results.some((r) => r.server === 'replay')) valid = summariseReplay(results, connections, synchronous) && valid;
  }
  return valid;
}

/**
 * BENCH_REPLAY=1: the gap between the bare server and Tawqi, split at the replay server (a Tawqi
 * create's SQL alone): what the data written costs (replay / baseline) and what Tawqi's code costs
 * on top (tawqi / replay). Returns whether its rounds were clean.
 */
function summariseReplay(results: Measured[], connections: number, synchronous: 'full' | 'normal'): boolean {
  const rounds = roundsOf(results, ['baseline', 'replay', 'tawqi'], connections);
  if (rounds.length === 0) return true;
  const allClean = rounds.every((r) => [...r.values()].every(clean));
  const dataModel = ratio(rounds, 'replay', 'baseline', 'server_cpu_ms_per_req');
  const code = ratio(rounds, 'tawqi', 'replay', 'server_cpu_ms_per_req');
  out({
    bench: 'create-requests',
    summary: 'replay',
    synchronous,
    connections,
    rounds: rounds.length,
    replay_cpu_ms_per_req: medianOf(rounds, 'replay', 'server_cpu_ms_per_req'),
    baseline_cpu_ms_per_req: medianOf(rounds, 'baseline', 'server_cpu_ms_per_req'),
    tawqi_cpu_ms_per_req: medianOf(rounds, 'tawqi', 'server_cpu_ms_per_req'),
    // The data written: a Tawqi create's SQL behind a bare Express route, against the bare inserts.
    ratio_cpu_replay_to_baseline: dataModel.median,
    ratio_cpu_replay_to_baseline_by_round: dataModel.byRound,
    // Tawqi's code on top of its own SQL.
    ratio_cpu_tawqi_to_replay: code.median,
    ratio_cpu_tawqi_to_replay_by_round: code.byRound,
    replay_req_per_s: medianOf(rounds, 'replay', 'req_per_s'),
    replay_p99_ms: medianOf(rounds, 'replay', 'p99_ms'),
    valid: allClean,
  });
  return allClean;
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
    const cpu = ratio(rounds, 'tawqi', 'baseline', 'server_cpu_ms_per_req');
    const cpuWithPostgres = ratio(rounds, 'tawqi', 'baseline', 'server_and_postgres_cpu_ms_per_req');
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
      // First: the server processes' CPU per create (Tawqi's process against the bare pg server's),
      // then the same with each one's PostgreSQL CPU added.
      ratio_cpu_per_req: cpu.median,
      ratio_cpu_per_req_by_round: cpu.byRound,
      ratio_cpu_per_req_with_postgres: cpuWithPostgres.median,
      ratio_cpu_per_req_with_postgres_by_round: cpuWithPostgres.byRound,
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
            target_cpu_per_req: `<= ${TARGET_CPU_RATIO}`,
            cpu_met: atMost(cpu.median, TARGET_CPU_RATIO),
            // Reported, not a target of this issue: needs cores to spare (bench/README.md).
            target_two_processes: `>= ${TARGET_TWO_PROCESSES_RATIO}`,
            two_processes_met: atLeast(two.median, TARGET_TWO_PROCESSES_RATIO),
            targets_met: allClean && atMost(cpu.median, TARGET_CPU_RATIO) === true,
          }
        : notJudged),
    });
    if (!allClean) console.error(`[create-requests] ${connections} connections: errors or non-201 responses, so this is not a result`);
  }
  return valid;
}
