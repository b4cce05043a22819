/**
 * The console's billing pages (read only): the plan, balances and prices exactly as GET /usage
 * gives them (presenters/account.ts presentUsage, one implementation), the wallet ledger, usage per
 * calendar month (UTC) and the publishable-key daily-cap notices (the rows `tawqi account notices`
 * prints). Prices are the plan table's data (domain/plans.ts), not written here.
 */
import type { Usage } from '@tawqi/shared/api';
import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../context.js';
import { amount, type Amount } from '../domain/money.js';
import { IDENTITY_PRICE_MINOR, PLAN_NAMES, PLANS } from '../domain/plans.js';
import { ApiError } from '../errors.js';
import { presentUsage } from '../presenters/account.js';
import { getAccount, type Account } from '../store/accounts.js';
import { chargesSince, ledgerPage, ledgerTotals, signerCounts, type LedgerEntry } from '../store/ledger.js';
import { listNotices } from '../store/notices.js';

type Ctx = Pick<ServiceContext, 'store' | 'clock'>;

async function accountOf(ctx: Ctx, accountId: string): Promise<Account> {
  const account = await getAccount(ctx.store.db, accountId);
  if (!account) throw new ApiError('not_found');
  return account;
}

export interface BillingOverview {
  object: 'billing';
  /** GET /usage's object (live): plan with its status and expiry, balance, prices, currency. */
  usage: Usage;
  /** Days until the plan's year ends (negative after), null without an expiry. */
  plan_days_left: number | null;
  /** The sums of the whole ledger; equal to `usage.balance` when every change went through it. */
  ledger_totals: { sends: number; wallet: Amount; matches_balance: boolean };
}

export async function billingOverview(ctx: Ctx, accountId: string): Promise<BillingOverview> {
  const account = await accountOf(ctx, accountId);
  const totals = await ledgerTotals(ctx.store.db, accountId);
  const now = nowSeconds(ctx.clock);
  return {
    object: 'billing',
    usage: presentUsage(account, true, ctx.clock),
    plan_days_left: account.plan_expires_at === null ? null : Math.floor((account.plan_expires_at - now) / 86_400),
    ledger_totals: {
      sends: totals.sends,
      wallet: amount(totals.walletMinor, account.currency),
      matches_balance: totals.sends === account.balance_sends && totals.walletMinor === account.wallet_minor,
    },
  };
}

export interface LedgerEntryView {
  id: string;
  object: 'ledger_entry';
  /** send (a charge), refund, wallet_topup, balance_set, opening_balance. */
  kind: string;
  sends: number;
  wallet: Amount;
  signature_request: string | null;
  note: string | null;
  created_at: number;
}

export function presentLedgerEntry(e: LedgerEntry, currency: string): LedgerEntryView {
  return {
    id: e.id,
    object: 'ledger_entry',
    kind: e.kind,
    sends: e.sends_delta,
    wallet: amount(e.wallet_delta_minor, currency),
    signature_request: e.signature_request_id,
    note: e.note,
    created_at: e.created_at,
  };
}

/** One page of the ledger, newest first: `limit + 1` rows so the caller knows whether more follow. */
export async function ledgerRows(ctx: Ctx, accountId: string, limit: number, startingAfter?: string): Promise<LedgerEntryView[]> {
  const account = await accountOf(ctx, accountId);
  const rows = await ledgerPage(ctx.store.db, accountId, limit, startingAfter);
  return rows.map((r) => presentLedgerEntry(r, account.currency));
}

export async function ledgerHas(ctx: Ctx, accountId: string, id: string): Promise<boolean> {
  return (await ledgerPage(ctx.store.db, accountId, 1, undefined, id)).length === 1;
}

export interface MonthUsage {
  /** YYYY-MM (UTC). */
  month: string;
  /** Signers sent to (from the plan balance or the wallet), less those refunded. */
  sends: number;
  identity_checks: number;
  wallet_spend: Amount;
}

/** The first second (UTC) of the month `back` months before the one holding `now`. */
function monthStart(now: number, back: number): number {
  const d = new Date(now * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back, 1) / 1000;
}

const monthOf = (t: number): string => new Date(t * 1000).toISOString().slice(0, 7);

/**
 * Usage per month, the last `months` months up to the current one (oldest first, empty months
 * included): from the ledger's charges and refunds, with the signers of each request they belong to.
 */
export async function usageByMonth(
  ctx: Ctx,
  accountId: string,
  months: number,
): Promise<{ object: 'usage_by_month'; currency: string; data: MonthUsage[] }> {
  const account = await accountOf(ctx, accountId);
  const now = nowSeconds(ctx.clock);
  const data: MonthUsage[] = [];
  const sums = new Map<string, { sends: number; identity: number; walletMinor: number }>();
  for (let back = months - 1; back >= 0; back--) sums.set(monthOf(monthStart(now, back)), { sends: 0, identity: 0, walletMinor: 0 });
  const rows = await chargesSince(ctx.store.db, accountId, monthStart(now, months - 1));
  const counts = await signerCounts(ctx.store.db, [...new Set(rows.map((r) => r.signature_request_id!))]);
  for (const r of rows) {
    const m = sums.get(monthOf(r.created_at));
    if (!m || (r.kind !== 'send' && r.kind !== 'refund')) continue;
    const sign = r.kind === 'send' ? 1 : -1;
    const c = counts.get(r.signature_request_id!) ?? { signers: 0, identity: 0 };
    m.sends += sign * c.signers;
    m.identity += sign * c.identity;
    m.walletMinor -= r.wallet_delta_minor;
  }
  for (const [month, m] of sums)
    data.push({ month, sends: m.sends, identity_checks: m.identity, wallet_spend: amount(m.walletMinor, account.currency) });
  return { object: 'usage_by_month', currency: account.currency, data };
}

/** The price list: every plan's yearly sends and overage price, and the identity check, in the account's currency. */
export async function priceList(ctx: Ctx, accountId: string) {
  const account = await accountOf(ctx, accountId);
  return {
    object: 'price_list' as const,
    currency: account.currency,
    current_plan: account.plan,
    plans: PLAN_NAMES.filter((p) => p !== 'none').map((p) => ({
      name: p,
      sends_per_year: PLANS[p].sendsPerYear,
      send_overage: amount(PLANS[p].overageMinor, account.currency),
    })),
    identity_verification: amount(IDENTITY_PRICE_MINOR, account.currency),
  };
}

/** The publishable-key daily-cap notices (80% and reached), newest first. */
export async function capNotices(ctx: Ctx, accountId: string) {
  const notices = await listNotices(ctx.store.db, accountId);
  const data = notices
    .filter((n) => n.kind === 'publishable_daily_cap_80' || n.kind === 'publishable_daily_cap_reached')
    .reverse()
    .map((n) => ({
      id: n.id,
      object: 'notice' as const,
      kind: n.kind,
      level: n.kind === 'publishable_daily_cap_reached' ? 100 : 80,
      key: n.data.key_id ?? null,
      count: n.data.count ?? null,
      cap: n.data.cap ?? null,
      day: n.data.day ?? null,
      created_at: n.created_at,
    }));
  return { object: 'list' as const, data, has_more: false, next_cursor: null };
}
