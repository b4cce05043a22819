/**
 * A confirm dialog on the native <dialog> (showModal: the rest of the page is inert, Escape
 * closes, the focus stays inside); the focus goes back to what opened it when it closes.
 */
import { h, nextId } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import type { Strings } from '../i18n.js';

export function confirmDialog(s: Strings, o: { title: string; body: string; confirm: string; keep?: string }): Promise<boolean> {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const titleId = nextId('dlg');
  const bodyId = nextId('dlg');
  return new Promise((resolve) => {
    let answer = false;
    const keep = button(o.keep ?? s.t('reqKeep'), 'secondary', () => dialog.close());
    const yes = button(o.confirm, 'danger', () => {
      answer = true;
      dialog.close();
    });
    const dialog = h(
      'dialog',
      { class: 'confirm-dialog', attrs: { 'aria-labelledby': titleId, 'aria-describedby': bodyId } },
      h('h2', { id: titleId, class: 'subtitle' }, o.title),
      h('p', { id: bodyId }, o.body),
      h('div', { class: 'actions' }, keep, yes),
    );
    dialog.addEventListener('close', () => {
      dialog.remove();
      opener?.focus();
      resolve(answer);
    });
    document.body.append(dialog);
    dialog.showModal();
    // The safe answer takes the focus first.
    keep.focus();
  });
}
