/** The step views' building blocks: the page kit (../kit.ts) and the pieces that show the State. */
import { bdi, h } from '../dom.js';
import type { Strings } from '../i18n.js';
import { icon } from '../kit.js';
import type { State } from '../types.js';

export * from '../kit.js';

/** The document's title and level, shown on the steps before the document itself. */
export function docChip(s: Strings, state: State): HTMLElement {
  return h(
    'div',
    { class: 'doc-chip' },
    icon('doc'),
    h('span', { class: 'doc-chip-text' }, h('strong', null, bdi(state.request.title)), h('span', { class: 'muted' }, levelName(s, state))),
  );
}

export function levelName(s: Strings, state: State): string {
  const level = state.request.legal_level;
  return level === 'aes' ? s.t('legal_aes') : level === 'qes' ? s.t('legal_qes') : s.t('legal_ses');
}

/** A title inside a sentence: bold and isolated from the surrounding text direction. */
export function titleRef(state: State): HTMLElement {
  return h('strong', null, bdi(state.request.title));
}
