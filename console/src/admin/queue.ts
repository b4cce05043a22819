/**
 * The company verification review queue (GET /console/api/admin/company_verifications): submitted
 * rounds, the pending ones first (oldest first), then the decided ones; cursor pages in the address.
 * Each row leads to the round's page (round.ts), where the operator reads the documents and decides.
 */
import { bdi, h } from '@tawqi/signing-page/dom';
import type { ListPage } from '../publicApi.js';
import { when } from '../requests/model.js';
import type { Screen, ScreenContext } from '../screen.js';
import { dataTable } from '../views/dataTable.js';
import { cursorPager } from '../views/pager.js';
import { emptyState, pageScreen, textLink } from '../views/parts.js';
import { count, type ReviewRound } from './model.js';
import { checkText, errorNotice, kybBadge } from './parts.js';

const PAGE_SIZE = 25;
const PATH = '/admin/company-verifications';

export function queueScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const results = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen({ title: s.t('admQueueTitle'), intro: s.t('admQueueIntro') }, results);
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  const after = ctx.place.query.get('after');
  if (after) query.set('starting_after', after);
  void ctx.api
    .call<ListPage<ReviewRound>>('GET', `/admin/company_verifications?${query}`)
    .then((page) => {
      results.replaceChildren(table(ctx, page.data), cursorPager(ctx, PATH, page, 'admQueuePages') ?? '');
      ctx.announce(s.t('admQueueCount', { count: page.data.filter((r) => r.status === 'pending').length }));
    })
    .catch((err: unknown) => results.replaceChildren(errorNotice(s, err)))
    .finally(() => results.removeAttribute('aria-busy'));
  return screen;
}

function table(ctx: ScreenContext, rows: ReviewRound[]): HTMLElement {
  const { s } = ctx;
  if (rows.length === 0) return emptyState('shield', s.t('admQueueNone'));
  return dataTable(s, {
    caption: s.t('admQueueCaption'),
    columns: ['admColAccount', 'reqStatus', 'admSubmitted', 'admRepresentative', 'admDocuments'],
    class: 'adm-queue',
    scrollRegion: true,
    rows: rows.map((r) =>
      h(
        'tr',
        { attrs: { 'data-round': r.id, 'data-status': r.status } },
        h('th', { attrs: { scope: 'row' } }, textLink(r.account.name, `${PATH}/${r.id}`)),
        h('td', null, kybBadge(s, r.status)),
        h('td', { class: 'nowrap' }, r.submitted_at ? when(s, r.submitted_at) : '—'),
        h('td', null, r.representative ? [bdi(r.representative.name), ' · ', checkText(s, r.representative.status)] : '—'),
        h('td', null, count(s, r.document_count)),
      ),
    ),
  });
}
