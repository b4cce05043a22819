/**
 * Drawing on pdf-lib pages with our own content streams: shaped text (glyph by glyph, GPOS offsets
 * honoured), rules, boxes, images and transparency. pdf-lib's drawText is not used — it places
 * glyphs by their advance only (Arabic dots and hamzas land in the wrong place) and writes a
 * ToUnicode map by glyph (see documentFont.ts).
 */
import { deflateSync } from 'node:zlib';
import { PDFName, PDFRawStream, type PDFDict, type PDFDocument, type PDFPage, type PDFRef } from 'pdf-lib';
import { DocumentFont, type GlyphPart } from './documentFont.js';
import type { Face, ShapedGlyph } from './fonts.js';
import { popplerPageTexts } from './popplerOrder.js';
import type { GlyphRun, TextLine } from './text.js';

export interface Rgb {
  readonly r: number;
  readonly g: number;
  readonly b: number;
}

export const rgbHex = (hex: string): Rgb => ({
  r: parseInt(hex.slice(1, 3), 16) / 255,
  g: parseInt(hex.slice(3, 5), 16) / 255,
  b: parseInt(hex.slice(5, 7), 16) / 255,
});

/** A number for a content stream: at most three decimals, never exponent notation or "-0". */
export function num(v: number): string {
  const r = Math.round(v * 1000) / 1000;
  return r === 0 ? '0' : String(r);
}

const color = (c: Rgb) => `${num(c.r)} ${num(c.g)} ${num(c.b)}`;

/** The document being drawn: its pages, and the fonts, images and graphics states they share. */
export class RenderDoc {
  readonly pages: PageCanvas[] = [];
  private readonly fonts = new Map<Face, DocumentFont>();
  private readonly alphas = new Map<number, PDFRef>();

  constructor(
    readonly pdf: PDFDocument,
    readonly width: number,
    readonly height: number,
  ) {}

  addPage(): PageCanvas {
    const page = new PageCanvas(this, this.pdf.addPage([this.width, this.height]));
    this.pages.push(page);
    return page;
  }

  font(face: Face): DocumentFont {
    let font = this.fonts.get(face);
    if (!font) {
      font = new DocumentFont(face, this.pdf.context, `F${this.fonts.size + 1}`);
      this.fonts.set(face, font);
    }
    return font;
  }

  /** An ExtGState with fill and stroke opacity alpha, shared by every page that uses it. */
  alpha(alpha: number): PDFRef {
    let ref = this.alphas.get(alpha);
    if (!ref) {
      ref = this.pdf.context.register(this.pdf.context.obj({ Type: 'ExtGState', ca: alpha, CA: alpha }));
      this.alphas.set(alpha, ref);
    }
    return ref;
  }

  /** Write every page's content stream and every font; the document can then be saved. */
  finish(): void {
    for (const page of this.pages) page.finish();
    for (const font of this.fonts.values()) font.finish();
  }
}

export class PageCanvas {
  private readonly ops: string[] = [];
  private readonly fonts = new Set<DocumentFont>();
  private readonly xobjects = new Map<string, PDFRef>();
  private readonly states = new Map<string, PDFRef>();
  private readonly marked: MarkedLine[] = [];

  constructor(
    private readonly doc: RenderDoc,
    readonly page: PDFPage,
  ) {}

  /**
   * Draw a laid-out line with its left edge at x and its baseline at y. Runs and glyphs are written in
   * logical order (a right-to-left run from its right end), each glyph at its place on the page, so an
   * extractor that reads the content stream in order (mupdf) gets the logical text; the line's logical
   * text is also given as ActualText for those that read positions, see markText().
   */
  text(line: TextLine, x: number, y: number, fill: Rgb): void {
    if (line.runs.length === 0) return;
    const left = new Map<GlyphRun, number>();
    let pen = x;
    for (const run of line.runs) {
      left.set(run, pen);
      pen += run.width;
    }
    const logical = [...line.runs].sort((a, b) => a.start - b.start);
    const marked: MarkedLine = {
      text: line.text.replace(IGNORABLE, ''),
      glyphsInOrder: glyphsGiveText(line, logical),
      at: this.ops.length,
    };
    this.marked.push(marked);
    this.ops.push('', 'BT', `${color(fill)} rg`);
    for (const run of logical) this.run(run, left.get(run)!, y, line.size);
    this.ops.push('ET', '');
    marked.end = this.ops.length - 1;
  }

  /**
   * Each line's text for extractors, decided once the page's lines are known (poppler's direction
   * is the page's). A line whose glyphs, read in the order they are written, do not give its text
   * (right-to-left runs, marks) carries its logical text as ActualText (ISO 32000-1 14.9.4): what
   * a reader that follows the standard (Acrobat, pdfium) takes for the whole line. When poppler
   * needs another string to print that text (popplerOrder.ts), it goes in a second ActualText
   * nested inside the first: the standard lets the outer one replace everything inside it, while
   * poppler takes the innermost. mupdf reads the glyphs in the order they are written.
   */
  private markText(): void {
    const { texts } = popplerPageTexts(this.marked.map((m) => m.text));
    this.marked.forEach((m, i) => {
      const poppler = texts[i]!;
      const outer = !m.glyphsInOrder || poppler !== m.text;
      const inner = poppler !== m.text;
      if (!outer) return;
      this.ops[m.at] = inner ? `${span(m.text)}\n${span(poppler)}` : span(m.text);
      this.ops[m.end!] = inner ? 'EMC\nEMC' : 'EMC';
    });
  }

  /**
   * One run: its font, then its glyphs in logical order at their visual places. A glyph that stands
   * for no text (a dot Noto Naskh draws apart from its letter, a mark whose text its letter carries)
   * is drawn as part of the glyph before it, one composite glyph per letter.
   */
  private run(run: GlyphRun, left: number, y: number, size: number): void {
    const font = this.doc.font(run.face);
    this.fonts.add(font);
    const scale = size / run.face.unitsPerEm;
    this.ops.push(`${font.resourceName.asString()} ${num(size)} Tf`);
    const glyphs: { g: ShapedGlyph; x: number; y: number }[] = [];
    let pen = 0;
    for (const g of run.glyphs) {
      glyphs.push({ g, x: pen + g.dx, y: g.dy });
      pen += g.advance;
    }
    if (run.rtl) glyphs.reverse();
    const placed: Placed[] = [];
    for (let i = 0; i < glyphs.length;) {
      const base = glyphs[i]!;
      const parts: GlyphPart[] = [];
      for (i++; base.g.text !== '' && i < glyphs.length && glyphs[i]!.g.text === ''; i++) {
        const part = glyphs[i]!;
        parts.push({ gid: part.g.gid, dx: Math.round(part.x - base.x), dy: Math.round(part.y - base.y) });
      }
      // A blank glyph standing for nothing (an isolate at the start of a run) need not be drawn.
      if (base.g.text === '' && parts.length === 0 && run.face.isBlank(base.g.gid)) continue;
      const width = (font.width(base.g.gid) * size) / 1000;
      placed.push({ cid: font.cidHex(base.g, parts), x: left + base.x * scale, dy: base.y * scale, width });
    }
    showGlyphs(this.ops, placed, y, size);
  }

  rect(x: number, y: number, w: number, h: number, style: { fill?: Rgb; stroke?: Rgb; lineWidth?: number }): void {
    const { fill, stroke } = style;
    if (!fill && !stroke) return;
    this.ops.push('q');
    if (fill) this.ops.push(`${color(fill)} rg`);
    if (stroke) this.ops.push(`${color(stroke)} RG ${num(style.lineWidth ?? 0.5)} w`);
    this.ops.push(`${num(x)} ${num(y)} ${num(w)} ${num(h)} re ${fill && stroke ? 'B' : fill ? 'f' : 'S'}`, 'Q');
  }

  line(x1: number, y1: number, x2: number, y2: number, stroke: Rgb, width: number): void {
    this.ops.push('q', `${color(stroke)} RG ${num(width)} w`, `${num(x1)} ${num(y1)} m ${num(x2)} ${num(y2)} l S`, 'Q');
  }

  /** Draw an image XObject (embedded once per document) into the box (x, y, w, h). */
  image(name: string, ref: PDFRef, x: number, y: number, w: number, h: number): void {
    this.xobjects.set(name, ref);
    this.ops.push('q', `${num(w)} 0 0 ${num(h)} ${num(x)} ${num(y)} cm`, `/${name} Do`, 'Q');
  }

  /** Run draw() with fill/stroke opacity alpha and the transformation [a b c d e f] applied. */
  transformed(alpha: number, matrix: readonly number[], draw: () => void): void {
    const name = `GS${Math.round(alpha * 100)}`;
    this.states.set(name, this.doc.alpha(alpha));
    this.ops.push('q', `/${name} gs`, `${matrix.map(num).join(' ')} cm`);
    draw();
    this.ops.push('Q');
  }

  finish(): void {
    this.markText();
    const node = this.page.node;
    for (const font of this.fonts) node.setFontDictionary(font.resourceName, font.ref);
    for (const [name, ref] of this.xobjects) node.setXObject(PDFName.of(name), ref);
    for (const [name, ref] of this.states) node.setExtGState(PDFName.of(name), ref);
    const ctx = this.doc.pdf.context;
    const dict = ctx.obj({ Filter: 'FlateDecode' }) as PDFDict;
    const contents = deflateSync(Buffer.from(this.ops.filter((op) => op !== '').join('\n'), 'latin1'));
    node.addContentStream(ctx.register(PDFRawStream.of(dict, contents)));
  }
}

/** A glyph to show: its CID, where its origin goes, and how far the viewer moves the pen after it. */
interface Placed {
  readonly cid: string;
  readonly x: number;
  readonly dy: number;
  readonly width: number;
}

/**
 * Glyphs on the baseline go in TJ arrays, hex strings merged, with a number wherever the next origin
 * is not where the viewer's pen is (shaped advances, kerning, the step back to the next glyph of a
 * right-to-left run); a glyph off the baseline (a mark) gets its own Tm.
 */
function showGlyphs(ops: string[], placed: readonly Placed[], y: number, size: number): void {
  let items: string[] | null = null;
  let hex = '';
  let pen = 0;
  const flush = () => {
    if (hex) items?.push(`<${hex}>`);
    hex = '';
    if (items && items.length > 0) ops.push(`[${items.join(' ')}] TJ`);
    items = null;
  };
  for (const p of placed) {
    if (p.dy !== 0) {
      flush();
      ops.push(`1 0 0 1 ${num(p.x)} ${num(y + p.dy)} Tm <${p.cid}> Tj`);
      continue;
    }
    if (!items) {
      ops.push(`1 0 0 1 ${num(p.x)} ${num(y)} Tm`);
      items = [];
      pen = p.x;
    }
    const gap = ((pen - p.x) * 1000) / size;
    if (Math.abs(gap) > 0.001) {
      if (hex) items.push(`<${hex}>`);
      hex = '';
      items.push(num(gap));
    }
    hex += p.cid;
    pen = p.x + p.width;
  }
  flush();
}

/** Default-ignorable characters (bidi isolates and marks, joiners): they steer layout, they are not text. */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/** A line drawn on the page: its logical text, and where its marked-content operators go. */
interface MarkedLine {
  readonly text: string;
  /** Its glyphs, read in the order they are written, give its text (a left-to-right line without marks). */
  readonly glyphsInOrder: boolean;
  readonly at: number;
  end?: number;
}

function glyphsGiveText(line: TextLine, logical: readonly GlyphRun[]): boolean {
  let drawn = '';
  for (const run of logical) {
    if (run.rtl) return false;
    for (const g of run.glyphs) drawn += g.text;
  }
  return drawn === line.text.replace(IGNORABLE, '');
}

function span(text: string): string {
  let hex = 'FEFF';
  for (let i = 0; i < text.length; i++) hex += text.charCodeAt(i).toString(16).padStart(4, '0').toUpperCase();
  return `/Span <</ActualText <${hex}>>> BDC`;
}
