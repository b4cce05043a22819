/**
 * The Billing page (billing.read: owner and admin), `/console/billing`: the plan and its year end,
 * the send and wallet balances, the publishable-key daily-cap notices, the wallet ledger (cursor
 * pages in the address), usage per month as a chart and a table, and the prices. Each part loads
 * on its own from the console API (the public API has no ledger, monthly usage or notices), so a
 * slow or failed part leaves the others readable. A developer or viewer gets a "not allowed" state
 * and no navigation link (the server refuses their reads anyway).
 */
import { h } from '@tawqi/signing-page/dom';
import type { Key } from '../i18n.js';
import type { ListPage } from '../publicApi.js';
import { errorText } from '../requests/parts.js';
import type { Screen, ScreenContext } from '../screen.js';
import { emptyState, linkButton, pageScreen } from '../views/parts.js';
import { ledgerTable } from './ledger.js';
import type { BillingOverview, CapNotice, LedgerEntry, MonthUsage, PriceList } from './model.js';
import { capNotices, overviewFacts, priceTable } from './parts.js';
import { usageChart } from './usageChart.js';

export const BILLING_PATH = '/billing';
const LEDGER_PAGE_SIZE = 20;
const USAGE_MONTHS = 12;

export function billingScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  if (!(ctx.session?.permissions ?? []).includes('billing.read')) return notAllowed(ctx);
  const ledgerQuery = new URLSearchParams({ limit: String(LEDGER_PAGE_SIZE) });
  const after = ctx.place.query.get('after');
  if (after) ledgerQuery.set('starting_after', after);
  const blocks = [
    block(ctx, 'bill-overview', 'billOverviewTitle', ctx.api.call<BillingOverview>('GET', '/billing'), (o) => overviewFacts(s, o)),
    block(ctx, 'bill-notices', 'billNoticesTitle', ctx.api.call<ListPage<CapNotice>>('GET', '/billing/notices'), (n) =>
      capNotices(s, n.data),
    ),
    block(ctx, 'bill-ledger', 'billLedgerTitle', ctx.api.call<ListPage<LedgerEntry>>('GET', `/billing/ledger?${ledgerQuery}`), (page) =>
      ledgerTable(ctx, BILLING_PATH, page),
    ),
    block(ctx, 'bill-usage', 'billUsageTitle', ctx.api.call<{ data: MonthUsage[] }>('GET', `/billing/usage?months=${USAGE_MONTHS}`), (u) =>
      usageChart(s, u.data),
    ),
    block(ctx, 'bill-prices', 'billPricesTitle', ctx.api.call<PriceList>('GET', '/billing/prices'), (p) => priceTable(s, p)),
  ];
  // On a later ledger page (Next or Previous followed), the reader is taken back to the ledger.
  if (after) void blocks[2]!.ready.then(() => blocks[2]!.heading.focus());
  return pageScreen({ title: s.t('navBilling'), intro: s.t('billIntro') }, ...blocks.map((b) => b.root));
}

interface Block {
  root: HTMLElement;
  heading: HTMLElement;
  ready: Promise<void>;
}

/** A titled section that shows "loading", then what `render` makes of the answer, or the refusal. */
function block<T>(ctx: ScreenContext, id: string, title: Key, answer: Promise<T>, render: (value: T) => Node): Block {
  const { s } = ctx;
  const heading = h('h2', { id: `${id}-title`, class: 'subtitle', attrs: { tabindex: -1 } }, ctx.s.t(title));
  const body = h('div', { attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const root = h('section', { id, class: ['block', 'bill-block'], attrs: { 'aria-labelledby': `${id}-title` } }, heading, body);
  const ready = answer
    .then((value) => body.replaceChildren(render(value)))
    .catch((err: unknown) => body.replaceChildren(h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err))))
    .finally(() => body.removeAttribute('aria-busy'));
  return { root, heading, ready };
}

function notAllowed(ctx: ScreenContext): Screen {
  const { s } = ctx;
  return pageScreen({ title: s.t('navBilling') }, emptyState('shield', s.t('billNotAllowed'), linkButton(s.t('goHome'), '', 'secondary')));
}
