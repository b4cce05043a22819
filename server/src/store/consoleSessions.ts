import type { Selectable } from 'kysely';
import type { ConsoleSessionsTable } from './schema.js';
import type { Tx } from './types.js';

/** Console sessions (migration 15), by the SHA-256 of the cookie's token. */
export type ConsoleSession = Selectable<ConsoleSessionsTable>;

export async function insertConsoleSession(tx: Tx, session: ConsoleSession): Promise<void> {
  await tx.insertInto('console_sessions').values(session).execute();
}

export async function getConsoleSession(tx: Tx, id: string): Promise<ConsoleSession | undefined> {
  return tx.selectFrom('console_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Record activity: only moves last_seen_at forward (two requests of one browser may race). */
export async function touchConsoleSession(tx: Tx, id: string, now: number): Promise<void> {
  await tx.updateTable('console_sessions').set({ last_seen_at: now }).where('id', '=', id).where('last_seen_at', '<', now).execute();
}

export async function deleteConsoleSession(tx: Tx, id: string): Promise<void> {
  await tx.deleteFrom('console_sessions').where('id', '=', id).execute();
}

/** End every session of a user but `keep` (the one asking, or none); returns how many ended. */
export async function deleteUserSessions(tx: Tx, userId: string, keep: string | null = null): Promise<number> {
  let q = tx.deleteFrom('console_sessions').where('user_id', '=', userId);
  if (keep !== null) q = q.where('id', '!=', keep);
  const r = await q.executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Drop sessions past their absolute end or idle for longer than `idleSeconds` (run on sign-in, so the table stays small). */
export async function deleteEndedSessions(tx: Tx, now: number, idleSeconds: number): Promise<void> {
  await tx
    .deleteFrom('console_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', now - idleSeconds)]))
    .execute();
}
