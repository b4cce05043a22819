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

/**
 * Passwords a user changes: forgotten (a one-time link by email, an hour, single use; setting the
 * new one signs the user out everywhere) or known (the current one, then the new one; the other
 * sessions end, the asking one stays).
 */

/**
 * Email a reset link to an active account user with this address. Nothing tells the caller whether
 * one was sent (the route answers 202 either way): no one learns which emails have an account. A
 * new link voids the one before. Operators (no account) reset theirs with the CLI.
 */
export async function requestPasswordReset(ctx: ServiceContext, emailInput: string, lang: Language, ip: string): Promise<void> {
  const user = await findConsoleUserByEmail(ctx.store.db, emailInput.trim());
  if (!user || user.status !== 'active' || user.account_id === null) return;
  const accountId = user.account_id;
  await ctx.store.tx(async (trx) => {
    await voidConsoleTokens(trx, user.id, 'password_reset', nowSeconds(ctx.clock));
    const url = await issueLink(ctx, trx, 'password_reset', user.id);
    await queueConsoleEmail(ctx, trx, {
      accountId,
      to: user.email,
      language: lang,
      kind: 'password_reset',
      content: passwordResetMessage(lang, { name: user.name, url }),
    });
    await recordAudit(trx, ctx.clock, actorOf(user, ip), { action: 'password.reset_requested', target: user.id });
  });
  ctx.afterCommit();
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
