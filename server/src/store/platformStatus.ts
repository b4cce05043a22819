/**
 * What the operator's platform status reads from the database: the engine and its version, the
 * depths and oldest pending item of the job queue, the message outbox and the webhook deliveries,
 * and the last outcome of each message channel. The only dialect-specific statement (the version)
 * stays here.
 */
import { sql } from 'kysely';
import type { Store, Tx } from './types.js';

export async function databaseVersion(store: Store): Promise<string> {
  const query = store.dialect === 'postgres' ? sql<{ v: string }>`SHOW server_version` : sql<{ v: string }>`SELECT sqlite_version() AS v`;
  const { rows } = await query.execute(store.db);
  const row = rows[0] as Record<string, string> | undefined;
  return row ? String(row.v ?? row.server_version ?? Object.values(row)[0]) : 'unknown';
}

export interface QueueDepth {
  pending: number;
  /** created_at of the oldest pending item (Unix seconds), null when none. */
  oldest_created_at: number | null;
  failed: number;
}

const num = (v: unknown): number => Number(v ?? 0);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

type CountRow = { state: string; n: number | string; oldest: number | null };

/** Counts by state → the queue's depth: `pending` items with the oldest's age, `failed` ones given up. */
function depth(rows: CountRow[], pending: string): QueueDepth & { counts: Record<string, number> } {
  const counts = Object.fromEntries(rows.map((r) => [r.state, num(r.n)]));
  const oldest = rows.find((r) => r.state === pending)?.oldest;
  return { pending: counts[pending] ?? 0, oldest_created_at: numOrNull(oldest), failed: counts.failed ?? 0, counts };
}

export async function jobQueueDepth(tx: Tx): Promise<QueueDepth> {
  const rows = await tx
    .selectFrom('jobs')
    .select((eb) => ['state', eb.fn.countAll<number | string>().as('n'), eb.fn.min<number | null>('created_at').as('oldest')])
    .where('state', 'in', ['pending', 'failed'])
    .groupBy('state')
    .execute();
  const { counts: _counts, ...d } = depth(rows, 'pending');
  return d;
}

/** Queued messages (the outbox), held ones aside; failed ones were given up after their retries. */
export async function outboxDepth(tx: Tx): Promise<QueueDepth & { held: number }> {
  const rows = await tx
    .selectFrom('messages')
    .select((eb) => ['state', eb.fn.countAll<number | string>().as('n'), eb.fn.min<number | null>('created_at').as('oldest')])
    .where('state', 'in', ['queued', 'failed', 'held'])
    .groupBy('state')
    .execute();
  const { counts, ...d } = depth(rows, 'queued');
  return { ...d, held: counts.held ?? 0 };
}

export async function webhookQueueDepth(tx: Tx): Promise<QueueDepth> {
  const rows = await tx
    .selectFrom('webhook_deliveries')
    .select((eb) => [
      eb.ref('status').as('state'),
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.min<number | null>('created_at').as('oldest'),
    ])
    .where('status', 'in', ['pending', 'failed'])
    .groupBy('status')
    .execute();
  const { counts: _counts, ...d } = depth(rows, 'pending');
  return d;
}

export interface LastSend {
  state: string;
  at: number;
  attempts: number;
  /** The last failure's text (already scrubbed of secrets by the delivery code), null when none. */
  error: string | null;
}

/** The newest message of a channel that was sent, failed or retried: what the last delivery attempt did. */
export async function lastSend(tx: Tx, channel: 'email' | 'whatsapp'): Promise<LastSend | null> {
  const row = await tx
    .selectFrom('messages')
    .select(['state', 'created_at', 'sent_at', 'attempts', 'last_error'])
    .where('channel', '=', channel)
    .where((eb) => eb.or([eb('state', 'in', ['sent', 'failed']), eb('attempts', '>', 0)]))
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  return { state: row.state, at: row.sent_at ?? row.created_at, attempts: row.attempts, error: row.last_error };
}
