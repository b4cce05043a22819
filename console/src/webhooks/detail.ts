/**
 * One webhook endpoint (GET /api/v1/webhook_endpoints/:id in the layout's mode): its URL, id, status,
 * events and description; for a user who may manage endpoints, send a test event, disable or
 * enable, rotate the signing secret (the new one shown once, the old one signing through the
 * overlap) and delete (after a dialog naming the URL); and its delivery log (deliveries.ts).
 */
import { bdi, h } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import { showSecretOnce } from '../developers/shownOnce.js';
import type { Key } from '../i18n.js';
import { confirmDialog } from '../requests/dialog.js';
import { errorText, statusBadge } from '../requests/parts.js';
import { when } from '../requests/model.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { pageScreen, textLink } from '../views/parts.js';
import { deliveryLog, type DeliveryLog } from './deliveries.js';
import { copyable } from '../views/copy.js';
import { ALL_EVENTS, canManage, type WebhookEndpoint } from './model.js';
import { rotateDialog } from './rotate.js';

type Say = (text: string, tone: 'ok' | 'bad') => void;

export function webhookDetailScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const id = ctx.place.path.split('/').pop()!;
  const flash = h('div', { class: 'hook-flash' });
  const body = h('div', { class: 'detail', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen(
    { title: s.t('hooksDetailTitle') },
    h('p', null, textLink(s.t('hooksBack'), '/developers/webhooks')),
    flash,
    body,
  );
  // The outcome of an action takes the focus: the buttons it was on may have been drawn again.
  const say: Say = (text, tone) => {
    const notice = h(
      'div',
      { class: ['notice', `tone-${tone}`], attrs: { role: tone === 'bad' ? 'alert' : 'status', tabindex: '-1' } },
      text,
    );
    flash.replaceChildren(notice);
    notice.focus();
  };
  const load = async (): Promise<void> => {
    try {
      const e = await ctx.publicApi.get<WebhookEndpoint>(ctx.livemode, `/webhook_endpoints/${id}`);
      screen.heading.replaceChildren(h('span', { attrs: { dir: 'ltr' } }, e.url));
      screen.title = e.url;
      document.title = s.t('docTitle', { page: e.url });
      const log = deliveryLog(ctx, e, say);
      body.replaceChildren(facts(ctx, e), ...(canManage(ctx.session?.permissions) ? [actions(ctx, e, say, load, log)] : []), log.root);
    } catch (err) {
      body.replaceChildren(h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err)));
    } finally {
      body.removeAttribute('aria-busy');
    }
  };
  void load();
  return screen;
}

function facts(ctx: ScreenContext, e: WebhookEndpoint): HTMLElement {
  const { s } = ctx;
  const item = (label: Key, value: Node | string) => h('div', { class: 'req-fact' }, h('dt', null, s.t(label)), h('dd', null, value));
  const events = e.enabled_events.includes(ALL_EVENTS)
    ? s.t('hooksAllEventsLong')
    : h(
        'ul',
        { class: 'hook-event-list' },
        e.enabled_events.map((t) => h('li', null, h('code', { attrs: { dir: 'ltr' } }, t))),
      );
  return h(
    'dl',
    { class: ['req-facts', 'hook-facts'] },
    item('reqStatus', statusBadge(s, e.status, e.status === 'enabled' ? 'ok' : 'muted', 'hooksStatus_')),
    item('hooksMode', s.t(e.livemode ? 'hooksModeLive' : 'hooksModeTest')),
    item('reqCreated', when(s, e.created_at)),
    item('reqId', copyable(s, e.id, s.t('hooksCopyId'), ctx.announce)),
    e.description ? item('hooksDescription', bdi(e.description)) : null,
    h('div', { class: ['req-fact', 'hook-fact-wide'] }, h('dt', null, s.t('hooksEvents')), h('dd', null, events)),
  );
}

function actions(ctx: ScreenContext, e: WebhookEndpoint, say: Say, reload: () => Promise<void>, log: DeliveryLog): HTMLElement {
  const { s } = ctx;
  const run = (call: () => Promise<void>) => () => void call().catch((err: unknown) => say(errorText(s, err), 'bad'));
  const test = button(
    s.t('hooksSendTest'),
    'primary',
    run(async () => {
      const sent = await ctx.api.sendWebhookTest(e.id);
      await log.reload();
      say(s.t('hooksTestSent', { event: sent.event.id }), 'ok');
    }),
  );
  const enabled = e.status === 'enabled';
  const toggle = button(
    s.t(enabled ? 'hooksDisable' : 'hooksEnable'),
    'secondary',
    run(async () => {
      await ctx.publicApi.post(ctx.livemode, `/webhook_endpoints/${e.id}`, { disabled: enabled });
      await reload();
      say(s.t(enabled ? 'hooksDisabled' : 'hooksEnabled'), 'ok');
    }),
  );
  const rotate = button(
    s.t('hooksRotate'),
    'secondary',
    run(() => rotateSecret(ctx, e, say, reload)),
  );
  const remove = button(
    s.t('hooksDelete'),
    'danger',
    run(async () => {
      const yes = await confirmDialog(s, {
        title: s.t('hooksDeleteTitle'),
        body: s.t('hooksDeleteBody', { url: e.url }),
        confirm: s.t('hooksDelete'),
      });
      if (!yes) return;
      await ctx.publicApi.delete(ctx.livemode, `/webhook_endpoints/${e.id}`);
      ctx.flash(s.t('hooksDeleted', { url: e.url }));
      ctx.go(at('/developers/webhooks'));
    }),
  );
  return h(
    'section',
    { class: 'action-group', attrs: { 'aria-labelledby': 'hook-manage' } },
    h('h2', { id: 'hook-manage', class: 'subtitle' }, s.t('reqManage')),
    h('div', { class: 'action-row' }, enabled ? test : null, toggle, rotate, remove),
    enabled ? null : h('p', { class: 'muted small' }, s.t('hooksDisabledNote')),
  );
}

async function rotateSecret(ctx: ScreenContext, e: WebhookEndpoint, say: Say, reload: () => Promise<void>): Promise<void> {
  const { s } = ctx;
  const hours = await rotateDialog(s, e.url);
  if (hours === null) return;
  const { endpoint, secret } = await ctx.api.rotateWebhookSecret(e.id, hours);
  const until = endpoint.previous_secret_signs_until;
  const overlap = until === null ? s.t('hooksOverlapNone') : s.t('hooksOverlapUntil', { time: when(s, until) });
  await showSecretOnce(s, { title: s.t('hooksNewSecretTitle'), label: s.t('hooksSecretLabel'), secret, intro: overlap });
  await reload();
  say(`${s.t('hooksRotated')} ${overlap}`, 'ok');
}
