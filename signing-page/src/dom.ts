/**
 * Safe DOM building. Every string from the state or the API reaches the page as a text node or a
 * checked attribute, never as markup: this module has no innerHTML, no inline style strings and no
 * inline event handlers, so the page works under a strict CSP and hostile names stay inert.
 */

export type Child = Node | string | number | null | undefined | false | readonly Child[];

type AttrValue = string | number | boolean | null | undefined;

export interface Props {
  /** Class names, joined with spaces; falsy entries are skipped. */
  class?: string | readonly (string | false | null | undefined)[];
  id?: string;
  /** Plain attributes (aria-*, role, type, …). `false`/`null`/`undefined` leave the attribute out. */
  attrs?: Record<string, AttrValue>;
  /** Event listeners. */
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

const FORBIDDEN_ATTR = /^(on|style$|srcdoc$)/i;
const URL_ATTR = /^(href|src|action|formaction|xlink:href)$/i;

/** Create an element with attributes, listeners and children (strings become text nodes). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props) {
    if (props.class) {
      const names = typeof props.class === 'string' ? [props.class] : props.class;
      for (const name of names) if (name) el.classList.add(...name.split(' ').filter(Boolean));
    }
    if (props.id) el.id = props.id;
    if (props.attrs) for (const [name, value] of Object.entries(props.attrs)) setAttr(el, name, value);
    if (props.on) {
      for (const [type, listener] of Object.entries(props.on)) {
        if (listener) el.addEventListener(type, listener as EventListener);
      }
    }
  }
  append(el, ...children);
  return el;
}

/** Set one attribute safely: no handlers or style strings, and URLs only through {@link safeUrl}. */
export function setAttr(el: Element, name: string, value: AttrValue): void {
  if (FORBIDDEN_ATTR.test(name)) throw new Error(`refused attribute ${name}`);
  if (value === false || value === null || value === undefined) {
    el.removeAttribute(name);
    return;
  }
  const text = value === true ? '' : String(value);
  if (URL_ATTR.test(name) && safeUrl(text, { allowData: name.toLowerCase() === 'src', allowRelative: true }) === null) {
    throw new Error(`refused URL in ${name}`);
  }
  el.setAttribute(name, text);
}

/** Append children; strings and numbers become text nodes (never parsed as HTML). */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, ...(child as Child[]));
    else if (typeof child === 'string' || typeof child === 'number') parent.appendChild(document.createTextNode(String(child)));
    else parent.appendChild(child as Node);
  }
}

/** Replace all children of an element. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/**
 * Text from a person (a name, a title) inside a sentence in the other script: isolated so an
 * English name in an Arabic sentence (or the reverse) cannot reorder the words around it.
 */
export function bdi(text: string): HTMLElement {
  return h('bdi', null, text);
}

/**
 * A sentence template as nodes: each `{name}` placeholder becomes `vars[name]` (an element, or text),
 * so a name or a title can sit isolated inside a translated sentence; unknown placeholders stay.
 */
export function fillNodes(template: string, vars: Record<string, Child>): Child[] {
  const out: Child[] = [];
  let last = 0;
  for (const match of template.matchAll(/\{(\w+)\}/g)) {
    const index = match.index ?? 0;
    out.push(template.slice(last, index));
    const name = match[1] ?? '';
    out.push(name in vars ? vars[name] : match[0]);
    last = index + match[0].length;
  }
  out.push(template.slice(last));
  return out;
}

/**
 * A URL the page may follow or load: http(s) only (data:image/… when `allowData`), resolved against
 * the page. Anything else — javascript:, data:text/html, blob:, malformed — gives null.
 */
export function safeUrl(value: string | null | undefined, opts: { allowData?: boolean; allowRelative?: boolean } = {}): string | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  const raw = value.trim();
  if (opts.allowData && /^data:image\/(png|jpeg|gif|webp|svg\+xml|avif);base64,[a-z0-9+/=\s]+$/i.test(raw)) return raw;
  let url: URL;
  try {
    url = opts.allowRelative ? new URL(raw, document.baseURI) : new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  return url.href;
}

/** Only a #rrggbb colour passes (branding colours go into CSS custom properties). */
export function safeColor(value: string | null | undefined): string | null {
  return typeof value === 'string' && /^#[0-9a-f]{6}$/i.test(value) ? value : null;
}

let uid = 0;
/** A fresh id for label/description wiring. */
export function nextId(prefix: string): string {
  uid += 1;
  return `${prefix}-${uid}`;
}
