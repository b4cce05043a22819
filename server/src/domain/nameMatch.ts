/**
 * Name matching (spec 1.3, 3.2): is the name read from an identity document the name the sender
 * gave? Pure: no I/O.
 *
 * The rule is "what a careful person at a counter would accept as the same written name", and no
 * more. Differences that are only in how the same letters are written are ignored:
 *
 * - Case and accents (Latin): NFKD, then combining marks removed, then lower case:
 *   "JOSÉ Müller" = "jose muller". A few letters that have no decomposition are folded the way
 *   they are commonly typed: ß→ss, ı→i, ø→o, æ→ae, œ→oe, đ/ð→d, ł→l, þ→th.
 * - Arabic diacritics (tashkeel, shadda, sukun, superscript alef) and tatweel: "محمّد" = "محمد",
 *   "محـــمد" = "محمد".
 * - Alef and hamza forms: أ إ آ ٱ ٲ ٳ → ا; ؤ → و; ئ → ي (hamza seated on a letter is dropped with
 *   its seat kept). A standalone hamza (ء) is a letter and is kept: "علاء" is not "علا".
 * - Alef maqsura and yaa: ى → ي ("مصطفى" = "مصطفي"); taa marbuta and haa: ة → ه ("فاطمة" =
 *   "فاطمه"); Persian/Urdu letter forms: ی → ي, ک → ك, ہ ھ → ه. Presentation forms and the
 *   ligature ﷲ unfold through NFKD.
 * - Spacing, hyphens, apostrophes, dots and commas: names are compared with every separator
 *   removed, so "عبد الله" = "عبدالله", "Abdel Rahman" = "Abdelrahman", "Jean-Pierre" = "Jean
 *   Pierre", "O'Brien" = "OBrien". Invisible characters (zero-width joiners, direction marks) are
 *   removed.
 *
 * Decisions (each sends the case to a human reviewer rather than guessing):
 * - Token order matters. In Arabic naming the order is the lineage: "علي حسن" (Ali, son of
 *   Hassan) and "حسن علي" (Hassan, son of Ali) are two people, often father and son. A reordered
 *   name is a mismatch.
 * - A shorter or longer name is a mismatch: "Ahmed Hassan" against the four-part "Ahmed Mohamed
 *   Ali Hassan" on a national ID card may well be the same person, but that is a reviewer's call.
 * - No transliteration between scripts: "Mohamed Ali" and "محمد علي" are a mismatch, as are
 *   transliteration variants ("Mohamed" / "Muhammad", "Mueller" / "Müller"). Many spellings of one
 *   Arabic name exist in Latin letters and no table can say which ones a person bears.
 */

/** Letters with no canonical decomposition, folded to the form people type (after lower-casing). */
const FOLD: Record<string, string> = {
  ß: 'ss',
  ı: 'i',
  ø: 'o',
  æ: 'ae',
  œ: 'oe',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  þ: 'th',
  // Arabic letter forms (hamza on alef, waw and yaa already decompose under NFKD).
  ٱ: 'ا', // alef wasla
  ٲ: 'ا', // alef with wavy hamza above
  ٳ: 'ا', // alef with wavy hamza below
  ى: 'ي', // alef maqsura
  ی: 'ي', // Farsi yeh
  ې: 'ي',
  ة: 'ه', // taa marbuta
  ہ: 'ه', // heh goal
  ھ: 'ه', // heh doachashmee
  ک: 'ك', // keheh
  ٴ: '', // high hamza (from the compatibility decomposition of ٵ ٶ ٷ ٸ)
  ـ: '', // tatweel
};
const FOLD_RE = new RegExp(`[${Object.keys(FOLD).join('')}]`, 'gu');

/**
 * The comparable written form of a name: the normalisations above applied, words separated by
 * one space. Empty when the name has no letters or digits.
 */
export function normaliseName(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '') // accents, tashkeel, hamza above/below, madda
    .replace(/\p{Cf}/gu, '') // zero-width joiners, direction marks, BOM
    .replace(FOLD_RE, (c) => FOLD[c]!)
    .replace(/['\u2018\u2019\u02BC\u02BB`\u00B4]/gu, '') // apostrophes join: O'Brien → obrien
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The key two names are compared on: the normalised name with its separators removed. */
export function nameKey(name: string): string {
  return normaliseName(name).replace(/ /g, '');
}

/** True when the document name is, letter for letter and in order, the name sent (see the rules above). */
export function namesMatch(sent: string, document: string): boolean {
  const a = nameKey(sent);
  return a.length > 0 && a === nameKey(document);
}
