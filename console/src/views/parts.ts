/** Pieces the console's screens share: the signed-out card, a section page, a message screen. */
import { h, type Child } from '@tawqi/signing-page/dom';
import { card, heading, icon, p, type IconName, type Tone } from '@tawqi/signing-page/kit';
import { at } from '../router.js';
import type { Screen } from '../screen.js';

/** A signed-out screen: one card with an icon, the heading, an introduction and the content. */
export function cardScreen(o: { icon: IconName; tone?: Tone; title: string; intro?: Child }, ...children: Child[]): Screen {
  const title = heading(o.title);
  const root = card({ tone: o.tone ?? 'brand', icon: o.icon, title }, o.intro ? p('lead', o.intro) : null, ...children);
  root.classList.add('console-card');
  return { title: o.title, root, heading: title };
}

/** A signed-in page: the heading row and the content below it. */
export function pageScreen(o: { title: string; intro?: Child }, ...children: Child[]): Screen {
  const title = heading(o.title);
  const root = h('section', { class: 'page' }, h('div', { class: 'page-head' }, title, o.intro ? p('muted', o.intro) : null), ...children);
  return { title: o.title, root, heading: title };
}

/** An empty state: an icon, a sentence, and an optional action. */
export function emptyState(name: IconName, text: string, action?: Child): HTMLElement {
  return h('div', { class: 'empty' }, h('div', { class: 'empty-icon' }, icon(name)), p(null, text), action);
}

/** A link to a console path that looks like a button. */
export function linkButton(label: string, path: string, variant: 'primary' | 'secondary' | 'quiet' = 'secondary'): HTMLAnchorElement {
  return h('a', { class: ['btn', `btn-${variant}`], attrs: { href: at(path) } }, label);
}

/** A plain text link to a console path. */
export function textLink(label: string, path: string): HTMLAnchorElement {
  return h('a', { class: 'text-link', attrs: { href: at(path) } }, label);
}
