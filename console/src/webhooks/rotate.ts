/**
 * The rotation dialog (the console's confirm dialog with a choice): what rotating does — a new
 * secret at once; the old one keeps signing for the overlap chosen, so each delivery carries two
 * `v1=` signatures and a receiver holding either secret verifies it — and how long the overlap
 * lasts. Resolves with the hours chosen, or null.
 */
import { h, nextId } from '@tawqi/signing-page/dom';
import type { Key, Strings } from '../i18n.js';
import { confirmDialog } from '../requests/dialog.js';

/** The overlaps offered (hours; the server allows 0 to 168). */
const OVERLAPS: readonly [number, Key][] = [
  [24, 'hooksOverlap24'],
  [1, 'hooksOverlap1'],
  [72, 'hooksOverlap72'],
  [168, 'hooksOverlap168'],
  [0, 'hooksOverlap0'],
];

export async function rotateDialog(s: Strings, url: string): Promise<number | null> {
  const selectId = nextId('dlg');
  const select = h(
    'select',
    { id: selectId, class: 'input' },
    OVERLAPS.map(([hours, label]) => h('option', { attrs: { value: String(hours) } }, s.t(label))),
  );
  const yes = await confirmDialog(s, {
    title: s.t('hooksRotateTitle'),
    body: `${s.t('hooksRotateBody', { url })} ${s.t('hooksRotateOverlapBody')}`,
    confirm: s.t('hooksRotate'),
    cancel: s.t('hooksRotateKeep'),
    tone: 'primary',
    extra: h('div', { class: 'hook-overlap' }, h('label', { class: 'label', attrs: { for: selectId } }, s.t('hooksOverlap')), select),
  });
  return yes ? Number(select.value) : null;
}
