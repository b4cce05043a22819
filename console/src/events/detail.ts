/**
 * One event (GET /api/v1/events/:id): its type, id, time and mode, a link to the signature request
 * it is about, and its payload exactly as webhooks carry it — escaped text in a preformatted block
 * (never markup), with a copy button.
 */
import { h } from '@tawqi/signing-page/dom';
import type { Key } from '../i18n.js';
import { errorText } from '../requests/parts.js';
import { when } from '../requests/model.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { pageScreen, textLink } from '../views/parts.js';
import { copyable } from '../views/copy.js';
import { requestOf, type ApiEventFull } from '../webhooks/model.js';

export function eventDetailScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const id = ctx.place.path.split('/').pop()!;
  const body = h('div', { class: 'detail', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen({ title: s.t('evDetailTitle') }, h('p', null, textLink(s.t('evBack'), '/developers/events')), body);
  void ctx.publicApi
    .get<ApiEventFull>(ctx.livemode, `/events/${id}`)
    .then((e) => {
      screen.heading.replaceChildren(h('code', { attrs: { dir: 'ltr' } }, e.type));
      screen.title = e.type;
      document.title = s.t('docTitle', { page: e.type });
      const request = requestOf(e);
      const item = (label: Key, value: Node | string) => h('div', { class: 'req-fact' }, h('dt', null, s.t(label)), h('dd', null, value));
      body.replaceChildren(
        h(
          'dl',
          { class: 'req-facts' },
          item('evId', copyable(s, e.id, s.t('hooksCopyId'), ctx.announce)),
          item('reqCreated', when(s, e.created_at)),
          item('hooksMode', s.t(e.livemode ? 'hooksModeLive' : 'hooksModeTest')),
          request
            ? item(
                'evRequest',
                h('a', { class: 'text-link', attrs: { href: at(`/requests/${request}`), dir: 'ltr' } }, h('code', null, request)),
              )
            : null,
        ),
        h(
          'section',
          { class: 'block', attrs: { 'aria-labelledby': 'ev-payload' } },
          h('h2', { id: 'ev-payload', class: 'subtitle' }, s.t('evPayload')),
          copyable(s, JSON.stringify(e, null, 2), s.t('evCopyPayload'), ctx.announce, true),
        ),
      );
    })
    .catch((err: unknown) => body.replaceChildren(h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err))))
    .finally(() => body.removeAttribute('aria-busy'));
  return screen;
}
