import type { Tx } from './db.js';
import type { PageSessionsTable, SigningSessionsTable } from './schema.js';
import type { Selectable } from 'kysely';

export type PageSession = Selectable<PageSessionsTable>;
export type SigningSession = Selectable<SigningSessionsTable>;

export async function insertPageSession(tx: Tx, s: Omit<PageSession, 'access_granted'>): Promise<void> {
  await tx.insertInto('page_sessions').values(s).execute();
}

export async function findPageSession(tx: Tx, tokenHash: string): Promise<PageSession | undefined> {
  return tx.selectFrom('page_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function grantAccess(tx: Tx, tokenHash: string): Promise<void> {
  await tx.updateTable('page_sessions').set({ access_granted: 1 }).where('token_hash', '=', tokenHash).execute();
}

/** End every page session and signing session of a signer (after signing or declining). */
export async function endSignerSessions(tx: Tx, signerId: string, now: number): Promise<void> {
  await tx
    .updateTable('page_sessions')
    .set({ revoked_at: now })
    .where('signer_id', '=', signerId)
    .where('revoked_at', 'is', null)
    .execute();
  await tx
    .updateTable('signing_sessions')
    .set({ invalidated_at: now })
    .where('signer_id', '=', signerId)
    .where('invalidated_at', 'is', null)
    .execute();
}

export async function insertSigningSession(tx: Tx, s: SigningSession): Promise<void> {
  await tx.insertInto('signing_sessions').values(s).execute();
}

export async function findSigningSession(tx: Tx, id: string): Promise<SigningSession | undefined> {
  return tx.selectFrom('signing_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Pin an embedded session's frame origin unless one is pinned already; returns the pinned origin. */
export async function pinSigningSessionOrigin(tx: Tx, id: string, origin: string): Promise<string | null> {
  await tx.updateTable('signing_sessions').set({ embed_origin: origin }).where('id', '=', id).where('embed_origin', 'is', null).execute();
  const row = await tx.selectFrom('signing_sessions').select('embed_origin').where('id', '=', id).executeTakeFirst();
  return row?.embed_origin ?? null;
}
