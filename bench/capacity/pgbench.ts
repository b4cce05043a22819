/**
 * How many commits per second the benchmark cluster takes on this machine: pgbench's TPC-B-like
 * transaction (BEGIN, three UPDATEs, a SELECT, an INSERT, END: 7 statements, 5 of them writes) on a
 * fresh database of scale 10, with the extended protocol Tawqi's driver uses (unnamed statements,
 * parsed and planned every time), `clients` connections. The cluster's durability settings apply
 * (fsync on; synchronous_commit from BENCH_SYNCHRONOUS). A reference point for the capacity model,
 * not Tawqi's own mix.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { postgresBinDir } from '../../test/support/postgres.js';
import type { BenchPostgres } from '../support/postgres.js';

export interface CommitRate {
  clients: number;
  seconds: number;
  /** Transactions per second (pgbench's figure without connection time). */
  tps: number;
  /** tps × 7: statements per second of that mix. */
  statements_per_s: number;
}

const STATEMENTS_PER_TRANSACTION = 7;

export async function measureCommitRate(postgres: BenchPostgres, seconds: number, clients: number): Promise<CommitRate> {
  const url = await postgres.createDatabase();
  const pgbench = path.join(postgresBinDir(), 'pgbench');
  const run = (args: string[]): string => {
    const result = spawnSync(pgbench, [...args, url], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`pgbench ${args.join(' ')} failed: ${result.stderr}`);
    return result.stdout;
  };
  try {
    run(['-i', '-q', '-s', '10']);
    await postgres.checkpoint();
    const out = run(['-n', '-M', 'extended', '-c', String(clients), '-j', '2', '-T', String(seconds)]);
    const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(out)?.[1]);
    if (!Number.isFinite(tps)) throw new Error(`pgbench: no tps in ${out}`);
    return { clients, seconds, tps: Math.round(tps), statements_per_s: Math.round(tps * STATEMENTS_PER_TRANSACTION) };
  } finally {
    await postgres.dropDatabase(url);
  }
}
