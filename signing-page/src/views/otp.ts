/**
 * Step `otp`: send the one-time code, enter it (6 digits, `autocomplete=one-time-code`), resend
 * after the server's delay (countdown to `resend_at`), attempts left, expired and locked codes.
 */
import { h, replace, type Child } from '../dom.js';
import { clock, westernDigits } from '../i18n.js';
import type { State } from '../types.js';
import type { View, ViewContext } from './context.js';
import { actions, button, card, docChip, field, heading, icon, isBusy, p, setFieldMessage } from './parts.js';

const CODE_LENGTH = 6;
const LOW_ATTEMPTS = 3;
/** A client-side wait is a hint (the server decides); never lock the button longer than this. */
const MAX_CLIENT_WAIT_SECONDS = 120;

export function otpView(ctx: ViewContext, initial: State): View {
  return initial.otp.sent ? enterView(ctx, initial) : sendView(ctx, initial);
}

function destination(state: State): Child {
  const d = state.otp.destination;
  return d ? h('bdi', { class: 'destination', attrs: { dir: 'ltr' } }, d) : null;
}

/** Before the first code: say where it goes, and send it on request (never automatically). */
function sendView(ctx: ViewContext, state: State): View {
  const { s } = ctx;
  const title = heading(s.t('otpTitle'));
  const send = button(s.t('otpSend'), 'primary', () => {
    void ctx.act([send], () => ctx.api.sendOtp()).then((next) => next && ctx.show(next));
  });
  const intro = state.otp.destination ? s.nodes('otpIntro', { destination: destination(state) }) : [s.t('otpIntroNoDest')];
  return {
    root: card({ tone: 'brand', icon: 'mail', title, chip: docChip(s, state) }, p('lead', ...intro), actions(send)),
    heading: title,
    focusTarget: send,
    update: (next) => !next.otp.sent,
  };
}

function enterView(ctx: ViewContext, initial: State): View {
  const { s, api } = ctx;
  let state = initial;
  let expired = false;
  /** Local time (ms) when resending becomes possible. */
  let resendAt = 0;
  /**
   * Whether the page's estimate of the server clock fits this State. The server keeps
   * now ≤ resend_at ≤ now + its resend delay; outside that, the estimate is wrong (a skewed or
   * test clock) and the page leaves the timing to the server (429 otp_too_soon, 400 otp_expired).
   */
  let clockFits = true;

  const title = heading(s.t('otpTitle'));
  const notice = h('div', { class: 'notice tone-warn', attrs: { hidden: true } });
  const input = h('input', {
    class: 'input input-otp',
    attrs: {
      type: 'text',
      name: 'one_time_code',
      inputmode: 'numeric',
      autocomplete: 'one-time-code',
      pattern: '[0-9]*',
      required: true,
      spellcheck: 'false',
      dir: 'ltr',
      placeholder: '••••••',
    },
    on: {
      input: () => {
        const clean = westernDigits(input.value).replace(/\D/g, '').slice(0, CODE_LENGTH);
        if (clean !== input.value) input.value = clean;
        if (input.getAttribute('aria-invalid')) setFieldMessage(input, message, attemptsText(), false);
      },
    },
  });
  const { root: fieldRoot, message } = field(s.t('otpLabel'), input, s.t('otpHint'));
  const verify = button(s.t('otpVerify'), 'primary', () => undefined, { type: 'submit' });
  const resend = button(s.t('otpResend'), 'secondary', () => {
    void ctx
      .act([resend], () => api.sendOtp(), {
        onError: (e) => {
          if (e.code === 'otp_too_soon') {
            setWait(e.retryAfter ?? 30);
            input.focus();
          }
        },
      })
      .then((next) => {
        if (!next) return;
        expired = false;
        input.value = '';
        setFieldMessage(input, message, null, false);
        ctx.show(next);
        ctx.announce(s.t('otpNewSent'), true);
        input.focus();
      });
  });

  const attemptsText = (): string | null =>
    state.otp.attempts_left <= LOW_ATTEMPTS ? s.plural('attemptsLeft', state.otp.attempts_left) : null;

  const form = h(
    'form',
    {
      class: 'form',
      attrs: { novalidate: true },
      on: {
        submit: (event) => {
          event.preventDefault();
          if (isBusy(verify)) return;
          const code = westernDigits(input.value).replace(/\D/g, '');
          if (code.length !== CODE_LENGTH) {
            setFieldMessage(input, message, s.t('otpFormat'), true);
            input.focus();
            return;
          }
          void ctx
            .act([verify], () => api.verifyOtp(code), {
              onError: (e) => {
                if (e.code === 'otp_invalid' && e.attemptsLeft !== null) {
                  setFieldMessage(input, message, s.plural('attemptsLeft', e.attemptsLeft), true);
                  input.select();
                  input.focus();
                } else if (e.code === 'otp_expired') {
                  expired = true;
                  sync();
                  resend.focus();
                }
              },
            })
            .then((next) => next && ctx.show(next));
        },
      },
    },
    fieldRoot,
    actions(verify),
  );

  const lead = p('lead');
  const root = card({ tone: 'brand', icon: 'mail', title, chip: docChip(s, initial) },
    lead,
    notice,
    form,
    h('div', { class: 'resend' }, resend, p('hint', s.t('otpNotReceived'))),
  );

  function setWait(seconds: number): void {
    resendAt = Date.now() + Math.min(Math.max(seconds, 0), MAX_CLIENT_WAIT_SECONDS) * 1000;
    tick();
  }

  function tick(): void {
    const left = (resendAt - Date.now()) / 1000;
    const waiting = left > 0.5;
    if (!resend.hasAttribute('aria-busy')) resend.disabled = waiting;
    resend.textContent = waiting ? s.t('otpResendIn', { time: clock(left) }) : s.t('otpResend');
    if (clockFits && !expired && state.otp.expires_at !== null && api.serverNow() >= state.otp.expires_at) {
      expired = true;
      sync();
    }
  }

  /** Show the state: where the code went, attempts, expired or locked. */
  function sync(): void {
    replace(lead, state.otp.destination ? s.nodes('otpSentTo', { destination: destination(state) }) : s.t('otpSentNoDest'));
    const problem = state.otp.locked ? s.t('otpLockedNote') : expired ? s.t('otpExpired') : null;
    notice.hidden = problem === null;
    notice.replaceChildren(icon('alert'), h('span', null, problem ?? ''));
    input.disabled = state.otp.locked;
    verify.disabled = state.otp.locked;
    if (!input.getAttribute('aria-invalid')) setFieldMessage(input, message, attemptsText(), false);
  }

  const adopt = (next: State) => {
    state = next;
    const serverWait = next.otp.resend_at === null ? 0 : next.otp.resend_at - api.serverNow();
    clockFits = api.exactClock || (serverWait >= -5 && serverWait <= MAX_CLIENT_WAIT_SECONDS);
    setWait(clockFits ? serverWait : 0);
    if (next.otp.expires_at !== null && api.serverNow() < next.otp.expires_at) expired = false;
    sync();
  };
  adopt(initial);
  const timer = window.setInterval(tick, 1000);

  return {
    root,
    heading: title,
    focusTarget: input,
    update(next) {
      if (!next.otp.sent) return false;
      adopt(next);
      return true;
    },
    destroy: () => window.clearInterval(timer),
  };
}
