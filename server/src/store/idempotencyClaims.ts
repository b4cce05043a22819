import { randomUUID } from 'node:crypto';
import { precompile } from './compiled.js';
import { deleteIdempotency, findIdempotency, type IdempotencyClaim, type IdempotencyScope } from './idempotency.js';
import type { Db, Store } from './types.js';

/**
 * Claiming an Idempotency-Key before its request runs, so that a concurrent request with the same
 * key waits (409) instead of running the effect a second time. The response itself is stored in
 * the effect's own transaction (completeIdempotency); where the claim lives depends on the engine:
 * - SQLite: one server process owns the database (DESIGN §6), so the claim is a Set entry in its
 *   memory — no database write; a process that dies takes its claims with it.
 * - PostgreSQL: N processes share the database, so the claim is an 'in_progress' row written by
 *   one autocommit statement before the handler runs, with a token and a lease. The effect's
 *   transaction turns that row (only while it still carries the token) into the stored response;
 *   a failure deletes it; a claim whose lease passed (its process died) is taken over.
 */
export interface ClaimRequest extends IdempotencyScope {
  method: string;
  path: string;
  /** Unix seconds (the injected clock). */
  now: number;
}

export type ClaimOutcome =
  | { kind: 'claimed'; claim: IdempotencyClaim }
  /** Another request holds the key: 409 idempotency_in_progress. */
  | { kind: 'in_progress' }
  /** The key's stored response is for another method or path: 409 idempotency_key_reused. */
  | { kind: 'reused' }
  | { kind: 'replay'; status: number; body: string };

export interface IdempotencyClaims {
  claim(request: ClaimRequest): Promise<ClaimOutcome>;
  /** When the request's response is done (or the client left): free the key unless its response was stored. */
  release(claim: IdempotencyClaim): void | Promise<void>;
}

export interface ClaimOptions {
  /** How long a stored response is replayed (24 hours). */
  ttlSeconds: number;
  /** PostgreSQL: how long a claim holds before another process may take it over. */
  leaseSeconds: number;
}

/** The claims of this store's engine. */
export function idempotencyClaims(store: Store, options: ClaimOptions): IdempotencyClaims {
  return store.dialect === 'postgres' ? new DatabaseClaims(store.db, options) : new ProcessClaims(store.db, options.ttlSeconds);
}

const IN_PROGRESS: ClaimOutcome = { kind: 'in_progress' };
const REUSED: ClaimOutcome = { kind: 'reused' };

/** Header values cannot hold a line feed, so it separates the parts unambiguously. */
const processKey = (s: IdempotencyScope): string => `${s.accountId}\n${s.mode}\n${s.key}`;

/** SQLite: the keys of requests in flight in this process. */
class ProcessClaims implements IdempotencyClaims {
  private readonly held = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly ttlSeconds: number,
  ) {}

  async claim(r: ClaimRequest): Promise<ClaimOutcome> {
    const id = processKey(r);
    // Claimed before the lookup (no await between the check and the claim): a request that finds
    // no claim either finds the stored response of an earlier one or is the only one running.
    if (this.held.has(id)) return IN_PROGRESS;
    this.held.add(id);
    try {
      const existing = await findIdempotency(this.db, r);
      if (existing && existing.created_at <= r.now - this.ttlSeconds) {
        await deleteIdempotency(this.db, r);
      } else if (existing) {
        this.held.delete(id);
        if (existing.path !== r.path || existing.method !== r.method) return REUSED;
        // Only a version that kept claims in the database wrote 'in_progress' rows (reset at start).
        if (existing.state === 'in_progress') return IN_PROGRESS;
        return { kind: 'replay', status: existing.response_status!, body: existing.response_body! };
      }
    } catch (err) {
      this.held.delete(id);
      throw err;
    }
    return { kind: 'claimed', claim: claimOf(r, null) };
  }

  release(claim: IdempotencyClaim): void {
    this.held.delete(processKey(claim));
  }
}

function claimOf(r: ClaimRequest, token: string | null): IdempotencyClaim {
  return { accountId: r.accountId, mode: r.mode, key: r.key, method: r.method, path: r.path, createdAt: r.now, token };
}

// The claim: a fresh row, or the row of a key nobody holds any more — a stored response past its
// 24 hours, or a claim whose lease passed. One atomic statement: of processes racing for a key,
// exactly one gets a row back. (A row that stays is still locked for the statement's instant.)
const claimQuery = precompile((db, $) =>
  db
    .insertInto('idempotency')
    .values({
      account_id: $(0),
      mode: $(1),
      idem_key: $(2),
      method: $(3),
      path: $(4),
      state: 'in_progress',
      response_status: null,
      response_body: null,
      created_at: $(5),
      claim_token: $(6),
      lease_until: $(7),
    })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'mode', 'idem_key'])
        .doUpdateSet((eb) => ({
          method: eb.ref('excluded.method'),
          path: eb.ref('excluded.path'),
          state: 'in_progress',
          response_status: null,
          response_body: null,
          created_at: eb.ref('excluded.created_at'),
          claim_token: eb.ref('excluded.claim_token'),
          lease_until: eb.ref('excluded.lease_until'),
        }))
        .where((eb) =>
          eb.or([
            eb('idempotency.created_at', '<=', $(8)),
            eb.and([eb('idempotency.state', '=', 'in_progress'), eb('idempotency.lease_until', '<=', $(5))]),
          ]),
        ),
    )
    .returning('claim_token'),
);
const findClaimQuery = precompile((db, $) =>
  db
    .selectFrom('idempotency')
    .select(['method', 'path', 'state', 'response_status', 'response_body', 'claim_token', 'lease_until'])
    .where('account_id', '=', $(0))
    .where('mode', '=', $(1))
    .where('idem_key', '=', $(2)),
);
const releaseQuery = precompile((db, $) =>
  db
    .deleteFrom('idempotency')
    .where('account_id', '=', $(0))
    .where('mode', '=', $(1))
    .where('idem_key', '=', $(2))
    .where('claim_token', '=', $(3))
    .where('state', '=', 'in_progress'),
);
const unholdQuery = precompile((db, $) =>
  db
    .updateTable('idempotency')
    .set({ claim_token: null, lease_until: null })
    .where('account_id', '=', $(0))
    .where('mode', '=', $(1))
    .where('idem_key', '=', $(2))
    .where('claim_token', '=', $(3)),
);

/**
 * PostgreSQL: claims are rows, written and released by autocommit statements on the store's pool
 * (never inside a serializable store.tx: one round trip, no serialization failure to retry).
 */
class DatabaseClaims implements IdempotencyClaims {
  constructor(
    private readonly db: Db,
    private readonly options: ClaimOptions,
  ) {}

  async claim(r: ClaimRequest): Promise<ClaimOutcome> {
    const token = randomUUID();
    const leaseUntil = r.now + this.options.leaseSeconds;
    const expiredAt = r.now - this.options.ttlSeconds;
    // Twice at most: a row found by the claim may be gone by the look that follows (its holder failed).
    for (let attempt = 0; attempt < 2; attempt++) {
      const taken = await claimQuery.run(this.db, [r.accountId, r.mode, r.key, r.method, r.path, r.now, token, leaseUntil, expiredAt]);
      if (taken.rows.length > 0) return { kind: 'claimed', claim: claimOf(r, token) };
      const { rows } = await findClaimQuery.run(this.db, [r.accountId, r.mode, r.key]);
      const existing = rows[0];
      if (!existing) continue;
      // Held: running, or a stored response its request still holds (a session delivering).
      const held = existing.state === 'in_progress' || (existing.claim_token !== null && (existing.lease_until ?? 0) > r.now);
      if (held) return IN_PROGRESS;
      if (existing.path !== r.path || existing.method !== r.method) return REUSED;
      return { kind: 'replay', status: existing.response_status!, body: existing.response_body! };
    }
    return IN_PROGRESS;
  }

  async release(claim: IdempotencyClaim): Promise<void> {
    const args = [claim.accountId, claim.mode, claim.key, claim.token];
    // Nothing stored: the claim row goes (only while it is still this request's and in progress).
    if (!claim.stored) await releaseQuery.run(this.db, args);
    else if (claim.holdUntilRelease) await unholdQuery.run(this.db, args);
  }
}
