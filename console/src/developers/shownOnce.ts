/**
 * STUB until the shared component lands (h1's `Console shown-once:` commit replaces this file):
 * the same export and options, a modal dialog with the secret in a read-only field, a copy button
 * and one way out.
 */
import { h, nextId } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import type { Strings } from '../i18n.js';

export interface ShownOnceOptions {
  title: string;
  label: string;
  secret: string;
  intro?: string;
}

export function showSecretOnce(s: Strings, o: ShownOnceOptions): Promise<void> {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const titleId = nextId('once');
  const valueId = nextId('once');
  const value = h('input', { id: valueId, class: ['input', 'once-value'], attrs: { readonly: true, dir: 'ltr' } });
  value.value = o.secret;
  const copy = button(s.t('hooksCopy'), 'secondary', () => void navigator.clipboard.writeText(o.secret).catch(() => value.select()));
  return new Promise((resolve) => {
    const saved = button(s.t('hooksSecretSaved'), 'primary', () => dialog.close());
    const dialog = h(
      'dialog',
      { class: ['confirm-dialog', 'once-dialog'], attrs: { 'aria-labelledby': titleId } },
      h('h2', { id: titleId, class: 'subtitle' }, o.title),
      o.intro ? h('p', null, o.intro) : null,
      h('label', { attrs: { for: valueId } }, o.label),
      h('div', { class: 'once-row' }, value, copy),
      h('div', { class: 'actions' }, saved),
    );
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
