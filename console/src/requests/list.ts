/**
 * The list of signature requests (GET /api/v1/signature_requests through the credential): filters
 * by status, dates and text (the API's `search`), the layout's live/test mode, newest first, pages
 * by cursor. The filters and the cursor trail live in the address, so Back, Forward and a reload
 * keep the place.
 */
import { bdi, h } from '@tawqi/signing-page/dom';
import { dataTable } from '../views/dataTable.js';
import { button } from '@tawqi/signing-page/kit';
import type { Key } from '../i18n.js';
import type { ListPage } from '../publicApi.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { cursorPager } from '../views/pager.js';
import { emptyState, linkButton, pageScreen } from '../views/parts.js';
import { canWrite, REQUEST_STATUSES, statusTone, when, type SignatureRequest } from './model.js';
import { errorText, statusBadge } from './parts.js';

const PAGE_SIZE = 20;

export function requestListScreen(ctx: ScreenContext): Screen {
  const { s, place } = ctx;
  const q = place.query;
  const results = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const create = canWrite(ctx.session?.permissions) ? linkButton(s.t('reqNew'), '/requests/new', 'primary') : null;
  const screen = pageScreen(
    { title: s.t('navRequests'), intro: s.t(ctx.livemode ? 'reqIntroLive' : 'reqIntroTest') },
    filters(ctx),
    results,
  );
  if (create) screen.root.querySelector('.page-head')?.append(h('div', { class: 'page-actions' }, create));
  const after = q.get('after');
  void ctx.publicApi
    .get<ListPage<SignatureRequest>>(ctx.livemode, '/signature_requests', {
      status: q.get('status'),
      search: q.get('search'),
      created_after: q.get('from') || null,
      created_before: q.get('to') ? endOfDay(q.get('to')!) : null,
      starting_after: after,
      limit: PAGE_SIZE,
    })
    .then((page) => {
      results.replaceChildren(table(ctx, page.data), cursorPager(ctx, '/requests', page, 'reqPages') ?? '');
      results.removeAttribute('aria-busy');
      ctx.announce(s.t('reqCount', { count: page.data.length }));
    })
    .catch((err: unknown) => {
      results.replaceChildren(h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err)));
      results.removeAttribute('aria-busy');
    });
  return screen;
}

/** The end of a chosen day (UTC): "to 25 Nov" includes the requests of the 25th. */
const endOfDay = (day: string): string => (/^\d{4}-\d{2}-\d{2}$/.test(day) ? `${day}T23:59:59Z` : day);

function filters(ctx: ScreenContext): HTMLFormElement {
  const { s, place } = ctx;
  const q = place.query;
  const status = h(
    'select',
    { class: 'input', attrs: { id: 'req-status', name: 'status' } },
    h('option', { attrs: { value: '' } }, s.t('reqAnyStatus')),
    REQUEST_STATUSES.map((st) => h('option', { attrs: { value: st, selected: q.get('status') === st } }, s.t(`reqStatus_${st}` as Key))),
  );
  const search = h('input', { class: 'input', attrs: { id: 'req-search', name: 'search', type: 'search', value: q.get('search') ?? '' } });
  const from = h('input', {
    class: 'input',
    attrs: { id: 'req-from', name: 'from', type: 'date', value: q.get('from') ?? '', dir: 'ltr' },
  });
  const to = h('input', { class: 'input', attrs: { id: 'req-to', name: 'to', type: 'date', value: q.get('to') ?? '', dir: 'ltr' } });
  const labelled = (id: string, label: Key, input: HTMLElement, cls = '') =>
    h('div', { class: ['filter', cls] }, h('label', { class: 'label', attrs: { for: id } }, s.t(label)), input);
  const form = h(
    'form',
    { class: 'filters', attrs: { role: 'search', 'aria-label': s.t('reqFilters') } },
    labelled('req-search', 'reqSearch', search, 'filter-wide'),
    labelled('req-status', 'reqStatus', status),
    labelled('req-from', 'reqFrom', from),
    labelled('req-to', 'reqTo', to),
    h(
      'div',
      { class: 'filter filter-submit' },
      button(s.t('reqApply'), 'secondary', () => {}, { type: 'submit' }),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (typeof v === 'string' && v.trim()) next.set(k, v.trim());
    ctx.go(`${at('/requests')}${next.size ? `?${next}` : ''}`);
  });
  return form;
}

function table(ctx: ScreenContext, rows: SignatureRequest[]): HTMLElement {
  const { s } = ctx;
  if (rows.length === 0) return emptyState('inbox', s.t('reqNone'));
  return dataTable(s, {
    caption: s.t(ctx.livemode ? 'reqCaptionLive' : 'reqCaptionTest'),
    columns: ['reqTitle', 'reqStatus', 'reqSigners', 'reqCreated'],
    rows: rows.map((r) =>
      h(
        'tr',
        null,
        h('th', { attrs: { scope: 'row' } }, h('a', { class: 'text-link', attrs: { href: at(`/requests/${r.id}`) } }, bdi(r.title))),
        h('td', null, statusBadge(s, r.status, statusTone(r.status))),
        h('td', null, bdi(r.signers.map((x) => x.name).join(s.t('listSeparator')))),
        h('td', { class: 'nowrap' }, when(s, r.created_at)),
      ),
    ),
  });
}
