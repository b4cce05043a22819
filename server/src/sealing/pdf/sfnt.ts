/**
 * A TrueType (glyf) subsetter for PDF embedding (FontFile2 of a CIDFontType2).
 *
 * fontkit's own subsetter copies glyph records of odd length and then writes a short `loca`, which
 * halves odd offsets and corrupts glyphs of Noto Naskh Arabic; this one keeps glyph ids as they are
 * (so composite glyphs need no rewriting), empties the glyphs not used, drops the ids above the
 * highest one used, always writes a long `loca`, and keeps only the tables a PDF font needs
 * (ISO 32000 9.9: head, hhea, loca, maxp, cvt, prep, glyf, hmtx, fpgm). It can also append composite
 * glyphs (a letter with its dots and marks at their shaped offsets), so that each drawn glyph stands
 * for text of its own (documentFont.ts).
 */

export interface Sfnt {
  readonly bytes: Uint8Array;
  readonly tables: ReadonlyMap<string, { offset: number; length: number }>;
  readonly numGlyphs: number;
  readonly numberOfHMetrics: number;
  /** Start of each glyph within the glyf table, numGlyphs + 1 entries. */
  readonly loca: Uint32Array;
  readonly glyfOffset: number;
  readonly hmtxOffset: number;
}

const KEPT = ['cvt ', 'fpgm', 'glyf', 'head', 'hhea', 'hmtx', 'loca', 'maxp', 'prep'];

export function parseSfnt(bytes: Uint8Array): Sfnt {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(0);
  if (version !== 0x00010000 && version !== 0x74727565) throw new Error('font: not a TrueType (glyf) font');
  const tables = new Map<string, { offset: number; length: number }>();
  const numTables = view.getUint16(4);
  for (let i = 0; i < numTables; i++) {
    const at = 12 + 16 * i;
    const tag = String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
    tables.set(tag, { offset: view.getUint32(at + 8), length: view.getUint32(at + 12) });
  }
  const table = (tag: string) => {
    const t = tables.get(tag);
    if (!t) throw new Error(`font: missing table ${tag}`);
    return t;
  };
  const head = table('head').offset;
  const numGlyphs = view.getUint16(table('maxp').offset + 4);
  const numberOfHMetrics = view.getUint16(table('hhea').offset + 34);
  const longLoca = view.getInt16(head + 50) === 1;
  const locaAt = table('loca').offset;
  const loca = new Uint32Array(numGlyphs + 1);
  for (let g = 0; g <= numGlyphs; g++) loca[g] = longLoca ? view.getUint32(locaAt + 4 * g) : 2 * view.getUint16(locaAt + 2 * g);
  return { bytes, tables, numGlyphs, numberOfHMetrics, loca, glyfOffset: table('glyf').offset, hmtxOffset: table('hmtx').offset };
}

/** The glyph ids a composite glyph is built from (empty for a simple or empty glyph). */
function components(font: Sfnt, gid: number): number[] {
  const start = font.glyfOffset + font.loca[gid]!;
  const end = font.glyfOffset + font.loca[gid + 1]!;
  if (end - start < 10) return [];
  const view = new DataView(font.bytes.buffer, font.bytes.byteOffset, font.bytes.byteLength);
  if (view.getInt16(start) >= 0) return [];
  const out: number[] = [];
  let at = start + 10;
  for (;;) {
    const flags = view.getUint16(at);
    out.push(view.getUint16(at + 2));
    at += 4 + (flags & 0x0001 ? 4 : 2);
    if (flags & 0x0008) at += 2;
    else if (flags & 0x0040) at += 4;
    else if (flags & 0x0080) at += 8;
    if (!(flags & 0x0020)) return out;
  }
}

/** A glyph drawn with others at fixed offsets (font units): a letter with its dots and marks. */
export interface Composite {
  readonly base: number;
  readonly parts: readonly { readonly gid: number; readonly dx: number; readonly dy: number }[];
}

/**
 * A standalone TrueType font holding glyph 0 and the given glyphs (and their components), ids
 * unchanged, followed by the given composites as new glyphs, numbered from `first` on.
 */
export function subsetSfnt(
  font: Sfnt,
  used: Iterable<number>,
  composites: readonly Composite[] = [],
): { program: Uint8Array; first: number } {
  const keep = new Set<number>([0]);
  const pending = [...used, ...composites.flatMap((c) => [c.base, ...c.parts.map((p) => p.gid)])];
  while (pending.length > 0) {
    const gid = pending.pop()!;
    if (gid < 0 || gid >= font.numGlyphs || keep.has(gid)) continue;
    keep.add(gid);
    pending.push(...components(font, gid));
  }
  const first = Math.max(...keep) + 1;
  const records = composites.map((c) => compositeRecord(font, c));
  const count = first + records.length;

  const { glyf, loca } = glyphTables(font, keep, records, first);
  const hmtx = metricsTable(font, count, first, (k) => [metrics(font, composites[k]!.base)[0], records[k]!.xMin]);
  const copy = (tag: string) => {
    const t = font.tables.get(tag)!;
    return font.bytes.slice(t.offset, t.offset + t.length);
  };
  const head = copy('head');
  const headView = new DataView(head.buffer);
  headView.setUint32(8, 0);
  headView.setInt16(50, 1);
  const hhea = copy('hhea');
  new DataView(hhea.buffer).setUint16(34, count);
  const maxp = copy('maxp');
  const maxpView = new DataView(maxp.buffer);
  maxpView.setUint16(4, count);
  if (records.length > 0 && maxpView.getUint32(0) === 0x00010000 && maxp.length >= 32) {
    // One more level of nesting (a composite base inside a new composite) and up to this many parts.
    const parts = Math.max(...composites.map((c) => c.parts.length + 1));
    maxpView.setUint16(28, Math.max(maxpView.getUint16(28), parts));
    maxpView.setUint16(30, maxpView.getUint16(30) + 1);
  }

  const built = new Map<string, Uint8Array>([
    ['glyf', glyf],
    ['head', head],
    ['hhea', hhea],
    ['hmtx', hmtx],
    ['loca', loca],
    ['maxp', maxp],
  ]);
  for (const tag of KEPT) if (!built.has(tag) && font.tables.has(tag)) built.set(tag, copy(tag));
  const out = writeSfnt(built);
  // checkSumAdjustment makes the whole font sum to 0xB1B0AFBA.
  const headAt = tableOffset(out, 'head');
  new DataView(out.buffer).setUint32(headAt + 8, (0xb1b0afba - checksum(out)) >>> 0);
  return { program: out, first };
}

/** glyf and a long loca: the kept glyphs at their ids, empty ones between, then the composites from first on. */
function glyphTables(
  font: Sfnt,
  keep: ReadonlySet<number>,
  records: readonly { bytes: Uint8Array }[],
  first: number,
): { glyf: Uint8Array; loca: Uint8Array } {
  const count = first + records.length;
  let glyfSize = 0;
  for (const gid of keep) glyfSize += pad4(font.loca[gid + 1]! - font.loca[gid]!);
  for (const r of records) glyfSize += pad4(r.bytes.length);
  const glyf = new Uint8Array(glyfSize);
  const loca = new Uint8Array(4 * (count + 1));
  const locaView = new DataView(loca.buffer);
  let at = 0;
  for (let gid = 0; gid < count; gid++) {
    locaView.setUint32(4 * gid, at);
    const data =
      gid >= first
        ? records[gid - first]!.bytes
        : keep.has(gid)
          ? font.bytes.subarray(font.glyfOffset + font.loca[gid]!, font.glyfOffset + font.loca[gid + 1]!)
          : null;
    if (!data) continue;
    glyf.set(data, at);
    at += pad4(data.length);
  }
  locaView.setUint32(4 * count, at);
  return { glyf, loca };
}

/** hmtx with a full metric (advance, left side bearing) for every glyph; composite k's from composite(k). */
function metricsTable(font: Sfnt, count: number, first: number, composite: (k: number) => [number, number]): Uint8Array {
  const hmtx = new Uint8Array(4 * count);
  const view = new DataView(hmtx.buffer);
  for (let gid = 0; gid < count; gid++) {
    const [advance, lsb] = gid >= first ? composite(gid - first) : metrics(font, gid);
    view.setUint16(4 * gid, advance);
    view.setInt16(4 * gid + 2, lsb);
  }
  return hmtx;
}

/** A glyph's advance width and left side bearing from hmtx. */
function metrics(font: Sfnt, gid: number): [number, number] {
  const view = new DataView(font.bytes.buffer, font.bytes.byteOffset, font.bytes.byteLength);
  const long = Math.min(gid, font.numberOfHMetrics - 1);
  const advance = view.getUint16(font.hmtxOffset + 4 * long);
  const lsb =
    gid < font.numberOfHMetrics
      ? view.getInt16(font.hmtxOffset + 4 * gid + 2)
      : view.getInt16(font.hmtxOffset + 4 * font.numberOfHMetrics + 2 * (gid - font.numberOfHMetrics));
  return [advance, lsb];
}

/**
 * The glyf record of a composite (OpenType glyf, composite glyph description): its base at the
 * origin, then each part at its offset (16-bit x/y offsets), the bounding box their union.
 */
function compositeRecord(font: Sfnt, composite: Composite): { bytes: Uint8Array; xMin: number } {
  const view = new DataView(font.bytes.buffer, font.bytes.byteOffset, font.bytes.byteLength);
  const all = [{ gid: composite.base, dx: 0, dy: 0 }, ...composite.parts];
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const { gid, dx, dy } of all) {
    const start = font.glyfOffset + font.loca[gid]!;
    if (font.loca[gid + 1]! - font.loca[gid]! < 10) continue;
    box[0] = Math.min(box[0]!, view.getInt16(start + 2) + dx);
    box[1] = Math.min(box[1]!, view.getInt16(start + 4) + dy);
    box[2] = Math.max(box[2]!, view.getInt16(start + 6) + dx);
    box[3] = Math.max(box[3]!, view.getInt16(start + 8) + dy);
  }
  const bounds = box[0] === Infinity ? [0, 0, 0, 0] : box;
  const bytes = new Uint8Array(10 + 8 * all.length);
  const out = new DataView(bytes.buffer);
  out.setInt16(0, -1);
  bounds.forEach((v, i) => out.setInt16(2 + 2 * i, v));
  all.forEach(({ gid, dx, dy }, i) => {
    const at = 10 + 8 * i;
    // ARG_1_AND_2_ARE_WORDS | ARGS_ARE_XY_VALUES, MORE_COMPONENTS but on the last.
    out.setUint16(at, 0x0003 | (i < all.length - 1 ? 0x0020 : 0));
    out.setUint16(at + 2, gid);
    out.setInt16(at + 4, dx);
    out.setInt16(at + 6, dy);
  });
  return { bytes, xMin: bounds[0]! };
}

function writeSfnt(tables: Map<string, Uint8Array>): Uint8Array {
  const tags = [...tables.keys()].sort();
  const n = tags.length;
  let size = 12 + 16 * n;
  for (const tag of tags) size += pad4(tables.get(tag)!.length);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  const log2 = Math.floor(Math.log2(n));
  view.setUint32(0, 0x00010000);
  view.setUint16(4, n);
  view.setUint16(6, 16 * 2 ** log2);
  view.setUint16(8, log2);
  view.setUint16(10, 16 * n - 16 * 2 ** log2);
  let at = 12 + 16 * n;
  tags.forEach((tag, i) => {
    const data = tables.get(tag)!;
    const rec = 12 + 16 * i;
    for (let k = 0; k < 4; k++) out[rec + k] = tag.charCodeAt(k);
    view.setUint32(rec + 4, checksum(data));
    view.setUint32(rec + 8, at);
    view.setUint32(rec + 12, data.length);
    out.set(data, at);
    at += pad4(data.length);
  });
  return out;
}

function tableOffset(font: Uint8Array, tag: string): number {
  const view = new DataView(font.buffer, font.byteOffset, font.byteLength);
  for (let i = 0; i < view.getUint16(4); i++) {
    const rec = 12 + 16 * i;
    if (String.fromCharCode(font[rec]!, font[rec + 1]!, font[rec + 2]!, font[rec + 3]!) === tag) return view.getUint32(rec + 8);
  }
  throw new Error(`font: table ${tag} not written`);
}

function checksum(data: Uint8Array): number {
  let sum = 0;
  const whole = data.length & ~3;
  for (let i = 0; i < whole; i += 4) sum = (sum + ((data[i]! << 24) | (data[i + 1]! << 16) | (data[i + 2]! << 8) | data[i + 3]!)) >>> 0;
  if (whole < data.length) {
    let last = 0;
    for (let i = whole; i < whole + 4; i++) last = (last << 8) | (i < data.length ? data[i]! : 0);
    sum = (sum + (last >>> 0)) >>> 0;
  }
  return sum;
}

function pad4(n: number): number {
  return (n + 3) & ~3;
}
