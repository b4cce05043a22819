/** What the parts of the Company verification page share (screen.ts makes it; the parts draw into it). */
import { h } from '@tawqi/signing-page/dom';
import type { ScreenContext } from '../screen.js';
import type { Say } from '../views/notice.js';
import type { verificationApi } from './model.js';

export interface VerificationPage {
  ctx: ScreenContext;
  api: ReturnType<typeof verificationApi>;
  /** The owner acts; anyone else reads. */
  owner: boolean;
  say: Say;
  /** Load the state again and draw the page; then `message` (if any) is said and focused. */
  reload(message?: string): Promise<void>;
}

/** A titled part of the page. */
export function part(id: string, title: string, ...children: (Node | null)[]): HTMLElement {
  return h('section', { class: 'kyb-part', attrs: { 'aria-labelledby': id } }, h('h2', { id, class: 'subtitle' }, title), ...children);
}
