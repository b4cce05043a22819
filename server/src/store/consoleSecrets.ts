import type { Selectable } from 'kysely';
import type { ConsoleRecoveryCodesTable, ConsoleTokensTable } from './schema.js';
import type { Tx } from './types.js';

/** The single-use secrets of console users (migration 15): recovery codes and emailed tokens, stored hashed. */
export type ConsoleRecoveryCode = Selectable<ConsoleRecoveryCodesTable>;
export type ConsoleToken = Selectable<ConsoleTokensTable>;

/** Replace a user's recovery codes with `hashes` (a new set invalidates the old one). */
export async function replaceRecoveryCodes(tx: Tx, userId: string, hashes: readonly string[]): Promise<void> {
  await tx.deleteFrom('console_recovery_codes').where('user_id', '=', userId).execute();
  if (hashes.length === 0) return;
  await tx
    .insertInto('console_recovery_codes')
    .values(hashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: null })))
    .execute();
}

/** Spend one unused recovery code: true when this call used it (a second use, or a race, gets false). */
export async function useRecoveryCode(tx: Tx, userId: string, codeHash: string, now: number): Promise<boolean> {
  const r = await tx
    .updateTable('console_recovery_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function countUnusedRecoveryCodes(tx: Tx, userId: string): Promise<number> {
  const r = await tx
    .selectFrom('console_recovery_codes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function insertConsoleToken(tx: Tx, token: ConsoleToken): Promise<void> {
  await tx.insertInto('console_tokens').values(token).execute();
}

export async function getConsoleToken(tx: Tx, id: string): Promise<ConsoleToken | undefined> {
  return tx.selectFrom('console_tokens').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Spend a token: true when this call used it, unexpired and unused. */
export async function useConsoleToken(tx: Tx, id: string, now: number): Promise<boolean> {
  const r = await tx
    .updateTable('console_tokens')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Void a user's unused tokens of `kind` (a new reset link replaces the previous one). */
export async function voidConsoleTokens(tx: Tx, userId: string, kind: ConsoleToken['kind'], now: number): Promise<void> {
  await tx
    .updateTable('console_tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .execute();
}
