/** Small building blocks shared by the step views: cards, headings, buttons, fields, icons. */
import { bdi, h, nextId, type Child } from '../dom.js';
import type { Strings } from '../i18n.js';
import type { State } from '../types.js';

const SVG = 'http://www.w3.org/2000/svg';

/** Static icon paths (24×24, stroked). */
export const ICONS = {
  doc: ['M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z', 'M14 3v5h5', 'M9 13h6', 'M9 17h4'],
  lock: ['M6 11h12v9H6z', 'M8 11V8a4 4 0 0 1 8 0v3'],
  mail: ['M4 6h16v12H4z', 'm4 7 8 6 8-6'],
  id: ['M3 5h18v14H3z', 'M8 10.5a2 2 0 1 0 0-.01', 'M5.5 16c.6-1.6 1.5-2.4 2.5-2.4s1.9.8 2.5 2.4', 'M14 10h4', 'M14 14h4'],
  hourglass: ['M7 3h10', 'M7 21h10', 'M8 3c0 5 8 5 8 9s-8 4-8 9', 'M16 3c0 5-8 5-8 9s8 4 8 9'],
  check: ['M20 6 9 17l-5-5'],
  x: ['M18 6 6 18', 'm6 6 12 12'],
  alert: ['M12 3 2 20h20z', 'M12 10v4', 'M12 17h.01'],
  info: ['M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z', 'M12 11v5', 'M12 8h.01'],
  clock: ['M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z', 'M12 7v5l3 2'],
  pen: ['M4 20h4L19 9l-4-4L4 16z', 'm13.5 6.5 4 4'],
  shield: ['M12 3 4 6v6c0 5 3.5 8 8 9 4.5-1 8-4 8-9V6z', 'm9 12 2 2 4-4'],
} as const;

export type IconName = keyof typeof ICONS;

/** A decorative icon (hidden from assistive technology). */
export function icon(name: IconName, className = 'icon'): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', className);
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  for (const d of ICONS[name]) {
    const path = document.createElementNS(SVG, 'path');
    path.setAttribute('d', d);
    svg.appendChild(path);
  }
  return svg;
}

/** The step heading: focusable by script (tabindex −1) so focus can move to it on a step change. */
export function heading(text: string, level: 'h1' | 'h2' = 'h1'): HTMLHeadingElement {
  return h(level, { class: 'title', attrs: { tabindex: -1 } }, text);
}

export type Tone = 'brand' | 'ok' | 'warn' | 'bad' | 'muted';

/** A card: the document chip (if any), then the icon badge beside the heading, then the content. */
export function card(head: { tone: Tone; icon: IconName; title: HTMLElement; chip?: HTMLElement }, ...children: Child[]): HTMLElement {
  return h(
    'section',
    { class: ['card', `tone-${head.tone}`] },
    head.chip,
    h('div', { class: 'card-head' }, h('div', { class: 'badge' }, icon(head.icon)), head.title),
    ...children,
  );
}

export type ButtonVariant = 'primary' | 'secondary' | 'quiet' | 'danger' | 'link';

/** A button; clicks are ignored while it is busy (aria-disabled during an API call). */
export function button(
  label: Child,
  variant: ButtonVariant,
  onClick: () => void,
  extra: { type?: 'button' | 'submit' } = {},
): HTMLButtonElement {
  const b = h('button', { class: ['btn', `btn-${variant}`], attrs: { type: extra.type ?? 'button' } }, label);
  if (extra.type !== 'submit') {
    b.addEventListener('click', () => {
      if (!isBusy(b)) onClick();
    });
  }
  return b;
}

/** True while the button's API call runs. */
export function isBusy(b: HTMLButtonElement): boolean {
  return b.getAttribute('aria-busy') === 'true';
}

/** A paragraph. */
export function p(className: string | null, ...children: Child[]): HTMLParagraphElement {
  return h('p', className ? { class: className } : null, ...children);
}

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

/** A labelled text field with a hint and a slot for a field-level message. */
export function field(
  label: string,
  input: HTMLInputElement | HTMLTextAreaElement,
  hint?: string,
): {
  root: HTMLElement;
  message: HTMLElement;
} {
  const id = input.id || nextId('field');
  input.id = id;
  const hintId = nextId('hint');
  const messageId = nextId('msg');
  const described = [hint ? hintId : null, messageId].filter(Boolean).join(' ');
  input.setAttribute('aria-describedby', described);
  const message = h('p', { id: messageId, class: 'field-message' });
  const root = h(
    'div',
    { class: 'field' },
    h('label', { attrs: { for: id } }, label),
    hint ? h('p', { id: hintId, class: 'hint' }, hint) : null,
    input,
    message,
  );
  return { root, message };
}

/** Show or clear a field's message and its invalid state. */
export function setFieldMessage(
  input: HTMLInputElement | HTMLTextAreaElement,
  message: HTMLElement,
  text: string | null,
  invalid: boolean,
): void {
  message.textContent = text ?? '';
  if (invalid) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
  message.classList.toggle('is-error', invalid);
}

/** A row of actions. */
export function actions(...children: Child[]): HTMLElement {
  return h('div', { class: 'actions' }, ...children);
}
