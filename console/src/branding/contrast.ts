/** The sign button colour's contrast with its white text, said live as the colour is typed or picked. */
import { h, nextId } from '@tawqi/signing-page/dom';
import type { Strings } from '../i18n.js';
import type { BrandingInput } from './fields.js';
import { buttonContrast } from './model.js';

/** A line under the field (and in its description) that follows its value. */
export function contrastLine(s: Strings, f: BrandingInput): HTMLElement {
  const line = h('p', { class: 'bp-contrast', id: nextId('contrast'), attrs: { 'aria-live': 'polite' } });
  f.input.setAttribute('aria-describedby', `${f.input.getAttribute('aria-describedby') ?? ''} ${line.id}`.trim());
  const show = () => {
    const value = f.input.value.trim();
    const c = buttonContrast(value);
    line.classList.toggle('tone-ok', c?.ok === true);
    line.classList.toggle('tone-bad', c !== null && !c.ok);
    if (value === '') line.textContent = s.t('bpContrastNone', { min: '4.5' });
    else if (!c) line.textContent = s.t('bpColorFormat');
    else line.textContent = s.t(c.ok ? 'bpContrastOk' : 'bpContrastLow', { ratio: c.ratio, min: String(c.minimum) });
  };
  f.input.addEventListener('input', show);
  show();
  f.message.before(line);
  return line;
}
