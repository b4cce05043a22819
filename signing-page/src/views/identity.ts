/**
 * Identity steps: `identity` (start: follow the provider's or the test simulation's URL),
 * `identity_wait` (poll the state every 3 s), `identity_declined` (try again), `identity_hold`
 * (a reviewer decides; polled slowly).
 */
import { h, safeUrl } from '../dom.js';
import type { State } from '../types.js';
import type { View, ViewContext } from './context.js';
import { actions, button, card, docChip, heading, icon, p } from './parts.js';

const WAIT_POLL_MS = 3_000;
const HOLD_POLL_MS = 30_000;
const HIDDEN_POLL_MS = 15_000;

/**
 * Ask the server for the verification URL and go there: the same window on a hosted page; a new
 * window when the page is embedded (verification pages refuse to be framed), while this frame
 * polls the state until the result arrives.
 */
function startVerification(ctx: ViewContext, trigger: HTMLButtonElement, onOpened: () => void): void {
  const back = window.location.href.split('#')[0] ?? window.location.href;
  void ctx
    .act([trigger], () => ctx.api.startIdentity(back))
    .then((answer) => {
      if (!answer) return;
      const url = safeUrl(answer.url, { allowRelative: true });
      if (!url) {
        ctx.alert(ctx.s.t('unexpectedError'));
        return;
      }
      trigger.disabled = true;
      trigger.setAttribute('aria-busy', 'true');
      if (window.top !== window.self) {
        window.open(url, '_blank', 'noopener');
        onOpened();
        return;
      }
      window.location.assign(url);
    });
}

export function identityView(ctx: ViewContext, state: State): View {
  const { s } = ctx;
  const title = heading(s.t('idTitle'));
  let framedPoll: { stop: () => void } | null = null;
  const start = button(s.t('idStart'), 'primary', () => startVerification(ctx, start, () => (framedPoll ??= poller(ctx, WAIT_POLL_MS))));
  const prep = h(
    'ul',
    { class: 'checklist' },
    h('li', null, icon('id'), s.t('idPrepDoc')),
    h('li', null, icon('shield'), s.t('idPrepCamera')),
    h('li', null, icon('info'), s.t('idPrepLight')),
  );
  return {
    root: card(
      { tone: 'brand', icon: 'id', title, chip: docChip(s, state) },
      p('lead', s.t('idIntro')),
      h('h2', { class: 'subtitle' }, s.t('idPrepare')),
      prep,
      state.livemode ? null : h('p', { class: 'notice tone-info' }, icon('info'), h('span', null, s.t('idTestNote'))),
      actions(start),
    ),
    heading: title,
    update: () => true,
  };
}

/** Poll GET /state while the view is mounted: `visibleMs` apart, slower while the tab is hidden. */
function poller(ctx: ViewContext, visibleMs: number): { stop: () => void } {
  let stopped = false;
  let timer = 0;
  const schedule = () => {
    if (stopped) return;
    window.clearTimeout(timer);
    timer = window.setTimeout(run, document.hidden ? Math.max(visibleMs, HIDDEN_POLL_MS) : visibleMs);
  };
  const run = async () => {
    if (stopped) return;
    await ctx.refresh(true);
    schedule();
  };
  const onVisible = () => {
    if (!document.hidden && !stopped) void run();
  };
  document.addEventListener('visibilitychange', onVisible);
  schedule();
  return {
    stop() {
      stopped = true;
      window.clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    },
  };
}

export function identityWaitView(ctx: ViewContext, state: State): View {
  const { s } = ctx;
  const title = heading(s.t('idWaitTitle'));
  const poll = poller(ctx, WAIT_POLL_MS);
  return {
    root: card(
      { tone: 'brand', icon: 'hourglass', title, chip: docChip(s, state) },
      p('lead', s.t('idWaitBody')),
      h('p', { class: 'waiting' }, h('span', { class: 'spinner', attrs: { 'aria-hidden': 'true' } }), s.t('idWaitChecking')),
    ),
    heading: title,
    update: () => true,
    destroy: poll.stop,
  };
}

export function identityDeclinedView(ctx: ViewContext, state: State): View {
  const { s } = ctx;
  const title = heading(s.t('idDeclinedTitle'));
  let framedPoll: { stop: () => void } | null = null;
  const retry = button(s.t('idRetry'), 'primary', () => startVerification(ctx, retry, () => (framedPoll ??= poller(ctx, WAIT_POLL_MS))));
  return {
    root: card({ tone: 'bad', icon: 'x', title, chip: docChip(s, state) }, p('lead', s.t('idDeclinedBody')), actions(retry)),
    heading: title,
    update: () => true,
    destroy: () => framedPoll?.stop(),
  };
}

export function identityHoldView(ctx: ViewContext, state: State): View {
  const { s } = ctx;
  const title = heading(s.t('idHoldTitle'));
  const poll = poller(ctx, HOLD_POLL_MS);
  return {
    root: card({ tone: 'warn', icon: 'clock', title, chip: docChip(s, state) }, p('lead', s.t('idHoldBody'))),
    heading: title,
    update: () => true,
    destroy: poll.stop,
  };
}
