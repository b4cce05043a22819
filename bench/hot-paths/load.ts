/**
 * The load of each hot path (autocannon in the driver's process) and the JSON line of one measured
 * run. Every connection draws the next item of one shared list (request ids, event pages, page
 * tokens), so the requests of a run go round the whole data set.
 */
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { HELPER_SIGNATURE_PNG } from '../../server/src/services/testHelpers.js';
import { completed, perRequest } from '../support/runs.js';
import type { SignItem } from './prepare.js';

export type PathName = 'read' | 'events' | 'sign';
export type ServerName = 'baseline' | 'tawqi';
export const ALL_PATHS: readonly PathName[] = ['read', 'events', 'sign'];

/** What the driver gives each path's load: the list the requests go round, and how long. */
export interface Workload {
  path: PathName;
  key: string;
  /** read: request ids; events: page paths; sign: the items, each signed once. */
  items: readonly string[] | readonly SignItem[];
  /** Seconds (read, events), or a number of requests (sign: one per item). */
  run: { duration: number } | { amount: number };
}

/** The signature every sign sends: the test helpers' small drawn PNG, which the page's check accepts. */
const SIGN_BODY = JSON.stringify({ signature: HELPER_SIGNATURE_PNG, consent: true });

function requestOf(w: Workload): autocannon.Request {
  let next = 0;
  const auth = { authorization: `Bearer ${w.key}` };
  if (w.path === 'sign') {
    const items = w.items as readonly SignItem[];
    return {
      method: 'POST',
      path: '/sign/api/sign',
      headers: { 'content-type': 'application/json' },
      body: SIGN_BODY,
      // Past the end (never in a clean run: the driver makes more items than it sends) the last token again: a refusal, seen as non-2xx.
      setupRequest: (req) => ({
        ...req,
        headers: { ...req.headers, 'x-tawqi-page-token': items[Math.min(next++, items.length - 1)]!.token },
      }),
    };
  }
  const items = w.items as readonly string[];
  const pathOf = w.path === 'read' ? (i: number) => `/api/v1/signature_requests/${items[i]}` : (i: number) => items[i]!;
  return { method: 'GET', path: pathOf(0), headers: auth, setupRequest: (req) => ({ ...req, path: pathOf(next++ % items.length) }) };
}

export async function load(url: string, w: Workload, connections: number): Promise<autocannon.Result> {
  return await autocannon({ url, connections, timeout: 10, requests: [requestOf(w)], ...w.run });
}

export interface Measured {
  bench: 'hot-paths';
  path: PathName;
  server: ServerName;
  /** SQLite's synchronous setting of both servers, or PostgreSQL and the cluster's synchronous_commit. */
  synchronous?: 'full' | 'normal';
  database?: 'postgres';
  synchronous_commit?: 'on' | 'off';
  round: number;
  connections: number;
  /** Responses ÷ the run's wall time. */
  req_per_s: number;
  p50_ms: number;
  p99_ms: number;
  non_2xx: number;
  /** Responses other than 200, the status every path answers. */
  non_200: number;
  errors: number;
  timeouts: number;
  requests: number;
  /** Bytes received per response (headers included): both servers should answer about the same. */
  bytes_per_response: number;
  /** CPU (user + system, /proc) of the server process during the run, per response. */
  server_cpu_ms_per_req: number | null;
  postgres_cpu_ms_per_req?: number | null;
  /** sign: how many of a sample of the signed requests read back `completed` (all, or the run is not a result). */
  completed_checked?: string;
  /**
   * sign on Tawqi: the CPU from the start of the run until its job queue had nothing due (every
   * completed request sealed), per sign; the time that took after the run; jobs still due at its end.
   */
  drained_cpu_ms_per_req?: number | null;
  drained_postgres_cpu_ms_per_req?: number | null;
  drain_s?: number | null;
  jobs_due_at_end?: number;
  /** The server's CPU profiler was on during the run (--profile): judge the targets on a run without it. */
  profiled?: boolean;
  loadavg_1m: number;
}

export interface RunCpu {
  server: number | null;
  postgres: number | null;
}

export function measured(
  base: Pick<Measured, 'path' | 'server' | 'round' | 'connections' | 'synchronous' | 'database' | 'synchronous_commit'>,
  r: autocannon.Result,
  cpu: RunCpu,
): Measured {
  const n = completed(r);
  return {
    bench: 'hot-paths',
    ...base,
    req_per_s: r.duration > 0 ? Math.round((n / r.duration) * 10) / 10 : 0,
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    non_2xx: r.non2xx,
    non_200: n - (r.statusCodeStats['200']?.count ?? 0),
    errors: r.errors,
    timeouts: r.timeouts,
    requests: n,
    bytes_per_response: n === 0 ? 0 : Math.round(r.throughput.total / n),
    server_cpu_ms_per_req: perRequest(cpu.server, n),
    ...(base.database ? { postgres_cpu_ms_per_req: perRequest(cpu.postgres, n) } : {}),
    loadavg_1m: Math.round(loadavg()[0]! * 100) / 100,
  };
}
