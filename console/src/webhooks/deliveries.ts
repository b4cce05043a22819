/**
 * An endpoint's delivery log (GET /console/api/webhook_endpoints/:id/deliveries: the public API
 * lists deliveries by event only): newest first, each delivery with every attempt — its result
 * (HTTP status, or no answer and why), time, duration and the start of the receiver's answer —
 * and, for a user who may manage endpoints, "Redeliver" (POST /api/v1/events/:id/redeliver to this
 * endpoint). "Refresh" reads the log again; "Older deliveries" appends the next page.
 */
import { bdi, h, replace } from '@tawqi/signing-page/dom';
import { dataTable } from '../views/dataTable.js';
import { button, icon } from '@tawqi/signing-page/kit';
import type { Strings } from '../i18n.js';
import type { ListPage } from '../publicApi.js';
import { errorText, statusBadge } from '../requests/parts.js';
import { when } from '../requests/model.js';
import { at } from '../router.js';
import type { ScreenContext } from '../screen.js';
import { canManage, type WebhookAttempt, type WebhookDelivery, type WebhookEndpoint } from './model.js';

const PAGE_SIZE = 10;

export interface DeliveryLog {
  root: HTMLElement;
  /** Read the first page again (after a test event, a redelivery, or "Refresh"). */
  reload(): Promise<void>;
}

export function deliveryLog(ctx: ScreenContext, endpoint: WebhookEndpoint, say: (text: string, tone: 'ok' | 'bad') => void): DeliveryLog {
  const { s } = ctx;
  const list = h('div', { class: 'hook-log', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const more = h('div', { class: 'pager' });
  let cursor: string | null = null;
  const load = async (append: boolean) => {
    list.setAttribute('aria-busy', 'true');
    try {
      const page = await ctx.api.webhookDeliveries<ListPage<WebhookDelivery>>(endpoint.id, append ? cursor : null, PAGE_SIZE);
      const items = page.data.map((d) => deliveryItem(ctx, endpoint, d, say, () => log.reload()));
      if (append) list.append(...items);
      else replace(list, items.length ? items : h('p', { class: 'muted hook-log-empty' }, s.t('hooksNoDeliveries')));
      cursor = page.next_cursor;
      replace(more, page.has_more ? button(s.t('hooksOlder'), 'secondary', () => void load(true)) : null);
    } catch (err) {
      replace(list, h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err)));
    } finally {
      list.removeAttribute('aria-busy');
    }
  };
  const refresh = button([icon('activity'), s.t('hooksRefresh')], 'secondary', () => {
    void log.reload().then(() => ctx.announce(s.t('hooksLogRefreshed')));
  });
  const root = h(
    'section',
    { class: 'block', attrs: { 'aria-labelledby': 'hook-log-title' } },
    h('div', { class: 'block-head' }, h('h2', { id: 'hook-log-title', class: 'subtitle' }, s.t('hooksDeliveries')), refresh),
    list,
    more,
  );
  const log: DeliveryLog = { root, reload: () => load(false) };
  void load(false);
  return log;
}

const deliveryTone = (status: WebhookDelivery['status']) =>
  status === 'succeeded' ? 'ok' : status === 'failed' ? 'bad' : status === 'canceled' ? 'muted' : 'warn';

function deliveryItem(
  ctx: ScreenContext,
  endpoint: WebhookEndpoint,
  d: WebhookDelivery,
  say: (text: string, tone: 'ok' | 'bad') => void,
  reload: () => Promise<void>,
): HTMLElement {
  const { s } = ctx;
  const redeliver =
    canManage(ctx.session?.permissions) && endpoint.status === 'enabled'
      ? button(s.t('hooksRedeliver'), 'secondary', () => {
          void ctx.publicApi
            .post(ctx.livemode, `/events/${d.event}/redeliver`, { endpoint: endpoint.id }, { idempotent: true })
            .then(async () => {
              await reload();
              say(s.t('hooksRedelivered', { event: d.event }), 'ok');
            })
            .catch((err: unknown) => say(errorText(s, err), 'bad'));
        })
      : null;
  redeliver?.setAttribute('aria-label', s.t('hooksRedeliverEvent', { event: d.event }));
  const next =
    d.next_attempt_at !== null ? h('p', { class: 'muted small' }, s.t('hooksNextAttempt', { time: when(s, d.next_attempt_at) })) : null;
  return h(
    'article',
    { class: 'hook-delivery', attrs: { 'aria-label': s.t('hooksDeliveryOf', { event: d.event }) } },
    h(
      'div',
      { class: 'hook-delivery-head' },
      h('a', { class: 'text-link', attrs: { href: at(`/developers/events/${d.event}`), dir: 'ltr' } }, h('code', null, d.event)),
      statusBadge(s, d.status, deliveryTone(d.status), 'hooksDelivery_'),
      d.trigger === 'redeliver' ? h('span', { class: 'pill pill-brand' }, s.t('hooksRedelivery')) : null,
      h('span', { class: 'muted small' }, when(s, d.created_at)),
      redeliver,
    ),
    d.attempts.length ? attemptsTable(s, d) : h('p', { class: 'muted small' }, s.t('hooksNotSentYet')),
    next,
  );
}

function attemptsTable(s: Strings, d: WebhookDelivery): HTMLElement {
  return dataTable(s, {
    caption: s.t('hooksAttemptsOf', { event: d.event }),
    columns: ['hooksAttempt', 'hooksResult', 'hooksTime', 'hooksDuration', 'hooksResponse'],
    rows: [...d.attempts]
      .reverse()
      .map((a) =>
        h(
          'tr',
          null,
          h('th', { attrs: { scope: 'row' } }, String(a.attempt)),
          h('td', null, result(s, a)),
          h('td', { class: 'nowrap' }, when(s, a.created_at)),
          h('td', { class: 'nowrap' }, s.t('hooksMs', { ms: a.duration_ms })),
          h('td', { class: 'hook-response' }, excerpt(s, a)),
        ),
      ),
    class: 'hook-attempts',
  });
}

function result(s: Strings, a: WebhookAttempt): HTMLElement {
  const ok = a.response_status !== null && a.response_status >= 200 && a.response_status < 300;
  const label = a.response_status === null ? s.t('hooksNoAnswer') : `HTTP ${a.response_status}`;
  return h(
    'div',
    null,
    h('span', { class: ['pill', ok ? 'pill-ok' : 'pill-bad'], attrs: { dir: 'ltr' } }, label),
    a.error && a.response_status === null ? h('div', { class: 'muted small', attrs: { dir: 'ltr' } }, bdi(a.error)) : null,
  );
}

/** The receiver's words as they came (a preformatted, isolated block), or why there are none. */
function excerpt(s: Strings, a: WebhookAttempt): HTMLElement {
  if (a.response_excerpt === null) return h('span', { class: 'muted' }, '—');
  if (a.response_excerpt === '') return h('span', { class: 'muted' }, s.t('hooksEmptyBody'));
  return h(
    'pre',
    { class: 'excerpt', attrs: { dir: 'ltr', tabindex: '0', 'aria-label': s.t('hooksResponseOf', { attempt: a.attempt }) } },
    a.response_excerpt,
  );
}
