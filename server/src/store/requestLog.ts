import { sql, type Insertable } from 'kysely';
import { insertRecords } from './compiled.js';
import type { Tx } from './db.js';
import type { RequestLogTable } from './schema.js';

export type NewRequestLogEntry = Insertable<RequestLogTable>;

/**
 * Rows per INSERT: a power of two, at most 512 (SQLite binds at most 32,766 parameters per
 * statement and PostgreSQL 65,535; at 17 columns a row, 512 rows stay well under both). A batch is
 * written largest chunk first (1,000 rows: 512, 256, 128, 64, 32, 8), so the request log has at
 * most ten INSERT texts. One INSERT per batch of any size made a new SQL text for every batch size
 * a flush happened to hold: on SQLite each one a prepared statement of up to 500 rows in the
 * statement cache (statementCache.ts keeps 500, first in first out), about 12 KB of SQL and its
 * compiled program each, pushing the hot statements out (bench/memory: +111 of them, +1.4 MB of
 * heap, over 80,000 creates).
 */
const MAX_ROWS_PER_INSERT = 512;

/** The rows of the next INSERT when `left` rows wait: the largest power of two ≤ left, at most MAX_ROWS_PER_INSERT. */
export function rowsPerInsert(left: number): number {
  let rows = MAX_ROWS_PER_INSERT;
  while (rows > left && rows > 1) rows >>= 1;
  return rows;
}

/**
 * A batch of entries (the in-memory buffer's, requestLogBuffer.ts) through the precompiled inserts
 * (compiled.ts insertRecords): on PostgreSQL multi-row INSERTs of rowsPerInsert rows, on SQLite one
 * prepared single-row INSERT per entry, which costs less than Kysely building and compiling the
 * batch's INSERT at every flush (11.8 against 14.1 µs per entry, flushes of 100 on SQLite).
 */
export async function insertRequestLog(tx: Tx, entries: readonly NewRequestLogEntry[]): Promise<void> {
  for (let i = 0; i < entries.length;) {
    const rows = rowsPerInsert(entries.length - i);
    await insertRecords(tx, 'request_log', null, entries.slice(i, i + rows));
    i += rows;
  }
}

/** What the console's log screen narrows by (all optional; every one is an equality or a prefix on an indexed range). */
export interface RequestLogFilter {
  livemode?: boolean;
  /** An exact status (404), or a class: 200 for 2xx, 400 for 4xx, 500 for 5xx. */
  status?: { exact: number } | { class: 200 | 300 | 400 | 500 };
  method?: string;
  /** The start of the path as requested ("/api/v1/signature_requests"). */
  pathPrefix?: string;
  keyId?: string;
  requestId?: string;
  code?: string;
}

/** An account's entries, newest first; `before` (an entry id) continues a previous page. */
export async function listRequestLog(
  tx: Tx,
  accountId: string,
  options: { filter?: RequestLogFilter; limit?: number; before?: number } = {},
) {
  const f = options.filter ?? {};
  let q = tx.selectFrom('request_log').selectAll().where('account_id', '=', accountId);
  if (f.livemode !== undefined) q = q.where('livemode', '=', f.livemode ? 1 : 0);
  if (f.status && 'exact' in f.status) q = q.where('status', '=', f.status.exact);
  if (f.status && 'class' in f.status) q = q.where('status', '>=', f.status.class).where('status', '<', f.status.class + 100);
  if (f.method !== undefined) q = q.where('method', '=', f.method);
  // substr rather than LIKE: no wildcard escaping, and the same case-sensitive match on both engines.
  if (f.pathPrefix !== undefined) q = q.where(sql<string>`substr(path, 1, ${f.pathPrefix.length})`, '=', f.pathPrefix);
  if (f.keyId !== undefined) q = q.where('key_id', '=', f.keyId);
  if (f.requestId !== undefined) q = q.where('request_id', '=', f.requestId);
  if (f.code !== undefined) q = q.where('code', '=', f.code);
  if (options.before !== undefined) q = q.where('id', '<', options.before);
  return q
    .orderBy('id', 'desc')
    .limit(options.limit ?? 100)
    .execute();
}

export type RequestLogRow = Awaited<ReturnType<typeof listRequestLog>>[number];

/** Whether entry `id` is the account's (a cursor check). */
export async function requestLogEntryOf(tx: Tx, accountId: string, id: number): Promise<boolean> {
  const row = await tx.selectFrom('request_log').select('id').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row !== undefined;
}

/** Retention: entries recorded before `before` (Unix seconds) go. Returns how many. */
export async function pruneRequestLog(tx: Tx, before: number): Promise<number> {
  const result = await tx.deleteFrom('request_log').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
