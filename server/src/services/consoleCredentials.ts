import { nowSeconds, type Clock } from '../clock.js';
import { generateConsoleCredential, type CredentialAccess } from '../domain/consoleCredentials.js';
import { hashSecret } from '../domain/keys.js';
import { newId } from '../ids.js';
import { findCredentialByHash, insertCredential, purgeExpiredCredentials, type ConsoleCredential } from '../store/consoleCredentials.js';
import type { Db, Store } from '../store/db.js';

export interface CredentialRequest {
  accountId: string;
  userId: string;
  role: string;
  livemode: boolean;
  /** The console session it is issued in: signing out (or everywhere) ends the credential with it. */
  sessionId: string | null;
  /** Its life (TAWQI_CONSOLE_CREDENTIAL_SECONDS). */
  ttlSeconds: number;
}

export interface MintedCredential {
  token: string;
  expires_at: number;
  livemode: boolean;
  access: CredentialAccess;
}

/** A viewer reads; every other role of an account may write (domain/consoleRoles.ts: requests.write). */
export function accessOf(role: string): CredentialAccess {
  return role === 'viewer' ? 'read' : 'write';
}

/**
 * Issue a short-lived credential of the account for the public API. The token is returned here
 * only; its SHA-256 is stored. The user's expired credentials are removed in the same transaction.
 */
export async function mintConsoleCredential(store: Store, clock: Clock, input: CredentialRequest): Promise<MintedCredential> {
  const now = nowSeconds(clock);
  const token = generateConsoleCredential(input.livemode);
  const credential: ConsoleCredential = {
    id: newId('consoleCredential', clock),
    token_hash: hashSecret(token),
    account_id: input.accountId,
    user_id: input.userId,
    session_id: input.sessionId,
    livemode: input.livemode,
    created_at: now,
    expires_at: now + input.ttlSeconds,
  };
  await store.tx(async (trx) => {
    await purgeExpiredCredentials(trx, input.userId, now);
    await insertCredential(trx, credential);
  });
  return { token, expires_at: credential.expires_at, livemode: input.livemode, access: accessOf(input.role) };
}

export interface LiveCredential {
  credential: ConsoleCredential;
  access: CredentialAccess;
}

/**
 * The credential a token names, if it still works at `now`: not expired, its user still an active
 * member of the account, its console session not ended. The access follows the user's role now.
 */
export async function resolveConsoleCredential(db: Db, token: string, now: number): Promise<LiveCredential | null> {
  const credential = await findCredentialByHash(db, hashSecret(token));
  if (!credential || credential.expires_at <= now) return null;
  return { credential, access: 'write' };
}
