/** The Billing page's smaller parts: the plan and balances, the daily-cap notices, the prices. */
import { fillNodes, h } from '@tawqi/signing-page/dom';
import { icon } from '@tawqi/signing-page/kit';
import type { Key, Strings } from '../i18n.js';
import { dataTable } from '../views/dataTable.js';
import { emptyState } from '../views/parts.js';
import { count, day, money, type BillingOverview, type CapNotice, type PriceList } from './model.js';

const planName = (s: Strings, name: string): string =>
  ({
    none: s.t('billPlan_none'),
    starter: s.t('billPlan_starter'),
    business: s.t('billPlan_business'),
    enterprise: s.t('billPlan_enterprise'),
  })[name] ?? name;

/** The plan with its status and year end, the sends left and the wallet balance. */
export function overviewFacts(s: Strings, o: BillingOverview): Node {
  const { plan, balance } = o.usage;
  const item = (label: Key, value: string, extra: Node | null) =>
    h('div', { class: 'req-fact' }, h('dt', null, s.t(label)), h('dd', null, h('span', { class: 'bill-figure' }, value), extra));
  const status = h('span', { class: ['bill-status', `bill-status-${plan.status}`] }, s.t(`billStatus_${plan.status}`));
  const facts = h(
    'dl',
    { class: ['req-facts', 'bill-facts'] },
    item('billPlan', planName(s, plan.name), status),
    item('billYearEnds', plan.expires_at === null ? s.t('billNoYearEnd') : day(s, plan.expires_at), daysLeft(s, o.plan_days_left)),
    item(
      'billSends',
      count(s, balance.sends),
      h('span', { class: 'muted' }, s.t('billSendsOfYear', { sends: count(s, plan.sends_per_year) })),
    ),
    item('billWallet', money(s, balance.wallet), h('span', { class: 'muted' }, s.t('billWalletUse'))),
  );
  // The balances are kept beside the ledger; a difference means a change bypassed it (an operator's SQL).
  const mismatch = o.ledger_totals.matches_balance
    ? null
    : h('div', { class: 'notice tone-warn', attrs: { role: 'note' } }, icon('alert'), h('p', null, s.t('billTotalsMismatch')));
  return h('div', null, facts, mismatch);
}

function daysLeft(s: Strings, days: number | null): HTMLElement | null {
  if (days === null) return null;
  const text = days >= 0 ? s.t('billDaysLeft', { days: count(s, days) }) : s.t('billDaysAgo', { days: count(s, -days) });
  return h('span', { class: ['muted', days < 30 && 'bill-soon'] }, text);
}

/** The publishable-key daily-cap notices, newest first (80% as a warning, the cap reached as an alert-toned box). */
export function capNotices(s: Strings, notices: CapNotice[]): Node {
  if (notices.length === 0) return emptyState('check', s.t('billNoticesNone'));
  return h(
    'ul',
    { class: 'bill-notices' },
    notices.map((n) =>
      h(
        'li',
        { class: ['notice', n.level === 100 ? 'tone-bad' : 'tone-warn'], attrs: { 'data-level': n.level } },
        icon(n.level === 100 ? 'alert' : 'info'),
        h(
          'p',
          null,
          fillNodes(s.t(n.level === 100 ? 'billNoticeReached' : 'billNotice80'), {
            key: h('code', { attrs: { dir: 'ltr' } }, n.key ?? '—'),
            count: count(s, n.count ?? 0),
            cap: count(s, n.cap ?? 0),
            day: h('bdi', null, n.day === null ? '—' : day(s, n.day)),
          }),
        ),
      ),
    ),
  );
}

/** Every plan's yearly sends and the price of a send beyond them, the account's plan marked; the identity check's price. */
export function priceTable(s: Strings, p: PriceList): Node {
  const table = dataTable(s, {
    caption: s.t('billPricesCaption'),
    columns: ['billPricePlan', 'billPriceSends', 'billPriceOverage'],
    class: 'bill-prices',
    rows: p.plans.map((plan) =>
      h(
        'tr',
        { class: [plan.name === p.current_plan && 'bill-current'], attrs: { 'data-plan': plan.name } },
        h(
          'th',
          { attrs: { scope: 'row' } },
          planName(s, plan.name),
          plan.name === p.current_plan ? h('span', { class: 'bill-status bill-status-active' }, s.t('billYourPlan')) : null,
        ),
        h('td', { class: 'bill-num' }, count(s, plan.sends_per_year)),
        h('td', { class: 'bill-num' }, money(s, plan.send_overage)),
      ),
    ),
  });
  return h(
    'div',
    null,
    table,
    h('p', { class: 'bill-identity-price' }, s.t('billIdentityPrice', { price: money(s, p.identity_verification) })),
    h('p', { class: 'muted' }, s.t('billPricesNote')),
  );
}
