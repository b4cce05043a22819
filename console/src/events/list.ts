/**
 * Developers → Events: the event log of the layout's mode (GET /api/v1/events through the
 * credential), newest first, filtered by type (one type, or a group like `signer.*`), cursor pages
 * in the address. Each event opens on its own page.
 */
import { TEST_EVENT_TYPE } from '@tawqi/shared/events';
import { dataTable } from '../views/dataTable.js';
import { h, replace } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import type { ListPage } from '../publicApi.js';
import { errorText } from '../requests/parts.js';
import { when } from '../requests/model.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { cursorPager } from '../views/pager.js';
import { emptyState, pageScreen } from '../views/parts.js';
import { eventGroups, groupLabel, requestOf, type ApiEventFull } from '../webhooks/model.js';

const PAGE_SIZE = 25;

export function eventListScreen(ctx: ScreenContext): Screen {
  const { s, place } = ctx;
  const type = place.query.get('type');
  const results = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen(
    { title: s.t('navEvents'), intro: s.t(ctx.livemode ? 'evIntroLive' : 'evIntroTest') },
    filters(ctx, type),
    results,
  );
  void ctx.publicApi
    .get<ListPage<ApiEventFull>>(ctx.livemode, '/events', { type, starting_after: place.query.get('after'), limit: PAGE_SIZE })
    .then((page) => {
      replace(results, table(ctx, page.data), cursorPager(ctx, '/developers/events', page, 'evPages'));
      ctx.announce(s.t('evCount', { count: page.data.length }));
    })
    .catch((err: unknown) => replace(results, h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err))))
    .finally(() => results.removeAttribute('aria-busy'));
  return screen;
}

function filters(ctx: ScreenContext, current: string | null): HTMLFormElement {
  const { s } = ctx;
  const option = (value: string, label: string) => h('option', { attrs: { value, selected: current === value } }, label);
  const select = h(
    'select',
    { class: 'input', attrs: { id: 'ev-type', name: 'type', dir: 'ltr' } },
    option('', s.t('evAnyType')),
    eventGroups().map(({ group, types }) =>
      h(
        'optgroup',
        { attrs: { label: groupLabel(s, group) } },
        option(`${group}.*`, s.t('evWholeGroup', { group: `${group}.*` })),
        types.map((t) => option(t, t)),
      ),
    ),
    h('optgroup', { attrs: { label: groupLabel(s, 'webhook_endpoint') } }, option(TEST_EVENT_TYPE, TEST_EVENT_TYPE)),
  );
  const form = h(
    'form',
    { class: ['filters', 'ev-filters'], attrs: { role: 'search', 'aria-label': s.t('evFilters') } },
    h('div', { class: 'filter filter-wide' }, h('label', { class: 'label', attrs: { for: 'ev-type' } }, s.t('evType')), select),
    h(
      'div',
      { class: 'filter filter-submit' },
      button(s.t('reqApply'), 'secondary', () => {}, { type: 'submit' }),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    ctx.go(`${at('/developers/events')}${select.value ? `?${new URLSearchParams({ type: select.value })}` : ''}`);
  });
  return form;
}

function table(ctx: ScreenContext, rows: ApiEventFull[]): HTMLElement {
  const { s } = ctx;
  if (rows.length === 0) return emptyState('activity', s.t('evNone'));
  return dataTable(s, {
    caption: s.t(ctx.livemode ? 'evCaptionLive' : 'evCaptionTest'),
    columns: ['evType', 'evId', 'evRequest', 'reqCreated'],
    rows: rows.map((e) => {
      const request = requestOf(e);
      return h(
        'tr',
        null,
        h(
          'th',
          { attrs: { scope: 'row' } },
          h('a', { class: 'text-link', attrs: { href: at(`/developers/events/${e.id}`), dir: 'ltr' } }, h('code', null, e.type)),
        ),
        h('td', null, h('code', { class: 'small', attrs: { dir: 'ltr' } }, e.id)),
        h(
          'td',
          null,
          request ? h('a', { class: 'text-link', attrs: { href: at(`/requests/${request}`), dir: 'ltr' } }, h('code', null, request)) : '—',
        ),
        h('td', { class: 'nowrap' }, when(s, e.created_at)),
      );
    }),
  });
}
