/**
 * The costs of bench/capacity, summed per phase over every lifecycle and divided per operation:
 * a create and a seal per request, a sign per signature, the webhook deliveries per request.
 */
import type { Reading } from './probe.js';

export const PHASES = ['create', 'sign', 'seal', 'deliver'] as const;
export type Phase = (typeof PHASES)[number];

/** Tables in the groups the capacity model talks about; a table not named here is "other". */
const GROUPS: Record<string, string> = {
  signature_requests: 'requests',
  sealed_documents: 'requests',
  evidence_records: 'requests',
  notices: 'requests',
  sessions: 'requests',
  signers: 'signers',
  page_sessions: 'signers',
  signing_sessions: 'signers',
  identity_verifications: 'signers',
  events: 'events',
  webhook_deliveries: 'webhook_deliveries',
  jobs: 'jobs',
  messages: 'messages',
  files: 'files',
  idempotency: 'api_bookkeeping',
  idempotency_rowid: 'api_bookkeeping',
  request_log: 'api_bookkeeping',
  rate_windows: 'api_bookkeeping',
  counters: 'api_bookkeeping',
  ledger: 'api_bookkeeping',
  accounts: 'api_bookkeeping',
};
export const GROUP_NAMES = [...new Set(Object.values(GROUPS)), 'other'];

/** Bytes per group: the sum of its tables. */
export function byGroup(tables: Record<string, number>): Record<string, number> {
  const groups = Object.fromEntries(GROUP_NAMES.map((g) => [g, 0]));
  for (const [table, bytes] of Object.entries(tables)) groups[GROUPS[table] ?? 'other']! += bytes;
  return groups;
}

export function growth(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([t, bytes]) => [t, bytes - (before[t] ?? 0)]));
}

/** What one phase cost, summed over the lifecycles (or divided per operation). */
export interface Cost {
  statements: number;
  server_statements: number | null;
  transactions: number;
  write_transactions: number;
  rollbacks: number;
  wal_bytes: number | null;
  /** CPU ms of the PostgreSQL cluster, less the probe's own reading (`probeCpuMs`). */
  db_cpu_ms: number | null;
  table_bytes: number;
  file_bytes: number;
  tables_by_group: Record<string, number>;
}

const zero = (r: Reading): Cost => ({
  statements: 0,
  server_statements: r.serverStatements === null ? null : 0,
  transactions: 0,
  write_transactions: 0,
  rollbacks: 0,
  wal_bytes: r.walBytes === null ? null : 0,
  db_cpu_ms: r.dbCpuMs === null ? null : 0,
  table_bytes: 0,
  file_bytes: 0,
  tables_by_group: byGroup({}),
});

const plus = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : Math.round((a + b) * 10) / 10);

export class Costs {
  private readonly sums = new Map<Phase, Cost>();

  /** `probeCpuMs`: what one reading costs the cluster (each phase ends with one). */
  constructor(private readonly probeCpuMs = 0) {}

  add(phase: Phase, before: Reading, after: Reading): void {
    const sum = this.sums.get(phase) ?? zero(before);
    const grown = growth(before.tables, after.tables);
    sum.statements += after.client.statements - before.client.statements;
    sum.server_statements = plus(
      sum.server_statements,
      plus(after.serverStatements, before.serverStatements === null ? null : -before.serverStatements),
    );
    sum.transactions += after.client.transactions - before.client.transactions;
    sum.write_transactions += after.client.writeTransactions - before.client.writeTransactions;
    sum.rollbacks += after.client.rollbacks - before.client.rollbacks;
    sum.wal_bytes = plus(sum.wal_bytes, plus(after.walBytes, before.walBytes === null ? null : -before.walBytes));
    const cpu = plus(after.dbCpuMs, before.dbCpuMs === null ? null : -before.dbCpuMs - this.probeCpuMs);
    sum.db_cpu_ms = plus(sum.db_cpu_ms, cpu);
    sum.table_bytes += Object.values(grown).reduce((a, b) => a + b, 0);
    sum.file_bytes += after.fileBytes - before.fileBytes;
    for (const [group, bytes] of Object.entries(byGroup(grown))) sum.tables_by_group[group]! += bytes;
    this.sums.set(phase, sum);
  }

  /** Per operation: `ops` of each phase (requests, or signatures for sign), and the whole lifecycle per request. */
  perOperation(ops: Record<Phase, number>, signsPerRequest: number): Record<Phase | 'lifecycle', Cost> {
    const out = {} as Record<Phase | 'lifecycle', Cost>;
    for (const phase of PHASES) out[phase] = scale(this.sums.get(phase)!, 1 / ops[phase]);
    const weights: Record<Phase, number> = { create: 1, sign: signsPerRequest, seal: 1, deliver: 1 };
    out.lifecycle = PHASES.map((p) => scale(out[p], weights[p])).reduce(sum);
    return out;
  }
}

const r1 = (n: number) => Math.round(n * 10) / 10;
const div = (n: number | null, by: number) => (n === null ? null : r1(n * by));

function scale(c: Cost, by: number): Cost {
  return {
    statements: r1(c.statements * by),
    server_statements: div(c.server_statements, by),
    transactions: r1(c.transactions * by),
    write_transactions: r1(c.write_transactions * by),
    rollbacks: r1(c.rollbacks * by),
    wal_bytes: div(c.wal_bytes, by),
    db_cpu_ms: div(c.db_cpu_ms, by),
    table_bytes: r1(c.table_bytes * by),
    file_bytes: r1(c.file_bytes * by),
    tables_by_group: Object.fromEntries(Object.entries(c.tables_by_group).map(([g, b]) => [g, r1(b * by)])),
  };
}

function sum(a: Cost, b: Cost): Cost {
  return {
    statements: r1(a.statements + b.statements),
    server_statements: plus(a.server_statements, b.server_statements),
    transactions: r1(a.transactions + b.transactions),
    write_transactions: r1(a.write_transactions + b.write_transactions),
    rollbacks: r1(a.rollbacks + b.rollbacks),
    wal_bytes: plus(a.wal_bytes, b.wal_bytes),
    db_cpu_ms: plus(a.db_cpu_ms, b.db_cpu_ms),
    table_bytes: r1(a.table_bytes + b.table_bytes),
    file_bytes: r1(a.file_bytes + b.file_bytes),
    tables_by_group: Object.fromEntries(Object.entries(a.tables_by_group).map(([g, v]) => [g, r1(v + (b.tables_by_group[g] ?? 0))])),
  };
}

const kb = (bytes: number | null) => (bytes === null ? '–' : (bytes / 1024).toFixed(1));

/** The per-operation costs as a text table (bytes in KiB). */
export function table(database: string, perOp: Record<Phase | 'lifecycle', Cost>): string {
  const rows: [string, (c: Cost) => string][] = [
    ['statements (client; PG round trips)', (c) => String(c.statements)],
    ['statements (pg_stat_statements)', (c) => (c.server_statements === null ? '–' : String(c.server_statements))],
    ['transactions (reads alone included)', (c) => String(c.transactions)],
    ['  of them writing (WAL flush on PG)', (c) => String(c.write_transactions)],
    ['PostgreSQL CPU ms', (c) => (c.db_cpu_ms === null ? '–' : c.db_cpu_ms.toFixed(1))],
    ['WAL KiB', (c) => kb(c.wal_bytes)],
    ['table + index KiB', (c) => kb(c.table_bytes)],
    ...GROUP_NAMES.map((g): [string, (c: Cost) => string] => [`  ${g} KiB`, (c) => kb(c.tables_by_group[g] ?? 0)]),
    ['file bytes stored KiB', (c) => kb(c.file_bytes)],
  ];
  const columns = ['create', 'sign (each)', 'seal', 'deliver', 'lifecycle'];
  const costs = [perOp.create, perOp.sign, perOp.seal, perOp.deliver, perOp.lifecycle];
  const width = Math.max(...rows.map((r) => r[0].length));
  const line = (label: string, cells: string[]) => label.padEnd(width) + cells.map((c) => c.padStart(13)).join('');
  return [`${database}: per operation`, line('', columns), ...rows.map(([label, f]) => line(label, costs.map(f)))].join('\n');
}
