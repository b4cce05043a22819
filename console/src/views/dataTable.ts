/**
 * The console's data table: a wrapper that scrolls sideways on a narrow screen, a caption for
 * screen readers, a header row of column names (scope=col) and the rows a screen builds.
 */
import { h, type Child } from '@tawqi/signing-page/dom';
import type { Key, Strings } from '../i18n.js';

export interface DataTableOptions {
  /** What the table lists, read out by screen readers (the caption is visually hidden). */
  caption: string;
  /** The column names; a null or false column is left out (e.g. Actions for a read-only user). */
  columns: readonly (Key | null | false)[];
  rows: Child;
  /** A class of the screen's own, beside `data-table`. */
  class?: string;
  /** Wider than the page on a narrow screen: make the wrapper a focusable region, so the keyboard can scroll it. */
  scrollRegion?: boolean;
}

export function dataTable(s: Strings, o: DataTableOptions): HTMLElement {
  const region = o.scrollRegion ? { tabindex: '0', role: 'region', 'aria-label': o.caption } : undefined;
  return h(
    'div',
    { class: 'table-wrap', attrs: region },
    h(
      'table',
      { class: ['data-table', o.class] },
      h('caption', { class: 'sr-only' }, o.caption),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          o.columns.map((key) => (key ? h('th', { attrs: { scope: 'col' } }, s.t(key)) : null)),
        ),
      ),
      h('tbody', null, o.rows),
    ),
  );
}
