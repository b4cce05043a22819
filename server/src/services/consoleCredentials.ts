import { nowSeconds, type Clock } from '../clock.js';
import type { ServiceContext } from '../context.js';
import { generateConsoleCredential, type CredentialAccess } from '../domain/consoleCredentials.js';
import { hasPermission } from '../domain/consoleRoles.js';
import { hashSecret } from '../domain/keys.js';
import { newId } from '../ids.js';
import { findCredentialByHash, insertCredential, purgeExpiredCredentials, type ConsoleCredential } from '../store/consoleCredentials.js';
import type { ConsoleSession } from '../store/consoleSessions.js';
import type { Store } from '../store/db.js';
import { sessionEnded, sessionTimes } from './consoleSessions.js';

export interface CredentialRequest {
  accountId: string;
  userId: string;
  role: string;
  livemode: boolean;
  /** The console session it is issued in: it never outlives it, and signing out (or everywhere) ends it. */
  session: Pick<ConsoleSession, 'id' | 'expires_at'>;
  /** Its life (TAWQI_CONSOLE_CREDENTIAL_SECONDS). */
  ttlSeconds: number;
}

export interface MintedCredential {
  token: string;
  expires_at: number;
  livemode: boolean;
  access: CredentialAccess;
}

/** Write for the roles that may change requests (requests.write), read for the others (viewer). */
export function accessOf(role: string): CredentialAccess {
  return hasPermission(role, 'requests.write') ? 'write' : 'read';
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
    session_id: input.session.id,
    livemode: input.livemode,
    created_at: now,
    expires_at: Math.min(now + input.ttlSeconds, input.session.expires_at),
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
  /** The user's email now (the audit log's actor). */
  email: string;
}

/**
 * The credential a token names, if it still works now: not expired; its user still an active
 * member of the account; its console session not ended (signed out, signed out everywhere, idle
 * or past its absolute end). The access follows the user's role now, not the role at issue.
 */
export async function resolveConsoleCredential(
  ctx: Pick<ServiceContext, 'store' | 'clock' | 'config'>,
  token: string,
): Promise<LiveCredential | null> {
  const now = nowSeconds(ctx.clock);
  const found = await findCredentialByHash(ctx.store.db, hashSecret(token));
  if (!found || found.credential.expires_at <= now) return null;
  const { credential, user, session } = found;
  if (user.status !== 'active' || user.account_id !== credential.account_id) return null;
  if (session.stage !== 'full' || sessionEnded(session, sessionTimes(ctx.config), now)) return null;
  return { credential, access: accessOf(user.role), email: user.email };
}
