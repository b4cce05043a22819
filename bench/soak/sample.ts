/**
 * The server's side of each interval, read from outside as an operator's monitoring would: its
 * GET /metrics (prom-client's process metrics and Tawqi's queue gauges, server/src/metrics.ts), its
 * RSS split from /proc (Linux), and
 * the database's size on disk — the SQLite file and its WAL under DATA_DIR, or pg_database_size and
 * the cluster's WAL folder on PostgreSQL — and the stored files (final PDFs) under DATA_DIR.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Installation } from './installation.js';

export const QUEUES = ['jobs', 'messages', 'webhook_deliveries'] as const;
export type QueueName = (typeof QUEUES)[number];

export interface ServerSample {
  rss_mb: number;
  /**
   * RSS split as Linux counts it (/proc/<pid>/status): anonymous memory (the heap, buffers, native
   * allocations — where a leak shows) and file-backed pages (the binary, libraries, and the SQLite
   * file the store maps with mmap_size as far as it is read: the kernel can reclaim them).
   */
  rss_anon_mb: number;
  rss_file_mb: number;
  heap_used_mb: number;
  /** Event-loop delay p99 since the previous scrape (prom-client resets its histogram at each). */
  eventloop_p99_ms: number;
  active_handles: number;
  /** Entries waiting per durable queue (due now or later). */
  queue_depth: Record<QueueName, number>;
  /** Entries due now per queue: work the server is behind on. */
  queue_due: Record<QueueName, number>;
  db_mb: number;
  wal_mb: number;
  files_mb: number;
}

const MB = 1024 * 1024;
const mb = (bytes: number) => Math.round((bytes / MB) * 100) / 100;

/** `name{labels} value` lines of Prometheus text, as name → [{labels, value}]. */
export function parseMetrics(text: string): Map<string, { labels: Record<string, string>; value: number }[]> {
  const out = new Map<string, { labels: Record<string, string>; value: number }[]>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    const list = out.get(m[1]!) ?? [];
    list.push({ labels, value: Number(m[3]) });
    out.set(m[1]!, list);
  }
  return out;
}

function one(metrics: ReturnType<typeof parseMetrics>, name: string, labels: Record<string, string> = {}): number {
  const found = metrics.get(name)?.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (!found || !Number.isFinite(found.value)) throw new Error(`/metrics has no ${name} ${JSON.stringify(labels)}`);
  return found.value;
}

function treeBytes(dir: string, skip: (name: string) => boolean = () => false): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skip(entry.name)) continue;
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) total += treeBytes(p);
    else if (entry.isFile()) total += statSync(p).size;
  }
  return total;
}

/** RssAnon and RssFile (+ RssShmem) of a process, in bytes. */
export function rssSplit(pid: number): { anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { anon: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem') };
}

const sizeOr0 = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

export class Sampler {
  private constructor(
    private readonly inst: Installation,
    private readonly admin: pg.Client | null,
  ) {}

  static async open(inst: Installation): Promise<Sampler> {
    if (!inst.clusterUrl) return new Sampler(inst, null);
    const admin = new pg.Client({ connectionString: inst.clusterUrl });
    await admin.connect();
    return new Sampler(inst, admin);
  }

  async read(): Promise<ServerSample> {
    const res = await fetch(`${this.inst.server.base}/metrics`);
    if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`);
    const m = parseMetrics(await res.text());
    const split = rssSplit(this.inst.server.proc.pid!);
    const queues = (name: string) => Object.fromEntries(QUEUES.map((q) => [q, one(m, name, { queue: q })])) as Record<QueueName, number>;
    return {
      rss_mb: mb(one(m, 'process_resident_memory_bytes')),
      rss_anon_mb: mb(split.anon),
      rss_file_mb: mb(split.file),
      heap_used_mb: mb(one(m, 'nodejs_heap_size_used_bytes')),
      eventloop_p99_ms: Math.round(one(m, 'nodejs_eventloop_lag_p99_seconds') * 1000 * 10) / 10,
      active_handles: one(m, 'nodejs_active_handles_total'),
      queue_depth: queues('tawqi_queue_depth'),
      queue_due: queues('tawqi_queue_due'),
      ...(await this.database()),
    };
  }

  private async database(): Promise<Pick<ServerSample, 'db_mb' | 'wal_mb' | 'files_mb'>> {
    const dir = this.inst.dataDir;
    const sqlite = path.join(dir, 'tawqi.sqlite');
    const files = treeBytes(dir, (name) => name.startsWith('tawqi.sqlite'));
    if (!this.admin) return { db_mb: mb(sizeOr0(sqlite)), wal_mb: mb(sizeOr0(`${sqlite}-wal`)), files_mb: mb(files) };
    const name = new URL(this.inst.databaseUrl!).pathname.slice(1);
    const { rows } = await this.admin.query<{ db: string; wal: string }>(
      'SELECT pg_database_size($1) AS db, (SELECT coalesce(sum(size), 0) FROM pg_ls_waldir()) AS wal',
      [name],
    );
    return { db_mb: mb(Number(rows[0]!.db)), wal_mb: mb(Number(rows[0]!.wal)), files_mb: mb(files) };
  }

  async close(): Promise<void> {
    await this.admin?.end();
  }
}
