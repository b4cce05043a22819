/**
 * A secret shown exactly once (an API key, a webhook signing secret), as Stripe shows it: a modal
 * <dialog> with the value in monospace, a copy button whose result is announced, a warning that
 * the value will not be shown again, and one way out — "I have saved it" — after which the focus
 * goes back to what opened the dialog. The value lives only in this dialog's DOM: closing it
 * removes the element, so nothing keeps the secret once it is acknowledged.
 */
import { h, nextId } from '@tawqi/signing-page/dom';
import { button, icon } from '@tawqi/signing-page/kit';
import type { Strings } from '../i18n.js';

export interface ShownOnceOptions {
  /** The dialog's heading, e.g. "Your new secret key". */
  title: string;
  /** The label of the value, e.g. "Secret key". */
  label: string;
  /** The secret itself. */
  secret: string;
  /** An optional sentence under the heading (what the secret is for). */
  intro?: string;
}

/** Show the secret; resolves when the user has acknowledged it and the dialog is gone. */
export function showSecretOnce(s: Strings, o: ShownOnceOptions): Promise<void> {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const titleId = nextId('once');
  const warningId = nextId('once');
  const valueId = nextId('once');
  // Inside the dialog: a live region outside a modal dialog is inert and may stay silent.
  const status = h('p', { class: 'once-status', attrs: { role: 'status', 'aria-live': 'polite' } });
  const value = h('input', {
    id: valueId,
    class: ['input', 'once-value'],
    attrs: { readonly: true, dir: 'ltr', spellcheck: 'false', autocomplete: 'off', 'aria-describedby': warningId },
  });
  value.value = o.secret;
  // Selecting the whole value on focus makes a manual copy one keystroke away.
  value.addEventListener('focus', () => value.select());
  const copy = button([icon('clipboard'), s.t('onceCopy')], 'secondary', () => void copySecret(s, value, status));
  return new Promise((resolve) => {
    const saved = button(s.t('onceSaved'), 'primary', () => dialog.close());
    const dialog = h(
      'dialog',
      { class: ['confirm-dialog', 'once-dialog'], attrs: { 'aria-labelledby': titleId, 'aria-describedby': warningId } },
      h('h2', { id: titleId, class: 'subtitle' }, o.title),
      o.intro ? h('p', null, o.intro) : null,
      h('div', { id: warningId, class: 'notice tone-warn once-warning' }, icon('alert'), h('p', null, s.t('onceWarning'))),
      h('label', { class: 'once-label', attrs: { for: valueId } }, o.label),
      h('div', { class: 'once-row' }, value, copy),
      status,
      h('div', { class: 'actions' }, saved),
    );
    // Escape would lose the secret by accident: the explicit acknowledgement is the way out.
    dialog.addEventListener('cancel', (event) => event.preventDefault());
    dialog.addEventListener('close', () => {
      dialog.remove();
      opener?.focus();
      resolve();
    });
    document.body.append(dialog);
    dialog.showModal();
    copy.focus();
  });
}

async function copySecret(s: Strings, value: HTMLInputElement, status: HTMLElement): Promise<void> {
  status.textContent = '';
  try {
    await navigator.clipboard.writeText(value.value);
    status.textContent = s.t('onceCopied');
  } catch {
    // No clipboard permission (or no secure context): leave the value selected for Ctrl+C.
    value.focus();
    value.select();
    status.textContent = s.t('onceCopyFailed');
  }
}
