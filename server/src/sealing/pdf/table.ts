/**
 * Tables of the certificate page. Columns run from the start side (right to left in Arabic
 * documents); each cell wraps in its column with its own base direction (an e-mail address stays
 * left to right inside an Arabic table) and is aligned to the start side. A row never splits across
 * pages; the header row is repeated on each page the table continues on.
 */
import type { Rgb } from './canvas.js';
import type { Flow } from './flow.js';
import { layoutText, type TextLine } from './text.js';
import { baseline, COLOR, leading } from './theme.js';

export interface Column {
  readonly header: string;
  /** Share of the table width. */
  readonly weight: number;
}

export interface Cell {
  readonly text: string;
  readonly bold?: boolean;
  readonly color?: Rgb;
}

export interface TableOptions {
  readonly size: number;
  readonly language: 'ar' | 'en';
  /** Draw the header row (a key/value table has none). */
  readonly header: boolean;
  /** A cell taller than this many lines (a user agent of several kilobytes) is cut, ending in "…". */
  readonly maxLines: number;
}

const PAD_X = 3.5;
const PAD_Y = 2.5;

const isArabicLine = (line: TextLine) => line.runs.some((r) => r.face.name.startsWith('arabic'));

/** Height of one line of a cell: lines holding Arabic need the taller Arabic leading. */
function lineHeight(line: TextLine, language: 'ar' | 'en'): number {
  return isArabicLine(line) ? leading(line.size, 'ar') : leading(line.size, language);
}

interface LaidRow {
  cells: { lines: TextLine[]; color: Rgb }[];
  height: number;
}

export function drawTable(flow: Flow, columns: readonly Column[], rows: readonly (readonly Cell[])[], options: TableOptions): void {
  const total = columns.reduce((s, c) => s + c.weight, 0);
  const widths = columns.map((c) => (c.weight / total) * flow.width);
  // Left edge of each column: from the left in LTR documents, from the right in RTL ones.
  const lefts: number[] = [];
  let edge = flow.rtl ? flow.box.right : flow.box.left;
  for (const w of widths) {
    lefts.push(flow.rtl ? edge - w : edge);
    edge += flow.rtl ? -w : w;
  }

  const lay = (row: readonly Cell[]): LaidRow => {
    const cells = row.map((cell, i) => {
      let lines = layoutText(cell.text, { size: options.size, bold: cell.bold }, widths[i]! - 2 * PAD_X, 'auto', options.maxLines + 1);
      if (lines.length > options.maxLines) {
        lines = lines.slice(0, options.maxLines - 1);
        lines.push(...layoutText('…', { size: options.size }, widths[i]!, 'auto'));
      }
      return { lines, color: cell.color ?? COLOR.text };
    });
    const height = Math.max(...cells.map((c) => c.lines.reduce((h, l) => h + lineHeight(l, options.language), 0))) + 2 * PAD_Y;
    return { cells, height };
  };

  const drawRow = (row: LaidRow, fill: Rgb | null) => {
    flow.block(row.height, (page, top) => {
      if (fill) page.rect(flow.box.left, top - row.height, flow.width, row.height, { fill });
      row.cells.forEach((cell, i) => {
        const left = lefts[i]! + PAD_X;
        const right = lefts[i]! + widths[i]! - PAD_X;
        let y = top - PAD_Y;
        for (const line of cell.lines) {
          const h = lineHeight(line, options.language);
          page.text(line, flow.x(line, 'start', left, right), baseline(y, line.size, h), cell.color);
          y -= h;
        }
      });
      page.line(flow.box.left, top - row.height, flow.box.right, top - row.height, COLOR.rule, 0.4);
    });
  };

  const header = options.header ? lay(columns.map((c) => ({ text: c.header, bold: true, color: COLOR.muted }))) : null;
  const laid = rows.map(lay);
  let first = true;
  for (const row of laid) {
    const need = row.height + (first && header ? header.height : 0);
    flow.ensure(need);
    if (header && (first || flow.atTop)) drawRow(header, COLOR.faint);
    drawRow(row, null);
    first = false;
  }
  if (laid.length === 0 && header) drawRow(header, COLOR.faint);
}
