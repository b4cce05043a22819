import type { Tx } from './db.js';
import type { RequestLogTable } from './schema.js';
import type { Insertable } from 'kysely';

/** Requests refused by a key's policy (IP allowlist, revoked key) are kept for the operator. */
export async function logRefusedRequest(tx: Tx, entry: Insertable<RequestLogTable>): Promise<void> {
  await tx.insertInto('request_log').values(entry).execute();
}

export async function listRequestLog(tx: Tx, accountId: string, limit = 100) {
  return tx.selectFrom('request_log').selectAll().where('account_id', '=', accountId).orderBy('id', 'desc').limit(limit).execute();
}
