/** Copying to the clipboard: one way for every screen, the outcome announced through the live region. */
import { h } from '@tawqi/signing-page/dom';
import { icon } from '@tawqi/signing-page/kit';
import type { Strings } from '../i18n.js';

/** Copy `value`; say "copied" or, without clipboard access, to select and copy it by hand. */
export function copyToClipboard(s: Strings, value: string, announce: (message: string) => void): void {
  navigator.clipboard.writeText(value).then(
    () => announce(s.t('copied')),
    () => announce(s.t('copyFailed')),
  );
}

/**
 * A value to paste elsewhere (an id, a request id, a JSON payload) shown monospace, left to right,
 * with an icon button named `label` that copies it. `block`: a scrollable preformatted block.
 */
export function copyable(s: Strings, value: string, label: string, announce: (message: string) => void, block = false): HTMLElement {
  const copy = h(
    'button',
    { class: ['btn', 'btn-quiet', 'btn-icon'], attrs: { type: 'button', 'aria-label': label, title: label } },
    icon('clipboard'),
  );
  copy.addEventListener('click', () => copyToClipboard(s, value, announce));
  const shown = block
    ? h('pre', { class: 'payload', attrs: { dir: 'ltr', tabindex: '0' } }, value)
    : h('code', { class: 'mono', attrs: { dir: 'ltr' } }, value);
  return h('span', { class: ['copyable', block && 'copyable-block'] }, shown, copy);
}
