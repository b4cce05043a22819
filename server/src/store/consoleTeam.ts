import type { Tx } from './types.js';

/**
 * What team management needs beyond single rows (store/consoleUsers.ts, consoleSecrets.ts): how
 * many owners an account keeps, and removing a user with everything that hangs off them.
 */

/** The active owners of an account (the last one can be neither removed nor demoted). */
export async function countActiveOwners(tx: Tx, accountId: string): Promise<number> {
  const r = await tx
    .selectFrom('console_users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .where('status', '=', 'active')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Remove a user: their sessions (signed out at once), recovery codes and emailed links go with
 * them; the audit log keeps their email as the actor of what they did. The email is free again
 * (another invitation may bring it back).
 */
export async function deleteConsoleUser(tx: Tx, userId: string): Promise<void> {
  await tx.deleteFrom('console_sessions').where('user_id', '=', userId).execute();
  await tx.deleteFrom('console_recovery_codes').where('user_id', '=', userId).execute();
  await tx.deleteFrom('console_tokens').where('user_id', '=', userId).execute();
  await tx.deleteFrom('console_users').where('id', '=', userId).execute();
}
