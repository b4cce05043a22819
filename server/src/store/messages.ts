import type { Selectable } from 'kysely';
import { insertRow, precompile } from './compiled.js';
import type { Tx } from './db.js';
import type { MessagesTable } from './schema.js';

export interface OutgoingMessage {
  account_id: string;
  livemode: boolean;
  channel: 'email' | 'whatsapp';
  recipient: string;
  kind: 'invitation' | 'reminder' | 'otp' | 'final_copy' | 'notice';
  subject: string;
  body: string;
  /** The HTML part (email), with the same tokens as the text part; null for text-only messages. */
  html?: string | null;
  /** Language of the message, for what delivery adds (footer); the column defaults to 'ar'. */
  language?: 'ar' | 'en';
  signature_request_id: string | null;
  signer_id: string | null;
  created_at: number;
}

/** Queue a message in the caller's transaction; the delivery job sends it after commit. Returns its id. */
export async function queueMessage(tx: Tx, m: OutgoingMessage): Promise<number> {
  const result = await insertRow(tx, 'messages', { ...m, livemode: m.livemode ? 1 : 0, sent_at: null }, 'id');
  return result.rows[0]!.id as number;
}

export async function messagesFor(tx: Tx, signatureRequestId: string) {
  return tx.selectFrom('messages').selectAll().where('signature_request_id', '=', signatureRequestId).orderBy('id').execute();
}

// Precompiled (compiled.ts): every delivery job reads its message and records where it went.
const getQuery = precompile((db, $) => db.selectFrom('messages').selectAll().where('id', '=', $(0)));
const holdQuery = precompile((db, $) => db.updateTable('messages').set({ state: 'held' }).where('id', '=', $(0)).where('state', '=', 'queued'));

export async function getMessage(tx: Tx, id: number): Promise<Selectable<MessagesTable> | undefined> {
  return (await getQuery.run(tx, [id])).rows[0];
}

/** A queued message kept in the database instead of sent ('held': no transport for its channel). */
export async function holdMessage(tx: Tx, id: number): Promise<void> {
  await holdQuery.run(tx, [id]);
}
