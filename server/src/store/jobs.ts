import { precompile } from './compiled.js';
import type { Tx } from './db.js';

export interface JobRecord {
  id: number;
  kind: string;
  run_at: number;
  payload: Record<string, unknown>;
  attempts: number;
}

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
    .select(['id', 'kind', 'run_at', 'payload', 'attempts'])
    .where('state', '=', 'pending')
    .where('run_at', '<=', $(0))
    .orderBy('run_at')
    .orderBy('id')
    .limit($(1)),
);
const finishQuery = precompile((db, $) => db.updateTable('jobs').set({ state: 'done', dedupe_key: null }).where('id', '=', $(0)));

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

export async function dueJobs(tx: Tx, now: number, limit: number): Promise<JobRecord[]> {
  const { rows } = await dueQuery.run(tx, [now, limit]);
  return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, unknown> }));
}

export async function finishJob(tx: Tx, id: number): Promise<void> {
  await finishQuery.run(tx, [id]);
}

export async function retryJob(tx: Tx, id: number, runAt: number, error: string, giveUp: boolean): Promise<void> {
  await tx
    .updateTable('jobs')
    .set((eb) => ({
      run_at: runAt,
      last_error: error.slice(0, 500),
      attempts: eb('attempts', '+', 1),
      state: giveUp ? 'failed' : 'pending',
    }))
    .where('id', '=', id)
    .execute();
}

export async function nextJobTime(tx: Tx): Promise<number | null> {
  const row = await tx
    .selectFrom('jobs')
    .select((eb) => eb.fn.min('run_at').as('t'))
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return (row?.t as number | null) ?? null;
}
