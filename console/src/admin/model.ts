/**
 * The operator's admin as the console reads it (/console/api/admin/…, server/src/http/console/api/admin):
 * the shapes of its answers, and the few formats its screens share (money, a day, an id).
 */
import { h } from '@tawqi/signing-page/dom';
import type { Strings } from '../i18n.js';
import type { CompanyDocument } from '../verification/model.js';

export interface Money {
  amount: number;
  currency: string;
}

export type KybStatus = 'none' | 'pending' | 'approved' | 'rejected';

export interface AdminAccount {
  id: string;
  name: string;
  owner_email: string;
  plan: { name: string; status: 'none' | 'active' | 'expired'; sends_per_year: number | null; expires_at: number | null };
  balance: { sends: number; wallet: Money };
  company_verification: KybStatus;
  created_at: number;
}

export interface AccountUser {
  id: string;
  email: string;
  name: string;
  role: string;
  status: string;
  last_sign_in_at: number | null;
}

export interface Submission {
  id: string;
  status: 'pending' | 'approved' | 'rejected';
  submitted_at: number | null;
  decided_at: number | null;
  rejection_reason: string | null;
}

export interface AdminAccountDetail extends AdminAccount {
  users: AccountUser[];
  company_verification_submission: Submission | null;
}

export interface LedgerEntry {
  id: string;
  kind: string;
  sends_delta: number;
  wallet_delta: Money;
  signature_request: string | null;
  note: string | null;
  created_at: number;
}

export interface Representative {
  name: string;
  status: string | null;
  simulated: boolean | null;
  name_match: { state: string; document_name: string | null } | null;
  document_type: string | null;
  document_last4: string | null;
  completed_at: number | null;
}

export interface ReviewRound extends Submission {
  decision_reason: string | null;
  account: { id: string; name: string; kyb_status: KybStatus };
  representative: Representative | null;
  document_count: number;
  documents?: CompanyDocument[];
}

export const PLANS = ['none', 'starter', 'business', 'enterprise'] as const;

const locale = (s: Strings) => (s.lang === 'ar' ? 'ar-EG-u-nu-latn' : 'en-GB');

/** An amount in its currency, in the page's language; `signed`: with its sign (a ledger's change, "+EGP 250.50"). */
export function money(s: Strings, m: Money, signed = false): string {
  const sign = signed ? 'exceptZero' : 'auto';
  return new Intl.NumberFormat(locale(s), { style: 'currency', currency: m.currency, signDisplay: sign }).format(m.amount);
}

/** A whole number with the page's grouping; `signed`: with its sign ("+40"). */
export function count(s: Strings, n: number, signed = false): string {
  return new Intl.NumberFormat(locale(s), { signDisplay: signed ? 'exceptZero' : 'auto' }).format(n);
}

/** A day (the plan's expiry), without the time. */
export function day(s: Strings, unix: number): string {
  return new Intl.DateTimeFormat(locale(s), { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(unix * 1000));
}

/** A date input's value (YYYY-MM-DD) as the end of that day, UTC: the plan runs through the day chosen. */
export function endOfDay(value: string): number {
  return Date.parse(`${value}T23:59:59Z`) / 1000;
}

/** An id or another Latin code inside a sentence of either language. */
export const code = (text: string): HTMLElement => h('code', { attrs: { dir: 'ltr' } }, text);
