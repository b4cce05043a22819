/** Pieces the admin's screens share: a plan in words, a company verification badge, a fact row, an error notice. */
import { h } from '@tawqi/signing-page/dom';
import type { Key, Strings } from '../i18n.js';
import { errorText, statusBadge } from '../requests/parts.js';
import { day, type AdminAccount, type KybStatus } from './model.js';

const KYB_TONE: Record<KybStatus, string> = { none: 'muted', pending: 'warn', approved: 'ok', rejected: 'bad' };

export function kybBadge(s: Strings, status: KybStatus): HTMLElement {
  return statusBadge(s, status, KYB_TONE[status] ?? 'muted', 'admKyb_');
}

/** "Business · until 3 Mar 2027", "Business · expired 3 Mar 2027", or "No plan". */
export function planText(s: Strings, plan: AdminAccount['plan']): string {
  const name = s.t(`admPlan_${plan.name}` as Key);
  if (plan.name === 'none') return name;
  if (plan.expires_at === null) return `${name} · ${s.t('admPlanNoExpiry')}`;
  const until = day(s, plan.expires_at);
  return `${name} · ${s.t(plan.status === 'expired' ? 'admPlanExpired' : 'admPlanUntil', { date: until })}`;
}

/** One `<dt>`/`<dd>` pair of a facts list (the console's req-facts look). */
export function fact(s: Strings, label: Key, value: Node | string, wide = false): HTMLElement {
  return h('div', { class: ['req-fact', wide ? 'adm-fact-wide' : null] }, h('dt', null, s.t(label)), h('dd', null, value));
}

export function errorNotice(s: Strings, err: unknown): HTMLElement {
  return h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err));
}

const CHECKS = ['pending', 'in_review', 'resubmission_requested', 'approved', 'declined'];

/** The representative's identity check state in words (none started: "not started"). */
export function checkText(s: Strings, status: string | null): string {
  if (status === null) return s.t('admCheck_none');
  return CHECKS.includes(status) ? s.t(`admCheck_${status}` as Key) : status;
}
