/**
 * Signing in to the console: the password, then (when the user has two-factor on) a TOTP code or a
 * recovery code; signing out, here or everywhere. Each outcome is one transaction with its audit
 * entry. The slow work (scrypt, about 0.4 s) runs before the transaction, never inside it.
 *
 * Every failure of the password step answers the same `401 console_sign_in_failed` after the same
 * work, whether the email is unknown, the user has no password yet, is disabled, or typed a wrong
 * one: the answer tells nothing about which emails have an account.
 */
import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../context.js';
import { totpStep } from '../domain/totp.js';
import { ApiError } from '../errors.js';
import { countUnusedRecoveryCodes, useRecoveryCode } from '../store/consoleSecrets.js';
import { deleteConsoleSession, deleteUserSessions, type ConsoleSession } from '../store/consoleSessions.js';
import { findConsoleUserByEmail, takeTotpStep, updateConsoleUser, type ConsoleUser } from '../store/consoleUsers.js';
import type { Tx } from '../store/types.js';
import { recordAudit, type AuditActor } from './consoleAudit.js';
import { openTotpSecret, recoveryCodeHash } from './consoleCrypto.js';
import { decoyHash, hashPassword, needsRehash, verifyPassword } from './consolePasswords.js';
import { sessionTimes, startSession, sweepEndedSessions, type NewSession } from './consoleSessions.js';
import type { SignInThrottle } from './consoleThrottle.js';

export interface Client {
  ip: string;
  userAgent: string;
}

export interface SignedIn extends NewSession {
  user: ConsoleUser;
}

export const actorOf = (user: Pick<ConsoleUser, 'id' | 'account_id' | 'email'>, ip: string | null): AuditActor => ({
  account_id: user.account_id,
  user_id: user.id,
  actor: user.email,
  ip,
});

export const scryptCost = (ctx: ServiceContext) => ({ logN: ctx.config.TAWQI_CONSOLE_SCRYPT_LOG_N });

/** The password step: a full session, or one waiting for the second factor (`session.stage`). */
export async function signIn(
  ctx: ServiceContext,
  throttle: SignInThrottle,
  input: { email: string; password: string },
  client: Client,
): Promise<SignedIn> {
  const email = input.email.trim().toLowerCase();
  await throttle.attempt(email, client.ip, ctx.clock);
  const user = await findConsoleUserByEmail(ctx.store.db, email);
  const usable = user?.status === 'active' && user.password_hash !== null;
  const ok = await verifyPassword(input.password, usable ? user.password_hash! : await decoyHash(scryptCost(ctx)));
  if (!usable || !ok) {
    await ctx.store.tx((trx) =>
      recordAudit(
        trx,
        ctx.clock,
        user ? actorOf(user, client.ip) : { account_id: null, user_id: null, actor: email.slice(0, 254), ip: client.ip },
        {
          action: 'console.sign_in_failed',
          target: user?.id ?? null,
          detail: { stage: 'password', reason: failureReason(user) },
        },
      ),
    );
    throw new ApiError('console_sign_in_failed');
  }
  const rehash = needsRehash(user.password_hash!, scryptCost(ctx)) ? await hashPassword(input.password, scryptCost(ctx)) : null;
  const twoFactor = user.totp_enabled_at !== null && user.totp_secret !== null;
  const now = nowSeconds(ctx.clock);
  const started = await ctx.store.tx(async (trx) => {
    if (rehash) await updateConsoleUser(trx, user.id, { password_hash: rehash, updated_at: now });
    if (twoFactor) return startSession(trx, sessionTimes(ctx.config), now, user, 'password', client);
    return completeSignIn(trx, ctx, user, client, { two_factor: 'none' });
  });
  sweepEndedSessions(ctx);
  return { ...started, user };
}

/** Why a password step failed, for the audit log (never for the answer). */
function failureReason(user: ConsoleUser | undefined): string {
  if (!user) return 'unknown_email';
  if (user.status !== 'active') return `user_${user.status}`;
  return user.password_hash === null ? 'no_password' : 'wrong_password';
}

/** The full session of a sign-in that passed every step (or of an accepted invitation), its audit entry and the user's last sign-in. */
export async function completeSignIn(
  trx: Tx,
  ctx: ServiceContext,
  user: ConsoleUser,
  client: Client,
  detail: Record<string, unknown>,
): Promise<NewSession> {
  const now = nowSeconds(ctx.clock);
  const started = await startSession(trx, sessionTimes(ctx.config), now, user, 'full', client);
  await updateConsoleUser(trx, user.id, { last_sign_in_at: now });
  await recordAudit(trx, ctx.clock, actorOf(user, client.ip), { action: 'console.signed_in', target: user.id, detail });
  return started;
}

export type SecondFactor = { code: string } | { recovery_code: string };

/** The second step: a TOTP code (±30 s) or an unused recovery code; a new session id replaces the waiting one. */
export async function signInSecondFactor(
  ctx: ServiceContext,
  throttle: SignInThrottle,
  pending: { session: ConsoleSession; user: ConsoleUser },
  factor: SecondFactor,
  client: Client,
): Promise<SignedIn> {
  const { user } = pending;
  await throttle.attempt(user.email, client.ip, ctx.clock);
  const outcome = await ctx.store.tx(async (trx) => {
    const ok =
      'code' in factor ? await takeTotpCode(trx, ctx, user, factor.code) : await spendRecoveryCode(trx, ctx, user, factor.recovery_code);
    if (!ok) {
      await recordAudit(trx, ctx.clock, actorOf(user, client.ip), {
        action: 'console.sign_in_failed',
        target: user.id,
        detail: { stage: 'two_factor', method: 'code' in factor ? 'totp' : 'recovery_code' },
      });
      return null;
    }
    await deleteConsoleSession(trx, pending.session.id);
    const detail: Record<string, unknown> = { two_factor: 'code' in factor ? 'totp' : 'recovery_code' };
    if (!('code' in factor)) detail.recovery_codes_left = await countUnusedRecoveryCodes(trx, user.id);
    return completeSignIn(trx, ctx, user, client, detail);
  });
  if (!outcome) throw new ApiError('two_factor_failed');
  sweepEndedSessions(ctx);
  return { ...outcome, user };
}

/** A code of the current 30-second step or one either side, newer than the last code taken, is taken (once). */
async function takeTotpCode(trx: Tx, ctx: ServiceContext, user: ConsoleUser, typed: string): Promise<boolean> {
  if (!user.totp_secret || user.totp_enabled_at === null) return false;
  const step = totpStep(openTotpSecret(ctx.secrets.consoleKey, user.id, user.totp_secret), typed, ctx.clock.nowMs());
  return step !== null && takeTotpStep(trx, user.id, step);
}

function spendRecoveryCode(trx: Tx, ctx: ServiceContext, user: ConsoleUser, code: string): Promise<boolean> {
  if (user.totp_enabled_at === null) return Promise.resolve(false);
  return useRecoveryCode(trx, user.id, recoveryCodeHash(ctx.secrets.consoleKey, code), nowSeconds(ctx.clock));
}

export async function signOut(ctx: ServiceContext, session: ConsoleSession): Promise<void> {
  await ctx.store.tx((trx) => deleteConsoleSession(trx, session.id));
}

/** End every session of the user, this one included; returns how many ended. */
export async function signOutEverywhere(ctx: ServiceContext, user: ConsoleUser, ip: string): Promise<number> {
  return ctx.store.tx(async (trx) => {
    const ended = await deleteUserSessions(trx, user.id);
    await recordAudit(trx, ctx.clock, actorOf(user, ip), {
      action: 'console.signed_out_everywhere',
      target: user.id,
      detail: { sessions: ended },
    });
    return ended;
  });
}
