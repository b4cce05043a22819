/**
 * The audit log (audit.read: owner and admin) from GET /console/api/audit_log: newest first, cursor
 * pages, a filter by action; each entry's time, who acted, what they did in a sentence of the
 * page's language (actions.ts), the target, the address and the details. The filter and the cursor
 * trail live in the address, as on the Requests list. A user without the permission gets a "not
 * allowed" state (the server would refuse the read anyway).
 */
import { h } from '@tawqi/signing-page/dom';
import { dataTable } from '../views/dataTable.js';
import { button } from '@tawqi/signing-page/kit';
import type { Strings } from '../i18n.js';
import { ApiError } from '../api.js';
import type { ListPage } from '../publicApi.js';
import { when } from '../requests/model.js';
import { errorText } from '../requests/parts.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { cursorPager } from '../views/pager.js';
import { emptyState, linkButton, pageScreen } from '../views/parts.js';
import { AUDIT_ACTIONS, auditSentence } from './actions.js';

const PAGE_SIZE = 25;
const PATH = '/audit-log';

export interface AuditEntry {
  id: string;
  actor: string;
  action: string;
  target: string | null;
  ip: string | null;
  detail: Record<string, unknown>;
  created_at: number;
}

export function auditLogScreen(ctx: ScreenContext): Screen {
  const { s, place } = ctx;
  if (!(ctx.session?.permissions ?? []).includes('audit.read')) return notAllowed(ctx);
  const q = place.query;
  const results = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen({ title: s.t('navAudit'), intro: s.t('auditIntro') }, filter(ctx), results);
  const after = q.get('after');
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (q.get('action')) query.set('action', q.get('action')!);
  if (after) query.set('starting_after', after);
  void ctx.api
    .call<ListPage<AuditEntry>>('GET', `/audit_log?${query}`)
    .then((page) => {
      results.replaceChildren(auditTable(s, page.data), cursorPager(ctx, PATH, page, 'auditPages') ?? '');
      ctx.announce(s.t('auditCount', { count: page.data.length }));
    })
    .catch((err: unknown) => {
      const forbidden = err instanceof ApiError && err.code === 'forbidden';
      results.replaceChildren(
        forbidden
          ? emptyState('shield', s.t('auditNotAllowed'))
          : h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err)),
      );
    })
    .finally(() => results.removeAttribute('aria-busy'));
  return screen;
}

function notAllowed(ctx: ScreenContext): Screen {
  const { s } = ctx;
  return pageScreen({ title: s.t('navAudit') }, emptyState('shield', s.t('auditNotAllowed'), linkButton(s.t('goHome'), '', 'secondary')));
}

function filter(ctx: ScreenContext): HTMLFormElement {
  const { s, place } = ctx;
  const chosen = place.query.get('action') ?? '';
  const options = Object.keys(AUDIT_ACTIONS).map((code) => ({ code, text: auditSentence(s, code, {}) }));
  options.sort((x, y) => x.text.localeCompare(y.text, s.lang));
  const select = h(
    'select',
    { class: 'input', attrs: { id: 'audit-action', name: 'action' } },
    h('option', { attrs: { value: '' } }, s.t('auditAnyAction')),
    options.map((o) => h('option', { attrs: { value: o.code, selected: o.code === chosen } }, o.text)),
  );
  const form = h(
    'form',
    { class: 'filters', attrs: { role: 'search', 'aria-label': s.t('auditFilters') } },
    h('div', { class: 'filter filter-wide' }, h('label', { class: 'label', attrs: { for: 'audit-action' } }, s.t('auditAction')), select),
    h(
      'div',
      { class: 'filter filter-submit' },
      button(s.t('reqApply'), 'secondary', () => {}, { type: 'submit' }),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    ctx.go(`${at(PATH)}${select.value ? `?${new URLSearchParams({ action: select.value })}` : ''}`);
  });
  return form;
}

/** The entries as a table (also the operator's audit log, admin/audit.ts). */
export function auditTable(s: Strings, rows: AuditEntry[]): HTMLElement {
  if (rows.length === 0) return emptyState('clipboard', s.t('auditNone'));
  const mono = (text: string | null) => (text ? h('code', { attrs: { dir: 'ltr' } }, text) : '—');
  // Wider than the page on a narrow screen: a focusable region, so the keyboard can scroll it.
  return dataTable(s, {
    caption: s.t('auditCaption'),
    columns: ['auditTime', 'auditWho', 'auditWhat', 'auditTarget', 'auditIp'],
    class: 'audit-table',
    scrollRegion: true,
    rows: rows.map((e) =>
      h(
        'tr',
        { attrs: { 'data-action': e.action } },
        h(
          'td',
          { class: 'nowrap' },
          h('time', { attrs: { datetime: new Date(e.created_at * 1000).toISOString() } }, when(s, e.created_at)),
        ),
        h('td', { class: 'contact', attrs: { dir: 'ltr' } }, e.actor),
        // The details go under the sentence (not in a column of their own), so the table fits the page.
        h('th', { attrs: { scope: 'row' } }, auditSentence(s, e.action, e.detail), details(s, e.detail)),
        h('td', null, mono(e.target)),
        h('td', null, mono(e.ip)),
      ),
    ),
  });
}

/** The detail object as `key: value` pairs, small and monospace (values as JSON when not text). */
function details(s: Strings, detail: Record<string, unknown>): HTMLElement | null {
  const entries = Object.entries(detail);
  if (entries.length === 0) return null;
  return h(
    'span',
    { class: 'audit-detail' },
    h('span', { class: 'sr-only' }, `${s.t('auditDetails')}: `),
    h('code', { attrs: { dir: 'ltr' } }, entries.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' · ')),
  );
}
