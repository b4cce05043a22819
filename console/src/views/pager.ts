/**
 * Cursor pages in the address (Stripe-style `starting_after`): `after` is the cursor of the page
 * shown and `trail` the cursors of the pages before it, so Back, Forward, a reload and "Previous
 * page" all work without the server keeping any state.
 */
import { h } from '@tawqi/signing-page/dom';
import type { Strings } from '../i18n.js';
import type { ListPage } from '../publicApi.js';
import { at, type Place } from '../router.js';

export interface PagerTexts {
  label: string;
  prev: string;
  next: string;
}

/** The cursor trail of the address: the page shown (`after`) and the ones before it. */
export function cursorOf(place: Place): { after: string | null; trail: string[] } {
  return { after: place.query.get('after'), trail: (place.query.get('trail') ?? '').split(',').filter(Boolean) };
}

/** Previous/next links for a list page at console path `path` (the other query parameters kept); null when there is one page. */
export function cursorPager(place: Place, path: string, page: ListPage<unknown>, texts: PagerTexts): HTMLElement | null {
  const { after, trail } = cursorOf(place);
  if (!after && !page.has_more) return null;
  const link = (cursor: string | null, nextTrail: string[]) => {
    const q = new URLSearchParams(place.query);
    q.delete('after');
    q.delete('trail');
    if (cursor) q.set('after', cursor);
    if (nextTrail.length) q.set('trail', nextTrail.join(','));
    return `${at(path)}${q.size ? `?${q}` : ''}`;
  };
  const prev = after
    ? h('a', { class: 'btn btn-secondary', attrs: { href: link(trail.at(-1) ?? null, trail.slice(0, -1)) } }, texts.prev)
    : null;
  const next =
    page.has_more && page.next_cursor
      ? h('a', { class: 'btn btn-secondary', attrs: { href: link(page.next_cursor, after ? [...trail, after] : trail) } }, texts.next)
      : null;
  return h('nav', { class: 'pager', attrs: { 'aria-label': texts.label } }, prev, next);
}

/** The request list's texts (the first user of the pager). */
export const requestPagerTexts = (s: Strings): PagerTexts => ({ label: s.t('reqPages'), prev: s.t('reqPrev'), next: s.t('reqNext') });
