/**
 * Text shaping, bidi and line breaking: a paragraph in logical order becomes lines of glyph runs in
 * visual order, ready to draw left to right.
 *
 * Per paragraph: Unicode bidi embedding levels (bidi-js); a face per character by script (Noto Naskh
 * Arabic for Arabic, Noto Sans otherwise); greedy breaking at spaces on measured widths, with tokens
 * wider than the line broken between graphemes. Per line: the bidi reordering (rules L1–L2) over the
 * line's range, then maximal runs of one level and one face, each shaped in logical order (so Arabic
 * joins and the lam-alef forms) and placed in visual order. Runs are shaped word by word, which is
 * exact (no joining, ligature or kerning crosses a space) and lets words be cached across documents.
 */
import { bidi, type EmbeddingLevels } from './bidi.js';
import { fontFaces, type Face, type ShapedGlyph } from './fonts.js';

export type BaseDirection = 'ltr' | 'rtl' | 'auto';

export interface TextStyle {
  readonly size: number;
  readonly bold?: boolean;
}

/** A run of one face, glyphs in visual order. */
export interface GlyphRun {
  readonly face: Face;
  readonly rtl: boolean;
  /** Index of the run's first character in the paragraph (runs sorted by it are in logical order). */
  readonly start: number;
  readonly glyphs: readonly ShapedGlyph[];
  /** Points. */
  readonly width: number;
}

export interface TextLine {
  readonly runs: readonly GlyphRun[];
  /** The line's characters in logical order (what text extraction must give back). */
  readonly text: string;
  /** Points. */
  readonly width: number;
  readonly size: number;
  /** The paragraph's direction (decides alignment where the caller does not). */
  readonly rtl: boolean;
}

/**
 * Make user text safe to lay out: tabs and other breaking spaces become spaces; other control
 * characters and the explicit bidi embeddings and overrides (an override makes "gnp.exe" read as
 * "exe.png") are removed; lone surrogates become U+FFFD. Isolates and LRM/RLM/ALM stay: they only
 * set the direction of their own content or steer neutral characters, never reverse letters.
 */
export function cleanText(text: string): string {
  return text
    .replace(/[\t\u1680\u2000-\u2006\u2008-\u200A\u205F\u3000]/g, ' ')
    .replace(/[\p{Cc}\u202A-\u202E]/gu, (c) => (c === '\n' || c === '\r' ? c : ''))
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

const ARABIC = /[\u0600-\u06FF\u0750-\u077F\u0870-\u089F\u08A0-\u08FF\uFB50-\uFDFF\uFE70-\uFEFF]/;
const MARK = /\p{M}/u;
/** Characters after which a token too wide for its line breaks best. */
const BREAK_AFTER = /[./_\-@?&=,;:]/;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** One bidi paragraph (no line feeds) with its levels and the face of each UTF-16 unit. */
class Paragraph {
  readonly levels: EmbeddingLevels;
  readonly rtl: boolean;
  readonly faces: Face[];

  constructor(
    readonly text: string,
    readonly style: TextStyle,
    direction: BaseDirection,
  ) {
    this.levels = bidi.getEmbeddingLevels(text, direction === 'auto' ? undefined : direction);
    this.rtl = ((this.levels.paragraphs[0]?.level ?? (direction === 'rtl' ? 1 : 0)) & 1) === 1;
    const all = fontFaces();
    const arabic = style.bold ? all.arabicBold : all.arabic;
    const latin = style.bold ? all.latinBold : all.latin;
    this.faces = new Array<Face>(text.length);
    let previous: Face | null = null;
    for (let i = 0; i < text.length;) {
      const cp = text.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      let face: Face;
      if (ARABIC.test(ch)) face = arabic;
      else if (previous && MARK.test(ch)) face = previous;
      else if (this.levels.levels[i]! & 1 && !/\p{L}/u.test(ch) && arabic.has(cp)) face = arabic;
      else face = latin.has(cp) || !arabic.has(cp) ? latin : arabic;
      for (let k = 0; k < ch.length; k++) this.faces[i + k] = face;
      previous = face;
      i += ch.length;
    }
  }

  private scale(face: Face): number {
    return this.style.size / face.unitsPerEm;
  }

  /** Width in points of the logical range [start, end), shaped run by run (order does not change width). */
  width(start: number, end: number): number {
    let width = 0;
    let i = start;
    while (i < end) {
      const face = this.faces[i]!;
      const odd = this.levels.levels[i]! & 1;
      let j = i + 1;
      while (j < end && this.faces[j] === face && (this.levels.levels[j]! & 1) === odd) j++;
      width += shapeRun(face, this.text.slice(i, j), odd === 1).advance * this.scale(face);
      i = j;
    }
    return width;
  }

  /** The line [start, end) as glyph runs in visual order. */
  line(start: number, end: number): TextLine {
    const runs: GlyphRun[] = [];
    if (end > start) {
      // Rule L2 over this line: reverse each segment bidi-js reports, in order. Lines never end in a
      // space here, so bidi-js's rule L1 (whose indices are off on lines after the first) can at most
      // miss an invisible isolate mark at the end of a wrapped line.
      const order: number[] = [];
      for (let i = start; i < end; i++) order.push(i);
      for (const [a, b] of bidi.getReorderSegments(this.text, this.levels, start, end - 1)) {
        for (let lo = a! - start, hi = b! - start; lo < hi; lo++, hi--) [order[lo], order[hi]] = [order[hi]!, order[lo]!];
      }
      let k = 0;
      while (k < order.length) {
        const first = order[k]!;
        const face = this.faces[first]!;
        const level = this.levels.levels[first]!;
        const step = level & 1 ? -1 : 1;
        let last = first;
        let m = k + 1;
        while (m < order.length && order[m] === last + step && this.faces[order[m]!] === face && this.levels.levels[order[m]!] === level) {
          last = order[m]!;
          m++;
        }
        const from = Math.min(first, last);
        const to = Math.max(first, last) + 1;
        const shaped = shapeRun(face, this.text.slice(from, to), (level & 1) === 1);
        runs.push({ face, rtl: (level & 1) === 1, start: from, glyphs: shaped.glyphs, width: shaped.advance * this.scale(face) });
        k = m;
      }
    }
    const text = this.text.slice(start, end);
    return { runs, text, width: runs.reduce((w, r) => w + r.width, 0), size: this.style.size, rtl: this.rtl };
  }
}

/** Shape a run of one face and direction, one word at a time (each word cached by its face). */
function shapeRun(face: Face, text: string, rtl: boolean): { glyphs: ShapedGlyph[]; advance: number } {
  const glyphs: ShapedGlyph[] = [];
  let advance = 0;
  const parts = text.split(/( )/).filter((p) => p.length > 0);
  if (rtl) parts.reverse();
  for (const part of parts) {
    const shaped = face.shape(part, rtl);
    for (const g of shaped.glyphs) glyphs.push(g);
    advance += shaped.advance;
  }
  return { glyphs, advance };
}

/**
 * Lay out text in lines no wider than maxWidth (points). Line feeds end bidi paragraphs; each gives at
 * least one line (an empty line for an empty paragraph). Stops after maxLines lines.
 */
export function layoutText(text: string, style: TextStyle, maxWidth: number, direction: BaseDirection, maxLines = Infinity): TextLine[] {
  const lines: TextLine[] = [];
  for (const raw of cleanText(text).split(/\r\n|\r|\n|\u2028|\u2029/)) {
    if (lines.length >= maxLines) break;
    const para = new Paragraph(raw, style, direction);
    for (const [start, end] of breakLines(para, maxWidth, maxLines - lines.length)) lines.push(para.line(start, end));
  }
  return lines;
}

/** One line, never wrapped (headers, footers, labels that must stay on one line). */
export function layoutLine(text: string, style: TextStyle, direction: BaseDirection): TextLine {
  const para = new Paragraph(cleanText(text).replace(/[\r\n\u2028\u2029]+/g, ' '), style, direction);
  return para.line(0, para.text.length);
}

/** One line cut to maxWidth, ending in "…" when it had to be cut (a title in the page header). */
export function fitLine(text: string, style: TextStyle, maxWidth: number, direction: BaseDirection): TextLine {
  const full = layoutLine(text, style, direction);
  if (full.width <= maxWidth) return full;
  const clean = cleanText(text).replace(/[\r\n\u2028\u2029]+/g, ' ');
  const cuts = [...graphemes.segment(clean)].map((g) => g.index);
  let lo = 0;
  let hi = cuts.length - 1;
  const cut = (k: number) => layoutLine(`${clean.slice(0, cuts[k]).trimEnd()}…`, style, direction);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (cut(mid).width <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return cut(lo);
}

/** Greedy line breaking: [start, end) ranges of the paragraph, trailing spaces left out; at most limit lines. */
function breakLines(para: Paragraph, maxWidth: number, limit: number): [number, number][] {
  const text = para.text;
  const out: [number, number][] = [];
  const words: [number, number][] = [];
  for (const m of text.matchAll(/[^ ]+/g)) words.push([m.index, m.index + m[0].length]);
  if (words.length === 0) return [[0, 0]];

  let lineStart = -1;
  let lineEnd = -1;
  let lineWidth = 0;
  const flush = () => {
    if (lineStart >= 0) out.push([lineStart, lineEnd]);
    lineStart = -1;
    lineWidth = 0;
  };
  for (const [ws, we] of words) {
    if (out.length >= limit) return out;
    const width = para.width(ws, we);
    if (lineStart >= 0) {
      const gap = para.width(lineEnd, ws);
      if (lineWidth + gap + width <= maxWidth) {
        lineEnd = we;
        lineWidth += gap + width;
        continue;
      }
      flush();
    }
    if (width <= maxWidth) {
      lineStart = ws;
      lineEnd = we;
      lineWidth = width;
      continue;
    }
    // A token wider than the line (a long URL, a user agent, a hostile string): break between graphemes.
    const bounds: number[] = [];
    for (const g of graphemes.segment(text.slice(ws, we))) bounds.push(ws + g.index + g.segment.length);
    let start = ws;
    let from = 0;
    while (start < we) {
      if (out.length >= limit) return out;
      const k = fitGraphemes(para, start, bounds, from, maxWidth);
      const end = bounds[k]!;
      if (end < we) {
        out.push([start, end]);
        start = end;
        from = k + 1;
      } else {
        lineStart = start;
        lineEnd = we;
        lineWidth = para.width(start, we);
        break;
      }
    }
  }
  if (out.length < limit) flush();
  return out;
}

/**
 * Index into bounds (grapheme ends, from `from` on) of the furthest end after start whose prefix fits
 * maxWidth; at least one grapheme always goes on the line. Probes are limited to about a line's worth
 * of graphemes, so breaking a token of n characters costs O(n), not O(n²).
 */
function fitGraphemes(para: Paragraph, start: number, bounds: readonly number[], from: number, maxWidth: number): number {
  const last = bounds.length - 1;
  // Printing graphemes are wider than a tenth of an em (a space or an "i" is about a quarter), so no
  // more than this many fit on a line; a zero-width one only makes the line end a little early.
  let hi = Math.min(last, from + Math.ceil(maxWidth / (para.style.size * 0.1)));
  if (hi === last && para.width(start, bounds[last]!) <= maxWidth) return last;
  let lo = from;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (para.width(start, bounds[mid]!) <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  // Prefer to break after a separator (a URL's slash, an event type's dot, an e-mail's @) when
  // one falls in the last two thirds of what fits.
  for (let k = lo; k > from + (lo - from) / 3; k--) {
    if (BREAK_AFTER.test(para.text[bounds[k]! - 1]!)) return k;
  }
  return lo;
}
