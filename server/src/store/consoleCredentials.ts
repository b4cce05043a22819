import type { Tx } from './db.js';
import { precompile } from './compiled.js';

/** A console user's internal credential for the public API (migration 16). Never the token: its SHA-256. */
export interface ConsoleCredential {
  id: string;
  token_hash: string;
  account_id: string;
  user_id: string;
  session_id: string | null;
  livemode: boolean;
  created_at: number;
  expires_at: number;
}

export async function insertCredential(tx: Tx, c: ConsoleCredential): Promise<void> {
  await tx
    .insertInto('console_credentials')
    .values({ ...c, livemode: c.livemode ? 1 : 0 })
    .execute();
}

/** A user's expired credentials are dead rows: removed when the user gets a new one (the table stays small). */
export async function purgeExpiredCredentials(tx: Tx, userId: string, now: number): Promise<void> {
  await tx.deleteFrom('console_credentials').where('user_id', '=', userId).where('expires_at', '<=', now).execute();
}

// Precompiled (compiled.ts): every API request made with a credential runs it.
const byHashQuery = precompile((db, $) => db.selectFrom('console_credentials').selectAll().where('token_hash', '=', $(0)));

export async function findCredentialByHash(tx: Tx, hash: string): Promise<ConsoleCredential | undefined> {
  const row = (await byHashQuery.run(tx, [hash])).rows[0];
  return row ? { ...row, livemode: row.livemode === 1 } : undefined;
}
