import { precompile } from './compiled.js';
import type { Tx } from './db.js';
import { dialectOf } from './dialect.js';

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

/** A key claimed by a request (idempotencyClaims.ts): the scope, and what its stored response will say. */
export interface IdempotencyClaim extends IdempotencyScope {
  method: string;
  path: string;
  /** When the key was claimed (Unix seconds): the 24 hours run from here. */
  createdAt: number;
  /** PostgreSQL: the token of this request's claim row. Null on SQLite: the claim is in the server's memory. */
  token: string | null;
  /**
   * Keep holding the key once the response is stored, until the claim is released: POST /sessions
   * stores its 201 with the creation, then delivers, and may replace it with a 502.
   */
  holdUntilRelease?: boolean;
  /** Set by the caller once the transaction storing the response committed: a release has nothing to undo. */
  stored?: boolean;
}

// PostgreSQL: the claim row becomes the stored response, only while it is still this request's
// claim (its lease may have passed and another process taken the key over). Held: the token and
// lease stay, so other processes keep answering 409 until the release.
const completeClaim = (held: boolean) =>
  precompile((db, $) =>
    db
      .updateTable('idempotency')
      .set({
        state: 'done',
        response_status: $(4),
        response_body: $(5),
        ...(held ? {} : { claim_token: null, lease_until: null }),
      })
      .where('account_id', '=', $(0))
      .where('mode', '=', $(1))
      .where('idem_key', '=', $(2))
      .where('claim_token', '=', $(3))
      .where('state', '=', 'in_progress'),
  );
const completeClaimQuery = completeClaim(false);
const completeHeldClaimQuery = completeClaim(true);

/**
 * Record the response in the same transaction as the effect it describes: nothing committed,
 * nothing to replay. False when the key is no longer this request's (the caller then undoes its
 * effect): on SQLite a record written since the claim, which only a concurrent request with the
 * same key can have written; on PostgreSQL a claim taken over after its lease passed.
 */
export async function completeIdempotency(tx: Tx, c: IdempotencyClaim, status: number, body: string): Promise<boolean> {
  const result =
    c.token === null
      ? await completeQuery.run(tx, [c.accountId, c.mode, c.key, c.method, c.path, status, body, c.createdAt])
      : await (c.holdUntilRelease ? completeHeldClaimQuery : completeClaimQuery).run(tx, [
          c.accountId,
          c.mode,
          c.key,
          c.token,
          status,
          body,
        ]);
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
 * At start, expired records are dropped, and so are 'in_progress' rows no process holds any more.
 * SQLite: claims live in the server's memory (idempotencyClaims.ts) and only earlier versions wrote
 * such rows; a process that died mid-request committed nothing for its key (the response is stored
 * in the effect's own transaction), so its retry runs anew. PostgreSQL: other processes may hold
 * claims right now, so only claims whose lease passed (and lease-less rows of no live process) go.
 */
export async function resetIdempotency(tx: Tx, expiredBefore: number, now: number): Promise<void> {
  const postgres = dialectOf(tx) === 'postgres';
  await tx
    .deleteFrom('idempotency')
    .where((eb) =>
      eb.or([
        eb('created_at', '<', expiredBefore),
        postgres
          ? eb.and([eb('state', '=', 'in_progress'), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)])])
          : eb('state', '=', 'in_progress'),
      ]),
    )
    .execute();
}
