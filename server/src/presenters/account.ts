import type { Template, Usage } from '@tawqi/shared/api';
import { nowSeconds, type Clock } from '../clock.js';
import { amount } from '../domain/money.js';
import { IDENTITY_PRICE_MINOR, PLANS } from '../domain/plans.js';
import type { Account } from '../store/accounts.js';
import type { TemplateRecord } from '../store/templates.js';

/** GET /usage and GET /balance: plan, balance and prices, amounts in the wallet currency. */
export function presentUsage(account: Account, livemode: boolean, clock: Clock): Usage {
  const plan = PLANS[account.plan];
  const now = nowSeconds(clock);
  const status =
    account.plan === 'none' ? 'none' : account.plan_expires_at !== null && account.plan_expires_at <= now ? 'expired' : 'active';
  return {
    object: 'usage' as const,
    livemode,
    plan: { name: plan.name, status, sends_per_year: plan.sendsPerYear, expires_at: account.plan_expires_at },
    balance: { sends: account.balance_sends, wallet: amount(account.wallet_minor, account.currency) },
    prices: {
      send_overage: amount(plan.overageMinor, account.currency),
      identity_verification: amount(IDENTITY_PRICE_MINOR, account.currency),
    },
    currency: account.currency,
    company_verification: account.kyb_status,
  };
}

export function presentTemplate(t: TemplateRecord): Template {
  return {
    id: t.id,
    object: 'template' as const,
    title: t.title,
    language: t.language,
    source: t.account_id === null ? ('library' as const) : ('custom' as const),
    body: t.body,
    fields: t.fields,
    created_at: t.created_at,
    archived_at: t.archived_at,
  };
}
