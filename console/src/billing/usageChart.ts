/**
 * Usage per month: three small bar charts (sends, identity checks, wallet spend), drawn as inline
 * SVG through the DOM (no chart library, nothing inline the CSP would refuse: sizes are SVG
 * attributes, colours come from billing.css), and the same figures as a table below them. The
 * charts are hidden from assistive technology because the table says everything they show; in
 * Arabic the months run from right to left, as the text does.
 */
import { h } from '@tawqi/signing-page/dom';
import type { Key, Strings } from '../i18n.js';
import { dataTable } from '../views/dataTable.js';
import { compact, count, money, monthName, type MonthUsage } from './model.js';

const SVG = 'http://www.w3.org/2000/svg';
// In SVG units; the chart is as wide as the page, so on a wide page a unit is about 1.3 px.
const SLOT = 60;
const BAR = 30;
const PLOT = 80;
const TOP = 18;
const BOTTOM = 34;

interface Series {
  title: Key;
  kind: string;
  value: (m: MonthUsage) => number;
  text: (m: MonthUsage) => string;
  /** The figure over a bar, short enough for its slot (the table has it in full). */
  short: (m: MonthUsage) => string;
}

export function usageChart(s: Strings, months: MonthUsage[]): Node {
  const series: Series[] = [
    { title: 'billUsageSends', kind: 'sends', value: (m) => m.sends, text: (m) => count(s, m.sends), short: (m) => compact(s, m.sends) },
    {
      title: 'billUsageIdentity',
      kind: 'identity',
      value: (m) => m.identity_checks,
      text: (m) => count(s, m.identity_checks),
      short: (m) => compact(s, m.identity_checks),
    },
    {
      title: 'billUsageWallet',
      kind: 'wallet',
      value: (m) => m.wallet_spend.amount,
      text: (m) => money(s, m.wallet_spend),
      short: (m) => compact(s, m.wallet_spend.amount),
    },
  ];
  const currency = months[0]?.wallet_spend.currency ?? '';
  const title = (x: Series) => (x.kind === 'wallet' ? s.t('billUsageWalletIn', { currency }) : s.t(x.title));
  const charts = h(
    'div',
    { class: 'bill-charts', attrs: { 'aria-hidden': 'true' } },
    series.map((x) => h('div', { class: 'bill-chart' }, h('p', { class: 'bill-chart-title' }, title(x)), bars(s, months, x))),
  );
  return h('div', null, charts, usageTable(s, months, series));
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** One series: a bar per month scaled to the largest, its figure above it (when not zero), the month below. */
function bars(s: Strings, months: MonthUsage[], x: Series): SVGSVGElement {
  const width = months.length * SLOT;
  const height = TOP + PLOT + BOTTOM;
  const max = Math.max(...months.map(x.value), 0);
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: `bill-svg bill-svg-${x.kind}`, focusable: 'false' });
  chart.append(svg('line', { x1: 0, x2: width, y1: TOP + PLOT, y2: TOP + PLOT, class: 'bill-axis' }));
  months.forEach((m, i) => {
    const slot = s.dir === 'rtl' ? months.length - 1 - i : i;
    const centre = slot * SLOT + SLOT / 2;
    const v = Math.max(x.value(m), 0);
    const tall = max > 0 ? Math.max((v / max) * PLOT, v > 0 ? 2 : 0) : 0;
    const y = TOP + PLOT - tall;
    const g = svg('g', { 'data-month': m.month, 'data-value': x.value(m) });
    g.append(svg('rect', { x: centre - BAR / 2, y, width: BAR, height: tall, rx: 3, class: 'bill-bar' }));
    if (v > 0) g.append(svg('text', { x: centre, y: y - 4, 'text-anchor': 'middle', class: 'bill-value' }, x.short(m)));
    g.append(svg('text', { x: centre, y: height - 20, 'text-anchor': 'middle', class: 'bill-month' }, monthName(s, m.month, 'month')));
    // The year under the first month and under each January, so twelve labels stay short.
    if (i === 0 || m.month.endsWith('-01'))
      g.append(svg('text', { x: centre, y: height - 4, 'text-anchor': 'middle', class: 'bill-month' }, m.month.slice(0, 4)));
    chart.append(g);
  });
  return chart;
}

/** The same figures for reading: one row per month, newest first. */
function usageTable(s: Strings, months: MonthUsage[], series: Series[]): HTMLElement {
  return dataTable(s, {
    caption: s.t('billUsageCaption'),
    columns: ['billUsageMonth', ...series.map((x) => x.title)],
    class: 'bill-usage',
    rows: [...months].reverse().map((m) =>
      h(
        'tr',
        { attrs: { 'data-month': m.month } },
        h('th', { attrs: { scope: 'row' } }, monthName(s, m.month)),
        series.map((x) => h('td', { class: 'bill-num' }, x.text(m))),
      ),
    ),
  });
}
