import type { Tx } from './db.js';

export interface JobRecord {
  id: number;
  kind: string;
  run_at: number;
  payload: Record<string, unknown>;
  attempts: number;
}

/** Schedule a job in the caller's transaction. A dedupe key makes scheduling the same job twice a no-op. */
export async function scheduleJob(tx: Tx, kind: string, runAt: number, payload: Record<string, unknown>, now: number, dedupeKey: string | null = null): Promise<void> {
  await tx
    .insertInto('jobs')
    .values({ kind, run_at: runAt, payload: JSON.stringify(payload), dedupe_key: dedupeKey, last_error: null, created_at: now })
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .execute();
}

export async function dueJobs(tx: Tx, now: number, limit: number): Promise<JobRecord[]> {
  const rows = await tx.selectFrom('jobs').select(['id', 'kind', 'run_at', 'payload', 'attempts']).where('state', '=', 'pending').where('run_at', '<=', now).orderBy('run_at').orderBy('id').limit(limit).execute();
  return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, unknown> }));
}

export async function finishJob(tx: Tx, id: number): Promise<void> {
  await tx.updateTable('jobs').set({ state: 'done', dedupe_key: null }).where('id', '=', id).execute();
}

export async function retryJob(tx: Tx, id: number, runAt: number, error: string, giveUp: boolean): Promise<void> {
  await tx
    .updateTable('jobs')
    .set((eb) => ({ run_at: runAt, last_error: error.slice(0, 500), attempts: eb('attempts', '+', 1), state: giveUp ? 'failed' : 'pending' }))
    .where('id', '=', id)
    .execute();
}

export async function nextJobTime(tx: Tx): Promise<number | null> {
  const row = await tx.selectFrom('jobs').select((eb) => eb.fn.min('run_at').as('t')).where('state', '=', 'pending').executeTakeFirst();
  return (row?.t as number | null) ?? null;
}
