/**
 * Final and waiting screens: signed, declined, closed (completed / declined / expired / canceled),
 * not your turn; and the page's own: session ended, unknown step, missing configuration.
 * After signing or declining, `finish.redirect_url` gives a Return button, followed after 3 s.
 */
import { h, safeUrl } from '../dom.js';
import type { Key } from '../i18n.js';
import type { State } from '../types.js';
import type { View, ViewContext } from './context.js';
import { actions, button, card, heading, p, titleRef, type IconName, type Tone } from './parts.js';

const REDIRECT_SECONDS = 3;

/**
 * The Return button when the server gives a finish URL, followed automatically after 3 s when the
 * signer has just signed or declined on this page (not when they reopen a finished link).
 */
function finish(ctx: ViewContext, state: State): { node: HTMLElement | null; stop: () => void } {
  const url = safeUrl(state.finish?.redirect_url ?? null);
  if (!url) return { node: null, stop: () => undefined };
  const { s } = ctx;
  const go = () => {
    stop();
    window.location.assign(url);
  };
  const back = button(s.t('returnButton'), 'primary', go);
  if (!ctx.continuing) return { node: h('div', { class: 'finish' }, actions(back)), stop: () => undefined };
  const countdown = p('muted countdown');
  let left = REDIRECT_SECONDS;
  const render = () => {
    countdown.textContent = s.plural('returningIn', left);
  };
  render();
  ctx.announce(countdown.textContent ?? '');
  const timer = window.setInterval(() => {
    left -= 1;
    if (left <= 0) go();
    else render();
  }, 1000);
  function stop(): void {
    window.clearInterval(timer);
  }
  return { node: h('div', { class: 'finish' }, actions(back), countdown), stop };
}

export function signedView(ctx: ViewContext, state: State): View {
  const { s } = ctx;
  const title = heading(s.t('signedTitle'));
  const end = finish(ctx, state);
  const text = state.document?.text ?? '';
  const copy =
    text.trim() === ''
      ? null
      : h(
          'details',
          { class: 'signed-copy' },
          h('summary', null, s.t('showDocument')),
          h(
            'article',
            { class: 'paper paper-compact', attrs: { lang: state.language, dir: s.dir, tabindex: 0, 'aria-label': s.t('documentLabel') } },
            h('div', { class: 'doc-text' }, text),
          ),
        );
  return {
    root: card(
      { tone: 'ok', icon: 'check', title },
      p('lead', ...s.nodes('signedBody', { title: titleRef(state) })),
      state.livemode ? p(null, s.t('signedNext')) : null,
      end.node,
      copy,
    ),
    heading: title,
    update: () => true,
    destroy: end.stop,
  };
}

export function declinedView(ctx: ViewContext, state: State): View {
  const { s } = ctx;
  const title = heading(s.t('declinedTitle'));
  const end = finish(ctx, state);
  return {
    root: card({ tone: 'muted', icon: 'x', title }, p('lead', ...s.nodes('declinedBody', { title: titleRef(state) })), end.node),
    heading: title,
    update: () => true,
    destroy: end.stop,
  };
}

const CLOSED: Record<string, { title: Key; body: Key; tone: Tone; icon: IconName }> = {
  completed: { title: 'closedCompletedTitle', body: 'closedCompletedBody', tone: 'ok', icon: 'check' },
  declined: { title: 'closedDeclinedTitle', body: 'closedDeclinedBody', tone: 'muted', icon: 'x' },
  expired: { title: 'closedExpiredTitle', body: 'closedExpiredBody', tone: 'warn', icon: 'clock' },
  canceled: { title: 'closedCanceledTitle', body: 'closedCanceledBody', tone: 'muted', icon: 'x' },
};
const CLOSED_OTHER = { title: 'closedOtherTitle', body: 'closedOtherBody', tone: 'muted', icon: 'lock' } as const;

export function closedView(ctx: ViewContext, state: State): View {
  const { s } = ctx;
  const c = CLOSED[state.closed_reason ?? ''] ?? CLOSED_OTHER;
  const title = heading(s.t(c.title));
  return {
    root: card({ tone: c.tone, icon: c.icon, title }, p('lead', ...s.nodes(c.body, { title: titleRef(state) }))),
    heading: title,
    update: (next) => next.closed_reason === state.closed_reason,
  };
}

export function notYourTurnView(ctx: ViewContext, state: State): View {
  const { s } = ctx;
  const title = heading(s.t('notYourTurnTitle'));
  const again = button(s.t('checkAgain'), 'secondary', () => {
    void ctx
      .act([again], () => ctx.api.state())
      .then((next) => {
        if (!next) return;
        ctx.show(next);
        if (next.step === 'not_your_turn') ctx.announce(s.t('stillWaiting'), true);
      });
  });
  return {
    root: card(
      { tone: 'muted', icon: 'clock', title },
      p('lead', ...s.nodes('notYourTurnBody', { title: titleRef(state) })),
      actions(again),
    ),
    heading: title,
    update: () => true,
  };
}

/** A message screen for the page's own conditions (no State needed). */
export function messageView(ctx: Pick<ViewContext, 's'>, titleKey: Key, body: string, withReload: boolean): View {
  const { s } = ctx;
  const title = heading(s.t(titleKey));
  return {
    root: card(
      { tone: 'warn', icon: 'alert', title },
      p('lead', body),
      withReload ? actions(button(s.t('reload'), 'primary', () => window.location.reload())) : null,
    ),
    heading: title,
  };
}
