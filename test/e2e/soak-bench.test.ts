/**
 * `npm run bench -- soak` for a few seconds, on the suite's engine (its own throwaway cluster on
 * PostgreSQL), so the script cannot rot: it finishes cleanly (no failed request, every completed
 * request sealed, no queue left behind), and its report has the shape the README reads — every
 * field present, every figure a finite number — and a plot. No timing or figure is judged.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { GROW_WITH_DATA, linearFit, RULES } from '../../bench/soak/drift.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENGINE = process.env.TAWQI_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
const INTERVALS = 2;

function runSoak(svg: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BENCH_DATABASE: ENGINE,
    SOAK_DURATION: `${INTERVALS * 3}s`,
    SOAK_INTERVAL: '3s',
    SOAK_RATE: '2',
    SOAK_SVG: svg,
  };
  delete env.NODE_TEST_CONTEXT;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=tawqi-source', '--import', 'tsx', 'bench/run.ts', 'soak'],
      { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** Every leaf of `value` is a finite number (null only where `nullable` names the key). */
function assertFinite(value: unknown, where: string, nullable: readonly string[] = []): void {
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v !== null && typeof v === 'object') assertFinite(v, `${where}.${k}`, nullable);
    else if (v === null) assert.ok(nullable.includes(k), `${where}.${k} is null`);
    else assert.ok(typeof v === 'number' && Number.isFinite(v), `${where}.${k}: ${String(v)}`);
  }
}

const INTERVAL_FIELDS = [
  'requests',
  'errors',
  'lifecycles_started',
  'skipped',
  'created',
  'idempotent_replays',
  'signed',
  'cancelled',
  'sealed',
  'webhooks_received',
  'p50_ms',
  'p99_ms',
  'max_ms',
  'rss_mb',
  'rss_anon_mb',
  'rss_file_mb',
  'heap_used_mb',
  'eventloop_p99_ms',
  'active_handles',
  'queue_depth',
  'queue_due',
  'db_mb',
  'wal_mb',
  'files_mb',
  'awaiting_seal',
  'loadavg_1m',
];

test(
  `the soak script runs a few seconds on ${ENGINE} and reports every interval, a drift verdict and a plot`,
  { timeout: 600_000 },
  async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-soak-test-'));
    try {
      const svg = path.join(dir, 'soak.svg');
      const run = await runSoak(svg);
      assert.equal(run.code, 0, run.stderr);
      const lines = run.stdout
        .split('\n')
        .filter((l) => l.startsWith('{"bench":"soak"'))
        .map((l) => JSON.parse(l) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
      const rows = lines.filter((l) => !l.summary);
      const summary = lines.find((l) => l.summary);
      assert.equal(rows.length, INTERVALS, run.stdout);
      rows.forEach((row, i) => {
        assert.equal(row.database, ENGINE);
        assert.equal(row.interval, i + 1);
        const { bench: _b, database: _d, ...figures } = row;
        assert.deepEqual(Object.keys(figures).sort(), ['interval', 't_min', ...INTERVAL_FIELDS].sort());
        assert.deepEqual(Object.keys(row.queue_depth).sort(), ['jobs', 'messages', 'webhook_deliveries']);
        assertFinite(figures, `interval ${i + 1}`, ['p50_ms', 'p99_ms', 'max_ms']);
        assert.ok(
          row.rss_mb > 0 && row.rss_anon_mb > 0 && row.heap_used_mb > 0 && row.active_handles > 0 && row.db_mb > 0,
          JSON.stringify(row),
        );
      });
      assert.ok(summary, run.stdout);
      assert.equal(summary.intervals, INTERVALS);
      assert.equal(summary.server_died, false);
      assert.equal(summary.totals.errors, 0, run.stderr);
      assert.ok(summary.totals.created > 0 && summary.totals.requests > summary.totals.created, JSON.stringify(summary.totals));
      assert.equal(summary.totals.sealed, summary.totals.signed, 'every signed request was seen sealed');
      assert.equal(summary.unsealed_at_end, 0);
      assert.ok(summary.totals.webhooks_received > 0, 'events were delivered to the receiver');
      assert.deepEqual(summary.queues_due_at_end, { jobs: 0, messages: 0, webhook_deliveries: 0 });
      assertFinite(summary.totals, 'totals');
      assert.deepEqual(Object.keys(summary.drift.figures).sort(), Object.keys(RULES).sort());
      for (const [name, f] of Object.entries(summary.drift.figures as Record<string, { verdict: string }>)) {
        assertFinite({ ...f, verdict: 0 }, name);
        assert.ok(['steady', 'grows'].includes(f.verdict), name);
      }
      assert.deepEqual(Object.keys(summary.drift.growth_per_min).sort(), [...GROW_WITH_DATA].sort());
      assertFinite(summary.drift.growth_per_min, 'growth_per_min');
      assert.match(summary.drift.verdict, /^(steady|grows: .+)$/);
      const plot = readFileSync(svg, 'utf8');
      assert.match(plot, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      assert.equal((plot.match(/<polyline /g) ?? []).length, 8, 'RSS, its anonymous part, heap, two p99 lines and three queues');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('the drift fit is least squares: an exact line is found with R² 1, a flat series has no slope', () => {
  const fit = linearFit([1, 2, 3, 4], [10, 12, 14, 16]);
  assert.equal(fit.slope, 2);
  assert.equal(fit.intercept, 8);
  assert.equal(fit.r2, 1);
  assert.equal(linearFit([1, 2, 3], [5, 5, 5]).slope, 0);
});
