import type { Language } from '@tawqi/shared';
import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../context.js';
import { passwordResetMessage, queueConsoleEmail } from '../delivery/consoleMessages.js';
import { recordAudit } from './consoleAudit.js';
import { actorOf } from './consoleSignIn.js';
import { auditActorOf, issueLink, newPasswordHash, openLink, queueSecurityNotice, spendLink, type ConsoleActing } from './consoleLinks.js';
import { checkPasswordAgain } from './consoleTwoFactor.js';
import { voidConsoleTokens } from '../store/consoleSecrets.js';
import { deleteUserSessions } from '../store/consoleSessions.js';
import { findConsoleUserByEmail, getConsoleUser, updateConsoleUser } from '../store/consoleUsers.js';
import { scheduleJob } from '../store/jobs.js';
import type { Tx } from '../store/types.js';

/**
 * Passwords a user changes: forgotten (a one-time link by email, an hour, single use; setting the
 * new one signs the user out everywhere) or known (the current one, then the new one; the other
 * sessions end, the asking one stays).
 */

/** The job that sends a reset link (services/jobHandlers.ts). */
export const PASSWORD_RESET_JOB = 'console_password_reset';

/**
 * A reset request, as the route answers it: one job written in one transaction, the same for
 * every address — no lookup of the user, no token, no hashing — so neither the 202, nor its
 * headers, nor the time it takes tells whether the address has an account. The job
 * (sendPasswordReset) does the rest once the answer is out.
 */
export async function requestPasswordReset(ctx: ServiceContext, emailInput: string, lang: Language, ip: string): Promise<void> {
  const now = nowSeconds(ctx.clock);
  const payload = { email: emailInput.trim().toLowerCase(), lang, ip };
  await ctx.store.tx((trx) => scheduleJob(trx, PASSWORD_RESET_JOB, now, payload, now));
}

/**
 * The reset job: email a link to an active account user with this address (a new link voids the
 * one before); for any other address nothing happens. Operators (no account) reset theirs with the
 * CLI. Runs in the transaction that marks the job done, so the link and its mail are made once.
 */
export async function sendPasswordReset(ctx: ServiceContext, trx: Tx, payload: Record<string, unknown>): Promise<void> {
  const lang: Language = payload.lang === 'en' ? 'en' : 'ar';
  const user = await findConsoleUserByEmail(trx, String(payload.email));
  if (!user || user.status !== 'active' || user.account_id === null) return;
  await voidConsoleTokens(trx, user.id, 'password_reset', nowSeconds(ctx.clock));
  const url = await issueLink(ctx, trx, 'password_reset', user.id);
  await queueConsoleEmail(ctx, trx, {
    accountId: user.account_id,
    to: user.email,
    language: lang,
    kind: 'password_reset',
    content: passwordResetMessage(lang, { name: user.name, url }),
  });
  await recordAudit(trx, ctx.clock, actorOf(user, String(payload.ip)), { action: 'password.reset_requested', target: user.id });
}

/** Set a new password from a reset link: every session of the user ends (whoever held one is out). */
export async function confirmPasswordReset(
  ctx: ServiceContext,
  token: string,
  password: string,
  who: { ip: string; lang: Language },
): Promise<{ email: string }> {
  const ip = who.ip;
  const { user } = await openLink(ctx.store.db, token, 'password_reset', nowSeconds(ctx.clock));
  const hash = await newPasswordHash(ctx, password, user.email, 'password');
  await ctx.store.tx(async (trx) => {
    const now = nowSeconds(ctx.clock);
    const { link, user: current } = await openLink(trx, token, 'password_reset', now);
    await spendLink(trx, link, now);
    await updateConsoleUser(trx, current.id, { password_hash: hash, updated_at: now });
    const ended = await deleteUserSessions(trx, current.id);
    await queueSecurityNotice(ctx, trx, current, 'password_changed', who);
    await recordAudit(trx, ctx.clock, actorOf(current, ip), {
      action: 'password.reset',
      target: current.id,
      detail: { sessions_ended: ended },
    });
  });
  return { email: user.email };
}

/** A signed-in change: the current password first; the user's other sessions end, this one stays. */
export async function changePassword(
  ctx: ServiceContext,
  acting: ConsoleActing,
  currentPassword: string,
  newPassword: string,
): Promise<void> {
  await checkPasswordAgain(ctx, acting, currentPassword, 'current_password');
  const hash = await newPasswordHash(ctx, newPassword, acting.user.email, 'new_password');
  await ctx.store.tx(async (trx) => {
    const now = nowSeconds(ctx.clock);
    const user = await getConsoleUser(trx, acting.user.id);
    if (!user) return;
    await updateConsoleUser(trx, user.id, { password_hash: hash, updated_at: now });
    // A reset link asked for earlier would undo this change: it is void now.
    await voidConsoleTokens(trx, user.id, 'password_reset', now);
    const ended = await deleteUserSessions(trx, user.id, acting.sessionId);
    await queueSecurityNotice(ctx, trx, user, 'password_changed', acting);
    await recordAudit(trx, ctx.clock, auditActorOf(acting), {
      action: 'password.changed',
      target: user.id,
      detail: { sessions_ended: ended },
    });
  });
}
