import type { Tx } from './db.js';
import { precompile } from './compiled.js';
import type { ConsoleSession } from './consoleSessions.js';
import type { ConsoleUser } from './consoleUsers.js';

/** A console user's internal credential for the public API (migration 16). Never the token: its SHA-256. */
export interface ConsoleCredential {
  id: string;
  token_hash: string;
  account_id: string;
  user_id: string;
  session_id: string;
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

/** A credential with what decides whether it still works: its user and its console session. */
export interface CredentialWithOwner {
  credential: ConsoleCredential;
  user: Pick<ConsoleUser, 'role' | 'status' | 'account_id' | 'email'>;
  session: Pick<ConsoleSession, 'stage' | 'expires_at' | 'last_seen_at'>;
}

// Precompiled (compiled.ts): every API request made with a credential runs it. One lookup by the
// token's digest; the user and session by their primary keys. No row: unknown, or its session ended.
const byHashQuery = precompile((db, $) =>
  db
    .selectFrom('console_credentials as c')
    .innerJoin('console_users as u', 'u.id', 'c.user_id')
    .innerJoin('console_sessions as s', 's.id', 'c.session_id')
    .select([
      'c.id',
      'c.token_hash',
      'c.account_id',
      'c.user_id',
      'c.session_id',
      'c.livemode',
      'c.created_at',
      'c.expires_at',
      'u.role',
      'u.status',
      'u.account_id as user_account_id',
      'u.email',
      's.stage',
      's.expires_at as session_expires_at',
      's.last_seen_at',
    ])
    .where('c.token_hash', '=', $(0)),
);

export async function findCredentialByHash(tx: Tx, hash: string): Promise<CredentialWithOwner | undefined> {
  const r = (await byHashQuery.run(tx, [hash])).rows[0];
  if (!r) return undefined;
  return {
    credential: {
      id: r.id,
      token_hash: r.token_hash,
      account_id: r.account_id,
      user_id: r.user_id,
      session_id: r.session_id,
      livemode: r.livemode === 1,
      created_at: r.created_at,
      expires_at: r.expires_at,
    },
    user: { role: r.role, status: r.status, account_id: r.user_account_id, email: r.email },
    session: { stage: r.stage, expires_at: r.session_expires_at, last_seen_at: r.last_seen_at },
  };
}
