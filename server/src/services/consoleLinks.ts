import type { Language } from '@tawqi/shared';
import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../context.js';
import { ApiError, invalidParam } from '../errors.js';
import { newSecretToken, sha256Hex } from './consoleCrypto.js';
import { hashPassword, passwordProblem } from './consolePasswords.js';
import { actorOf, scryptCost } from './consoleSignIn.js';
import type { AuditActor } from './consoleAudit.js';
import { getConsoleToken, insertConsoleToken, useConsoleToken, type ConsoleToken } from '../store/consoleSecrets.js';
import { getConsoleUser, type ConsoleUser } from '../store/consoleUsers.js';
import type { Tx } from '../store/types.js';
import { queueConsoleEmail, securityNoticeMessage, type SecurityChange } from '../delivery/consoleMessages.js';

/**
 * What the console's self-service flows share: the signed-in user acting (for the audit log and
 * the language of the emails they cause), the emailed one-time links (invitation, password reset)
 * and the rule for a new password.
 */

/** A signed-in console user acting, as the routes hand it to the services. */
export interface ConsoleActing {
  user: { id: string; account_id: string | null; email: string; name: string; role: string };
  /** The session asking (kept when the user changes their own password). */
  sessionId: string;
  ip: string;
  /** The language of the asking browser: the emails the action sends are in it. */
  lang: Language;
}

/** The audit entry's actor: the acting user, from the asking browser's address. */
export function auditActorOf(a: ConsoleActing): AuditActor {
  return actorOf(a.user, a.ip);
}

// ---------------------------------------------------------------------------------------------
// Emailed one-time links
// ---------------------------------------------------------------------------------------------

/** How long a link is good for: an invitation a week, a password reset an hour. */
export const LINK_TTL_SECONDS: Record<ConsoleToken['kind'], number> = {
  invitation: 7 * 86400,
  password_reset: 3600,
};

/**
 * The console page each link opens (console/ renders it). The token travels in the fragment
 * (`/console/reset#token=…`): a browser never sends the fragment, so the token stays out of the
 * server's and any proxy's access log; the page reads it and takes it out of the address bar.
 */
const LINK_PAGE: Record<ConsoleToken['kind'], string> = {
  invitation: '/console/invite',
  password_reset: '/console/reset',
};

/** A new link for `userId`, stored as the SHA-256 of its token; returns the URL to email (the only copy of the token). */
export async function issueLink(ctx: ServiceContext, trx: Tx, kind: ConsoleToken['kind'], userId: string): Promise<string> {
  const now = nowSeconds(ctx.clock);
  const { token, id } = newSecretToken();
  await insertConsoleToken(trx, { id, kind, user_id: userId, created_at: now, expires_at: now + LINK_TTL_SECONDS[kind], used_at: null });
  return `${ctx.publicUrl}${LINK_PAGE[kind]}#token=${encodeURIComponent(token)}`;
}

const linkInvalid = (): ApiError => new ApiError('console_link_invalid', 'token');

/** The user status a link is for: an invitation brings an invited user in, a reset serves an active one. */
const LINK_STATUS: Record<ConsoleToken['kind'], ConsoleUser['status']> = {
  invitation: 'invited',
  password_reset: 'active',
};

/**
 * The live link a token names, and its user: unused, unexpired, of this kind, the user in the
 * status the link is for. Every other case is the same answer (no telling an expired link from a
 * made-up one).
 */
export async function openLink(
  tx: Tx,
  token: string,
  kind: ConsoleToken['kind'],
  now: number,
): Promise<{ link: ConsoleToken; user: ConsoleUser }> {
  if (token.length === 0 || token.length > 200) throw linkInvalid();
  const link = await getConsoleToken(tx, sha256Hex(token));
  if (!link || link.kind !== kind || link.used_at !== null || link.expires_at <= now) throw linkInvalid();
  const user = await getConsoleUser(tx, link.user_id);
  if (!user || user.status !== LINK_STATUS[kind]) throw linkInvalid();
  return { link, user };
}

/** Spend a link in the transaction that acts on it: a second use (or a race) is refused. */
export async function spendLink(tx: Tx, link: ConsoleToken, now: number): Promise<void> {
  if (!(await useConsoleToken(tx, link.id, now))) throw linkInvalid();
}

// ---------------------------------------------------------------------------------------------
// New passwords
// ---------------------------------------------------------------------------------------------

/**
 * Check a new password (the auth core's length rule, and not the user's email nor its name part:
 * the first guesses of anyone attacking the account) and hash it. Hashing is slow on purpose, so
 * callers do it before their transaction opens.
 */
export async function newPasswordHash(ctx: ServiceContext, password: string, email: string, param: string): Promise<string> {
  const problem = passwordProblem(password);
  if (problem) throw invalidParam(param, problem.en, problem.ar);
  const lower = password.toLowerCase();
  const local = email.split('@')[0] ?? '';
  // A short name part ("ab") is too common a substring to refuse passwords for.
  if (lower.includes(email) || (local.length >= 4 && lower.includes(local))) {
    throw invalidParam(param, 'The password must not contain your email address.', 'يجب ألا تحتوي كلمة المرور على بريدك الإلكتروني.');
  }
  return hashPassword(password, scryptCost(ctx));
}

// ---------------------------------------------------------------------------------------------
// Security notices
// ---------------------------------------------------------------------------------------------

/**
 * Tell a user by email that their password changed or their second factor was turned off, in the
 * transaction of the change (sent after commit): if it was not them, they learn it at once and the
 * mail leads to the forgotten-password page. Operators (no account) have the CLI instead.
 */
export async function queueSecurityNotice(
  ctx: ServiceContext,
  trx: Tx,
  user: Pick<ConsoleUser, 'account_id' | 'email' | 'name'>,
  change: SecurityChange,
  who: { ip: string; lang: Language },
): Promise<void> {
  if (user.account_id === null) return;
  const content = securityNoticeMessage(who.lang, {
    name: user.name,
    change,
    ip: who.ip,
    resetUrl: `${ctx.publicUrl}/console/forgot-password`,
  });
  await queueConsoleEmail(ctx, trx, { accountId: user.account_id, to: user.email, language: who.lang, kind: 'security_notice', content });
}
