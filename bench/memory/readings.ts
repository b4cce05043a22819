/**
 * What the memory benchmark reads of the server process at each sample, from outside where it can:
 * RSS and its split from /proc/<pid>/status (soak/sample.ts `rssSplit`), the heap after a full
 * collection (server.ts prints it on SIGUSR2), the durable queues from its GET /metrics, and the
 * database's size (the SQLite file and its WAL under DATA_DIR, or pg_database_size).
 */
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { databasePath } from '../../server/src/store/db.js';
import { parseMetrics, rssSplit } from '../soak/sample.js';

const MB = 1024 * 1024;
export const mb = (bytes: number): number => Math.round((bytes / MB) * 10) / 10;

/** The process's RSS (VmRSS) and its anonymous and file-backed (+ shared memory) parts, in MB. */
export interface ProcMemory {
  rss_mb: number;
  rss_anon_mb: number;
  rss_file_mb: number;
}

export function procMemory(pid: number): ProcMemory {
  const { anon, file } = rssSplit(pid);
  return { rss_mb: mb(anon + file), rss_anon_mb: mb(anon), rss_file_mb: mb(file) };
}

/** process.memoryUsage() in the server right after a full garbage collection, in MB. */
export interface AfterGc {
  heap_used_mb: number;
  heap_total_mb: number;
  external_mb: number;
  array_buffers_mb: number;
}

interface GcLine {
  rss: number;
  heap_used: number;
  heap_total: number;
  external: number;
  array_buffers: number;
}

const GC_TIMEOUT_MS = 30_000;

/** Asks the server (bench/memory/server.ts) for a full collection and its figures, one at a time. */
export class GcProbe {
  private waiting: ((line: GcLine) => void) | null = null;

  constructor(private readonly child: ChildProcess) {
    // A second reader of the child's stdout beside startChild's (which only logs later lines).
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{"gc":')) return;
      const resolve = this.waiting;
      this.waiting = null;
      resolve?.((JSON.parse(line) as { gc: GcLine }).gc);
    });
  }

  async read(): Promise<AfterGc> {
    if (this.waiting) throw new Error('a collection is already being read');
    const line = await new Promise<GcLine>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no gc line within ${GC_TIMEOUT_MS} ms`)), GC_TIMEOUT_MS);
      this.waiting = (l) => {
        clearTimeout(timer);
        resolve(l);
      };
      this.child.kill('SIGUSR2');
    });
    return {
      heap_used_mb: mb(line.heap_used),
      heap_total_mb: mb(line.heap_total),
      external_mb: mb(line.external),
      array_buffers_mb: mb(line.array_buffers),
    };
  }
}

/** Entries waiting (due now or later) and due now, per durable queue the create path feeds. */
export interface Queues {
  jobs: { waiting: number; due: number };
  messages: { waiting: number; due: number };
}

/** The jobs and message-outbox gauges of the server's GET /metrics (tawqi_queue_depth, tawqi_queue_due). */
export async function readQueues(base: string): Promise<Queues> {
  const res = await fetch(`${base}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`);
  const metrics = parseMetrics(await res.text());
  const gauge = (name: string, queue: string): number => {
    const found = metrics.get(name)?.find((s) => s.labels.queue === queue);
    if (!found) throw new Error(`/metrics has no ${name}{queue="${queue}"}`);
    return found.value;
  };
  const of = (queue: string) => ({ waiting: gauge('tawqi_queue_depth', queue), due: gauge('tawqi_queue_due', queue) });
  return { jobs: of('jobs'), messages: of('messages') };
}

const sizeOr0 = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/** The database's size: the SQLite file and its WAL, or (PostgreSQL) pg_database_size and the cluster's pg_wal folder. */
export async function databaseSize(
  dataDir: string,
  postgres: { clusterUrl: string; databaseUrl: string } | null,
): Promise<{ db_mb: number; wal_mb: number }> {
  if (!postgres) {
    const file = databasePath(dataDir);
    return { db_mb: mb(sizeOr0(file)), wal_mb: mb(sizeOr0(`${file}-wal`)) };
  }
  const admin = new pg.Client({ connectionString: postgres.clusterUrl });
  await admin.connect();
  try {
    const name = new URL(postgres.databaseUrl).pathname.slice(1);
    const { rows } = await admin.query<{ db: string; wal: string }>(
      'SELECT pg_database_size($1) AS db, (SELECT coalesce(sum(size), 0) FROM pg_ls_waldir()) AS wal',
      [name],
    );
    return { db_mb: mb(Number(rows[0]!.db)), wal_mb: mb(Number(rows[0]!.wal)) };
  } finally {
    await admin.end();
  }
}
