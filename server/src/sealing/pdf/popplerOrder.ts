/**
 * The text poppler must find on a line for plain `pdftotext` (and `-layout`) to print that line's
 * logical text.
 *
 * poppler reads a line's characters by position, left to right, and then runs its own small bidi
 * pass (`reorderText` in TextOutputDev.cc) over them, in one direction for the whole page: the page
 * is right to left when it has more right-to-left letters than left-to-right ones. A line given to
 * poppler in logical order (our ActualText) therefore comes out reversed. This module computes the
 * string which that pass turns into the logical text; canvas.ts gives it to poppler as an inner
 * ActualText (see there). poppler's classes (UnicodeTypeTable.cc): L, R (bidi R and AL), numbers
 * (EN, AN, ES, ET, CS, which it keeps left to right) and neutrals (everything else, marks included).
 *
 * The pass, on a right-to-left page, reads the line from its right end in alternating sections:
 * right-to-left letters and neutrals (written out reversed), then left-to-right letters, numbers and
 * neutrals (written out as they are). A neutral between a left-to-right section and the next
 * right-to-left one would be taken into the wrong section, so a LEFT-TO-RIGHT MARK is added after it
 * (the mirror case on a left-to-right page takes a RIGHT-TO-LEFT MARK). Both marks are invisible,
 * default-ignorable characters: the printed text differs from the source by them alone.
 */
import { bidi } from './bidi.js';

type PopplerClass = 'L' | 'R' | 'num' | 'neutral';

const LRM = '\u200E';
const RLM = '\u200F';

const NUMBER_TYPES = new Set(['EN', 'AN', 'ES', 'ET', 'CS']);

function popplerClass(ch: string): PopplerClass {
  const type = bidi.getBidiCharTypeName(ch);
  if (type === 'L') return 'L';
  if (type === 'R' || type === 'AL') return 'R';
  return NUMBER_TYPES.has(type) ? 'num' : 'neutral';
}

/** poppler's page direction count: +1 per left-to-right letter, −1 per right-to-left one. */
export function directionCount(text: string): number {
  let count = 0;
  for (const ch of text) {
    const c = popplerClass(ch);
    if (c === 'L') count++;
    else if (c === 'R') count--;
  }
  return count;
}

/**
 * The string poppler's pass turns into `logical` on a page of the given direction. The logical
 * text is cut into alternating sections as the pass will read them; on a right-to-left page
 * [a1 b1 a2 b2 …] (a: right-to-left letters and neutrals, b: the rest) becomes … b2 ā2 b1 ā1 (ā
 * reversed); on a left-to-right page [b1 a1 b2 a2 …] becomes b1 ā1 b2 ā2 ….
 */
export function popplerLineText(logical: string, pageLeftToRight: boolean): string {
  const chars = Array.from(logical);
  const sections: { rtl: boolean; chars: string[] }[] = [];
  let current = { rtl: !pageLeftToRight, chars: [] as string[] };
  const close = () => {
    // A section whose last character is neutral would lose it to the next section: end it with a mark
    // of its own direction (a right-to-left section on a right-to-left page never needs one).
    const last = current.chars.at(-1);
    if (last !== undefined && popplerClass(last) === 'neutral' && current.rtl === pageLeftToRight) {
      current.chars.push(current.rtl ? RLM : LRM);
    }
    sections.push(current);
  };
  for (const ch of chars) {
    const c = popplerClass(ch);
    const switches = current.rtl ? c === 'L' || c === 'num' : c === 'R';
    if (switches) {
      close();
      current = { rtl: !current.rtl, chars: [] };
    }
    current.chars.push(ch);
  }
  close();
  const written = sections.map((s) => (s.rtl ? [...s.chars].reverse() : s.chars).join(''));
  return pageLeftToRight ? written.join('') : written.reverse().join('');
}

/**
 * The strings to give poppler for the lines of one page, and the page's direction as poppler will
 * count it. The marks added count too, so the direction is checked again with them; where they would
 * tip it, marks of the page's own direction are put at the start of the first line (where they
 * change nothing in what is printed).
 */
export function popplerPageTexts(lines: readonly string[]): { leftToRight: boolean; texts: string[] } {
  const count = lines.reduce((sum, line) => sum + directionCount(line), 0);
  const leftToRight = count >= 0;
  const texts = lines.map((line) => popplerLineText(line, leftToRight));
  const after = texts.reduce((sum, text) => sum + directionCount(text), 0);
  if (texts.length > 0 && leftToRight !== after >= 0) {
    const needed = leftToRight ? -after : after + 1;
    texts[0] = popplerLineText((leftToRight ? LRM : RLM).repeat(needed) + lines[0], leftToRight);
  }
  return { leftToRight, texts };
}
