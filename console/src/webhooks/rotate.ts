/**
 * The rotation dialog: what rotating does (a new secret at once; the old one keeps signing for the
 * overlap chosen, so each delivery carries two `v1=` signatures and a receiver holding either secret
 * verifies it), and how long the overlap lasts. Resolves with the hours chosen, or null.
 */
import { h, nextId } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import type { Key, Strings } from '../i18n.js';

/** The overlaps offered (hours; the server allows 0 to 168). */
const OVERLAPS: readonly [number, Key][] = [
  [24, 'hooksOverlap24'],
  [1, 'hooksOverlap1'],
  [72, 'hooksOverlap72'],
  [168, 'hooksOverlap168'],
  [0, 'hooksOverlap0'],
];

export function rotateDialog(s: Strings, url: string): Promise<number | null> {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const titleId = nextId('dlg');
  const bodyId = nextId('dlg');
  const selectId = nextId('dlg');
  const select = h(
    'select',
    { id: selectId, class: 'input' },
    OVERLAPS.map(([hours, label]) => h('option', { attrs: { value: String(hours) } }, s.t(label))),
  );
  return new Promise((resolve) => {
    let answer: number | null = null;
    const keep = button(s.t('hooksRotateKeep'), 'secondary', () => dialog.close());
    const yes = button(s.t('hooksRotate'), 'primary', () => {
      answer = Number(select.value);
      dialog.close();
    });
    const dialog = h(
      'dialog',
      { class: ['confirm-dialog', 'hook-dialog'], attrs: { 'aria-labelledby': titleId, 'aria-describedby': bodyId } },
      h('h2', { id: titleId, class: 'subtitle' }, s.t('hooksRotateTitle')),
      h('div', { id: bodyId }, h('p', null, s.t('hooksRotateBody', { url })), h('p', null, s.t('hooksRotateOverlapBody'))),
      h('div', { class: 'field' }, h('label', { class: 'label', attrs: { for: selectId } }, s.t('hooksOverlap')), select),
      h('div', { class: 'actions' }, keep, yes),
    );
    dialog.addEventListener('close', () => {
      dialog.remove();
      opener?.focus();
      resolve(answer);
    });
    document.body.append(dialog);
    dialog.showModal();
    select.focus();
  });
}
