/**
 * One request of the log (/developers/logs/req_…): everything recorded about it — status and error
 * code with its meaning, method and path, request id and Idempotency-Key (copyable), the key or
 * console user, mode, client address, time and duration — and a link to the object when the path
 * names one the console shows. Request and response bodies are never recorded, and the page says so.
 */
import { h } from '@tawqi/signing-page/dom';
import type { Key, Strings } from '../i18n.js';
import type { ListPage } from '../publicApi.js';
import { errorText } from '../requests/parts.js';
import { when } from '../requests/model.js';
import type { Screen, ScreenContext } from '../screen.js';
import { emptyState, pageScreen, textLink } from '../views/parts.js';
import { objectLink, type LogEntry } from './model.js';
import { copyable } from '../views/copy.js';
import { caller, keyTypeText, statusPill } from './parts.js';

/** Codes whose consequence the page explains beyond the envelope's message. */
const EXPLAINED = new Set(['ip_not_allowed', 'forbidden', 'too_many_requests']);

export function logDetailScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const requestId = ctx.place.path.split('/').pop()!;
  const body = h('div', { class: 'detail', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen({ title: s.t('logsDetailTitle') }, h('p', null, textLink(s.t('logsBack'), '/developers/logs')), body);
  void ctx.api
    .requestLog<ListPage<LogEntry>>({ request_id: requestId, limit: 1 })
    .then((page) => {
      const entry = page.data[0];
      body.replaceChildren(...(entry ? content(ctx, entry) : [emptyState('list', s.t('logsNotFound'))]));
      if (entry) {
        screen.heading.replaceChildren(h('span', { attrs: { dir: 'ltr' } }, `${entry.method} ${entry.path}`));
        document.title = s.t('docTitle', { page: `${entry.method} ${entry.path}` });
      }
    })
    .catch((err: unknown) => body.replaceChildren(h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err))))
    .finally(() => body.removeAttribute('aria-busy'));
  return screen;
}

function content(ctx: ScreenContext, e: LogEntry): HTMLElement[] {
  const { s } = ctx;
  const item = (label: Key, value: Node | string) => h('div', { class: 'req-fact' }, h('dt', null, s.t(label)), h('dd', null, value));
  const code = (text: string) => h('code', { attrs: { dir: 'ltr' } }, text);
  const link = objectLink(e.path);
  const facts = h(
    'dl',
    { class: 'req-facts' },
    item('logsStatus', statusPill(e)),
    item('logsRequestId', copyable(s, e.request_id, s.t('logsCopy', { what: s.t('logsRequestId') }), ctx.announce)),
    item('logsTime', when(s, e.created_at)),
    item('logsDuration', e.duration_ms === null ? '—' : s.t('logsMilliseconds', { ms: e.duration_ms })),
    item('logsMode', s.t(e.livemode ? 'logsLive' : 'logsTest')),
    item('logsKey', h('span', null, caller(s, e), e.key ? h('span', { class: 'muted small logs-key-id' }, ' ', code(e.key)) : null)),
    item('logsKeyType', keyTypeText(s, e)),
    item('logsIp', code(e.ip)),
    item(
      'logsIdempotencyKey',
      e.idempotency_key ? copyable(s, e.idempotency_key, s.t('logsCopy', { what: s.t('logsIdempotencyKey') }), ctx.announce) : '—',
    ),
  );
  return [
    e.code ? refusal(s, e) : null,
    facts,
    link ? h('p', null, textLink(s.t('logsOpenObject'), link)) : null,
    h('p', { class: 'muted small' }, s.t('logsNoBodies')),
  ].filter((x): x is HTMLElement => x !== null);
}

/** The error code, what it means (the server's words in the page language), and for some what to do. */
function refusal(s: Strings, e: LogEntry): HTMLElement {
  const tone = e.status >= 500 ? 'tone-bad' : 'tone-warn';
  return h(
    'div',
    { class: ['notice', tone, 'logs-refusal'] },
    h(
      'div',
      null,
      h('p', null, h('strong', null, s.t('logsErrorCode')), ' ', h('code', { attrs: { dir: 'ltr' } }, e.code!)),
      e.code_message ? h('p', null, e.code_message) : null,
      EXPLAINED.has(e.code!) ? h('p', null, s.t(`logsExplain_${e.code}` as Key)) : null,
    ),
  );
}
