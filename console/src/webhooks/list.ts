/**
 * Developers → Webhooks: the endpoints of the layout's live/test mode (GET /api/v1/webhook_endpoints
 * through the credential), newest first, cursor pages in the address; "Add an endpoint" for a user
 * who may manage them.
 */
import { bdi, h, replace } from '@tawqi/signing-page/dom';
import { dataTable } from '../views/dataTable.js';
import type { ListPage } from '../publicApi.js';
import { errorText, statusBadge } from '../requests/parts.js';
import { when } from '../requests/model.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { cursorPager } from '../views/pager.js';
import { emptyState, linkButton, pageScreen } from '../views/parts.js';
import { ALL_EVENTS, canManage, type WebhookEndpoint } from './model.js';

const PAGE_SIZE = 20;

export function webhookListScreen(ctx: ScreenContext): Screen {
  const { s, place } = ctx;
  const results = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen({ title: s.t('navWebhooks'), intro: s.t(ctx.livemode ? 'hooksIntroLive' : 'hooksIntroTest') }, results);
  if (canManage(ctx.session?.permissions))
    screen.root
      .querySelector('.page-head')
      ?.append(h('div', { class: 'page-actions' }, linkButton(s.t('hooksAdd'), '/developers/webhooks/new', 'primary')));
  void ctx.publicApi
    .get<ListPage<WebhookEndpoint>>(ctx.livemode, '/webhook_endpoints', { starting_after: place.query.get('after'), limit: PAGE_SIZE })
    .then((page) => {
      const pager = cursorPager(ctx, '/developers/webhooks', page, 'hooksPages');
      replace(results, table(ctx, page.data), pager);
      ctx.announce(s.t('hooksCount', { count: page.data.length }));
    })
    .catch((err: unknown) => replace(results, h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err))))
    .finally(() => results.removeAttribute('aria-busy'));
  return screen;
}

/** "All events", or how many types the endpoint listens to. */
export function eventsSummary(ctx: ScreenContext, events: readonly string[]): string {
  return events.includes(ALL_EVENTS) ? ctx.s.t('hooksAllEvents') : ctx.s.t('hooksEventCount', { count: events.length });
}

function table(ctx: ScreenContext, rows: WebhookEndpoint[]): HTMLElement {
  const { s } = ctx;
  if (rows.length === 0) {
    const add = canManage(ctx.session?.permissions) ? linkButton(s.t('hooksAdd'), '/developers/webhooks/new', 'primary') : undefined;
    return emptyState('zap', s.t(ctx.livemode ? 'hooksNoneLive' : 'hooksNoneTest'), add);
  }
  return dataTable(s, {
    caption: s.t(ctx.livemode ? 'hooksCaptionLive' : 'hooksCaptionTest'),
    columns: ['hooksUrl', 'hooksEvents', 'reqStatus', 'reqCreated'],
    rows: rows.map((e) =>
      h(
        'tr',
        null,
        h(
          'th',
          { attrs: { scope: 'row' } },
          h('a', { class: ['text-link', 'hook-url'], attrs: { href: at(`/developers/webhooks/${e.id}`), dir: 'ltr' } }, e.url),
          e.description ? h('div', { class: 'muted small' }, bdi(e.description)) : null,
        ),
        h('td', null, eventsSummary(ctx, e.enabled_events)),
        h('td', null, statusBadge(s, e.status, e.status === 'enabled' ? 'ok' : 'muted', 'hooksStatus_')),
        h('td', { class: 'nowrap' }, when(s, e.created_at)),
      ),
    ),
  });
}
