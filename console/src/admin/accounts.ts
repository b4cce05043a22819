/**
 * The operator's accounts (GET /console/api/admin/accounts): a search by id, name or a user's email,
 * newest first in cursor pages; the search and the page live in the address (?q=, ?after=, ?trail=).
 * Each row names the plan, the balances and the company verification, and links to the account.
 */
import { bdi, h } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import type { ListPage } from '../publicApi.js';
import { errorText } from '../requests/parts.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { dataTable } from '../views/dataTable.js';
import { cursorPager } from '../views/pager.js';
import { emptyState, pageScreen, textLink } from '../views/parts.js';
import { kybBadge, planText } from './parts.js';
import { code, count, money, type AdminAccount } from './model.js';

const PAGE_SIZE = 25;
const PATH = '/admin';

export function accountsScreen(ctx: ScreenContext): Screen {
  const { s, place } = ctx;
  const results = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen({ title: s.t('admAccountsTitle'), intro: s.t('admAccountsIntro') }, searchForm(ctx), results);
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  const q = place.query.get('q');
  if (q) query.set('query', q);
  const after = place.query.get('after');
  if (after) query.set('starting_after', after);
  void ctx.api
    .call<ListPage<AdminAccount>>('GET', `/admin/accounts?${query}`)
    .then((page) => {
      results.replaceChildren(table(ctx, page.data), cursorPager(ctx, PATH, page, 'admAccountsPages') ?? '');
      ctx.announce(s.t('admAccountsCount', { count: page.data.length }));
    })
    .catch((err: unknown) => results.replaceChildren(h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err))))
    .finally(() => results.removeAttribute('aria-busy'));
  return screen;
}

function searchForm(ctx: ScreenContext): HTMLFormElement {
  const { s, place } = ctx;
  const input = h('input', {
    class: 'input',
    attrs: { id: 'adm-search', name: 'q', type: 'search', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'adm-search-hint' },
  });
  input.value = place.query.get('q') ?? '';
  const form = h(
    'form',
    { class: ['filters', 'adm-filters'], attrs: { role: 'search', 'aria-label': s.t('admSearchLabel') } },
    h(
      'div',
      { class: 'filter filter-wide' },
      h('label', { class: 'label', attrs: { for: 'adm-search' } }, s.t('admSearch')),
      h('p', { id: 'adm-search-hint', class: 'hint' }, s.t('admSearchHint')),
      input,
    ),
    h(
      'div',
      { class: 'filter filter-submit' },
      button(s.t('admSearchButton'), 'secondary', () => {}, { type: 'submit' }),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = input.value.trim();
    ctx.go(`${at(PATH)}${value ? `?${new URLSearchParams({ q: value })}` : ''}`);
  });
  return form;
}

function table(ctx: ScreenContext, rows: AdminAccount[]): HTMLElement {
  const { s } = ctx;
  if (rows.length === 0) return emptyState('users', s.t(ctx.place.query.get('q') ? 'admAccountsNoMatch' : 'admAccountsNone'));
  return dataTable(s, {
    caption: s.t('admAccountsCaption'),
    columns: ['admColAccount', 'admColOwner', 'admColPlan', 'admColWallet', 'admColSends', 'admColKyb'],
    class: 'adm-accounts',
    scrollRegion: true,
    rows: rows.map((a) =>
      h(
        'tr',
        { attrs: { 'data-account': a.id } },
        h('th', { attrs: { scope: 'row' } }, textLink(a.name, `/admin/accounts/${a.id}`), h('span', { class: 'adm-id' }, code(a.id))),
        h('td', { class: 'contact' }, bdi(a.owner_email)),
        h('td', { class: 'nowrap' }, planText(s, a.plan)),
        h('td', { class: 'nowrap' }, money(s, a.balance.wallet)),
        h('td', null, count(s, a.balance.sends)),
        h('td', null, kybBadge(s, a.company_verification)),
      ),
    ),
  });
}
