import { sql, type Selectable } from 'kysely';
import { insertRow, precompile } from './compiled.js';
import type { Tx } from './db.js';
import type { MessagesTable } from './schema.js';

export type MessageRow = Selectable<MessagesTable>;

/** What decides a queued message's delivery (its content is read only when it leaves). */
export type MessageEnvelope = Pick<MessageRow, 'id' | 'account_id' | 'livemode' | 'channel' | 'kind' | 'state' | 'attempts'>;

export interface OutgoingMessage {
  account_id: string;
  livemode: boolean;
  channel: 'email' | 'whatsapp';
  recipient: string;
  kind: 'invitation' | 'reminder' | 'otp' | 'final_copy' | 'notice';
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
  const row = { ...m, livemode: m.livemode ? 1 : 0, sent_at: null, state: hold ? 'held' : 'queued', deliver_at: hold ? null : deliverAt };
  const result = await insertRow(tx, 'messages', row, 'id');
  return result.rows[0]!.id as number;
}

export async function messagesFor(tx: Tx, signatureRequestId: string) {
  return tx.selectFrom('messages').selectAll().where('signature_request_id', '=', signatureRequestId).orderBy('id').execute();
}

// Precompiled (compiled.ts): every delivery reads its due messages and records where each went.
const getQuery = precompile((db, $) => db.selectFrom('messages').selectAll().where('id', '=', $(0)));
// 'queued' is written into the SQL, not bound: only then can SQLite use the partial index messages_due.
const dueQuery = precompile((db, $) =>
  db
    .selectFrom('messages')
    .select(['id', 'account_id', 'livemode', 'channel', 'kind', 'state', 'attempts'])
    .where('state', '=', sql.lit('queued'))
    .where('deliver_at', '<=', $(0))
    .orderBy('deliver_at')
    .orderBy('id')
    .limit($(1)),
);
/** The due query's SQL (tests check that SQLite plans it on messages_due). */
export const DUE_MESSAGES_SQL = dueQuery.sql;
const holdQuery = precompile((db, $) =>
  db.updateTable('messages').set({ state: 'held', deliver_at: null }).where('id', '=', $(0)).where('state', '=', 'queued'),
);
const sentQuery = precompile((db, $) =>
  db
    .updateTable('messages')
    .set({ state: 'sent', sent_at: $(1), deliver_at: null })
    .where('id', '=', $(0))
    .where('state', '=', 'queued'),
);
const sentScrubbedQuery = precompile((db, $) =>
  db
    .updateTable('messages')
    .set({ state: 'sent', sent_at: $(1), deliver_at: null, body: $(2), html: null, blocks: null, template: null })
    .where('id', '=', $(0))
    .where('state', '=', 'queued'),
);

export async function getMessage(tx: Tx, id: number): Promise<MessageRow | undefined> {
  return (await getQuery.run(tx, [id])).rows[0];
}

/** The envelopes of queued messages due at `now`, oldest first (the partial index messages_due holds only queued ones). */
export async function dueMessages(tx: Tx, now: number, limit: number): Promise<MessageEnvelope[]> {
  return (await dueQuery.run(tx, [now, limit])).rows;
}

/** A queued message kept in the database instead of sent ('held': no transport for its channel). */
export async function holdMessage(tx: Tx, id: number): Promise<void> {
  await holdQuery.run(tx, [id]);
}

/** A queued message handed to its transport. */
export async function markMessageSent(tx: Tx, id: number, sentAt: number): Promise<void> {
  await sentQuery.run(tx, [id, sentAt]);
}

/** A queued message handed to its transport whose content is not kept (one-time codes): `note` replaces its body, its other parts are dropped. */
export async function markMessageSentScrubbed(tx: Tx, id: number, sentAt: number, note: string): Promise<void> {
  await sentScrubbedQuery.run(tx, [id, sentAt, note]);
}

/** A failed attempt: due again at `retryAt`, or 'failed' for good. */
export async function retryMessage(tx: Tx, id: number, retryAt: number, error: string, giveUp: boolean): Promise<void> {
  await tx
    .updateTable('messages')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      last_error: error.slice(0, 500),
      deliver_at: giveUp ? null : retryAt,
      state: giveUp ? 'failed' : 'queued',
    }))
    .where('id', '=', id)
    .where('state', '=', 'queued')
    .execute();
}
