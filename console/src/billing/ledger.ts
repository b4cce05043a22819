/**
 * The wallet ledger: every change of the send balance and the wallet, newest first — a charge or a
 * refund with a link to its signature request, a top-up, sends added, a balance set, the opening
 * balance — in cursor pages kept in the address (views/pager.ts).
 */
import { h } from '@tawqi/signing-page/dom';
import type { Key, Strings } from '../i18n.js';
import type { ListPage } from '../publicApi.js';
import { when } from '../requests/model.js';
import { at } from '../router.js';
import type { ScreenContext } from '../screen.js';
import { dataTable } from '../views/dataTable.js';
import { cursorPager } from '../views/pager.js';
import { emptyState } from '../views/parts.js';
import { count, signedMoney, type LedgerEntry } from './model.js';

const KINDS: Record<string, Key> = {
  send: 'billKind_send',
  refund: 'billKind_refund',
  wallet_topup: 'billKind_wallet_topup',
  sends_added: 'billKind_sends_added',
  balance_set: 'billKind_balance_set',
  opening_balance: 'billKind_opening_balance',
};

/**
 * Whose note is shown: the operator's own words on a top-up or added sends. The server's notes on
 * charges, refunds and balance sets are English bookkeeping ("2 signer(s), 1 identity") that the
 * kind and the linked request already say in the page's language.
 */
const NOTED = new Set(['wallet_topup', 'sends_added']);

export function ledgerTable(ctx: ScreenContext, path: string, page: ListPage<LedgerEntry>): Node {
  const { s } = ctx;
  if (page.data.length === 0) return emptyState('list', s.t('billLedgerNone'));
  const table = dataTable(s, {
    caption: s.t('billLedgerCaption'),
    columns: ['billLedgerTime', 'billLedgerWhat', 'billLedgerRequest', 'billLedgerSends', 'billLedgerWallet'],
    class: 'bill-ledger',
    scrollRegion: true,
    rows: page.data.map((e) => row(s, e)),
  });
  return h('div', null, table, cursorPager(ctx, path, page, 'billLedgerPages'));
}

function row(s: Strings, e: LedgerEntry): HTMLElement {
  const kind = KINDS[e.kind];
  return h(
    'tr',
    { attrs: { 'data-kind': e.kind, 'data-id': e.id } },
    h('td', { class: 'nowrap' }, h('time', { attrs: { datetime: new Date(e.created_at * 1000).toISOString() } }, when(s, e.created_at))),
    h(
      'th',
      { attrs: { scope: 'row' } },
      kind ? s.t(kind) : h('code', { attrs: { dir: 'ltr' } }, e.kind),
      e.note && NOTED.has(e.kind) ? h('span', { class: 'bill-note', attrs: { dir: 'auto' } }, e.note) : null,
    ),
    h(
      'td',
      null,
      e.signature_request
        ? h(
            'a',
            { class: 'text-link', attrs: { href: at(`/requests/${e.signature_request}`), dir: 'ltr' } },
            h('code', null, e.signature_request),
          )
        : '—',
    ),
    amountCell(e.sends === 0 ? '—' : h('bdi', { attrs: { dir: 'ltr' } }, count(s, e.sends, true)), e.sends),
    amountCell(e.wallet.amount === 0 ? '—' : signedMoney(s, e.wallet), e.wallet.amount),
  );
}

/** A change, coloured by its sign (the sign is in the text too). */
function amountCell(text: Node | string, value: number): HTMLElement {
  return h('td', { class: ['bill-num', value > 0 && 'bill-plus', value < 0 && 'bill-minus'] }, text);
}
