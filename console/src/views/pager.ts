/**
 * Previous / next links of a list read in cursor pages, kept in the address (`after` = the cursor
 * of this page, `trail` = the cursors of the pages before it), so Back, Forward and a reload keep
 * the place. Null when everything fits on one page.
 */
import { h } from '@tawqi/signing-page/dom';
import type { Key } from '../i18n.js';
import type { ListPage } from '../publicApi.js';
import { at } from '../router.js';
import type { ScreenContext } from '../screen.js';

export function cursorPager(ctx: ScreenContext, path: string, page: ListPage<unknown>, label: Key): HTMLElement | null {
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
    return `${at(path)}${q.size ? `?${q}` : ''}`;
  };
  const prev = after
    ? h('a', { class: 'btn btn-secondary', attrs: { href: link(trail.at(-1) ?? null, trail.slice(0, -1)) } }, s.t('reqPrev'))
    : null;
  const next =
    page.has_more && page.next_cursor
      ? h('a', { class: 'btn btn-secondary', attrs: { href: link(page.next_cursor, after ? [...trail, after] : trail) } }, s.t('reqNext'))
      : null;
  return h('nav', { class: 'pager', attrs: { 'aria-label': s.t(label) } }, prev, next);
}
