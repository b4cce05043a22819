/** Cursor pages of a list screen: Previous and Next links that keep the filters in the address. */
import { h } from '@tawqi/signing-page/dom';
import type { ListPage } from '../publicApi.js';
import { at } from '../router.js';
import type { ScreenContext } from '../screen.js';

/**
 * `after` is the cursor of the page shown (the address's `after`), `trail` the cursors of the pages
 * before it (the address's `trail`), so Previous needs no backwards cursor from the API.
 */
export function cursorPager(ctx: ScreenContext, list: string, page: ListPage<unknown>, label: string): HTMLElement | null {
  const { s, place } = ctx;
  const trail = (place.query.get('trail') ?? '').split(',').filter(Boolean);
  const after = place.query.get('after');
  if (!after && !page.has_more) return null;
  const link = (cursor: string | null, nextTrail: string[]) => {
    const q = new URLSearchParams(place.query);
    q.delete('after');
    q.delete('trail');
    if (cursor) q.set('after', cursor);
    if (nextTrail.length) q.set('trail', nextTrail.join(','));
    return `${at(list)}${q.size ? `?${q}` : ''}`;
  };
  const prev = after
    ? h('a', { class: 'btn btn-secondary', attrs: { href: link(trail.at(-1) ?? null, trail.slice(0, -1)) } }, s.t('reqPrev'))
    : null;
  const next =
    page.has_more && page.next_cursor
      ? h('a', { class: 'btn btn-secondary', attrs: { href: link(page.next_cursor, after ? [...trail, after] : trail) } }, s.t('reqNext'))
      : null;
  return h('nav', { class: 'pager', attrs: { 'aria-label': label } }, prev, next);
}
