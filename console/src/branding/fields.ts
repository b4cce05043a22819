/**
 * The branding form's inputs: text fields (an id or address left to right), welcome texts with a
 * character counter, and colours as a #rrggbb text field beside a colour picker kept in step with it.
 * Each is labelled with a hint and a message slot (the kit's field).
 */
import { h, nextId } from '@tawqi/signing-page/dom';
import { field, setFieldMessage } from '@tawqi/signing-page/kit';
import type { Strings } from '../i18n.js';
import { charCount, type TextField } from './model.js';

export interface BrandingInput {
  name: TextField;
  input: HTMLInputElement | HTMLTextAreaElement;
  root: HTMLElement;
  message: HTMLElement;
}

/** Show (or clear, with null) a message on the input, marking it invalid. */
export const fieldMessage = (f: BrandingInput, text: string | null): void => setFieldMessage(f.input, f.message, text, text !== null);

export function textField(
  name: TextField,
  label: string,
  hint: string,
  value: string | undefined,
  opts: { ltr?: boolean; type?: 'text' | 'email' | 'url'; autocomplete?: string } = {},
): BrandingInput {
  const input = h('input', {
    class: 'input',
    attrs: {
      name,
      type: opts.type ?? 'text',
      autocomplete: opts.autocomplete ?? 'off',
      dir: opts.ltr ? 'ltr' : 'auto',
      spellcheck: opts.ltr ? 'false' : null,
    },
  });
  input.value = value ?? '';
  const f = field(label, input, hint);
  return { name, input, root: f.root, message: f.message };
}

/** A welcome text in its own language and direction, with "n of max characters" kept current. */
export function welcomeField(
  s: Strings,
  name: TextField,
  label: string,
  lang: 'ar' | 'en',
  value: string | undefined,
  max: number,
): BrandingInput {
  const input = h('textarea', { class: 'input bp-welcome', attrs: { name, lang, dir: lang === 'ar' ? 'rtl' : 'ltr', rows: 3 } });
  input.value = value ?? '';
  const f = field(label, input, s.t('bpWelcomeHint', { max }));
  const counter = h('p', { class: 'bp-counter', id: nextId('count') });
  input.setAttribute('aria-describedby', `${input.getAttribute('aria-describedby') ?? ''} ${counter.id}`.trim());
  const count = () => {
    const n = charCount(input.value);
    counter.textContent = s.t(n > max ? 'bpCounterOver' : 'bpCounter', { count: n, max });
    counter.classList.toggle('is-over', n > max);
  };
  input.addEventListener('input', count);
  count();
  f.message.before(counter);
  return { name, input, root: f.root, message: f.message };
}

/** A #rrggbb text field and a colour picker, each following the other. */
export function colorField(name: TextField, label: string, hint: string, pickLabel: string, value: string | undefined): BrandingInput {
  const f = textField(name, label, hint, value, { ltr: true });
  f.input.classList.add('bp-hex');
  f.input.setAttribute('placeholder', '#rrggbb');
  f.input.setAttribute('maxlength', '7');
  const picker = h('input', { class: 'bp-picker', attrs: { type: 'color', 'aria-label': pickLabel } });
  const HEX = /^#[0-9a-fA-F]{6}$/;
  if (HEX.test(f.input.value)) picker.value = f.input.value.toLowerCase();
  f.input.addEventListener('input', () => {
    if (HEX.test(f.input.value.trim())) picker.value = f.input.value.trim().toLowerCase();
  });
  picker.addEventListener('input', () => {
    f.input.value = picker.value;
    // The form listens for input on the text field (preview, contrast): the picker speaks through it.
    f.input.dispatchEvent(new Event('input', { bubbles: true }));
  });
  const row = h('div', { class: 'bp-color' });
  f.input.replaceWith(row);
  row.append(f.input, picker);
  return f;
}
