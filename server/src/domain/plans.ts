import type { KybStatus } from '@tawqi/shared/api';

/**
 * Plans, their yearly send balance, prices and the features each unlocks (spec 4.1 rule 3, part 8).
 * Pure data and rules; no I/O. Money is in integer minor units of the wallet currency.
 */
export const PLAN_NAMES = ['none', 'starter', 'business', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export { KYB_STATUSES } from '@tawqi/shared/api';
export type { KybStatus } from '@tawqi/shared/api';

export interface Plan {
  name: PlanName;
  /** Sends included per subscription year. */
  sendsPerYear: number;
  /** Wallet price of one send beyond the yearly balance. */
  overageMinor: number;
  rank: number;
}

export const PLANS: Record<PlanName, Plan> = {
  none: { name: 'none', sendsPerYear: 0, overageMinor: 0, rank: 0 },
  starter: { name: 'starter', sendsPerYear: 100, overageMinor: 1200, rank: 1 },
  business: { name: 'business', sendsPerYear: 1000, overageMinor: 900, rank: 2 },
  enterprise: { name: 'enterprise', sendsPerYear: 10000, overageMinor: 600, rank: 3 },
};

/** Identity verification is always a wallet charge, per signer that requires it (spec 4.1 rule 2). */
export const IDENTITY_PRICE_MINOR = 150;

export const FEATURES = {
  ordered: 'business',
  return_url: 'business',
  success_url: 'business',
  cancel_url: 'business',
  custom_workflows: 'business',
  custom_domain: 'business',
  bulk_send: 'enterprise',
  qes: 'enterprise',
  method_token: 'enterprise',
  signer_attachments: 'enterprise',
  access_code: 'enterprise',
} as const satisfies Record<string, PlanName>;

export type Feature = keyof typeof FEATURES;

export interface PlanHolder {
  plan: PlanName;
  plan_expires_at: number | null;
  kyb_status: KybStatus;
}

export type LiveGateRefusal = 'plan_required' | 'plan_expired' | 'kyb_required';

/** Live-mode gates, in the order a client should fix them: plan, renewal, company verification. */
export function liveGateRefusal(account: PlanHolder, now: number): LiveGateRefusal | null {
  if (account.plan === 'none') return 'plan_required';
  if (account.plan_expires_at !== null && account.plan_expires_at <= now) return 'plan_expired';
  if (account.kyb_status !== 'approved') return 'kyb_required';
  return null;
}

/** The plan a feature needs when the account's plan is below it, else null. Test mode unlocks all but the custom domain. */
export function missingPlanFor(feature: Feature, plan: PlanName, livemode: boolean): PlanName | null {
  if (!livemode && feature !== 'custom_domain') return null;
  const required = FEATURES[feature];
  return PLANS[plan].rank >= PLANS[required].rank ? null : required;
}

export interface Charge {
  sendsFromBalance: number;
  walletMinor: number;
  source: 'plan' | 'overage';
}

/**
 * What sending to `signers` signers (of which `identitySigners` require identity) costs an account
 * with `balanceSends` left: the yearly balance first, then the wallet at the overage rate; identity
 * always from the wallet.
 */
export function priceSend(plan: Plan, balanceSends: number, signers: number, identitySigners: number): Charge {
  const fromBalance = Math.min(balanceSends, signers);
  const overageSends = signers - fromBalance;
  return {
    sendsFromBalance: fromBalance,
    walletMinor: overageSends * plan.overageMinor + identitySigners * IDENTITY_PRICE_MINOR,
    source: overageSends > 0 ? 'overage' : 'plan',
  };
}
