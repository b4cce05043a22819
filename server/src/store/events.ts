import { sql } from 'kysely';
import { insertRecord, insertRecords } from './compiled.js';
import type { Tx } from './db.js';
import { decodeRow, type Codec } from './rowCodec.js';

export interface EventRecord {
  id: string;
  account_id: string;
  livemode: boolean;
  type: string;
  signature_request_id: string | null;
  data: { object: Record<string, unknown> };
  request_info: { ip: string | null; user_agent: string | null } | null;
  created_at: number;
}

const codec: Codec<EventRecord> = { json: ['data', 'request_info'], bool: ['livemode'] };

export async function insertEvent(tx: Tx, e: EventRecord): Promise<void> {
  await insertRecord(tx, 'events', codec, e);
}

/** Several events in order: one statement on PostgreSQL (compiled.ts insertRecords). */
export async function insertEvents(tx: Tx, events: readonly EventRecord[]): Promise<void> {
  await insertRecords(tx, 'events', codec, events);
}

export async function findEvent(tx: Tx, accountId: string, livemode: boolean, id: string): Promise<EventRecord | undefined> {
  const row = await tx
    .selectFrom('events')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('livemode', '=', livemode ? 1 : 0)
    .executeTakeFirst();
  return row ? decodeRow(codec, row) : undefined;
}

export interface EventListQuery {
  accountId: string;
  livemode: boolean;
  type?: string;
  signatureRequestId?: string;
  createdAfter?: number;
  createdBefore?: number;
  startingAfter?: string;
  limit: number;
}

export async function listEvents(tx: Tx, q: EventListQuery): Promise<EventRecord[]> {
  const rows = await eventListQuery(tx, q).execute();
  return rows.map((r) => decodeRow(codec, r));
}

/**
 * The SELECT of listEvents, newest first, one row more than the page (tests read its plan). With a
 * signature request it reads that request's events by the events_request index (migration 21)
 * instead of every event of the account: the seal's audit trail asks for them on every completion.
 */
export function eventListQuery(tx: Tx, q: EventListQuery) {
  let query = tx
    .selectFrom('events')
    .selectAll()
    .where('account_id', '=', q.accountId)
    .where('livemode', '=', q.livemode ? 1 : 0);
  if (q.type) {
    const prefix = q.type.slice(0, -1);
    // A prefix like `signer.*` is compared literally (LIKE would treat `_` as a wildcard).
    query = q.type.endsWith('.*')
      ? query.where(sql<boolean>`substr(type, 1, ${prefix.length}) = ${prefix}`)
      : query.where('type', '=', q.type);
  }
  if (q.signatureRequestId) query = query.where('signature_request_id', '=', q.signatureRequestId);
  if (q.createdAfter !== undefined) query = query.where('created_at', '>=', q.createdAfter);
  if (q.createdBefore !== undefined) query = query.where('created_at', '<=', q.createdBefore);
  if (q.startingAfter) query = query.where('id', '<', q.startingAfter);
  return query.orderBy('id', 'desc').limit(q.limit + 1);
}
