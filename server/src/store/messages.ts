import { sql, type Selectable } from 'kysely';
import { claimRows } from './claims.js';
import { dialectOf } from './dialect.js';
import { insertRecords, insertRow, precompile } from './compiled.js';
import type { Tx } from './db.js';
import type { MessagesTable } from './schema.js';
import type { Claim, Store } from './types.js';

export type MessageRow = Selectable<MessagesTable>;

/**
 * What decides a queued message's delivery (its content is read only when it leaves), and the claim
 * holding it (`lease_owner`: PostgreSQL's outbox claims; null on SQLite and for a message sent at
 * once by a session). Its outcome is recorded only while that claim still holds it.
 */
export type MessageEnvelope = Pick<
  MessageRow,
  'id' | 'account_id' | 'livemode' | 'channel' | 'kind' | 'state' | 'attempts' | 'lease_owner'
>;

export interface OutgoingMessage {
  account_id: string;
  livemode: boolean;
  channel: 'email' | 'whatsapp';
  recipient: string;
  /** console_invitation, password_reset, security_notice: the console's own emails (delivery/consoleMessages.ts). */
  kind: 'invitation' | 'reminder' | 'otp' | 'final_copy' | 'notice' | 'console_invitation' | 'password_reset' | 'security_notice';
  subject: string;
  body: string;
  /** Email: the blocks the HTML part is built from at delivery (JSON, delivery/messages.ts); null for text-only messages. */
  blocks?: string | null;
  /** WhatsApp: the template message as JSON; null for email. */
  template?: string | null;
  /** Language of the message, for what delivery adds (footer); the column defaults to 'ar'. */
  language?: 'ar' | 'en';
  signature_request_id: string | null;
  signer_id: string | null;
  created_at: number;
}

/**
 * Queue a message in the caller's transaction and return its id. The row is its own delivery
 * queue entry: it is due at `deliverAt` (the delivery runner sends it after commit). A message
 * queued with `hold: true` is kept, not sent ('held': past the test email limit).
 */
export async function queueMessage(tx: Tx, m: OutgoingMessage, deliverAt: number, hold = false): Promise<number> {
  const result = await insertRow(tx, 'messages', messageRow({ message: m, deliverAt, hold }), 'id');
  return result.rows[0]!.id as number;
}

/** A message to queue: what queueMessage takes. */
export interface QueuedMessage {
  message: OutgoingMessage;
  deliverAt: number;
  hold: boolean;
}

/** Queue several messages (a create's invitations): one statement on PostgreSQL (compiled.ts insertRecords). */
export async function queueMessages(tx: Tx, messages: readonly QueuedMessage[]): Promise<void> {
  await insertRecords(tx, 'messages', null, messages.map(messageRow));
}

function messageRow({ message: m, deliverAt, hold }: QueuedMessage): Record<string, unknown> {
  return { ...m, livemode: m.livemode ? 1 : 0, sent_at: null, state: hold ? 'held' : 'queued', deliver_at: hold ? null : deliverAt };
}

/**
 * A request's invitations still queued (a new session delivers them at once), by the
 * messages_request index (migration 21), not by a walk of every message (tests read its plan).
 */
export function queuedInvitationsQuery(tx: Tx, signatureRequestId: string) {
  return tx
    .selectFrom('messages')
    .selectAll()
    .where('signature_request_id', '=', signatureRequestId)
    .where('kind', '=', 'invitation')
    .where('state', '=', 'queued')
    .orderBy('id');
}

// Precompiled (compiled.ts): every delivery reads its due messages and records where each went.
const getQuery = precompile((db, $) => db.selectFrom('messages').selectAll().where('id', '=', $(0)));
// 'queued' is written into the SQL, not bound: only then can SQLite use the partial index messages_due.
const dueQuery = precompile((db, $) =>
  db
    .selectFrom('messages')
    .select(['id', 'account_id', 'livemode', 'channel', 'kind', 'state', 'attempts', 'lease_owner'])
    .where('state', '=', sql.lit('queued'))
    .where('deliver_at', '<=', $(0))
    .orderBy('deliver_at')
    .orderBy('id')
    .limit($(1)),
);
/** The due query's SQL (tests check that SQLite plans it on messages_due). */
export const DUE_MESSAGES_SQL = dueQuery.sql;
/** The message is still queued under this claim ('' for none): coalesce makes one query serve both. */
const HELD = sql<string>`coalesce(lease_owner, '')`;
const NO_LEASE = { lease_owner: null, leased_until: null } as const;
const holdQuery = precompile((db, $) =>
  db
    .updateTable('messages')
    .set({ state: 'held', deliver_at: null, ...NO_LEASE })
    .where('id', '=', $(0))
    .where('state', '=', 'queued')
    .where(HELD, '=', $(1)),
);
const sentQuery = precompile((db, $) =>
  db
    .updateTable('messages')
    .set({ state: 'sent', sent_at: $(1), deliver_at: null, ...NO_LEASE })
    .where('id', '=', $(0))
    .where('state', '=', 'queued')
    .where(HELD, '=', $(2)),
);
const sentScrubbedQuery = precompile((db, $) =>
  db
    .updateTable('messages')
    .set({ state: 'sent', sent_at: $(1), deliver_at: null, body: $(2), html: null, blocks: null, template: null, ...NO_LEASE })
    .where('id', '=', $(0))
    .where('state', '=', 'queued')
    .where(HELD, '=', $(3)),
);

/**
 * A delivery attempt's outcome, to record under the claim that took the message (`lease`: its
 * lease_owner, null when it was not claimed): held (no transport for its channel) or sent at
 * `sentAt`, with `note` replacing the content of a message that is not kept (one-time codes).
 */
export type MessageOutcome = { id: number; lease: string | null } & ({ state: 'held' } | { state: 'sent'; sentAt: number; note?: string });

// PostgreSQL: a batch's held and sent outcomes in one UPDATE each (the outbox records up to a whole
// claim at once): one round trip instead of one per message. Guarded as the single-row queries are.
const holdManyQuery = precompile(
  (_db, $) => sql`
    UPDATE messages SET state = 'held', deliver_at = NULL, lease_owner = NULL, leased_until = NULL
    FROM unnest(CAST(${$(0)} AS BIGINT[]), CAST(${$(1)} AS TEXT[])) AS v(id, lease)
    WHERE messages.id = v.id AND messages.state = 'queued' AND coalesce(messages.lease_owner, '') = v.lease`,
);
const sentManyQuery = precompile(
  (_db, $) => sql`
    UPDATE messages SET state = 'sent', sent_at = v.sent_at, deliver_at = NULL, lease_owner = NULL, leased_until = NULL
    FROM unnest(CAST(${$(0)} AS BIGINT[]), CAST(${$(1)} AS BIGINT[]), CAST(${$(2)} AS TEXT[])) AS v(id, sent_at, lease)
    WHERE messages.id = v.id AND messages.state = 'queued' AND coalesce(messages.lease_owner, '') = v.lease`,
);

/** Record one outcome; false when the message was no longer queued under its claim. */
export async function recordMessageOutcome(tx: Tx, o: MessageOutcome): Promise<boolean> {
  if (o.state === 'held') return holdMessage(tx, o.id, o.lease);
  if (o.note === undefined) return markMessageSent(tx, o.id, o.sentAt, o.lease);
  return markMessageSentScrubbed(tx, o.id, o.sentAt, o.note, o.lease);
}

/**
 * Record a batch of outcomes in the caller's transaction. PostgreSQL: the held ones in one UPDATE,
 * the plain sent ones in another; SQLite (a statement is a function call there) and scrubbed
 * messages one by one.
 */
export async function recordMessageOutcomes(tx: Tx, outcomes: readonly MessageOutcome[]): Promise<void> {
  if (dialectOf(tx) === 'sqlite' || outcomes.length === 1) {
    for (const o of outcomes) await recordMessageOutcome(tx, o);
    return;
  }
  const held = outcomes.filter((o) => o.state === 'held');
  const sent = outcomes.filter((o): o is Extract<MessageOutcome, { state: 'sent' }> => o.state === 'sent' && o.note === undefined);
  if (held.length > 0) await holdManyQuery.run(tx, [held.map((o) => o.id), held.map((o) => o.lease ?? '')]);
  if (sent.length > 0) await sentManyQuery.run(tx, [sent.map((o) => o.id), sent.map((o) => o.sentAt), sent.map((o) => o.lease ?? '')]);
  for (const o of outcomes) if (o.state === 'sent' && o.note !== undefined) await recordMessageOutcome(tx, o);
}

export async function getMessage(tx: Tx, id: number): Promise<MessageRow | undefined> {
  return (await getQuery.run(tx, [id])).rows[0];
}

/** The envelopes of queued messages due at `now`, oldest first (the partial index messages_due holds only queued ones). */
export async function dueMessages(tx: Tx, now: number, limit: number): Promise<MessageEnvelope[]> {
  return (await dueQuery.run(tx, [now, limit])).rows;
}

/**
 * Take up to `limit` due messages for `claim`, oldest first. As for jobs (store/jobs.ts): on SQLite
 * (one process) a plain read of the partial index; on PostgreSQL one READ COMMITTED statement that
 * locks due rows no one else holds (`FOR UPDATE SKIP LOCKED`), moves their deliver_at to the lease's
 * end and names the claim in lease_owner. A dead process's messages are due again when its lease ends.
 */
export async function claimDueMessages(store: Store, claim: Claim, limit: number): Promise<MessageEnvelope[]> {
  if (store.dialect === 'sqlite') return dueMessages(store.db, claim.now, limit);
  const rows = await store.lockingTx((trx) =>
    claimRows<MessageEnvelope>(
      trx,
      { table: 'messages', due: 'deliver_at' },
      sql<boolean>`state = 'queued'`,
      ['id', 'account_id', 'livemode', 'channel', 'kind', 'state', 'attempts', 'lease_owner'],
      claim,
      limit,
    ),
  );
  return rows.map(({ due_at: _due, ...envelope }) => envelope);
}

/**
 * Give back messages a claim took but did not try (a draining runner, or a lease too far gone to
 * start them): due again at `now`. Messages without a lease (SQLite) need nothing.
 */
export async function releaseMessages(store: Store, messages: readonly MessageEnvelope[], now: number): Promise<void> {
  const leased = messages.filter((m) => m.lease_owner !== null);
  if (leased.length === 0) return;
  await store.lockingTx(async (trx) => {
    for (const lease of new Set(leased.map((m) => m.lease_owner!))) {
      await trx
        .updateTable('messages')
        .set({ deliver_at: now, ...NO_LEASE })
        .where(
          'id',
          'in',
          leased.filter((m) => m.lease_owner === lease).map((m) => m.id),
        )
        .where('state', '=', 'queued')
        .where('lease_owner', '=', lease)
        .execute();
    }
  });
}

const changed = (r: { numAffectedRows?: bigint }): boolean => Number(r.numAffectedRows ?? 0) > 0;

/**
 * The outcomes of a delivery attempt below are written only while the message is queued under
 * `lease` (the claim that took it; null when it was not claimed), and say whether they were: a
 * process whose lease ran out and was taken over cannot overwrite the new holder's outcome.
 */

/** A queued message kept in the database instead of sent ('held': no transport for its channel). */
export async function holdMessage(tx: Tx, id: number, lease: string | null): Promise<boolean> {
  return changed(await holdQuery.run(tx, [id, lease ?? '']));
}

/** A queued message handed to its transport. */
export async function markMessageSent(tx: Tx, id: number, sentAt: number, lease: string | null): Promise<boolean> {
  return changed(await sentQuery.run(tx, [id, sentAt, lease ?? '']));
}

/** A queued message handed to its transport whose content is not kept (one-time codes): `note` replaces its body, its other parts are dropped. */
export async function markMessageSentScrubbed(tx: Tx, id: number, sentAt: number, note: string, lease: string | null): Promise<boolean> {
  return changed(await sentScrubbedQuery.run(tx, [id, sentAt, note, lease ?? '']));
}

/** A failed attempt: due again at `retryAt`, or 'failed' for good. */
export async function retryMessage(
  tx: Tx,
  message: Pick<MessageEnvelope, 'id' | 'lease_owner'>,
  retryAt: number,
  error: string,
  giveUp: boolean,
): Promise<boolean> {
  const r = await tx
    .updateTable('messages')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      last_error: error.slice(0, 500),
      deliver_at: giveUp ? null : retryAt,
      state: giveUp ? 'failed' : 'queued',
      ...NO_LEASE,
    }))
    .where('id', '=', message.id)
    .where('state', '=', 'queued')
    .where(HELD, '=', message.lease_owner ?? '')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
