/**
 * An account's ledger for the operator (GET /console/api/admin/accounts/:id/ledger): every charge,
 * refund, top-up and added send, newest first, with the request it belongs to; cursor pages kept in
 * the address (?after=, ?trail=) like every list of the console.
 */
import { bdi, h } from '@tawqi/signing-page/dom';
import type { Key } from '../i18n.js';
import type { ListPage } from '../publicApi.js';
import { when } from '../requests/model.js';
import type { ScreenContext } from '../screen.js';
import { dataTable } from '../views/dataTable.js';
import { cursorPager } from '../views/pager.js';
import { code, count, money, type LedgerEntry } from './model.js';
import { errorNotice } from './parts.js';

const PAGE_SIZE = 20;

export function ledgerSection(ctx: ScreenContext, accountId: string): { root: HTMLElement; reload: () => Promise<void> } {
  const { s } = ctx;
  const body = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const root = h(
    'section',
    { class: 'adm-section', attrs: { 'aria-labelledby': 'adm-ledger' } },
    h('h2', { id: 'adm-ledger', class: 'subtitle' }, s.t('admLedger')),
    body,
  );
  const reload = async () => {
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    const after = ctx.place.query.get('after');
    if (after) query.set('starting_after', after);
    body.setAttribute('aria-busy', 'true');
    try {
      const page = await ctx.api.call<ListPage<LedgerEntry>>('GET', `/admin/accounts/${encodeURIComponent(accountId)}/ledger?${query}`);
      body.replaceChildren(table(ctx, page.data), cursorPager(ctx, ctx.place.path, page, 'admLedgerPages') ?? '');
    } catch (err) {
      body.replaceChildren(errorNotice(s, err));
    } finally {
      body.removeAttribute('aria-busy');
    }
  };
  void reload();
  return { root, reload };
}

function table(ctx: ScreenContext, rows: LedgerEntry[]): HTMLElement {
  const { s } = ctx;
  if (rows.length === 0) return h('p', { class: 'muted' }, s.t('admLedgerNone'));
  return dataTable(s, {
    caption: s.t('admLedger'),
    columns: ['auditTime', 'admColKind', 'admColWallet', 'admColSends', 'admColRequest', 'admNote'],
    class: 'adm-ledger',
    scrollRegion: true,
    rows: rows.map((e) =>
      h(
        'tr',
        { attrs: { 'data-entry': e.id } },
        h('td', { class: 'nowrap' }, when(s, e.created_at)),
        h('th', { attrs: { scope: 'row' } }, kindText(ctx, e.kind)),
        h('td', { class: 'nowrap num' }, e.wallet_delta.amount ? delta(money(s, e.wallet_delta, true)) : '—'),
        h('td', { class: 'nowrap num' }, e.sends_delta ? delta(count(s, e.sends_delta, true)) : '—'),
        h('td', null, e.signature_request ? code(e.signature_request) : '—'),
        h('td', null, e.note ? bdi(e.note) : '—'),
      ),
    ),
  });
}

/** A signed change, read left to right in either language (an Arabic line would put "+10" as "10+"). */
const delta = (text: string) => h('bdi', { attrs: { dir: 'ltr' } }, text);

/** The ledger's kinds (services/accountAdmin.ts, sessions.ts, domain/createPlan.ts) in words. */
const KINDS: Readonly<Record<string, Key>> = {
  send: 'admKind_send',
  refund: 'admKind_refund',
  opening_balance: 'admKind_opening_balance',
  wallet_topup: 'admKind_wallet_topup',
  sends_added: 'admKind_sends_added',
  balance_set: 'admKind_balance_set',
};

/** A ledger kind in words; an unknown kind shows as its code, so a new one is never hidden. */
function kindText(ctx: ScreenContext, kind: string): string | HTMLElement {
  const key = KINDS[kind];
  return key ? ctx.s.t(key) : code(kind);
}
