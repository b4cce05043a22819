/**
 * The soak run (issue 17, point 4): a steady mixed load against the real server process for a
 * configurable time, a report every interval of the server's memory, event-loop delay, handles,
 * database and WAL size, queue depths and the load's p99 latency, then a verdict on drift and an
 * SVG plot. Not a test and not in CI: see bench/soak/README.md.
 *
 *   npm run bench -- soak                                  (10 minutes, SQLite, settings from the environment)
 *   node --conditions=tawqi-source --import tsx bench/soak/run.ts --duration 2m --interval 20s --database postgres
 *
 * Settings (flag, or environment variable): --duration / SOAK_DURATION (default 10m), --interval /
 * SOAK_INTERVAL (60s), --rate / SOAK_RATE (lifecycles started per second, 1), --concurrency /
 * SOAK_CONCURRENCY (lifecycles at once, 8), --database / BENCH_DATABASE (sqlite or postgres),
 * --svg / SOAK_SVG (the plot's file, default bench/soak/soak-<database>.svg; "none" for no plot),
 * --drain / SOAK_DRAIN (seconds to wait at the end for seals and queues, 120); --plot-from <saved
 * stdout> only redraws the plot of an earlier run.
 * Output: one JSON line per interval and a summary line on stdout, a table on stderr.
 * Exit 1 when a request failed, a completed request was not sealed, or a queue was left behind.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { drift, type DriftInput } from './drift.js';
import { startInstallation, type Engine } from './installation.js';
import { plotSvg } from './plot.js';
import { Recorder, type IntervalLoad } from './recorder.js';
import { QUEUES, Sampler, type ServerSample } from './sample.js';
import { SoakLoad } from './workload.js';
import { measuredCommit } from '../support/commit.js';

const note = (text: string) => console.error(`[soak] ${text}`);
const load1 = () => Math.round(loadavg()[0]! * 100) / 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** "90", "90s", "10m", "1h" → seconds. */
export function seconds(text: string, what: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(s|m|h)?$/.exec(text.trim());
  if (!m) throw new Error(`${what}: not a duration (e.g. 90s, 10m): ${text}`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600 }[(m[2] ?? 's') as 's' | 'm' | 'h'];
}

function options() {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: process.env.SOAK_DURATION ?? '10m' },
      interval: { type: 'string', default: process.env.SOAK_INTERVAL ?? '60s' },
      rate: { type: 'string', default: process.env.SOAK_RATE ?? '1' },
      concurrency: { type: 'string', default: process.env.SOAK_CONCURRENCY ?? '8' },
      database: { type: 'string', default: process.env.BENCH_DATABASE ?? 'sqlite' },
      svg: { type: 'string', default: process.env.SOAK_SVG },
      drain: { type: 'string', default: process.env.SOAK_DRAIN ?? '120' },
      'plot-from': { type: 'string' },
    },
  });
  const database = values.database as Engine;
  if (database !== 'sqlite' && database !== 'postgres') throw new Error('--database must be sqlite or postgres');
  const o = {
    database,
    durationS: seconds(values.duration, '--duration'),
    intervalS: seconds(values.interval, '--interval'),
    rate: Number(values.rate),
    concurrency: Number(values.concurrency),
    drainS: seconds(values.drain, '--drain'),
    plotFrom: values['plot-from'],
    svg: values.svg ?? fileURLToPath(new URL(`soak-${database}.svg`, import.meta.url)),
  };
  if (!(o.rate > 0) || !Number.isInteger(o.concurrency) || o.concurrency < 1)
    throw new Error('--rate must be > 0, --concurrency a whole number ≥ 1');
  if (!(o.intervalS > 0) || o.durationS < o.intervalS) throw new Error('--interval must be > 0 and no longer than --duration');
  return o;
}

/** Taken at the start: the code that runs is the code checked out when the run began. */
const COMMIT = measuredCommit();

type Row = { bench: 'soak'; database: Engine; interval: number; t_min: number } & IntervalLoad &
  ServerSample & { awaiting_seal: number; loadavg_1m: number };

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

const HEADER =
  'min    rss_MB anon_MB heap_MB el_p99 handles  db_MB wal_MB files_MB  jobs msgs hooks  reqs p99_ms err skip sealed hooks_rx load';
function tableLine(r: Row): string {
  const c = (v: number | null, w: number) => String(v ?? '-').padStart(w);
  const q = r.queue_depth;
  return [
    c(r.t_min, 5),
    c(r.rss_mb, 7),
    c(r.rss_anon_mb, 7),
    c(r.heap_used_mb, 7),
    c(r.eventloop_p99_ms, 6),
    c(r.active_handles, 7),
    c(r.db_mb, 6),
    c(r.wal_mb, 6),
    c(r.files_mb, 8),
    c(q.jobs, 5),
    c(q.messages, 4),
    c(q.webhook_deliveries, 5),
    c(r.requests, 5),
    c(r.p99_ms, 6),
    c(r.errors, 3),
    c(r.skipped, 4),
    c(r.sealed, 6),
    c(r.webhooks_received, 8),
    c(r.loadavg_1m, 5),
  ].join(' ');
}

const toDrift = (r: Row): DriftInput => ({
  t_min: r.t_min,
  p99_ms: r.p99_ms,
  eventloop_p99_ms: r.eventloop_p99_ms,
  figures: {
    rss_mb: r.rss_mb,
    rss_anon_mb: r.rss_anon_mb,
    rss_file_mb: r.rss_file_mb,
    heap_used_mb: r.heap_used_mb,
    queue_depth_total: sum(r.queue_depth),
    queue_due_total: sum(r.queue_due),
    awaiting_seal: r.awaiting_seal,
    active_handles: r.active_handles,
    db_mb: r.db_mb,
    wal_mb: r.wal_mb,
    files_mb: r.files_mb,
  },
});

function writePlot(file: string, database: Engine, rows: readonly Row[], title: string): void {
  const minutes = rows.map((r) => r.t_min);
  const svg = plotSvg(title, minutes, [
    {
      title: 'Server memory',
      unit: 'MB',
      series: [
        { label: 'RSS', color: '#1f77b4', values: rows.map((r) => r.rss_mb) },
        { label: 'RSS anonymous', color: '#7f7f7f', values: rows.map((r) => r.rss_anon_mb) },
        { label: 'heap used', color: '#ff7f0e', values: rows.map((r) => r.heap_used_mb) },
      ],
    },
    {
      title: 'p99 latency per interval',
      unit: 'ms',
      series: [
        { label: 'requests', color: '#d62728', values: rows.map((r) => r.p99_ms) },
        { label: 'event loop', color: '#2ca02c', values: rows.map((r) => r.eventloop_p99_ms) },
      ],
    },
    {
      // Due entries (work the server is behind on); waiting ones include each request's expiry job, pending by design.
      title: 'Queue entries due at the scrape',
      unit: 'entries',
      series: QUEUES.map((q, i) => ({
        label: q,
        color: ['#9467bd', '#8c564b', '#17becf'][i]!,
        values: rows.map((r) => r.queue_due[q]),
      })),
    },
  ]);
  writeFileSync(file, svg);
  note(`plot (${database}) written to ${file}`);
}

/** Wait for the server's queues to empty (nothing due), bounded; the last sample read. */
async function settle(sampler: Sampler, boundMs: number): Promise<ServerSample> {
  const deadline = Date.now() + boundMs;
  let last = await sampler.read();
  while (sum(last.queue_due) > 0 && Date.now() < deadline) {
    await sleep(1000);
    last = await sampler.read();
  }
  return last;
}

/** Redraw the plot of a saved run (its stdout) without running the load again. */
function replot(file: string, svg: string): number {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"bench":"soak"'))
    .map(
      (l) => JSON.parse(l) as Row & { summary?: true; interval_s: number; rate: number; loadavg_1m_start: number; loadavg_1m_end: number },
    );
  const rows = lines.filter((l) => !l.summary);
  const s = lines.find((l) => l.summary);
  if (!s || rows.length === 0) throw new Error(`${file}: no soak report`);
  writePlot(svg, s.database, rows, plotTitle(s.database, rows.length, s.interval_s, s.rate, s.loadavg_1m_start, s.loadavg_1m_end));
  return 0;
}

const plotTitle = (database: Engine, n: number, intervalS: number, rate: number, load0: number, load1: number) =>
  `Tawqi soak on ${database}: ${n} × ${intervalS} s at ${rate} lifecycles/s (load ${load0}→${load1})`;

async function main(): Promise<number> {
  const o = options();
  if (o.plotFrom) return replot(o.plotFrom, o.svg);
  const startLoad = load1();
  if (startLoad > cpus().length * 0.5) note(`the 1-minute load average is ${startLoad} on ${cpus().length} cores: figures are skewed`);
  note(`${o.database}: ${o.durationS} s, a report every ${o.intervalS} s, ${o.rate} lifecycles/s, at most ${o.concurrency} at once`);
  const inst = await startInstallation(o.database);
  const sampler = await Sampler.open(inst);
  let serverDied = false;
  void inst.server.exited.then(() => (serverDied = true));
  try {
    await sampler.read(); // the event-loop histogram restarts at each scrape: the first interval starts clean
    const rec = new Recorder();
    const load = new SoakLoad(inst, rec, o);
    const rows: Row[] = [];
    const started = performance.now();
    load.start();
    console.error(HEADER);
    const intervals = Math.max(1, Math.round(o.durationS / o.intervalS));
    for (let i = 1; i <= intervals && !serverDied; i++) {
      await sleep(started + i * o.intervalS * 1000 - performance.now());
      rec.count('webhooks_received', load.takeWebhooks());
      const row: Row = {
        bench: 'soak',
        database: o.database,
        interval: i,
        t_min: Math.round(((performance.now() - started) / 60_000) * 100) / 100,
        ...rec.take(),
        ...(await sampler.read()),
        awaiting_seal: load.awaitingSealCount,
        loadavg_1m: load1(),
      };
      rows.push(row);
      console.log(JSON.stringify(row));
      console.error(tableLine(row));
    }
    await load.stop();
    const unsealed = await load.drainSeals(o.drainS * 1000);
    const final = await settle(sampler, o.drainS * 1000);
    const tail = rec.take();
    const totals = Object.fromEntries(
      (
        ['requests', 'errors', 'lifecycles_started', 'skipped', 'created', 'idempotent_replays', 'signed', 'cancelled', 'sealed'] as const
      ).map((k) => [k, rows.reduce((a, r) => a + r[k], 0) + tail[k]]),
    );
    const report = drift(rows.map(toDrift));
    const summary = {
      bench: 'soak',
      summary: true,
      database: o.database,
      commit: COMMIT,
      duration_s: o.durationS,
      interval_s: o.intervalS,
      rate: o.rate,
      concurrency: o.concurrency,
      intervals: rows.length,
      server_died: serverDied,
      totals: { ...totals, webhooks_received: rows.reduce((a, r) => a + r.webhooks_received, 0) + load.takeWebhooks() },
      unsealed_at_end: unsealed,
      queues_due_at_end: final.queue_due,
      queues_waiting_at_end: final.queue_depth,
      drift: report,
      loadavg_1m_start: startLoad,
      loadavg_1m_end: load1(),
      svg: o.svg === 'none' ? null : o.svg,
    };
    console.log(JSON.stringify(summary));
    note(
      `drift: ${report.verdict}; ${Object.entries(report.figures)
        .map(([k, f]) => `${k} ${f.per_min}/min (R² ${f.r2})`)
        .join(', ')}`,
    );
    note(`p99 first ${report.p99_first_ms} ms, last ${report.p99_last_ms} ms; errors ${rec.totalErrors}, unsealed ${unsealed}`);
    for (const e of rec.firstErrors) note(`error: ${e}`);
    if (o.svg !== 'none' && rows.length > 0)
      writePlot(o.svg, o.database, rows, plotTitle(o.database, rows.length, o.intervalS, o.rate, startLoad, summary.loadavg_1m_end));
    return rec.totalErrors > 0 || unsealed > 0 || serverDied || sum(final.queue_due) > 0 ? 1 : 0;
  } finally {
    await sampler.close();
    await inst.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    note(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
