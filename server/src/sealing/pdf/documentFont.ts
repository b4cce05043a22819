/**
 * One font face as embedded in one PDF: a Type0 font over a CIDFontType2 (TrueType subset).
 *
 * Each distinct (glyph, logical text) pair gets its own CID, mapped to its glyph by a CIDToGIDMap
 * and to its text by the ToUnicode CMap. Shaped Arabic reuses one glyph for several letters (Noto
 * Naskh draws ب ت ث ن ي from one dotless body plus dot marks), so a map keyed by glyph alone — what
 * pdf-lib writes — extracts the wrong letters; keyed this way, text extraction gives back exactly
 * the characters that were shaped, in logical order.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream, PDFString, type PDFContext, type PDFRef } from 'pdf-lib';
import type { Face, ShapedGlyph } from './fonts.js';
import { subsetSfnt, type Composite } from './sfnt.js';

/** A glyph drawn with a letter at an offset in font units (a dot or a mark that stands for no text of its own). */
export interface GlyphPart {
  readonly gid: number;
  readonly dx: number;
  readonly dy: number;
}

export class DocumentFont {
  readonly ref: PDFRef;
  readonly resourceName: PDFName;
  private readonly cids = new Map<string, number>();
  /** Index = CID; CID 0 is .notdef. */
  private readonly gids: number[] = [0];
  private readonly texts: string[] = [''];
  /** The parts drawn with each CID's glyph (empty for a glyph drawn alone). */
  private readonly parts: (readonly GlyphPart[])[] = [[]];

  constructor(
    readonly face: Face,
    private readonly context: PDFContext,
    resourceName: string,
  ) {
    this.ref = context.nextRef();
    this.resourceName = PDFName.of(resourceName);
  }

  /**
   * The CID of a glyph, as four hex digits for a content stream string. With parts, the CID's glyph is
   * a composite of the glyph and its parts (written into the subset by finish()): one glyph for one
   * letter with its dots and marks, so no extractor meets a glyph without text (mupdf writes U+FFFD).
   */
  cidHex(glyph: ShapedGlyph, parts: readonly GlyphPart[] = []): string {
    const key = `${glyph.gid}\u0000${glyph.text}\u0000${parts.map((p) => `${p.gid},${p.dx},${p.dy}`).join(';')}`;
    let cid = this.cids.get(key);
    if (cid === undefined) {
      cid = this.gids.length;
      if (cid > 0xffff) throw new Error('font: more than 65535 distinct glyphs in one document');
      this.gids.push(glyph.gid);
      this.texts.push(glyph.text);
      this.parts.push(parts);
      this.cids.set(key, cid);
    }
    return cid.toString(16).padStart(4, '0');
  }

  /** Width of a glyph in text space units (1/1000 em) as written in W: what the viewer advances after it. */
  width(gid: number): number {
    return round((this.face.glyphAdvance(gid) * 1000) / this.face.unitsPerEm);
  }

  /** Write the font objects; called once, after every page is drawn. */
  finish(): void {
    const ctx = this.context;
    const face = this.face;
    const scale = 1000 / face.unitsPerEm;
    const composites: Composite[] = [];
    const glyphOf = this.gids.map((gid, cid) => {
      const parts = this.parts[cid]!;
      if (parts.length === 0) return gid;
      composites.push({ base: gid, parts });
      return -composites.length;
    });
    const { program, first } = subsetSfnt(face.sfnt, this.gids, composites);
    const gidOf = (cid: number) => (glyphOf[cid]! >= 0 ? glyphOf[cid]! : first - 1 - glyphOf[cid]!);
    // A subset's name carries a six-letter tag; derived from the subset so equal input gives equal output.
    const tag = createHash('sha256')
      .update(program)
      .digest()
      .subarray(0, 6)
      .reduce((s, b) => s + String.fromCharCode(65 + (b % 26)), '');
    const baseFont = PDFName.of(`${tag}+${face.postscriptName}`);

    const fontFile = stream(ctx, program, { Length1: program.length });
    const descriptor = ctx.register(
      ctx.obj({
        Type: 'FontDescriptor',
        FontName: baseFont,
        Flags: 4,
        FontBBox: [face.bbox.minX, face.bbox.minY, face.bbox.maxX, face.bbox.maxY].map((v) => round(v * scale)),
        ItalicAngle: face.italicAngle,
        Ascent: round(face.ascent * scale),
        Descent: round(face.descent * scale),
        CapHeight: round(face.capHeight * scale),
        StemV: 80,
        FontFile2: fontFile,
      }),
    );

    const map = new Uint8Array(2 * this.gids.length);
    this.gids.forEach((_base, cid) => {
      const gid = gidOf(cid);
      map[2 * cid] = gid >> 8;
      map[2 * cid + 1] = gid & 0xff;
    });
    const widths = PDFArray.withContext(ctx);
    widths.push(PDFNumber.of(0));
    widths.push(ctx.obj(this.gids.map((gid) => this.width(gid))));

    const cidFont = ctx.register(
      ctx.obj({
        Type: 'Font',
        Subtype: 'CIDFontType2',
        BaseFont: baseFont,
        CIDSystemInfo: { Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 },
        FontDescriptor: descriptor,
        DW: 0,
        W: widths,
        CIDToGIDMap: stream(ctx, map, {}),
      }),
    );
    ctx.assign(
      this.ref,
      ctx.obj({
        Type: 'Font',
        Subtype: 'Type0',
        BaseFont: baseFont,
        Encoding: 'Identity-H',
        DescendantFonts: [cidFont],
        ToUnicode: stream(ctx, new TextEncoder().encode(toUnicodeCMap(this.texts)), {}),
      }),
    );
  }
}

/** A ToUnicode CMap: CID → UTF-16BE text; marks that stand for no character are left out. */
function toUnicodeCMap(texts: readonly string[]): string {
  const entries: string[] = [];
  texts.forEach((text, cid) => {
    if (text.length === 0) return;
    let hex = '';
    for (let i = 0; i < text.length; i++) hex += text.charCodeAt(i).toString(16).padStart(4, '0');
    entries.push(`<${cid.toString(16).padStart(4, '0')}> <${hex}>`);
  });
  const blocks: string[] = [];
  for (let i = 0; i < entries.length; i += 100) {
    const chunk = entries.slice(i, i + 100);
    blocks.push(`${chunk.length} beginbfchar\n${chunk.join('\n')}\nendbfchar`);
  }
  return [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange',
    '<0000> <ffff>',
    'endcodespacerange',
    ...blocks,
    'endcmap',
    'CMapName currentdict /CMap defineresource pop',
    'end',
    'end',
  ].join('\n');
}

/** A Flate stream compressed with node:zlib (native, several times faster than pdf-lib's pako). */
export function stream(ctx: PDFContext, data: Uint8Array, extra: Record<string, number | string | PDFName>): PDFRef {
  const dict = ctx.obj({ ...extra, Filter: 'FlateDecode' }) as PDFDict;
  return ctx.register(PDFRawStream.of(dict, deflateSync(data)));
}

function round(v: number): number {
  return Math.round(v * 1000) / 1000;
}
