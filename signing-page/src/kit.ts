/**
 * The page kit: icons, headings, cards, buttons and labelled fields built on the safe DOM builder
 * (dom.ts), with no page state. The signing page's views and the console (@tawqi/console, through
 * the package export `@tawqi/signing-page/kit`) both build their screens from it.
 */
import { h, nextId, type Child } from './dom.js';

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
  // The console's navigation and menus.
  home: ['M3 11 12 3l9 8', 'M5 10v10h14V10', 'M10 20v-6h4v6'],
  inbox: ['M3 13h5l2 3h4l2-3h5', 'M5 5h14l2 8v6H3v-6z'],
  userCheck: ['M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8z', 'M2 21c0-4 3-7 7-7s7 3 7 7', 'm16 11 2 2 4-4'],
  code: ['m8 6-6 6 6 6', 'm16 6 6 6-6 6'],
  key: ['M7.5 20a4.5 4.5 0 1 0 0-9 4.5 4.5 0 0 0 0 9z', 'm10.7 12.3 9.3-9.3', 'm16 7 3 3', 'm13.5 9.5 2 2'],
  zap: ['M13 2 3 14h9l-1 8 10-12h-9z'],
  activity: ['M22 12h-4l-3 9L9 3l-3 9H2'],
  list: ['M8 6h13', 'M8 12h13', 'M8 18h13', 'M3 6h.01', 'M3 12h.01', 'M3 18h.01'],
  users: [
    'M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2',
    'M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8z',
    'M22 21v-2a4 4 0 0 0-3-3.9',
    'M16 3.1a4 4 0 0 1 0 7.8',
  ],
  clipboard: ['M16 4h2a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2h2', 'M9 2h6v4H9z', 'M9 12h6', 'M9 16h6'],
  logout: ['M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4', 'm16 17 5-5-5-5', 'M21 12H9'],
  chevronDown: ['m6 9 6 6 6-6'],
  globe: [
    'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20z',
    'M2 12h20',
    'M12 2c2.5 2.7 4 6.3 4 10s-1.5 7.3-4 10c-2.5-2.7-4-6.3-4-10s1.5-7.3 4-10z',
  ],
  menu: ['M3 6h18', 'M3 12h18', 'M3 18h18'],
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
