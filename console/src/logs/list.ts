/**
 * Developers → Logs: the account's public API requests (GET /console/api/request_log) for the
 * layout's live/test mode, newest first, cursor pages, narrowed by status class, method, path
 * prefix, key and request id. A refusal shows its code and what it means in the page's language.
 * The filters and the cursor trail live in the address, so Back, Forward and a reload keep the place.
 */
import { bdi, h } from '@tawqi/signing-page/dom';
import { dataTable } from '../views/dataTable.js';
import { button } from '@tawqi/signing-page/kit';
import type { Key } from '../i18n.js';
import type { ListPage } from '../publicApi.js';
import { errorText } from '../requests/parts.js';
import { when } from '../requests/model.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { cursorPager } from '../views/pager.js';
import { emptyState, pageScreen } from '../views/parts.js';
import { FILTERS, METHODS, STATUS_CLASSES, type LogEntry } from './model.js';
import { caller, statusPill } from './parts.js';

const PAGE_SIZE = 25;
const LIST = '/developers/logs';

export function logListScreen(ctx: ScreenContext): Screen {
  const { s, place } = ctx;
  const q = place.query;
  const results = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen({ title: s.t('navLogs'), intro: s.t(ctx.livemode ? 'logsIntroLive' : 'logsIntroTest') }, filters(ctx), results);
  const after = q.get('after');
  const query: Record<string, string | number | null> = { livemode: String(ctx.livemode), limit: PAGE_SIZE, starting_after: after };
  for (const name of FILTERS) query[name] = q.get(name);
  void ctx.api
    .requestLog<ListPage<LogEntry>>(query)
    .then((page) => {
      const filtered = FILTERS.some((name) => q.get(name));
      results.replaceChildren(table(ctx, page.data, filtered), cursorPager(ctx, LIST, page, 'logsPages') ?? '');
      results.removeAttribute('aria-busy');
      ctx.announce(s.t('logsCount', { count: page.data.length }));
    })
    .catch((err: unknown) => {
      results.replaceChildren(h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err)));
      results.removeAttribute('aria-busy');
    });
  return screen;
}

function filters(ctx: ScreenContext): HTMLFormElement {
  const { s, place } = ctx;
  const q = place.query;
  const select = (name: string, any: Key, options: readonly string[], label: (o: string) => string) =>
    h(
      'select',
      { class: 'input', attrs: { id: `logs-${name}`, name } },
      h('option', { attrs: { value: '' } }, s.t(any)),
      options.map((o) => h('option', { attrs: { value: o, selected: q.get(name) === o } }, label(o))),
    );
  const text = (name: string, placeholder?: string) =>
    h('input', {
      class: 'input',
      attrs: { id: `logs-${name}`, name, type: 'search', dir: 'ltr', value: q.get(name) ?? '', placeholder, spellcheck: 'false' },
    });
  const labelled = (name: string, label: Key, input: HTMLElement, cls = '') =>
    h('div', { class: ['filter', cls] }, h('label', { class: 'label', attrs: { for: `logs-${name}` } }, s.t(label)), input);
  const form = h(
    'form',
    { class: 'filters', attrs: { role: 'search', 'aria-label': s.t('logsFilters') } },
    labelled(
      'status',
      'logsStatus',
      select('status', 'logsAnyStatus', STATUS_CLASSES, (c) => s.t(`logsStatus_${c}` as Key)),
    ),
    labelled(
      'method',
      'logsMethod',
      select('method', 'logsAnyMethod', METHODS, (m) => m),
    ),
    labelled('path', 'logsPath', text('path', '/api/v1/signature_requests'), 'filter-wide'),
    labelled('key', 'logsKey', text('key', 'key_…')),
    labelled('request_id', 'logsRequestId', text('request_id', 'req_…')),
    h(
      'div',
      { class: 'filter filter-submit' },
      button(s.t('logsApply'), 'secondary', () => {}, { type: 'submit' }),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (typeof v === 'string' && v.trim()) next.set(k, v.trim());
    ctx.go(`${at(LIST)}${next.size ? `?${next}` : ''}`);
  });
  return form;
}

function table(ctx: ScreenContext, rows: LogEntry[], filtered: boolean): HTMLElement {
  const { s } = ctx;
  if (rows.length === 0) return emptyState('list', s.t(filtered ? 'logsNoneFiltered' : ctx.livemode ? 'logsNoneLive' : 'logsNoneTest'));
  return dataTable(s, {
    caption: s.t(ctx.livemode ? 'logsCaptionLive' : 'logsCaptionTest'),
    columns: ['logsStatus', 'logsRequest', 'logsKey', 'logsTime'],
    rows: rows.map((e) =>
      h(
        'tr',
        null,
        h(
          'td',
          null,
          statusPill(e),
          e.code ? h('div', { class: 'logs-code' }, h('code', { attrs: { dir: 'ltr' } }, e.code)) : null,
          e.code_message ? h('div', { class: 'muted small' }, e.code_message) : null,
        ),
        h(
          'th',
          { attrs: { scope: 'row' } },
          h(
            'a',
            { class: 'text-link logs-request', attrs: { href: at(`${LIST}/${e.request_id}`), dir: 'ltr' } },
            h('span', { class: 'logs-method' }, e.method),
            ' ',
            h('span', { class: 'mono' }, e.path),
          ),
        ),
        h('td', { class: 'nowrap' }, bdi(caller(s, e))),
        h('td', { class: 'nowrap' }, when(s, e.created_at)),
      ),
    ),
    class: 'logs-table',
  });
}
