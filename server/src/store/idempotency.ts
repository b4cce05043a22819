import { precompile } from './compiled.js';
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

// Precompiled (compiled.ts): every POST with a key looks it up, and every write stores its response.
const findQuery = precompile((db, $) =>
  db
    .selectFrom('idempotency')
    .select(['method', 'path', 'state', 'response_status', 'response_body', 'created_at'])
    .where('account_id', '=', $(0))
    .where('mode', '=', $(1))
    .where('idem_key', '=', $(2)),
);
const completeQuery = precompile((db, $) =>
  db
    .insertInto('idempotency')
    .values({
      account_id: $(0),
      mode: $(1),
      idem_key: $(2),
      method: $(3),
      path: $(4),
      state: 'done',
      response_status: $(5),
      response_body: $(6),
      created_at: $(7),
    })
    .onConflict((oc) => oc.doNothing()),
);

export async function findIdempotency(tx: Tx, s: IdempotencyScope): Promise<IdempotencyRecord | undefined> {
  const { rows } = await findQuery.run(tx, [s.accountId, s.mode, s.key]);
  return rows[0] as IdempotencyRecord | undefined;
}

/** A key claimed by a request of this process: the scope, and what its stored response will say. */
export interface IdempotencyClaim extends IdempotencyScope {
  method: string;
  path: string;
  /** When the key was claimed (Unix seconds): the 24 hours run from here. */
  createdAt: number;
}

/**
 * Record the response in the same transaction as the effect it describes: nothing committed,
 * nothing to replay. False when the key already has a record, which only a concurrent request with
 * the same key can have written since the claim (the caller then undoes its effect).
 */
export async function completeIdempotency(tx: Tx, c: IdempotencyClaim, status: number, body: string): Promise<boolean> {
  const result = await completeQuery.run(tx, [c.accountId, c.mode, c.key, c.method, c.path, status, body, c.createdAt]);
  return Number(result.numAffectedRows ?? 0n) === 1;
}

export async function deleteIdempotency(tx: Tx, s: IdempotencyScope): Promise<void> {
  await tx
    .deleteFrom('idempotency')
    .where('account_id', '=', s.accountId)
    .where('mode', '=', s.mode)
    .where('idem_key', '=', s.key)
    .execute();
}

/**
 * A session's stored idempotent response, replaced once its outcome is known (201 stored with the
 * creation; 502 delivery_failed when no invitation arrived), in the transaction that records that outcome.
 */
export async function replaceStoredResponse(tx: Tx, s: IdempotencyScope, status: number, body: string): Promise<void> {
  await tx
    .updateTable('idempotency')
    .set({ response_status: status, response_body: body })
    .where('account_id', '=', s.accountId)
    .where('mode', '=', s.mode)
    .where('idem_key', '=', s.key)
    .execute();
}

/**
 * At start, expired records are dropped, and so are 'in_progress' rows: claims live in the
 * server's memory (http/middleware/idempotency.ts) and only earlier versions wrote such rows; a
 * process that died mid-request committed nothing for its key (the response is stored in the
 * effect's own transaction), so its retry runs anew.
 */
export async function resetIdempotency(tx: Tx, expiredBefore: number): Promise<void> {
  await tx
    .deleteFrom('idempotency')
    .where((eb) => eb.or([eb('state', '=', 'in_progress'), eb('created_at', '<', expiredBefore)]))
    .execute();
}
