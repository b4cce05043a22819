import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../context.js';
import { ApiError } from '../errors.js';
import { hasPermission, mayManage, type ConsoleRole } from '../domain/consoleRoles.js';
import { queueConsoleEmail, teamInvitationMessage } from '../delivery/consoleMessages.js';
import { recordAudit } from './consoleAudit.js';
import { actorOf, completeSignIn, type Client, type SignedIn } from './consoleSignIn.js';
import { joinTeamEmails, newConsoleUser } from './consoleUsers.js';
import { presentConsoleUser, type ConsoleUserView } from '../presenters/console.js';
import { auditActorOf, issueLink, newPasswordHash, openLink, spendLink, type ConsoleActing } from './consoleLinks.js';
import { getAccount, updateAccount } from '../store/accounts.js';
import { countActiveOwners, deleteConsoleUser } from '../store/consoleTeam.js';
import { voidConsoleTokens } from '../store/consoleSecrets.js';
import {
  findConsoleUserByEmail,
  getConsoleUser,
  insertConsoleUser,
  listConsoleUsers,
  updateConsoleUser,
  type ConsoleUser,
} from '../store/consoleUsers.js';
import type { Tx } from '../store/types.js';

/**
 * An account's team: the list, invitations (an emailed link, a week, that sets the password),
 * role changes and removals. Active users' emails are the account's team emails — the recipients
 * test mode allows (spec part 5) — kept in step in the same transaction as the change. An admin
 * neither touches an owner nor makes one, nobody changes their own role or removes themselves, and
 * an account keeps at least one active owner.
 */

function accountOf(acting: ConsoleActing): string {
  // The routes let only account users in (users.read / users.manage); an operator holds neither.
  if (acting.user.account_id === null) throw new ApiError('forbidden');
  return acting.user.account_id;
}

export async function listTeam(ctx: ServiceContext, acting: ConsoleActing): Promise<ConsoleUserView[]> {
  return (await listConsoleUsers(ctx.store.db, accountOf(acting))).map(presentConsoleUser);
}

/** Drop an email from the account's team emails (the test-mode recipients); joining is consoleUsers.ts joinTeamEmails. */
async function leaveTeamEmails(trx: Tx, accountId: string, email: string): Promise<void> {
  const account = await getAccount(trx, accountId);
  if (!account?.team_emails.includes(email)) return;
  await updateAccount(trx, accountId, { team_emails: account.team_emails.filter((e) => e !== email) });
}

const manageRefused = () =>
  new ApiError(
    'forbidden',
    null,
    {},
    {},
    {
      en: 'Your role cannot do this: an admin cannot change or remove an owner or make one, and nobody changes their own role or removes themselves.',
      ar: 'دورك لا يسمح بهذا: لا يغيّر المسؤول المالك ولا يزيله ولا يعيّن مالكًا، ولا يغيّر أحد دوره أو يزيل نفسه.',
    },
  );

/**
 * Invite `email` as `role`. Inviting again a pending invitation renews it (a new link, the old one
 * void, the new role); an email that already belongs to a user is refused.
 */
export async function inviteUser(
  ctx: ServiceContext,
  acting: ConsoleActing,
  input: { email: string; role: ConsoleRole },
): Promise<ConsoleUserView> {
  const accountId = accountOf(acting);
  const email = input.email.trim().toLowerCase();
  if (!hasPermission(acting.user.role, 'users.manage') || (input.role === 'owner' && acting.user.role !== 'owner')) throw manageRefused();
  const user = await ctx.store.tx(async (trx) => {
    const now = nowSeconds(ctx.clock);
    const account = await getAccount(trx, accountId);
    if (!account) throw new ApiError('forbidden');
    const existing = await findConsoleUserByEmail(trx, email);
    let invited: ConsoleUser;
    if (existing) {
      if (existing.account_id !== accountId || existing.status !== 'invited') throw new ApiError('console_user_exists', 'email');
      if (existing.role === 'owner' && acting.user.role !== 'owner') throw manageRefused();
      await voidConsoleTokens(trx, existing.id, 'invitation', now);
      await updateConsoleUser(trx, existing.id, { role: input.role, updated_at: now });
      invited = { ...existing, role: input.role, updated_at: now };
    } else {
      invited = newConsoleUser(ctx.clock, { accountId, email, role: input.role, status: 'invited' });
      await insertConsoleUser(trx, invited);
    }
    const url = await issueLink(ctx, trx, 'invitation', invited.id);
    const content = teamInvitationMessage(acting.lang, {
      inviter: acting.user.name || acting.user.email,
      accountName: account.name,
      role: input.role,
      url,
    });
    await queueConsoleEmail(ctx, trx, { accountId, to: email, language: acting.lang, kind: 'console_invitation', content });
    await recordAudit(trx, ctx.clock, auditActorOf(acting), {
      action: 'user.invited',
      target: invited.id,
      detail: { email, role: input.role },
    });
    return invited;
  });
  ctx.afterCommit();
  return presentConsoleUser(user);
}

/** What the invitation page shows before the invitee accepts. */
export async function describeInvitation(
  ctx: ServiceContext,
  token: string,
): Promise<{ email: string; account_name: string; role: string }> {
  const { user } = await openLink(ctx.store.db, token, 'invitation', nowSeconds(ctx.clock));
  const account = user.account_id ? await getAccount(ctx.store.db, user.account_id) : undefined;
  return { email: user.email, account_name: account?.name ?? '', role: user.role };
}

/**
 * Accept: the user becomes active with a name and a password, joins the team emails, and is signed
 * in (a full session: a new user has no second factor yet), as Stripe's dashboard does after an
 * invitation — the password was just chosen, asking for it again proves nothing more.
 */
export async function acceptInvitation(
  ctx: ServiceContext,
  input: { token: string; name: string; password: string },
  client: Client,
): Promise<SignedIn> {
  const { user } = await openLink(ctx.store.db, input.token, 'invitation', nowSeconds(ctx.clock));
  const hash = await newPasswordHash(ctx, input.password, user.email, 'password');
  const signed = await ctx.store.tx(async (trx) => {
    const now = nowSeconds(ctx.clock);
    const { link, user: invited } = await openLink(trx, input.token, 'invitation', now);
    await spendLink(trx, link, now);
    const active: ConsoleUser = { ...invited, name: input.name, password_hash: hash, status: 'active', updated_at: now };
    await updateConsoleUser(trx, invited.id, { name: active.name, password_hash: hash, status: 'active', updated_at: now });
    if (invited.account_id) await joinTeamEmails(trx, invited.account_id, invited.email);
    await recordAudit(trx, ctx.clock, actorOf(invited, client.ip), {
      action: 'user.joined',
      target: invited.id,
      detail: { role: invited.role },
    });
    const started = await completeSignIn(trx, ctx, active, client, { two_factor: 'none', via: 'invitation' });
    return { ...started, user: { ...active, last_sign_in_at: now } };
  });
  return signed;
}

/**
 * The user `id` of the acting user's account, for a change that moves them off `role` to `to`
 * (null: removal): another account's user is not found; the roles' rule (domain/consoleRoles.ts
 * mayManage); and the last active owner cannot leave the role.
 */
async function managedUser(trx: Tx, acting: ConsoleActing, id: string, to: ConsoleRole | null): Promise<ConsoleUser> {
  const accountId = accountOf(acting);
  const target = await getConsoleUser(trx, id);
  if (!target || target.account_id !== accountId) throw new ApiError('not_found', 'id');
  const leavesOwners = target.role === 'owner' && target.status === 'active' && to !== 'owner';
  const lastOwner = leavesOwners && (await countActiveOwners(trx, accountId)) <= 1;
  if (!mayManage(acting.user, target, to)) {
    // The owner asking to step down or leave is told the reason that would remain once allowed.
    if (lastOwner && acting.user.id === target.id) throw new ApiError('last_owner');
    throw manageRefused();
  }
  if (lastOwner) throw new ApiError('last_owner');
  return target;
}

export async function changeRole(ctx: ServiceContext, acting: ConsoleActing, id: string, role: ConsoleRole): Promise<ConsoleUserView> {
  return ctx.store.tx(async (trx) => {
    const target = await managedUser(trx, acting, id, role);
    if (target.role === role) return presentConsoleUser(target);
    const now = nowSeconds(ctx.clock);
    await updateConsoleUser(trx, target.id, { role, updated_at: now });
    await recordAudit(trx, ctx.clock, auditActorOf(acting), {
      action: 'user.role_changed',
      target: target.id,
      detail: { email: target.email, from: target.role, to: role },
    });
    return presentConsoleUser({ ...target, role, updated_at: now });
  });
}

/** Remove a user (or withdraw an invitation): signed out at once, out of the team emails. */
export async function removeUser(ctx: ServiceContext, acting: ConsoleActing, id: string): Promise<void> {
  await ctx.store.tx(async (trx) => {
    const target = await managedUser(trx, acting, id, null);
    await deleteConsoleUser(trx, target.id);
    if (target.status === 'active' && target.account_id) await leaveTeamEmails(trx, target.account_id, target.email);
    await recordAudit(trx, ctx.clock, auditActorOf(acting), {
      action: 'user.removed',
      target: target.id,
      detail: { email: target.email, role: target.role, status: target.status },
    });
  });
}
