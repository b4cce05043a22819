import type { Tx } from './db.js';
import type { RequestLogTable } from './schema.js';
import type { Insertable } from 'kysely';

/** Requests refused by a key's policy (IP allowlist, revoked key) are kept for the operator and the console. */
export async function logRefusedRequest(tx: Tx, entry: Insertable<RequestLogTable>): Promise<void> {
  await tx.insertInto('request_log').values(entry).execute();
}

/** An account's entries, newest first; `before` (an entry id) continues a previous page. */
export async function listRequestLog(tx: Tx, accountId: string, limit = 100, before?: number) {
  let q = tx.selectFrom('request_log').selectAll().where('account_id', '=', accountId);
  if (before !== undefined) q = q.where('id', '<', before);
  return q.orderBy('id', 'desc').limit(limit).execute();
}

/** Whether entry `id` is the account's (a cursor check). */
export async function requestLogEntryOf(tx: Tx, accountId: string, id: number): Promise<boolean> {
  const row = await tx.selectFrom('request_log').select('id').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row !== undefined;
}
