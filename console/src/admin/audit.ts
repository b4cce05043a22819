/**
 * The operators' audit log (GET /console/api/admin/audit_log): every operator action (admin.*) and
 * what concerns no account (operators' sign-ins), newest first; with ?account=acct_… that account's
 * whole log (its users' actions and the operators' on it). Cursor pages and the filter live in the
 * address. The table is the account audit log's (audit/log.ts).
 */
import { h } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import { auditTable, type AuditEntry } from '../audit/log.js';
import type { ListPage } from '../publicApi.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { cursorPager } from '../views/pager.js';
import { pageScreen } from '../views/parts.js';
import { errorNotice } from './parts.js';

const PAGE_SIZE = 25;
const PATH = '/admin/audit-log';

export function adminAuditScreen(ctx: ScreenContext): Screen {
  const { s, place } = ctx;
  const account = place.query.get('account');
  const results = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const intro = account ? s.t('admAuditAccountIntro', { account }) : s.t('admAuditIntro');
  const screen = pageScreen({ title: s.t('admAuditTitle'), intro }, filter(ctx), results);
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (account) query.set('account_id', account);
  const after = place.query.get('after');
  if (after) query.set('starting_after', after);
  void ctx.api
    .call<ListPage<AuditEntry>>('GET', `/admin/audit_log?${query}`)
    .then((page) => {
      results.replaceChildren(auditTable(s, page.data), cursorPager(ctx, PATH, page, 'auditPages') ?? '');
      ctx.announce(s.t('auditCount', { count: page.data.length }));
    })
    .catch((err: unknown) => results.replaceChildren(errorNotice(s, err)))
    .finally(() => results.removeAttribute('aria-busy'));
  return screen;
}

function filter(ctx: ScreenContext): HTMLFormElement {
  const { s, place } = ctx;
  const input = h('input', {
    class: 'input',
    attrs: { id: 'adm-audit-account', name: 'account', type: 'text', dir: 'ltr', autocomplete: 'off', spellcheck: 'false' },
  });
  input.value = place.query.get('account') ?? '';
  const form = h(
    'form',
    { class: ['filters', 'adm-filters'], attrs: { role: 'search', 'aria-label': s.t('auditFilters') } },
    h(
      'div',
      { class: 'filter filter-wide' },
      h('label', { class: 'label', attrs: { for: 'adm-audit-account' } }, s.t('admAuditAccount')),
      input,
    ),
    h(
      'div',
      { class: 'filter filter-submit' },
      button(s.t('reqApply'), 'secondary', () => {}, { type: 'submit' }),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = input.value.trim();
    ctx.go(`${at(PATH)}${value ? `?${new URLSearchParams({ account: value })}` : ''}`);
  });
  return form;
}
