import { sql } from 'kysely';
import { claimRows } from './claims.js';
import { precompile } from './compiled.js';
import type { Tx } from './db.js';
import type { Claim, Store } from './types.js';

export interface JobRecord {
  id: number;
  kind: string;
  /** When the job was due (before a claim moved it to the lease's end). */
  run_at: number;
  payload: Record<string, unknown>;
  attempts: number;
  /** The claim holding the job (PostgreSQL), or null (SQLite: one process, no lease). */
  lease_owner: string | null;
}

/**
 * The durable jobs table. Taking due jobs differs by engine, here and nowhere else:
 *
 * - SQLite (one process per database, one runner in it): a plain read of the due jobs, as fast as
 *   before leases existed; nothing is written until a job's outcome.
 * - PostgreSQL (several processes may share the database): a claim. One statement in a READ
 *   COMMITTED transaction locks the oldest due jobs no other transaction has locked
 *   (`FOR UPDATE SKIP LOCKED`) and leases them: their run_at moves to the lease's end (so they
 *   stop being due, and the due index needs no extra column) and lease_owner names the claim. A
 *   process that dies holding a lease loses it when the lease ends: the job is due again and
 *   another runner claims it.
 *
 * Every outcome (done, retry, release) is written only while the job is pending under the claim
 * that took it (`lease_owner`, null on SQLite), so a runner whose lease ran out and was taken over
 * changes nothing.
 */

/** Schedule a job in the caller's transaction. A dedupe key makes scheduling the same job twice a no-op. */
// Precompiled (compiled.ts): every create schedules jobs and every job is marked done.
const scheduleQuery = precompile((db, $) =>
  db
    .insertInto('jobs')
    .values({ kind: $(0), run_at: $(1), payload: $(2), dedupe_key: $(3), last_error: null, created_at: $(4) })
    .onConflict((oc) => oc.column('dedupe_key').doNothing()),
);
const dueQuery = precompile((db, $) =>
  db
    .selectFrom('jobs')
    .select(['id', 'kind', 'run_at', 'payload', 'attempts', 'lease_owner'])
    .where('state', '=', 'pending')
    .where('run_at', '<=', $(0))
    .orderBy('run_at')
    .orderBy('id')
    .limit($(1)),
);
/** The job is still pending under this claim ('' for none): coalesce makes one query serve both. */
const HELD = sql<string>`coalesce(lease_owner, '')`;
const finishQuery = precompile((db, $) =>
  db
    .updateTable('jobs')
    .set({ state: 'done', dedupe_key: null, lease_owner: null, leased_until: null })
    .where('id', '=', $(0))
    .where('state', '=', 'pending')
    .where(HELD, '=', $(1)),
);

export async function scheduleJob(
  tx: Tx,
  kind: string,
  runAt: number,
  payload: Record<string, unknown>,
  now: number,
  dedupeKey: string | null = null,
): Promise<void> {
  await scheduleQuery.run(tx, [kind, runAt, JSON.stringify(payload), dedupeKey, now]);
}

/** The jobs due at `now`, oldest first (SQLite: a read; tests and the CLI). */
export async function dueJobs(tx: Tx, now: number, limit: number): Promise<JobRecord[]> {
  const { rows } = await dueQuery.run(tx, [now, limit]);
  return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, unknown> }));
}

/** Take up to `limit` due jobs for `claim`, oldest first (see above: a read on SQLite, a leased claim on PostgreSQL). */
export async function claimDueJobs(store: Store, claim: Claim, limit: number): Promise<JobRecord[]> {
  if (store.dialect === 'sqlite') return dueJobs(store.db, claim.now, limit);
  const rows = await store.lockingTx((trx) =>
    claimRows<Omit<JobRecord, 'payload' | 'run_at'> & { payload: string }>(
      trx,
      { table: 'jobs', due: 'run_at' },
      sql<boolean>`state = 'pending'`,
      ['id', 'kind', 'payload', 'attempts', 'lease_owner'],
      claim,
      limit,
    ),
  );
  return rows.map(({ due_at, ...r }) => ({ ...r, run_at: due_at, payload: JSON.parse(r.payload) as Record<string, unknown> }));
}

/** Mark a job done, if it is still pending under `lease` (the claim that took it; null on SQLite). Returns whether it was. */
export async function finishJob(tx: Tx, id: number, lease: string | null): Promise<boolean> {
  const r = await finishQuery.run(tx, [id, lease ?? '']);
  return Number(r.numAffectedRows ?? 0) > 0;
}

/** A failed attempt of a job still pending under `lease`: due again at `runAt`, or 'failed' for good. */
export async function retryJob(
  tx: Tx,
  job: Pick<JobRecord, 'id' | 'lease_owner'>,
  runAt: number,
  error: string,
  giveUp: boolean,
): Promise<void> {
  await tx
    .updateTable('jobs')
    .set((eb) => ({
      run_at: runAt,
      last_error: error.slice(0, 500),
      attempts: eb('attempts', '+', 1),
      state: giveUp ? 'failed' : 'pending',
      lease_owner: null,
      leased_until: null,
    }))
    .where('id', '=', job.id)
    .where('state', '=', 'pending')
    .where(HELD, '=', job.lease_owner ?? '')
    .execute();
}

/**
 * Give back jobs a claim took but did not start (a draining runner, or a lease too far gone to
 * start them): due again at `now`, for any runner. Jobs without a lease (SQLite) need nothing.
 */
export async function releaseJobs(store: Store, jobs: readonly JobRecord[], now: number): Promise<void> {
  const leased = jobs.filter((j) => j.lease_owner !== null);
  if (leased.length === 0) return;
  await store.lockingTx(async (trx) => {
    for (const lease of new Set(leased.map((j) => j.lease_owner!))) {
      const ids = leased.filter((j) => j.lease_owner === lease).map((j) => j.id);
      await trx
        .updateTable('jobs')
        .set({ run_at: now, lease_owner: null, leased_until: null })
        .where('id', 'in', ids)
        .where('state', '=', 'pending')
        .where('lease_owner', '=', lease)
        .execute();
    }
  });
}

export async function nextJobTime(tx: Tx): Promise<number | null> {
  const row = await tx
    .selectFrom('jobs')
    .select((eb) => eb.fn.min('run_at').as('t'))
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return (row?.t as number | null) ?? null;
}
