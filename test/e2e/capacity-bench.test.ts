/**
 * `npm run bench -- capacity` with one lifecycle, on the suite's engine (its own throwaway cluster
 * on PostgreSQL): it finishes, and its output has the shape the README's capacity model is read
 * from. No figure is judged beyond being there (and, on PostgreSQL, the client's statement count
 * agreeing with pg_stat_statements, which proves the probe counts none of its own queries).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENGINE = process.env.TAWQI_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';

function runBench(): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, BENCH_DATABASE: ENGINE, BENCH_CAPACITY_N: '1', BENCH_CAPACITY_PGBENCH_SECONDS: '1' };
  delete env.NODE_TEST_CONTEXT;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=tawqi-source', '--import', 'tsx', 'bench/run.ts', 'capacity'],
      { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

test(`the capacity benchmark measures one lifecycle on ${ENGINE} and reports per operation`, { timeout: 600_000 }, async () => {
  const run = await runBench();
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, new RegExp(`^${ENGINE}: per operation$`, 'm'));
  assert.match(run.stdout, /^\s+create\s+sign \(each\)\s+seal\s+deliver\s+lifecycle$/m);
  const line = run.stdout.split('\n').find((l) => l.startsWith('{"bench":"capacity"'));
  assert.ok(line, run.stdout);
  const result = JSON.parse(line) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.equal(result.database, ENGINE);
  assert.equal(result.n, 1);
  assert.match(result.commit, /^([0-9a-f]{7,}(-dirty)?|unknown)$/);
  assert.ok(result.webhook_deliveries_per_request > 0, 'every event of the lifecycle was delivered');
  for (const phase of ['create', 'sign', 'seal', 'deliver', 'lifecycle']) {
    const cost = result.per_operation[phase];
    assert.ok(cost.statements > 0 && cost.transactions > 0 && cost.write_transactions > 0, `${phase}: ${JSON.stringify(cost)}`);
    assert.deepEqual(Object.keys(cost.tables_by_group).sort(), Object.keys(result.retained_bytes_per_request).sort());
    if (ENGINE === 'postgres') {
      assert.equal(cost.server_statements, cost.statements, `${phase}: pg_stat_statements sees what the client sent`);
      assert.ok(cost.wal_bytes > 0, `${phase}: WAL written`);
    } else {
      assert.equal(cost.server_statements, null);
      assert.equal(cost.wal_bytes, null);
    }
  }
  assert.ok(result.per_operation.seal.file_bytes > 0, 'the seal stored the final PDF');
  assert.equal(result.per_operation.create.file_bytes, 0);
  for (const group of ['requests', 'signers', 'events', 'webhook_deliveries', 'files'])
    assert.ok(group in result.retained_bytes_per_request);
  if (ENGINE === 'postgres') assert.ok(result.pgbench.tps > 0, JSON.stringify(result.pgbench));
});
