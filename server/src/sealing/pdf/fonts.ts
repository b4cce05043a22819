/**
 * The fonts of the final PDF, loaded and parsed once per process: Noto Naskh Arabic for Arabic runs,
 * Noto Sans for everything else, each in regular and bold (TTF files shipped through npm).
 *
 * A Face shapes a run of text (fontkit's OpenType GSUB/GPOS engine) and keeps the result in a small
 * cache, since contract templates, labels and names repeat from one document to the next.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@pdf-lib/fontkit';
import { mirrored } from './bidi.js';
import { parseSfnt, type Sfnt } from './sfnt.js';

/** One glyph of a shaped run, in visual order; all lengths in font units. */
export interface ShapedGlyph {
  readonly gid: number;
  /** The logical characters this glyph stands for ('' for a mark added by decomposition, e.g. the dots). */
  readonly text: string;
  /** Pen advance after this glyph (GPOS applied). */
  readonly advance: number;
  /** Offset from the pen at which the glyph is drawn (mark attachment, cursive joining). */
  readonly dx: number;
  readonly dy: number;
}

export interface Shaped {
  readonly glyphs: readonly ShapedGlyph[];
  /** Sum of the advances, font units. */
  readonly advance: number;
}

export type FaceName = 'arabic' | 'arabicBold' | 'latin' | 'latinBold';

// The parts of fontkit's font object used here. `layout` takes script, language and direction at run
// time although the published typings stop at `features`; `_layoutEngine.engine.glyphInfos` is where
// fontkit keeps the per-use code points, which its cached Glyph objects lose (see Face.layout).
interface FkGlyph {
  id: number;
  codePoints: number[];
}
interface FkEngine {
  glyphInfos: FkGlyph[] | null;
  cleanup(): void;
}
interface FkFont {
  unitsPerEm: number;
  ascent: number;
  descent: number;
  capHeight: number;
  italicAngle: number;
  bbox: { minX: number; minY: number; maxX: number; maxY: number };
  postscriptName: string;
  hasGlyphForCodePoint(codePoint: number): boolean;
  glyphForCodePoint(codePoint: number): FkGlyph;
  layout(
    input: FkGlyph[],
    features: undefined,
    script: undefined,
    language: undefined,
    direction: 'ltr' | 'rtl',
  ): { glyphs: { id: number }[]; positions: { xAdvance: number; xOffset: number; yOffset: number }[] };
  _layoutEngine?: { engine?: FkEngine };
}

const FILES: Record<FaceName, string> = {
  arabic: '@expo-google-fonts/noto-naskh-arabic/400Regular/NotoNaskhArabic_400Regular.ttf',
  arabicBold: '@expo-google-fonts/noto-naskh-arabic/700Bold/NotoNaskhArabic_700Bold.ttf',
  latin: '@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf',
  latinBold: '@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf',
};

/** Shaped words kept per face; longer strings (pieces of a hostile token being broken) are not kept. */
const CACHE_LIMIT = 20_000;
const CACHED_LENGTH = 64;

/** A glyph text made only of combining marks (harakat, shadda, hamza above or below, superscript alef). */
const COMBINING = /^\p{M}+$/u;

/** Default-ignorable characters (joiners, bidi marks and isolates, variation selectors): shaped, never extracted. */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

export class Face {
  readonly unitsPerEm: number;
  readonly ascent: number;
  readonly descent: number;
  readonly capHeight: number;
  readonly italicAngle: number;
  readonly bbox: { minX: number; minY: number; maxX: number; maxY: number };
  readonly postscriptName: string;
  private readonly cache = new Map<string, Shaped>();
  private readonly cmap = new Map<number, number>();
  private readonly hmtx: DataView;
  private captured: FkGlyph[] | null = null;

  constructor(
    readonly name: FaceName,
    readonly sfnt: Sfnt,
    private readonly font: FkFont,
  ) {
    this.unitsPerEm = font.unitsPerEm;
    this.ascent = font.ascent;
    this.descent = font.descent;
    this.capHeight = font.capHeight;
    this.italicAngle = font.italicAngle;
    this.bbox = { ...font.bbox };
    this.postscriptName = font.postscriptName;
    this.hmtx = new DataView(sfnt.bytes.buffer, sfnt.bytes.byteOffset + sfnt.hmtxOffset, 4 * sfnt.numberOfHMetrics);
    // The layout engine is created on first use; keep the glyph infos of each layout before fontkit
    // clears them. A fontkit upgrade that moves them fails here, loudly, at the first document.
    font.layout([font.glyphForCodePoint(0x20)], undefined, undefined, undefined, 'ltr');
    const engine = font._layoutEngine?.engine;
    if (!engine || typeof engine.cleanup !== 'function')
      throw new Error('fontkit: OpenType layout engine not found (fontkit version changed?)');
    const cleanup = engine.cleanup.bind(engine);
    engine.cleanup = () => {
      this.captured = engine.glyphInfos;
      cleanup();
    };
  }

  has(codePoint: number): boolean {
    return this.font.hasGlyphForCodePoint(codePoint);
  }

  /** Whether a glyph has no outline (the glyph of a space, a joiner, a bidi isolate). */
  isBlank(gid: number): boolean {
    return this.sfnt.loca[gid + 1] === this.sfnt.loca[gid];
  }

  /** The advance width of a glyph in the hmtx table, font units. */
  glyphAdvance(gid: number): number {
    return this.hmtx.getUint16(4 * Math.min(gid, this.sfnt.numberOfHMetrics - 1));
  }

  /**
   * Shape one directional run given in logical order. The glyphs come back in visual order (left to
   * right on the page). For a right-to-left run, mirrored characters (brackets) are swapped first
   * (bidi rule L4); each glyph's `text` is still the logical character, for the ToUnicode map.
   */
  shape(text: string, rtl: boolean): Shaped {
    const key = (rtl ? 'R' : 'L') + text;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const shaped = this.layout(text, rtl);
    if (text.length > CACHED_LENGTH) return shaped;
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(key, shaped);
    return shaped;
  }

  private layout(text: string, rtl: boolean): Shaped {
    if (text.length === 0) return { glyphs: [], advance: 0 };
    const display = rtl ? mirrorAll(text) : text;
    if (this.name.startsWith('latin') && isSimple(display)) return this.direct(display, rtl);
    // fontkit starts from its cached Glyph objects, whose code points are those of the first use of
    // the glyph: Noto Naskh decomposes ي into the ى body plus dots, so after a word with ي every later
    // ى would read back as ي. Each input glyph here carries its own code point instead.
    const input: FkGlyph[] = [];
    for (const ch of display) {
      const cp = ch.codePointAt(0)!;
      input.push(Object.assign(Object.create(this.font.glyphForCodePoint(cp)) as FkGlyph, { codePoints: [cp] }));
    }
    this.captured = null;
    const run = this.font.layout(input, undefined, undefined, undefined, rtl ? 'rtl' : 'ltr');
    const infos = this.captured as FkGlyph[] | null;
    this.captured = null;
    const n = run.glyphs.length;
    if (!infos || infos.length !== n) throw new Error('fontkit: the glyph infos of a shaped run were not captured');
    // The text of each glyph, in logical order. fontkit reverses the glyphs and positions of a
    // right-to-left run, not its glyph infos; a glyph whose id changed after substitution is a hidden
    // default-ignorable (drawn as a zero-width space).
    const texts: string[] = new Array(n);
    let base = -1;
    for (let k = 0; k < n; k++) {
      const info = infos[k]!;
      const glyph = run.glyphs[rtl ? n - 1 - k : k]!;
      let chars = info.id === glyph.id ? String.fromCodePoint(...info.codePoints).replace(IGNORABLE, '') : '';
      if (rtl) chars = mirrorAll(chars);
      // A combining mark (a haraka, shadda, hamza, superscript alef) is drawn as its own glyph at
      // an offset; text extraction keeps it with its letter only if the letter's glyph carries it.
      if (base >= 0 && chars.length > 0 && COMBINING.test(chars)) {
        texts[base] += chars;
        chars = '';
      } else if (chars.length > 0) base = k;
      texts[k] = chars;
    }
    const glyphs: ShapedGlyph[] = new Array(n);
    let advance = 0;
    for (let i = 0; i < n; i++) {
      const pos = run.positions[i]!;
      glyphs[i] = { gid: run.glyphs[i]!.id, text: texts[rtl ? n - 1 - i : i]!, advance: pos.xAdvance, dx: pos.xOffset, dy: pos.yOffset };
      advance += pos.xAdvance;
    }
    return { glyphs, advance };
  }

  /**
   * Text that needs no shaping (Latin letters, digits, punctuation, no combining marks) maps straight
   * through the cmap, far cheaper than fontkit's OpenType pass (which runs every lookup of the font
   * over every glyph); what it gives up is pair kerning and the fi/ffi ligatures.
   */
  private direct(display: string, rtl: boolean): Shaped {
    const glyphs: ShapedGlyph[] = [];
    let advance = 0;
    for (const ch of display) {
      const cp = ch.codePointAt(0)!;
      let gid = this.cmap.get(cp);
      if (gid === undefined) {
        gid = this.font.glyphForCodePoint(cp).id;
        this.cmap.set(cp, gid);
      }
      const width = this.glyphAdvance(gid);
      glyphs.push({ gid, text: rtl ? mirrored(ch) : ch, advance: width, dx: 0, dy: 0 });
      advance += width;
    }
    if (rtl) glyphs.reverse();
    return { glyphs, advance };
  }
}

/** Code points the Latin face draws one glyph each, without contextual forms or marks. */
function isSimple(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || (c >= 0x2b0 && c < 0x2000) || c >= 0x2c00) return false;
    // Invisible format characters (zero-width space, joiners, bidi marks, isolates) are hidden by fontkit.
    if ((c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f)) return false;
    // Combining marks for symbols.
    if (c >= 0x20d0 && c <= 0x20ff) return false;
  }
  return true;
}

function mirrorAll(text: string): string {
  let out = '';
  for (const ch of text) out += mirrored(ch);
  return out;
}

const require = createRequire(import.meta.url);
let faces: Record<FaceName, Face> | null = null;

/** The four faces, read and parsed on first use, then kept for the life of the process. */
export function fontFaces(): Record<FaceName, Face> {
  if (!faces) {
    const load = (name: FaceName): Face => {
      const bytes = new Uint8Array(readFileSync(require.resolve(FILES[name])));
      return new Face(name, parseSfnt(bytes), fontkit.create(bytes) as unknown as FkFont);
    };
    faces = { arabic: load('arabic'), arabicBold: load('arabicBold'), latin: load('latin'), latinBold: load('latinBold') };
  }
  return faces;
}
