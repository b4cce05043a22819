/**
 * The editor's check of the text against the fields, as one types: a placeholder without a field
 * (fixed in one click: add the field), a field no placeholder uses (one click: remove it), an
 * invalid key and a key defined twice (fixed by hand). The server refuses the same (templateProblem).
 */
import { bdi, fillNodes, h, type Child } from '@tawqi/signing-page/dom';
import { button, icon } from '@tawqi/signing-page/kit';
import type { Strings } from '../i18n.js';
import { isClean, type Mismatch } from './model.js';

export interface Fixes {
  add(key: string): void;
  remove(key: string): void;
}

export function checksList(s: Strings, m: Mismatch, fixes: Fixes | null): HTMLElement {
  if (isClean(m)) return h('p', { class: 'tpl-check tpl-check-ok' }, icon('check'), s.t('tplChecksClean'));
  const item = (text: Child[], fix: HTMLButtonElement | null) =>
    h('li', { class: 'tpl-check tpl-check-bad' }, icon('alert'), h('span', null, text), fix);
  const fixButton = (label: string, name: string, run: () => void) => {
    const b = button(label, 'secondary', run);
    b.setAttribute('aria-label', name);
    return b;
  };
  const code = (key: string) => ({ placeholder: bdi(`{{${key}}}`) });
  const named = (key: string) => ({ key: bdi(key) });
  return h(
    'ul',
    { class: 'tpl-checks-list' },
    m.missing.map((k) =>
      item(
        fillNodes(s.t('tplMissingField'), code(k)),
        fixes && fixButton(s.t('tplFixAdd'), s.t('tplFixAddOf', { key: k }), () => fixes.add(k)),
      ),
    ),
    m.unused.map((k) =>
      item(
        fillNodes(s.t('tplUnusedField'), named(k)),
        fixes && fixButton(s.t('tplFixRemove'), s.t('tplFixRemoveOf', { key: k }), () => fixes.remove(k)),
      ),
    ),
    m.invalid.map((k) => item(fillNodes(s.t('tplInvalidKey'), code(k)), null)),
    m.duplicate.map((k) => item(fillNodes(s.t('tplDuplicateKey'), named(k)), null)),
    m.incomplete.map((n) => item([s.t('tplIncompleteField', { n })], null)),
  );
}
