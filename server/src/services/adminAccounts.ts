/**
 * Accounts as the operator's admin console sees and changes them: search, an account's plan,
 * balance and wallet, plan changes, wallet top-ups and added sends (through the CLI's services,
 * accountAdmin.ts), each change audited with the operator as actor and the account as target, in
 * the change's transaction.
 */
import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../context.js';
import { amount } from '../domain/money.js';
import type { PlanName } from '../domain/plans.js';
import { ApiError } from '../errors.js';
import { presentUsage } from '../presenters/account.js';
import { presentConsoleUser } from '../presenters/console.js';
import { presentSubmission } from '../presenters/companyVerification.js';
import { getAccount, searchAccounts, updateAccount, type Account } from '../store/accounts.js';
import { latestCompanyVerification } from '../store/companyVerifications.js';
import { listConsoleUsers } from '../store/consoleUsers.js';
import type { LedgerEntry } from '../store/ledger.js';
import type { Tx } from '../store/types.js';
import { addSends, planChanges, topUpWallet } from './accountAdmin.js';
import { OperatorError } from './accounts.js';
import { recordAudit, type AuditActor } from './consoleAudit.js';

/** An account in the admin list: who it is, its plan, balance, wallet and verification state. */
export function presentAdminAccount(ctx: ServiceContext, a: Account) {
  const usage = presentUsage(a, true, ctx.clock);
  return {
    id: a.id,
    object: 'account' as const,
    name: a.name,
    owner_email: a.owner_email,
    plan: usage.plan,
    balance: usage.balance,
    company_verification: a.kyb_status,
    created_at: a.created_at,
  };
}

export function presentLedgerEntry(e: LedgerEntry, currency: string) {
  return {
    id: e.id,
    object: 'ledger_entry' as const,
    kind: e.kind,
    sends_delta: e.sends_delta,
    wallet_delta: amount(e.wallet_delta_minor, currency),
    signature_request: e.signature_request_id,
    note: e.note,
    created_at: e.created_at,
  };
}

/** A page of the search (`limit + 1` rows, for the list envelope). */
export async function findAccounts(ctx: ServiceContext, query: string | undefined, limit: number, startingAfter?: string) {
  const rows = await searchAccounts(ctx.store.db, query, limit + 1, startingAfter);
  return rows.map((a) => presentAdminAccount(ctx, a));
}

async function requireAccount(tx: Tx, id: string): Promise<Account> {
  const a = await getAccount(tx, id);
  if (!a) throw new ApiError('not_found', 'id');
  return a;
}

/** One account: the list fields, its console users and its latest company verification round. */
export async function adminAccountDetail(ctx: ServiceContext, id: string) {
  const db = ctx.store.db;
  const a = await requireAccount(db, id);
  const round = await latestCompanyVerification(db, id);
  return {
    ...presentAdminAccount(ctx, a),
    users: (await listConsoleUsers(db, id)).map(presentConsoleUser),
    company_verification_submission: round && round.status !== 'draft' ? presentSubmission(round) : null,
  };
}

const onAccount = (operator: AuditActor, accountId: string): AuditActor => ({ ...operator, account_id: accountId });

/** Refusals of the money services (the CLI's OperatorError) as the console's envelope. */
async function asApiError<T>(param: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof OperatorError)) throw err;
    throw new ApiError('parameter_invalid', param, {}, {}, { en: err.message, ar: 'القيمة تتجاوز أكبر مقدار يمكن حفظه.' });
  }
}

/** Set the plan and/or its expiry (same defaults as `tawqi account set --plan`). */
export async function changePlan(
  ctx: ServiceContext,
  operator: AuditActor,
  id: string,
  input: { plan?: PlanName; plan_expires_at?: number | null },
) {
  await ctx.store.tx(async (trx) => {
    const before = await requireAccount(trx, id);
    const changes = planChanges(before, input.plan, input.plan_expires_at, nowSeconds(ctx.clock));
    await updateAccount(trx, id, changes);
    const detail = { from: { plan: before.plan, plan_expires_at: before.plan_expires_at }, to: { ...changes } };
    await recordAudit(trx, ctx.clock, onAccount(operator, id), { action: 'admin.plan_changed', target: id, detail });
  });
  return adminAccountDetail(ctx, id);
}

/** Add money to the wallet or sends to the balance: a ledger entry each; answers the entry. */
export async function creditAccountAsOperator(
  ctx: ServiceContext,
  operator: AuditActor,
  id: string,
  credit: { walletMinor: number } | { sends: number },
  note: string | undefined,
) {
  const { entry, currency } = await asApiError('walletMinor' in credit ? 'amount' : 'sends', () =>
    ctx.store.tx(async (trx) => {
      const a = await requireAccount(trx, id);
      const entry =
        'walletMinor' in credit
          ? await topUpWallet(trx, ctx.clock, a, credit.walletMinor, note)
          : await addSends(trx, ctx.clock, a, credit.sends, note);
      const action = 'walletMinor' in credit ? 'admin.wallet_topped_up' : 'admin.sends_added';
      const detail =
        'walletMinor' in credit
          ? { ledger_entry: entry.id, amount: amount(credit.walletMinor, a.currency) }
          : { ledger_entry: entry.id, sends: credit.sends };
      await recordAudit(trx, ctx.clock, onAccount(operator, id), { action, target: id, detail });
      return { entry, currency: a.currency };
    }),
  );
  return presentLedgerEntry(entry, currency);
}
