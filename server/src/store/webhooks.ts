import { sql } from 'kysely';
import { ID_PREFIX } from '@tawqi/shared';
import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import { claimRows } from './claims.js';
import { precompile } from './compiled.js';
import type { Tx } from './db.js';
import { dialectOf } from './dialect.js';
import type { Claim } from './types.js';
import type { EventRecord } from './events.js';
import { decodeRow, encodeRow, type Codec } from './rowCodec.js';

/**
 * Webhook endpoints, their deliveries and each delivery's attempts. A delivery is one event for one
 * endpoint; it is written in the event's transaction (the outbox) and moves pending → succeeded,
 * failed or canceled. Its attempts are a JSON array on the row (one UPDATE per attempt, no extra
 * B-tree). Only pending rows are in the due index (endpoint, time), so it stays as small as the
 * backlog and a claim seeks per endpoint instead of scanning past a dead endpoint's rows.
 *
 * A delivery in flight is leased (leased_until, lease_owner: the claim that took it), its
 * next_attempt_at moved to the lease's end, so it is not due while the lease lasts and is due again
 * when a process that held it died; an attempt's result is recorded only under the claim that took it.
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
  /** The start of the receiver's answer (RESPONSE_EXCERPT_BYTES at most, controls replaced); null when it gave none. */
  response_excerpt: string | null;
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
  /** Set while a dispatcher holds the delivery (an attempt in flight); a crash leaves it set until it ends. */
  leased_until: number | null;
  /** The claim holding the delivery (process and claim number); kept after a cancel, so the attempt in flight is still logged. */
  lease_owner: string | null;
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

/** A list of deliveries is an event's (GET /events/{id}/deliveries) or an endpoint's (the console's delivery log). */
export type DeliveryParent = { event_id: string } | { endpoint_id: string };

function byParent(parent: DeliveryParent): ['event_id' | 'endpoint_id', string] {
  return 'event_id' in parent ? ['event_id', parent.event_id] : ['endpoint_id', parent.endpoint_id];
}

export async function listDeliveries(
  tx: Tx,
  parent: DeliveryParent,
  q: { startingAfter?: string; limit: number },
): Promise<WebhookDelivery[]> {
  const [column, parentId] = byParent(parent);
  let query = tx.selectFrom('webhook_deliveries').selectAll().where(column, '=', parentId);
  if (q.startingAfter) query = query.where('id', '<', q.startingAfter);
  const rows = await query
    .orderBy('id', 'desc')
    .limit(q.limit + 1)
    .execute();
  return rows.map((r) => decodeRow(deliveryCodec, r));
}

/** Whether a delivery with this id is in the parent's list (a cursor check). */
export async function deliveryOf(tx: Tx, parent: DeliveryParent, id: string): Promise<boolean> {
  const [column, parentId] = byParent(parent);
  const row = await tx.selectFrom('webhook_deliveries').select('id').where('id', '=', id).where(column, '=', parentId).executeTakeFirst();
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

/**
 * Pick up to `limit` of one endpoint's due deliveries for `claim`, oldest first (an index range scan).
 *
 * PostgreSQL (several processes): the pick is the claim, one statement that locks due rows no other
 * transaction holds (`FOR UPDATE SKIP LOCKED`) and leases them, in the caller's lockingTx (READ
 * COMMITTED: two dispatchers seeking the same endpoint skip each other's rows instead of aborting).
 * SQLite (one process): a read; leasePicked then leases every pick of the claim in one UPDATE.
 */
export async function pickDue(tx: Tx, endpointId: string, claim: Claim, limit: number): Promise<string[]> {
  if (dialectOf(tx) === 'postgres') {
    const waiting = sql<boolean>`status = 'pending' AND endpoint_id = ${endpointId}`;
    const rows = await claimRows<{ id: string }>(
      tx,
      { table: 'webhook_deliveries', due: 'next_attempt_at' },
      waiting,
      ['id'],
      claim,
      limit,
    );
    return rows.map((r) => r.id);
  }
  const rows = await tx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where(PENDING)
    .where('endpoint_id', '=', endpointId)
    .where('next_attempt_at', '<=', claim.now)
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** SQLite: lease the deliveries picked for `claim` (they stop being due until the lease ends). PostgreSQL's picks are leased already. */
export async function leasePicked(tx: Tx, ids: readonly string[], claim: Claim): Promise<void> {
  if (ids.length === 0 || dialectOf(tx) === 'postgres') return;
  await tx
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: claim.until, leased_until: claim.until, lease_owner: claim.token })
    .where('id', 'in', ids)
    .execute();
}

/** A claimed delivery with everything its attempt needs: the event, the endpoint's address and secrets, the account's version pin. */
export interface DueDelivery {
  id: string;
  /** The claim holding it: its attempt is recorded only under this claim. */
  lease: string;
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
      'd.lease_owner',
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
    lease: r.lease_owner ?? '',
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

export interface AttemptResult {
  deliveryId: string;
  /** The claim the attempt was made under. */
  lease: string;
  entry: Omit<DeliveryAttempt, 'next_retry_at'>;
  /** succeeded, or pending with a retry time, or failed (retries exhausted). */
  outcome: { status: 'succeeded' } | { status: 'pending'; retryAt: number } | { status: 'failed' };
  now: number;
}

/** Rows per UPDATE when recording attempts (6 bound values each, well under SQLite's limit). */
const RECORD_CHUNK = 500;

/**
 * Record attempts and their outcome, one UPDATE … FROM (VALUES …) per chunk, each only where the
 * delivery is still held by the claim that made the attempt: a process whose lease ended (and
 * another took the delivery over) cannot overwrite the new holder's outcome. Returns the ids
 * recorded. A delivery canceled while its attempt was in flight stays canceled (the attempt is
 * still logged, with no retry). SET expressions see the row as it was before the update.
 *
 * The attempt is appended to the JSON text of the row's attempts, with its next_retry_at set from
 * the row's status: by SQLite's JSON functions, and on PostgreSQL by joining the same compact text
 * (JSON.stringify's, the entry ending in next_retry_at), so both engines store identical text.
 */
export async function recordAttempts(tx: Tx, results: readonly AttemptResult[]): Promise<Set<string>> {
  const postgres = dialectOf(tx) === 'postgres';
  const recorded = new Set<string>();
  for (let i = 0; i < results.length; i += RECORD_CHUNK) {
    const values = results.slice(i, i + RECORD_CHUNK).map((r) => {
      const retryAt = r.outcome.status === 'pending' ? r.outcome.retryAt : null;
      const entry = { ...r.entry } as Record<string, unknown>;
      delete entry.next_retry_at;
      const json = JSON.stringify({ ...entry, next_retry_at: null });
      if (!postgres) return sql`(${r.deliveryId}, ${r.outcome.status}, ${retryAt}, ${json}, ${r.now}, ${r.lease})`;
      // The entry without its final `null}`: the row's next_retry_at and the closing brace are added in SQL.
      const head = json.slice(0, -'null}'.length);
      return sql`(CAST(${r.deliveryId} AS TEXT), CAST(${r.outcome.status} AS TEXT), CAST(${retryAt} AS BIGINT), CAST(${head} AS TEXT), CAST(${r.now} AS BIGINT), CAST(${r.lease} AS TEXT))`;
    });
    // SQLite's RETURNING names columns of the updated table only, unqualified; PostgreSQL's must say which id.
    const returning = postgres ? sql`d.id` : sql`id`;
    const attempts = postgres
      ? sql`CASE WHEN d.attempts = '[]' THEN '[' ELSE left(d.attempts, -1) || ',' END || r.entry || coalesce(CAST(CASE WHEN d.status = 'pending' THEN r.retry_at END AS TEXT), 'null') || '}]'`
      : sql`json_insert(d.attempts, '$[#]', json_set(json(r.entry), '$.next_retry_at', CASE WHEN d.status = 'pending' THEN r.retry_at ELSE NULL END))`;
    const { rows } = await sql<{ id: string }>`
      WITH r(id, outcome, retry_at, entry, now, lease) AS (VALUES ${sql.join(values)})
      UPDATE webhook_deliveries AS d SET
        attempt_count = d.attempt_count + 1,
        status = CASE WHEN d.status = 'pending' THEN r.outcome ELSE d.status END,
        next_attempt_at = CASE WHEN d.status = 'pending' THEN r.retry_at ELSE NULL END,
        leased_until = NULL,
        lease_owner = NULL,
        attempts = ${attempts},
        updated_at = r.now
      FROM r
      WHERE d.id = r.id AND d.lease_owner = r.lease
      RETURNING ${returning}`.execute(tx);
    for (const row of rows) recorded.add(row.id);
  }
  return recorded;
}

/**
 * Start-up. SQLite: one process per database, so every lease found was held by this installation's
 * previous process (killed mid-attempt): those deliveries are due again at once. PostgreSQL: other
 * live processes may hold leases, so none is taken; a dead process's deliveries are due again when
 * their lease ends (next_attempt_at was moved there), like any other due delivery. Returns how many
 * were released.
 */
export async function releaseOrphanedLeases(tx: Tx, now: number): Promise<number> {
  if (dialectOf(tx) === 'postgres') return 0;
  const r = await tx
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now, leased_until: null, lease_owner: null })
    .where(PENDING)
    .where('leased_until', 'is not', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** A draining dispatcher gives back deliveries it holds whose results could not be written: due again at `now`. */
export async function releaseLeases(tx: Tx, now: number, held: readonly { id: string; lease: string }[]): Promise<number> {
  let released = 0;
  for (const lease of new Set(held.map((h) => h.lease))) {
    const r = await tx
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: now, leased_until: null, lease_owner: null })
      .where(PENDING)
      .where(
        'id',
        'in',
        held.filter((h) => h.lease === lease).map((h) => h.id),
      )
      .where('lease_owner', '=', lease)
      .executeTakeFirst();
    released += Number(r.numUpdatedRows);
  }
  return released;
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
