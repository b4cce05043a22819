import { sql } from 'kysely';
import { ID_PREFIX } from '@tawqi/shared';
import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import { precompile } from './compiled.js';
import type { Tx } from './db.js';
import { dialectOf } from './dialect.js';
import type { EventRecord } from './events.js';
import { decodeRow, encodeRow, type Codec } from './rowCodec.js';

/**
 * Webhook endpoints, their deliveries and each delivery's attempts. A delivery is one event for one
 * endpoint; it is written in the event's transaction (the outbox) and moves pending → succeeded,
 * failed or canceled. Its attempts are a JSON array on the row (one UPDATE per attempt, no extra
 * B-tree). Only pending rows are in the due index (endpoint, time), so it stays as small as the
 * backlog and a claim seeks per endpoint instead of scanning past a dead endpoint's rows.
 */

export type EndpointStatus = 'enabled' | 'disabled';

export interface WebhookEndpoint {
  id: string;
  account_id: string;
  livemode: boolean;
  url: string;
  description: string | null;
  enabled_events: string[];
  status: EndpointStatus;
  /** Signs every delivery; stored as issued, never returned after creation, erased on delete. */
  secret: string | null;
  /** The secret before the last rotation, still signing until previous_secret_expires_at. */
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  created_via: 'api' | 'cli';
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

const endpointCodec: Codec<WebhookEndpoint> = { json: ['enabled_events'], bool: ['livemode'] };

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';

export interface DeliveryAttempt {
  attempt: number;
  /** When the attempt started (Unix seconds, the server clock). */
  created_at: number;
  /** The receiver's HTTP status; null when it gave none (timeout, refused, TLS or address error). */
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  /** When the delivery is tried again after this attempt; null when it succeeded, gave up or was canceled. */
  next_retry_at: number | null;
}

export interface WebhookDelivery {
  id: string;
  event_id: string;
  endpoint_id: string;
  trigger: 'event' | 'redeliver';
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: number | null;
  /** Set while a dispatcher holds the delivery (an attempt in flight); a crash leaves it set and start-up releases it. */
  leased_until: number | null;
  attempts: DeliveryAttempt[];
  created_at: number;
  updated_at: number;
}

const deliveryCodec: Codec<WebhookDelivery> = { json: ['attempts'], bool: [] };

/** Shared ids have no delivery prefix: a time-ordered id with the body of the endpoint kind and its own prefix. */
export const DELIVERY_PREFIX = 'whd_';
export function newDeliveryId(clock: Clock): string {
  return DELIVERY_PREFIX + newId('webhookEndpoint', clock).slice(ID_PREFIX.webhookEndpoint.length);
}

/** Predicates written as literals, so SQLite can use the partial index (a bound parameter cannot prove `status = 'pending'`). */
const PENDING = sql<boolean>`status = 'pending'`;

// ---------------------------------------------------------------------------------------------
// Endpoints

export async function insertEndpoint(tx: Tx, e: WebhookEndpoint): Promise<void> {
  await tx
    .insertInto('webhook_endpoints')
    .values(encodeRow(endpointCodec, e) as never)
    .execute();
}

/** An endpoint that is not deleted, by id alone (the CLI). */
export async function getEndpoint(tx: Tx, id: string): Promise<WebhookEndpoint | undefined> {
  const row = await tx.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return row ? decodeRow(endpointCodec, row) : undefined;
}

/** An endpoint of the account in the key's mode that is not deleted (the API). */
export async function findEndpoint(tx: Tx, accountId: string, livemode: boolean, id: string): Promise<WebhookEndpoint | undefined> {
  const e = await getEndpoint(tx, id);
  return e && e.account_id === accountId && e.livemode === livemode ? e : undefined;
}

export async function listEndpoints(
  tx: Tx,
  q: { accountId: string; livemode?: boolean; startingAfter?: string; limit: number },
): Promise<WebhookEndpoint[]> {
  let query = tx.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', q.accountId).where('deleted_at', 'is', null);
  if (q.livemode !== undefined) query = query.where('livemode', '=', q.livemode ? 1 : 0);
  if (q.startingAfter) query = query.where('id', '<', q.startingAfter);
  const rows = await query
    .orderBy('id', 'desc')
    .limit(q.limit + 1)
    .execute();
  return rows.map((r) => decodeRow(endpointCodec, r));
}

export async function updateEndpoint(tx: Tx, id: string, changes: Partial<WebhookEndpoint>): Promise<void> {
  await tx
    .updateTable('webhook_endpoints')
    .set(encodeRow(endpointCodec, changes) as never)
    .where('id', '=', id)
    .execute();
}

/** The enabled endpoints an event of this account and mode may go to (fan-out reads this in the event's transaction). */
// Precompiled (compiled.ts): every event runs it (four per signature request sent).
const enabledQuery = precompile((db, $) =>
  db
    .selectFrom('webhook_endpoints')
    .select(['id', 'enabled_events'])
    .where('account_id', '=', $(0))
    .where('livemode', '=', $(1))
    .where('status', '=', 'enabled')
    .where('deleted_at', 'is', null),
);

export async function enabledEndpoints(
  tx: Tx,
  accountId: string,
  livemode: boolean,
): Promise<Pick<WebhookEndpoint, 'id' | 'enabled_events'>[]> {
  const { rows } = await enabledQuery.run(tx, [accountId, livemode ? 1 : 0]);
  return rows.map((r) => ({ id: r.id, enabled_events: JSON.parse(r.enabled_events) as string[] }));
}

// ---------------------------------------------------------------------------------------------
// Deliveries

let deliveriesWritten = 0;

/**
 * How many times deliveries have been inserted by this process (it only grows; a rolled-back
 * insert counts too). The dispatcher compares it after a commit: no change, nothing new to send.
 */
export function deliveryWrites(): number {
  return deliveriesWritten;
}

export async function insertDeliveries(tx: Tx, rows: readonly WebhookDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  deliveriesWritten++;
  await tx
    .insertInto('webhook_deliveries')
    .values(rows.map((d) => encodeRow(deliveryCodec, d) as never))
    .execute();
}

export async function listDeliveries(tx: Tx, eventId: string, q: { startingAfter?: string; limit: number }): Promise<WebhookDelivery[]> {
  let query = tx.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId);
  if (q.startingAfter) query = query.where('id', '<', q.startingAfter);
  const rows = await query
    .orderBy('id', 'desc')
    .limit(q.limit + 1)
    .execute();
  return rows.map((r) => decodeRow(deliveryCodec, r));
}

/** Whether a delivery with this id belongs to this event (a cursor check). */
export async function deliveryOfEvent(tx: Tx, eventId: string, id: string): Promise<boolean> {
  const row = await tx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('id', '=', id)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Cancel an endpoint's pending deliveries (disabled or deleted): they are never sent. Returns how many. */
export async function cancelPendingDeliveries(tx: Tx, endpointId: string, now: number): Promise<number> {
  const r = await tx
    .updateTable('webhook_deliveries')
    .set({ status: 'canceled', next_attempt_at: null, leased_until: null, updated_at: now })
    .where(PENDING)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * When each enabled endpoint's earliest pending delivery is due (null: none pending). One index
 * seek per endpoint (the due index leads with endpoint_id), whatever the size of any backlog;
 * only enabled endpoints can have pending deliveries (disable and delete cancel them).
 */
export async function nextDueByEndpoint(tx: Tx): Promise<{ endpoint_id: string; next_due: number | null }[]> {
  return tx
    .selectFrom('webhook_endpoints as w')
    .select((eb) => [
      'w.id as endpoint_id',
      eb
        .selectFrom('webhook_deliveries as d')
        .select('d.next_attempt_at')
        .where(sql<boolean>`d.status = 'pending'`)
        .whereRef('d.endpoint_id', '=', 'w.id')
        .orderBy('d.next_attempt_at')
        .limit(1)
        .as('next_due'),
    ])
    .where('w.status', '=', 'enabled')
    .where('w.deleted_at', 'is', null)
    .execute();
}

/** One endpoint's due deliveries, oldest first (an index range scan). */
export async function dueForEndpoint(tx: Tx, endpointId: string, now: number, limit: number): Promise<string[]> {
  const rows = await tx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where(PENDING)
    .where('endpoint_id', '=', endpointId)
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** A claimed delivery with everything its attempt needs: the event, the endpoint's address and secrets, the account's version pin. */
export interface DueDelivery {
  id: string;
  endpoint_id: string;
  attempt_count: number;
  event: EventRecord;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  version_pin: string | null;
}

export async function deliveriesToSend(tx: Tx, ids: readonly string[]): Promise<DueDelivery[]> {
  if (ids.length === 0) return [];
  const rows = await tx
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .innerJoin('accounts as a', 'a.id', 'w.account_id')
    .select([
      'd.id',
      'd.endpoint_id',
      'd.attempt_count',
      'e.id as event_id',
      'e.account_id as event_account_id',
      'e.livemode as event_livemode',
      'e.type as event_type',
      'e.signature_request_id as event_signature_request_id',
      'e.data as event_data',
      'e.request_info as event_request_info',
      'e.created_at as event_created_at',
      'w.url',
      'w.secret',
      'w.previous_secret',
      'w.previous_secret_expires_at',
      'a.version_pin',
    ])
    .where('d.id', 'in', ids)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    endpoint_id: r.endpoint_id,
    attempt_count: r.attempt_count,
    // The same decoding as store/events.ts, so the body is exactly what GET /events/{id} returns.
    event: {
      id: r.event_id,
      account_id: r.event_account_id,
      livemode: r.event_livemode === 1,
      type: r.event_type,
      signature_request_id: r.event_signature_request_id,
      data: JSON.parse(r.event_data) as EventRecord['data'],
      request_info: r.event_request_info === null ? null : (JSON.parse(r.event_request_info) as EventRecord['request_info']),
      created_at: r.event_created_at,
    },
    url: r.url,
    secret: r.secret ?? '',
    previous_secret: r.previous_secret,
    previous_secret_expires_at: r.previous_secret_expires_at,
    version_pin: r.version_pin,
  }));
}

/** Take deliveries for an attempt: they stop being due until the lease ends (or start-up releases it). */
export async function leaseDeliveries(tx: Tx, ids: readonly string[], until: number): Promise<void> {
  if (ids.length === 0) return;
  await tx.updateTable('webhook_deliveries').set({ next_attempt_at: until, leased_until: until }).where('id', 'in', ids).execute();
}

export interface AttemptResult {
  deliveryId: string;
  entry: Omit<DeliveryAttempt, 'next_retry_at'>;
  /** succeeded, or pending with a retry time, or failed (retries exhausted). */
  outcome: { status: 'succeeded' } | { status: 'pending'; retryAt: number } | { status: 'failed' };
  now: number;
}

/** Rows per UPDATE when recording attempts (5 bound values each, well under SQLite's limit). */
const RECORD_CHUNK = 500;

/**
 * Record attempts and their outcome, one UPDATE … FROM (VALUES …) per chunk. A delivery canceled
 * while its attempt was in flight stays canceled (the attempt is still logged, with no retry).
 * SET expressions see the row as it was before the update.
 *
 * The attempt is appended to the JSON text of the row's attempts, with its next_retry_at set from
 * the row's status: by SQLite's JSON functions, and on PostgreSQL by joining the same compact text
 * (JSON.stringify's, the entry ending in next_retry_at), so both engines store identical text.
 */
export async function recordAttempts(tx: Tx, results: readonly AttemptResult[]): Promise<void> {
  const postgres = dialectOf(tx) === 'postgres';
  for (let i = 0; i < results.length; i += RECORD_CHUNK) {
    const values = results.slice(i, i + RECORD_CHUNK).map((r) => {
      const retryAt = r.outcome.status === 'pending' ? r.outcome.retryAt : null;
      const entry = { ...r.entry } as Record<string, unknown>;
      delete entry.next_retry_at;
      const json = JSON.stringify({ ...entry, next_retry_at: null });
      if (!postgres) return sql`(${r.deliveryId}, ${r.outcome.status}, ${retryAt}, ${json}, ${r.now})`;
      // The entry without its final `null}`: the row's next_retry_at and the closing brace are added in SQL.
      const head = json.slice(0, -'null}'.length);
      return sql`(CAST(${r.deliveryId} AS TEXT), CAST(${r.outcome.status} AS TEXT), CAST(${retryAt} AS BIGINT), CAST(${head} AS TEXT), CAST(${r.now} AS BIGINT))`;
    });
    const attempts = postgres
      ? sql`CASE WHEN d.attempts = '[]' THEN '[' ELSE left(d.attempts, -1) || ',' END || r.entry || coalesce(CAST(CASE WHEN d.status = 'pending' THEN r.retry_at END AS TEXT), 'null') || '}]'`
      : sql`json_insert(d.attempts, '$[#]', json_set(json(r.entry), '$.next_retry_at', CASE WHEN d.status = 'pending' THEN r.retry_at ELSE NULL END))`;
    await sql`
      WITH r(id, outcome, retry_at, entry, now) AS (VALUES ${sql.join(values)})
      UPDATE webhook_deliveries AS d SET
        attempt_count = d.attempt_count + 1,
        status = CASE WHEN d.status = 'pending' THEN r.outcome ELSE d.status END,
        next_attempt_at = CASE WHEN d.status = 'pending' THEN r.retry_at ELSE NULL END,
        leased_until = NULL,
        attempts = ${attempts},
        updated_at = r.now
      FROM r
      WHERE d.id = r.id`.execute(tx);
  }
}

/**
 * Start-up: deliveries leased by a process that is gone (killed mid-attempt) are due again at once.
 * One server process per database (as for idempotency claims), so every lease found is stale.
 * With `ids` (a draining dispatcher's own leases whose results could not be written): only those.
 */
export async function releaseLeases(tx: Tx, now: number, ids?: readonly string[]): Promise<number> {
  if (ids?.length === 0) return 0;
  let update = tx
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now, leased_until: null })
    .where(PENDING)
    .where('leased_until', 'is not', null);
  if (ids) update = update.where('id', 'in', ids);
  const r = await update.executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Counts by status, for the CLI and the benchmark. */
export async function deliveryCounts(tx: Tx): Promise<Record<DeliveryStatus, number>> {
  const rows = await tx
    .selectFrom('webhook_deliveries')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  const counts: Record<DeliveryStatus, number> = { pending: 0, succeeded: 0, failed: 0, canceled: 0 };
  for (const r of rows) counts[r.status as DeliveryStatus] = Number(r.n);
  return counts;
}
