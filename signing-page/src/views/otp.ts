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

/** The entry step's elements and what it knows of the code's timing. */
interface Entry {
  readonly ctx: ViewContext;
  state: State;
  expired: boolean;
  /** Local time (ms) when resending becomes possible. */
  resendAt: number;
  /**
   * Whether the page's estimate of the server clock fits this State. The server keeps
   * now ≤ resend_at ≤ now + its resend delay; outside that, the estimate is wrong (a skewed or
   * test clock) and the page leaves the timing to the server (429 otp_too_soon, 400 otp_expired).
   */
  clockFits: boolean;
  readonly lead: HTMLElement;
  readonly notice: HTMLElement;
  readonly input: HTMLInputElement;
  readonly message: HTMLElement;
  readonly verify: HTMLButtonElement;
  readonly resend: HTMLButtonElement;
}

/** The code field: Western digits only, at most CODE_LENGTH; `onInput` after each change. */
function codeInput(onInput: () => void): HTMLInputElement {
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
        onInput();
      },
    },
  });
  return input;
}

const attemptsText = (e: Entry): string | null =>
  e.state.otp.attempts_left <= LOW_ATTEMPTS ? e.ctx.s.plural('attemptsLeft', e.state.otp.attempts_left) : null;

/** Submit the code: its format first, then the server (attempts left on a wrong code; an expired one says so). */
function submitCode(e: Entry): void {
  const { ctx, input, message, verify } = e;
  if (isBusy(verify)) return;
  const code = westernDigits(input.value).replace(/\D/g, '');
  if (code.length !== CODE_LENGTH) {
    setFieldMessage(input, message, ctx.s.t('otpFormat'), true);
    input.focus();
    return;
  }
  void ctx
    .act([verify], () => ctx.api.verifyOtp(code), {
      onError: (err) => {
        if (err.code === 'otp_invalid' && err.attemptsLeft !== null) {
          setFieldMessage(input, message, ctx.s.plural('attemptsLeft', err.attemptsLeft), true);
          input.select();
          input.focus();
        } else if (err.code === 'otp_expired') {
          e.expired = true;
          sync(e);
          e.resend.focus();
        }
      },
    })
    .then((next) => next && ctx.show(next));
}

/** Ask for a new code (too soon: wait the server's delay). */
function resendCode(e: Entry): void {
  const { ctx, input, message } = e;
  void ctx
    .act([e.resend], () => ctx.api.sendOtp(), {
      onError: (err) => {
        if (err.code === 'otp_too_soon') {
          setWait(e, err.retryAfter ?? 30);
          input.focus();
        }
      },
    })
    .then((next) => {
      if (!next) return;
      e.expired = false;
      input.value = '';
      setFieldMessage(input, message, null, false);
      ctx.show(next);
      ctx.announce(ctx.s.t('otpNewSent'), true);
      input.focus();
    });
}

function setWait(e: Entry, seconds: number): void {
  e.resendAt = Date.now() + Math.min(Math.max(seconds, 0), MAX_CLIENT_WAIT_SECONDS) * 1000;
  tick(e);
}

function tick(e: Entry): void {
  const { s } = e.ctx;
  const left = (e.resendAt - Date.now()) / 1000;
  const waiting = left > 0.5;
  if (!e.resend.hasAttribute('aria-busy')) e.resend.disabled = waiting;
  e.resend.textContent = waiting ? s.t('otpResendIn', { time: clock(left) }) : s.t('otpResend');
  if (e.clockFits && !e.expired && e.state.otp.expires_at !== null && e.ctx.api.serverNow() >= e.state.otp.expires_at) {
    e.expired = true;
    sync(e);
  }
}

/** Show the state: where the code went, attempts, expired or locked. */
function sync(e: Entry): void {
  const { s } = e.ctx;
  const { state } = e;
  replace(e.lead, state.otp.destination ? s.nodes('otpSentTo', { destination: destination(state) }) : s.t('otpSentNoDest'));
  const problem = state.otp.locked ? s.t('otpLockedNote') : e.expired ? s.t('otpExpired') : null;
  e.notice.hidden = problem === null;
  e.notice.replaceChildren(icon('alert'), h('span', null, problem ?? ''));
  e.input.disabled = state.otp.locked;
  e.verify.disabled = state.otp.locked;
  if (!e.input.getAttribute('aria-invalid')) setFieldMessage(e.input, e.message, attemptsText(e), false);
}

function adopt(e: Entry, next: State): void {
  const { api } = e.ctx;
  e.state = next;
  const serverWait = next.otp.resend_at === null ? 0 : next.otp.resend_at - api.serverNow();
  e.clockFits = api.exactClock || (serverWait >= -5 && serverWait <= MAX_CLIENT_WAIT_SECONDS);
  setWait(e, e.clockFits ? serverWait : 0);
  if (next.otp.expires_at !== null && api.serverNow() < next.otp.expires_at) e.expired = false;
  sync(e);
}

function enterView(ctx: ViewContext, initial: State): View {
  const { s } = ctx;
  const title = heading(s.t('otpTitle'));
  const input = codeInput(() => {
    if (input.getAttribute('aria-invalid')) setFieldMessage(input, message, attemptsText(e), false);
  });
  const { root: fieldRoot, message } = field(s.t('otpLabel'), input, s.t('otpHint'));
  const verify = button(s.t('otpVerify'), 'primary', () => undefined, { type: 'submit' });
  const resend = button(s.t('otpResend'), 'secondary', () => resendCode(e));
  const e: Entry = {
    ctx,
    state: initial,
    expired: false,
    resendAt: 0,
    clockFits: true,
    lead: p('lead'),
    notice: h('div', { class: 'notice tone-warn', attrs: { hidden: true } }),
    input,
    message,
    verify,
    resend,
  };
  const form = h(
    'form',
    {
      class: 'form',
      attrs: { novalidate: true },
      on: {
        submit: (event) => {
          event.preventDefault();
          submitCode(e);
        },
      },
    },
    fieldRoot,
    actions(verify),
  );
  const root = card(
    { tone: 'brand', icon: 'mail', title, chip: docChip(s, initial) },
    e.lead,
    e.notice,
    form,
    h('div', { class: 'resend' }, resend, p('hint', s.t('otpNotReceived'))),
  );
  adopt(e, initial);
  const timer = window.setInterval(() => tick(e), 1000);

  return {
    root,
    heading: title,
    focusTarget: input,
    update(next) {
      if (!next.otp.sent) return false;
      adopt(e, next);
      return true;
    },
    destroy: () => window.clearInterval(timer),
  };
}
