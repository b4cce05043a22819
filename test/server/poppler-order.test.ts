/**
 * popplerOrder.ts computes the string that poppler's own bidi pass (`reorderText` in
 * TextOutputDev.cc, 22.12) turns into a line's logical text. The pass is transcribed here from
 * poppler's source as the oracle (its output characters, without the embedding controls it adds),
 * and generated lines of Arabic, Latin, digits, brackets, punctuation, marks and spaces must come
 * back exactly, on pages of either direction; the real pdftotext is checked on rendered documents in
 * pdf-text-extraction.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { bidi } from '../../server/src/sealing/pdf/bidi.js';
import { directionCount, popplerLineText, popplerPageTexts } from '../../server/src/sealing/pdf/popplerOrder.js';

/** poppler's UnicodeTypeTable classes, from the Unicode bidi class. */
const typeOf = (ch: string) => {
  const t = bidi.getBidiCharTypeName(ch);
  return { L: t === 'L', R: t === 'R' || t === 'AL', num: ['EN', 'AN', 'ES', 'ET', 'CS'].includes(t) };
};

/** reorderText(text, primaryLR), the characters it writes (poppler's TextOutputDev.cc). */
function popplerReorder(text: string, primaryLR: boolean): string {
  const t = Array.from(text);
  let out = '';
  if (primaryLR) {
    let i = 0;
    while (i < t.length) {
      let j = i;
      while (j < t.length && !typeOf(t[j]!).R) j++;
      out += t.slice(i, j).join('');
      i = j;
      while (j < t.length && !(typeOf(t[j]!).L || typeOf(t[j]!).num)) j++;
      out += t.slice(i, j).reverse().join('');
      i = j;
    }
  } else {
    let i = t.length - 1;
    while (i >= 0) {
      let j = i;
      while (j >= 0 && !(typeOf(t[j]!).L || typeOf(t[j]!).num)) j--;
      out += t
        .slice(j + 1, i + 1)
        .reverse()
        .join('');
      i = j;
      while (j >= 0 && !typeOf(t[j]!).R) j--;
      out += t.slice(j + 1, i + 1).join('');
      i = j;
    }
  }
  return out;
}

const withoutMarks = (s: string) => s.replace(/[\u200E\u200F]/g, '');

/** Pieces of contract text: Arabic words with harakat, Latin, numbers, brackets, punctuation, spaces. */
const piece = fc.constantFrom(
  'حُررت',
  'كلٍّ',
  'البند',
  'لا',
  'Clause',
  'Acme Ltd',
  '2026-07-01',
  '250,000',
  '١٢٣',
  '(',
  ')',
  '[',
  ']',
  ' ',
  ' ',
  '،',
  '.',
  ':',
  '–',
  '—',
  '"',
  '%',
);
const line = fc.array(piece, { minLength: 1, maxLength: 14 }).map((parts) => parts.join(''));

describe('the text poppler needs for a line', () => {
  for (const leftToRight of [true, false]) {
    test(`poppler's pass turns it into the logical text, marks aside (${leftToRight ? 'left-to-right' : 'right-to-left'} page)`, () => {
      fc.assert(
        fc.property(line, (logical) => {
          const given = popplerLineText(logical, leftToRight);
          assert.equal(withoutMarks(popplerReorder(given, leftToRight)), logical);
          assert.equal(withoutMarks(given).length, logical.length, 'only marks are added');
        }),
        { numRuns: 2000 },
      );
    });
  }

  test('the hard line from the issue comes back in order on an Arabic page, and the plain logical text would not', () => {
    const logical = 'البند (1) – Clause 2: يدفع المشتري 250,000 جنيه (EGP)';
    assert.equal(withoutMarks(popplerReorder(popplerLineText(logical, false), false)), logical);
    assert.notEqual(popplerReorder(logical, false), logical);
  });

  test('a page keeps the direction poppler counts once the marks are added', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), (lines) => {
        const { leftToRight, texts } = popplerPageTexts(lines);
        const count = texts.reduce((sum, text) => sum + directionCount(text), 0);
        assert.equal(count >= 0, leftToRight);
        texts.forEach((text, i) => assert.equal(withoutMarks(popplerReorder(text, leftToRight)), lines[i]));
      }),
      { numRuns: 1000 },
    );
  });
});
