/** A page's message slot: the outcome of an action, shown where the page begins and given the focus. */
import { h } from '@tawqi/signing-page/dom';
import { icon } from '@tawqi/signing-page/kit';

export type Say = (text: string, tone: 'ok' | 'bad') => void;

/** An empty slot and the function that fills it (a status, or an alert for a refusal). */
export function messageSlot(): { slot: HTMLElement; say: Say } {
  const slot = h('div', { class: 'page-messages' });
  const say: Say = (text, tone) => {
    const box = h(
      'div',
      { class: ['notice', `tone-${tone}`], attrs: { role: tone === 'bad' ? 'alert' : 'status', tabindex: -1 } },
      icon(tone === 'bad' ? 'alert' : 'check'),
      h('p', null, text),
    );
    slot.replaceChildren(box);
    // The button that acted may be gone with what it changed: the message takes the focus instead.
    box.focus();
  };
  return { slot, say };
}
