import { insertRow } from './compiled.js';
import type { Tx } from './db.js';

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
