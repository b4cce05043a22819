import type { Selectable, Updateable } from 'kysely';
import type { ConsoleUsersTable } from './schema.js';
import type { Tx } from './types.js';

/** Console users (migration 15): members of an account and operators. Emails are stored lower-cased. */
export type ConsoleUser = Selectable<ConsoleUsersTable>;
export type ConsoleUserChanges = Omit<Updateable<ConsoleUsersTable>, 'id' | 'created_at'>;

export async function insertConsoleUser(tx: Tx, user: ConsoleUser): Promise<void> {
  await tx.insertInto('console_users').values(user).execute();
}

export async function getConsoleUser(tx: Tx, id: string): Promise<ConsoleUser | undefined> {
  return tx.selectFrom('console_users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findConsoleUserByEmail(tx: Tx, email: string): Promise<ConsoleUser | undefined> {
  return tx.selectFrom('console_users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

/** The users of an account, oldest first. */
export async function listConsoleUsers(tx: Tx, accountId: string): Promise<ConsoleUser[]> {
  return tx.selectFrom('console_users').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

export async function updateConsoleUser(tx: Tx, id: string, changes: ConsoleUserChanges): Promise<void> {
  await tx.updateTable('console_users').set(changes).where('id', '=', id).execute();
}

/**
 * Take the TOTP step `step` for the user: true when it is newer than the last one taken (one
 * guarded statement, so two requests with the same code cannot both pass).
 */
export async function takeTotpStep(tx: Tx, id: string, step: number): Promise<boolean> {
  const r = await tx
    .updateTable('console_users')
    .set({ totp_last_step: step })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
