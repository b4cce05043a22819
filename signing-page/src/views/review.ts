/**
 * Step `review`: the document (pre-wrapped, in the request's language and direction) beside the
 * signing panel — signature (draw or type), consent, Sign (enabled once both are given), Decline
 * (optional reason ≤ 500 characters, in a modal dialog).
 */
import { bdi, h, nextId } from '../dom.js';
import * as frame from '../frame.js';
import { SignatureInput } from '../signature.js';
import type { State } from '../types.js';
import type { View, ViewContext } from './context.js';
import { button, field, heading, icon, isBusy, levelName, p } from './parts.js';
import { tokenPanel } from './token.js';

export const REASON_MAX = 500;

export function reviewView(ctx: ViewContext, state: State): View {
  const { s } = ctx;
  // The title keeps the page's alignment; its own direction is isolated (bdi).
  const title = heading('');
  title.append(bdi(state.request.title));

  const panelTitle = h('h2', { class: 'panel-title', id: nextId('sign-title'), attrs: { tabindex: -1 } }, s.t('sigHeading'));
  const jump = button([s.t('jumpToSign'), icon('pen')], 'quiet', () => {
    panelTitle.scrollIntoView({ block: 'start', behavior: reducedMotion() ? 'auto' : 'smooth' });
    panelTitle.focus({ preventScroll: true });
  });
  jump.classList.add('jump');

  const text = state.document?.text ?? '';
  const documentPane = h(
    'section',
    { class: 'doc-pane' },
    h(
      'header',
      { class: 'doc-head' },
      h('p', { class: 'eyebrow' }, levelName(s, state)),
      title,
      p('muted', ...s.nodes('signingAs', { name: h('strong', null, bdi(state.signer.name)) })),
      p('lead', s.t('reviewIntro')),
      jump,
    ),
    h(
      'article',
      { class: 'paper', attrs: { lang: state.language, dir: s.dir, 'aria-label': s.t('documentLabel') } },
      text.trim() === '' ? p('muted', s.t('documentEmpty')) : h('div', { class: 'doc-text' }, text),
    ),
  );

  const decline = declineDialog(ctx);
  const declineButton = button(s.t('decline'), 'link', () => decline.open());
  declineButton.classList.add('decline-trigger');

  const panel =
    state.signer.method === 'token' ? tokenPanel(ctx, state, panelTitle, declineButton) : signPanel(ctx, state, panelTitle, declineButton);

  const root = h('div', { class: 'review' }, documentPane, panel.root, decline.dialog);
  return {
    root,
    heading: title,
    wide: true,
    // Same step again (e.g. after a refusal): keep the drawing, the consent and the reading place.
    update: () => true,
    destroy: panel.destroy,
  };
}

function signPanel(ctx: ViewContext, state: State, panelTitle: HTMLElement, declineButton: HTMLButtonElement) {
  const { s } = ctx;
  const hintId = nextId('sign-hint');
  const hint = h('p', { id: hintId, class: 'sign-hint' });
  const consentId = nextId('consent');
  const consent = h('input', { id: consentId, attrs: { type: 'checkbox', name: 'consent' }, on: { change: () => sync() } });
  const sign = button(s.t('sign'), 'primary', () => submit());
  sign.classList.add('btn-block');
  sign.setAttribute('aria-describedby', hintId);

  const signature = new SignatureInput({
    strings: s,
    signerName: state.signer.name,
    onChange: () => sync(),
    announce: (m) => ctx.announce(m),
  });

  function sync(): void {
    const hasSignature = !signature.isEmpty();
    const agreed = consent.checked;
    sign.disabled = !(hasSignature && agreed);
    hint.textContent = s.t(hasSignature ? (agreed ? 'ready' : 'needConsent') : agreed ? 'needSignature' : 'needBoth');
    hint.classList.toggle('is-ready', hasSignature && agreed);
  }

  function submit(): void {
    if (signature.isEmpty() || !consent.checked) return;
    const image = signature.toDataURL();
    signature.setDisabled(true);
    consent.disabled = true;
    sign.textContent = s.t('signing');
    void ctx
      .act([sign, declineButton], () => ctx.api.sign(image))
      .then((next) => {
        if (next) {
          if (next.step === 'signed') frame.notifyParent(next, frame.signed(next));
          ctx.show(next);
          return;
        }
        signature.setDisabled(false);
        consent.disabled = false;
        sign.textContent = s.t('sign');
        sync();
      });
  }

  sync();
  const root = h(
    'aside',
    { class: 'sign-pane', attrs: { 'aria-labelledby': panelTitle.id } },
    panelTitle,
    signature.root,
    h('div', { class: 'consent' }, consent, h('label', { attrs: { for: consentId } }, s.t('consent'))),
    sign,
    hint,
    h('div', { class: 'pane-foot' }, declineButton),
  );
  return { root, destroy: () => signature.destroy() };
}

function declineDialog(ctx: ViewContext) {
  const { s } = ctx;
  const titleId = nextId('decline-title');
  const bodyId = nextId('decline-body');
  const reason = h('textarea', { class: 'input', attrs: { name: 'reason', rows: 4, maxlength: REASON_MAX, dir: 'auto' } });
  const { root: reasonField } = field(s.t('declineReason'), reason);
  const counter = h('p', { class: 'counter', id: nextId('counter') });
  reason.setAttribute('aria-describedby', `${reason.getAttribute('aria-describedby') ?? ''} ${counter.id}`.trim());
  const error = h('p', { class: 'dialog-error', attrs: { role: 'alert' } });
  const count = () => {
    counter.textContent = s.t('declineCount', { n: reason.value.length, max: REASON_MAX });
  };
  reason.addEventListener('input', count);
  count();

  const cancel = button(s.t('cancel'), 'secondary', () => dialog.close());
  const confirm = button(s.t('declineConfirm'), 'danger', () => undefined, { type: 'submit' });
  const form = h(
    'form',
    {
      class: 'form',
      on: {
        submit: (event) => {
          event.preventDefault();
          if (isBusy(confirm)) return;
          const text = reason.value.trim().slice(0, REASON_MAX);
          error.textContent = '';
          confirm.textContent = s.t('declining');
          void ctx
            .act([confirm, cancel], () => ctx.api.decline(text || null), {
              onError: (e) => {
                error.textContent = e.serverMessage ?? s.t('unexpectedError');
              },
            })
            .then((next) => {
              confirm.textContent = s.t('declineConfirm');
              if (!next) {
                if (!error.textContent) error.textContent = s.t('networkError');
                return;
              }
              dialog.close();
              if (next.step === 'declined') frame.notifyParent(next, frame.declined(next, text || null));
              ctx.show(next);
            });
        },
      },
    },
    h('h2', { id: titleId, class: 'dialog-title' }, s.t('declineTitle')),
    h('p', { id: bodyId }, s.t('declineBody')),
    reasonField,
    counter,
    error,
    h('div', { class: 'actions actions-end' }, cancel, confirm),
  );
  const dialog = h('dialog', { class: 'dialog', attrs: { 'aria-labelledby': titleId, 'aria-describedby': bodyId } }, form);
  return {
    dialog,
    open() {
      error.textContent = '';
      dialog.showModal();
      reason.focus();
    },
  };
}

function reducedMotion(): boolean {
  return window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}
