import type { Tx } from './db.js';

export interface IdempotencyRecord {
  method: string;
  path: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_body: string | null;
  created_at: number;
}

export interface IdempotencyScope {
  accountId: string;
  mode: string;
  key: string;
}

export async function findIdempotency(tx: Tx, s: IdempotencyScope): Promise<IdempotencyRecord | undefined> {
  return tx
    .selectFrom('idempotency')
    .select(['method', 'path', 'state', 'response_status', 'response_body', 'created_at'])
    .where('account_id', '=', s.accountId)
    .where('mode', '=', s.mode)
    .where('idem_key', '=', s.key)
    .executeTakeFirst();
}

/** Claim the key for this request; false when another request holds it already. */
export async function claimIdempotency(tx: Tx, s: IdempotencyScope, method: string, path: string, now: number): Promise<boolean> {
  const result = await tx
    .insertInto('idempotency')
    .values({ account_id: s.accountId, mode: s.mode, idem_key: s.key, method, path, state: 'in_progress', response_status: null, response_body: null, created_at: now })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Record the response in the same transaction as the effect it describes. */
export async function completeIdempotency(tx: Tx, s: IdempotencyScope, status: number, body: string): Promise<void> {
  await tx
    .updateTable('idempotency')
    .set({ state: 'done', response_status: status, response_body: body })
    .where('account_id', '=', s.accountId)
    .where('mode', '=', s.mode)
    .where('idem_key', '=', s.key)
    .execute();
}

/** Release a claim whose request committed nothing, so a retry runs again. */
export async function releaseIdempotency(tx: Tx, s: IdempotencyScope): Promise<void> {
  await tx
    .deleteFrom('idempotency')
    .where('account_id', '=', s.accountId)
    .where('mode', '=', s.mode)
    .where('idem_key', '=', s.key)
    .where('state', '=', 'in_progress')
    .execute();
}

export async function deleteIdempotency(tx: Tx, s: IdempotencyScope): Promise<void> {
  await tx.deleteFrom('idempotency').where('account_id', '=', s.accountId).where('mode', '=', s.mode).where('idem_key', '=', s.key).execute();
}

/**
 * At start, claims left by a process that died mid-request committed nothing (the response is
 * stored in the effect's own transaction), so they are released. Expired records are dropped.
 */
export async function resetIdempotency(tx: Tx, expiredBefore: number): Promise<void> {
  await tx.deleteFrom('idempotency').where((eb) => eb.or([eb('state', '=', 'in_progress'), eb('created_at', '<', expiredBefore)])).execute();
}
