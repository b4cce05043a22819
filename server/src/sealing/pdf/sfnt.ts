/**
 * A TrueType (glyf) subsetter for PDF embedding (FontFile2 of a CIDFontType2).
 *
 * fontkit's own subsetter copies glyph records of odd length and then writes a short `loca`, which
 * halves odd offsets and corrupts glyphs of Noto Naskh Arabic; this one keeps glyph ids as they are
 * (so composite glyphs need no rewriting), empties the glyphs not used, drops the ids above the
 * highest one used, always writes a long `loca`, and keeps only the tables a PDF font needs
 * (ISO 32000 9.9: head, hhea, loca, maxp, cvt, prep, glyf, hmtx, fpgm).
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

/** A standalone TrueType font holding glyph 0 and the given glyphs (and their components), ids unchanged. */
export function subsetSfnt(font: Sfnt, used: Iterable<number>): Uint8Array {
  const keep = new Set<number>([0]);
  const pending = [...used];
  while (pending.length > 0) {
    const gid = pending.pop()!;
    if (gid < 0 || gid >= font.numGlyphs || keep.has(gid)) continue;
    keep.add(gid);
    pending.push(...components(font, gid));
  }
  const count = Math.max(...keep) + 1;

  const src = font.bytes;
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  let glyfSize = 0;
  for (const gid of keep) glyfSize += pad4(font.loca[gid + 1]! - font.loca[gid]!);
  const glyf = new Uint8Array(glyfSize);
  const loca = new Uint8Array(4 * (count + 1));
  const locaView = new DataView(loca.buffer);
  let at = 0;
  for (let gid = 0; gid < count; gid++) {
    locaView.setUint32(4 * gid, at);
    if (!keep.has(gid)) continue;
    const start = font.glyfOffset + font.loca[gid]!;
    const length = font.loca[gid + 1]! - font.loca[gid]!;
    glyf.set(src.subarray(start, start + length), at);
    at += pad4(length);
  }
  locaView.setUint32(4 * count, at);

  const hMetrics = Math.min(font.numberOfHMetrics, count);
  const hmtx = new Uint8Array(4 * hMetrics + 2 * (count - hMetrics));
  hmtx.set(src.subarray(font.hmtxOffset, font.hmtxOffset + 4 * hMetrics));
  const hmtxView = new DataView(hmtx.buffer);
  for (let gid = hMetrics; gid < count; gid++) {
    const lsb =
      gid < font.numberOfHMetrics
        ? view.getInt16(font.hmtxOffset + 4 * gid + 2)
        : view.getInt16(font.hmtxOffset + 4 * font.numberOfHMetrics + 2 * (gid - font.numberOfHMetrics));
    hmtxView.setInt16(4 * hMetrics + 2 * (gid - hMetrics), lsb);
  }

  const copy = (tag: string) => {
    const t = font.tables.get(tag)!;
    return src.slice(t.offset, t.offset + t.length);
  };
  const head = copy('head');
  const headView = new DataView(head.buffer);
  headView.setUint32(8, 0);
  headView.setInt16(50, 1);
  const hhea = copy('hhea');
  new DataView(hhea.buffer).setUint16(34, hMetrics);
  const maxp = copy('maxp');
  new DataView(maxp.buffer).setUint16(4, count);

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
  return out;
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
