/**
 * The soak's plot as a plain SVG, drawn by hand (no charting dependency): three panels over the
 * run's minutes — memory (RSS, its anonymous part, heap used), p99 latency (the load's requests,
 * the event loop) and the durable queues' due entries — each with its own y scale from 0.
 */

export interface Series {
  label: string;
  color: string;
  values: readonly (number | null)[];
}

export interface Panel {
  title: string;
  unit: string;
  series: readonly Series[];
}

const WIDTH = 760;
const PANEL_H = 170;
const LEFT = 64;
const RIGHT = 150;
const TOP = 46;
const GAP = 46;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (n: number) => (Number.isInteger(n) || n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

/** A value to draw: a gap for null, and for a figure missing from an older run's report (--plot-from). */
const drawn = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

/** A round upper bound for an axis: 1, 2 or 5 times a power of ten, at least `max`. */
function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((m) => m * p).find((v) => v >= max)!;
}

function panel(p: Panel, top: number, xs: readonly number[]): string {
  const w = WIDTH - LEFT - RIGHT;
  const yMax = niceMax(Math.max(0, ...p.series.flatMap((s) => s.values.filter(drawn))));
  const xMin = xs[0] ?? 0;
  const xSpan = Math.max(1e-9, (xs.at(-1) ?? 1) - xMin);
  const X = (x: number) => LEFT + ((x - xMin) / xSpan) * w;
  const Y = (y: number) => top + PANEL_H - (y / yMax) * PANEL_H;
  const out: string[] = [`<text x="${LEFT}" y="${top - 10}" class="t">${esc(p.title)} (${esc(p.unit)})</text>`];
  for (const f of [0, 0.5, 1]) {
    const y = Y(yMax * f);
    out.push(`<line x1="${LEFT}" y1="${y}" x2="${LEFT + w}" y2="${y}" class="g"/>`);
    out.push(`<text x="${LEFT - 6}" y="${y + 4}" class="a" text-anchor="end">${fmt(yMax * f)}</text>`);
  }
  for (const x of xs) out.push(`<text x="${X(x).toFixed(1)}" y="${top + PANEL_H + 14}" class="a" text-anchor="middle">${fmt(x)}</text>`);
  p.series.forEach((s, i) => {
    const pts = s.values.flatMap((v, j) => (!drawn(v) ? [] : [`${X(xs[j]!).toFixed(1)},${Y(v).toFixed(1)}`]));
    out.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="${s.color}" stroke-width="2"/>`);
    for (const pt of pts) {
      const [cx, cy] = pt.split(',');
      out.push(`<circle cx="${cx}" cy="${cy}" r="2.5" fill="${s.color}"/>`);
    }
    const ly = top + 12 + i * 18;
    out.push(`<line x1="${LEFT + w + 14}" y1="${ly - 4}" x2="${LEFT + w + 32}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2"/>`);
    out.push(`<text x="${LEFT + w + 38}" y="${ly}" class="a">${esc(s.label)}</text>`);
  });
  return out.join('\n');
}

/** The whole picture: `title` on top, the panels one under the other, minutes on every x axis. */
export function plotSvg(title: string, minutes: readonly number[], panels: readonly Panel[]): string {
  const height = TOP + panels.length * (PANEL_H + GAP) + 10;
  const body = panels.map((p, i) => panel(p, TOP + 14 + i * (PANEL_H + GAP), minutes)).join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">`,
    '<style>.t{font-size:13px;font-weight:bold}.a{font-size:11px;fill:#444}.g{stroke:#ddd;stroke-width:1}</style>',
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="${LEFT}" y="20" class="t">${esc(title)}</text>`,
    `<text x="${WIDTH - RIGHT}" y="${height - 6}" class="a">minutes since start</text>`,
    body,
    '</svg>',
    '',
  ].join('\n');
}
