/**
 * The billing objects the console API answers (server/src/services/billing.ts: GET /console/api/billing,
 * /billing/ledger, /billing/usage, /billing/prices, /billing/notices) and how the page writes their
 * amounts, months and days in its language (Latin digits in both, as elsewhere in the console).
 */
import type { Strings } from '../i18n.js';

export interface Amount {
  amount: number;
  currency: string;
}

export interface BillingOverview {
  usage: {
    plan: { name: string; status: 'none' | 'active' | 'expired'; sends_per_year: number; expires_at: number | null };
    balance: { sends: number; wallet: Amount };
    prices: { send_overage: Amount; identity_verification: Amount };
    currency: string;
  };
  plan_days_left: number | null;
  ledger_totals: { sends: number; wallet: Amount; matches_balance: boolean };
}

export interface LedgerEntry {
  id: string;
  /** send (a charge), refund, wallet_topup, sends_added, balance_set, opening_balance. */
  kind: string;
  sends: number;
  wallet: Amount;
  signature_request: string | null;
  note: string | null;
  created_at: number;
}

export interface MonthUsage {
  /** YYYY-MM (UTC). */
  month: string;
  sends: number;
  identity_checks: number;
  wallet_spend: Amount;
}

export interface PriceList {
  currency: string;
  current_plan: string;
  plans: { name: string; sends_per_year: number; send_overage: Amount }[];
  identity_verification: Amount;
}

export interface CapNotice {
  id: string;
  kind: string;
  level: 80 | 100;
  key: string | null;
  count: number | null;
  cap: number | null;
  /** The UTC day (its first second) the count is of. */
  day: number | null;
  created_at: number;
}

const locale = (s: Strings): string => (s.lang === 'ar' ? 'ar-EG-u-nu-latn' : 'en-GB');

/** An amount in its currency, e.g. "EGP 280.50" / "‏280.50 ج.م.‏". */
export function money(s: Strings, a: Amount): string {
  return new Intl.NumberFormat(locale(s), { style: 'currency', currency: a.currency }).format(a.amount);
}

/** A signed amount (a ledger change): "+250.00", "−9.00"; zero as a plain 0. */
export function signedMoney(s: Strings, a: Amount): string {
  return new Intl.NumberFormat(locale(s), { style: 'currency', currency: a.currency, signDisplay: 'exceptZero' }).format(a.amount);
}

/**
 * A count; `signed` for a change ("+3", "-1"), without the direction marks Arabic formats put before
 * the sign (an Arabic letter mark turns "-1" into "1-" even in a left-to-right run): the caller
 * isolates it left to right.
 */
export function count(s: Strings, n: number, signed = false): string {
  const text = new Intl.NumberFormat(locale(s), { signDisplay: signed ? 'exceptZero' : 'auto' }).format(n);
  return signed ? text.replace(/\p{Bidi_Control}/gu, '') : text;
}

/** A figure in few characters: 12, 10.5, 1.2K (a bar's label; the table has it in full). */
export function compact(s: Strings, n: number): string {
  return new Intl.NumberFormat(locale(s), { notation: 'compact', maximumFractionDigits: 1 }).format(n);
}

/**
 * "2026-11" as "November 2026" / "نوفمبر 2026", or with `month` its short name alone ("Nov" /
 * "نوفمبر"); the month is UTC, as the server counts it.
 */
export function monthName(s: Strings, month: string, style: 'long' | 'month' = 'long'): string {
  const [y, m] = month.split('-').map(Number);
  const parts: Intl.DateTimeFormatOptions =
    style === 'long' ? { month: 'long', year: 'numeric', timeZone: 'UTC' } : { month: 'short', timeZone: 'UTC' };
  return new Intl.DateTimeFormat(locale(s), parts).format(new Date(Date.UTC(y!, m! - 1, 1)));
}

/** A date without a time (the plan's year end). */
export function day(s: Strings, unix: number): string {
  return new Intl.DateTimeFormat(locale(s), { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(unix * 1000));
}
