/**
 * Text extraction from the final PDF is exact (issue 19 point 2): two independent extractors —
 * poppler (`pdftotext`, plain and `-layout`) and mupdf (`mutool draw -F stext`, what `-F txt`
 * prints) — give back the contract's text in logical order, harakat after their letters, digits and
 * brackets where the source has them. Checked on every template of the built-in library in both
 * languages, and on a targeted text of the hard cases.
 *
 * Only the page body is compared (the header and footer lines are left out by position); the
 * contract's text must appear in it, contiguous, after normalise() below.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PDFArray, PDFDocument, PDFName, PDFRawStream, decodePDFRawStream } from 'pdf-lib';
import { LIBRARY_LANGUAGES, LIBRARY_TEMPLATE_KEYS, loadLibraryTemplate } from '../../server/src/domain/templateLibrary.js';
import { renderTemplate } from '../../server/src/domain/templates.js';
import { bidi } from '../../server/src/sealing/pdf/bidi.js';
import { renderFinalPdf } from '../../server/src/sealing/pdf/index.js';
import { PAGE } from '../../server/src/sealing/pdf/theme.js';
import type { FinalDocumentInput } from '../../server/src/sealing/types.js';
import { mupdfLines, pdfToText, type ExtractedLine } from '../support/pdfTools.js';

const T0 = Date.UTC(2026, 6, 1, 9, 0, 0) / 1000;

/**
 * The one normalisation applied to both the source and the extracted text. It forgives:
 * - canonical equivalence (Unicode NFC): two marks on one letter in either canonical order;
 * - default-ignorable characters (bidi isolates, marks and embeddings, joiners): the renderer draws
 *   none of them and poppler adds RLE/LRE/PDF around right-to-left lines of its own;
 * - how whitespace is laid out: any run of spaces and line feeds is one space (lines wrap where the
 *   source has one space or a paragraph break).
 * It forgives nothing about order or content: every letter, mark, digit and bracket, and every space
 * between words, must come where the source has it.
 */
function normalise(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\p{Default_Ignorable_Code_Point}/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The source as normalised text, and where an extractor may add a line break that the source does
 * not have: only where the bidi embedding level changes (mupdf, reading glyphs in content order,
 * starts a new line when the pen jumps back over a run of the other direction, e.g. "(Nile)" inside
 * Arabic). breakAt[i] allows an extra space before character i.
 */
function sourceOf(documentText: string, language: 'ar' | 'en'): { text: string; breakAt: boolean[] } {
  let text = '';
  const breakAt: boolean[] = [];
  for (const line of documentText.split('\n')) {
    const para = normalise(line);
    if (!para) continue;
    if (text) {
      text += ' ';
      breakAt.push(false);
    }
    const levels = bidi.getEmbeddingLevels(para, language === 'ar' ? 'rtl' : 'ltr').levels;
    for (let i = 0; i < para.length; i++) breakAt.push(i > 0 && levels[i] !== levels[i - 1]);
    text += para;
  }
  return { text, breakAt };
}

/** How far the source matches the extracted text from position start (source length = a full match). */
function matchFrom(extracted: string, start: number, source: { text: string; breakAt: boolean[] }): number {
  let i = 0;
  let j = start;
  while (i < source.text.length) {
    if (extracted[j] === source.text[i]) {
      i++;
      j++;
    } else if (extracted[j] === ' ' && source.breakAt[i]) j++;
    else break;
  }
  return i;
}

/** Asserts that the source appears in the extracted body text; on failure, says where it stops. */
function assertContains(body: string, source: { text: string; breakAt: boolean[] }, what: string): void {
  const extracted = normalise(body);
  let best = { matched: -1, at: 0 };
  for (let p = extracted.indexOf(source.text[0]!); p >= 0; p = extracted.indexOf(source.text[0]!, p + 1)) {
    const matched = matchFrom(extracted, p, source);
    if (matched === source.text.length) return;
    if (matched > best.matched) best = { matched, at: p };
  }
  const i = Math.max(best.matched, 0);
  assert.fail(
    `${what}: the source stops matching after ${i} of ${source.text.length} characters\n` +
      `source:    …${source.text.slice(Math.max(0, i - 40), i + 40)}…\n` +
      `extracted: …${extracted.slice(Math.max(0, best.at + i - 40), best.at + i + 40)}…`,
  );
}

/** The page body: between the header rule and the footer rule (54 pt from the top, 42 pt from the bottom). */
const BODY = { x: 0, y: 54, width: PAGE.width, height: PAGE.height - 54 - 42 };

const bodyText = (lines: readonly ExtractedLine[]) =>
  lines
    .filter((l) => l.top >= BODY.y && l.bottom <= BODY.y + BODY.height)
    .map((l) => l.text)
    .join('\n');

/** Each extractor's text of the page bodies. */
const EXTRACTORS: readonly (readonly [string, (pdf: Uint8Array) => Promise<string>])[] = [
  ['pdftotext', (pdf) => pdfToText(pdf, { layout: false, area: BODY })],
  ['pdftotext -layout', (pdf) => pdfToText(pdf, { area: BODY })],
  ['mutool', async (pdf) => bodyText(await mupdfLines(pdf))],
];

async function assertExtractsExactly(input: FinalDocumentInput): Promise<void> {
  const pdf = await renderFinalPdf(input);
  const source = sourceOf(input.document_text, input.language);
  for (const [name, extract] of EXTRACTORS) assertContains(await extract(pdf), source, `${name} on ${input.title}`);
}

function finalInput(title: string, language: 'ar' | 'en', documentText: string): FinalDocumentInput {
  return {
    request_id: 'sr_01J0TEXT00000000000000001',
    reference: 'REF-7K3M9QXA',
    title,
    language,
    legal_level: 'ses',
    format: 'platform-evidence',
    livemode: true,
    document_text: documentText,
    document_hash: 'ab'.repeat(32),
    created_at: T0,
    completed_at: T0 + 3600,
    sender: { account_name: language === 'ar' ? 'شركة النيل للتقنية' : 'Nile Tech LLC', brand_name: null },
    signers: [
      {
        id: 'sgr_01J0TEXT0000000000000001',
        name: language === 'ar' ? 'سارة أحمد' : 'Sara Ahmed',
        email_masked: 's***@example.com',
        phone_masked: null,
        order: 1,
        method: 'token',
        signature_png: null,
        signed_at: T0 + 1800,
        ip: null,
        user_agent: null,
        identity: null,
      },
    ],
    trail: [],
    verification_url: 'https://sign.example.com/verify/REF-7K3M9QXA',
  };
}

/** A value for each field type, with embedded Latin, digits and brackets in the Arabic ones. */
const VALUES: Record<'ar' | 'en', Record<string, string>> = {
  ar: { text: 'شركة النيل للتقنية (Nile Tech) فرع 12', number: '36', date: '2026-07-01', email: 'legal@example.com' },
  en: { text: 'Acme Trading Ltd (Cairo branch 12)', number: '36', date: '2026-07-01', email: 'legal@example.com' },
};

/** The hard cases: harakat, shadda with kasratan, lam-alef, Latin, digits and brackets in mixed lines. */
const hardCases = [
  'حُررت هذه الاتفاقية بين كلٍّ من الطرفين، ولا يُعدّ أيٌّ منهما وكيلاً عن الآخر.',
  'البند (1) – Clause 2: يدفع المشتري 250,000 جنيه (EGP) بتاريخ 2026-07-01 إلى Acme Ltd [مرجع 7K3M].',
  'The buyer (المشتري) pays USD 1,500 [ألف وخمسمائة] on 2026-07-01 — see clause (3).',
].join('\n\n');

/** Every line's ActualText on every page: the outer one and, where poppler needs another order, the inner. */
async function actualTextSpans(pdf: Uint8Array): Promise<{ outer: string; inner: string | null }[]> {
  const doc = await PDFDocument.load(pdf);
  let content = '';
  for (const page of doc.getPages()) {
    const contents = page.node.get(PDFName.of('Contents'));
    const refs = contents instanceof PDFArray ? contents.asArray() : [contents];
    for (const ref of refs) {
      const stream = doc.context.lookup(ref);
      assert.ok(stream instanceof PDFRawStream, 'a page content stream');
      content += Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1') + '\n';
    }
  }
  const utf16 = (hex: string) => Buffer.from(hex.slice(4), 'hex').swap16().toString('utf16le');
  const span = /\/Span <<\/ActualText <([0-9A-F]+)>>> BDC(?:\n\/Span <<\/ActualText <([0-9A-F]+)>>> BDC)?/g;
  return [...content.matchAll(span)].map((m) => ({ outer: utf16(m[1]!), inner: m[2] ? utf16(m[2]) : null }));
}

describe('text extraction from the final PDF', () => {
  for (const key of LIBRARY_TEMPLATE_KEYS) {
    for (const language of LIBRARY_LANGUAGES) {
      test(`library template ${key} (${language}): pdftotext and mutool give back the contract text`, async () => {
        const template = loadLibraryTemplate(key, language);
        const values = Object.fromEntries(template.fields.map((f) => [f.key, VALUES[language][f.type] ?? VALUES[language].text!]));
        await assertExtractsExactly(finalInput(template.title, language, renderTemplate(template.body, values)));
      });
    }
  }

  for (const language of LIBRARY_LANGUAGES) {
    test(`harakat, shadda with kasratan, lam-alef, Latin, digits and brackets in mixed lines (${language} document)`, async () => {
      await assertExtractsExactly(finalInput(language === 'ar' ? 'حالات صعبة' : 'Hard cases', language, hardCases));
    });
  }

  test('readers that follow the standard get the logical text: each outer ActualText is its line, the inner one for poppler only reorders it', async () => {
    const pdf = await renderFinalPdf(finalInput('حالات صعبة', 'ar', hardCases));
    const spans = await actualTextSpans(pdf);
    const outer = sourceOf(hardCases, 'ar');
    assertContains(spans.map((s) => s.outer).join('\n'), outer, 'the outer ActualText of the lines');
    const nested = spans.filter((s) => s.inner !== null);
    assert.ok(nested.length > 0, 'the Arabic page has lines that poppler needs in another order');
    for (const s of nested) {
      assert.notEqual(s.inner, s.outer);
      assert.deepEqual([...s.inner!.replace(/[\u200E\u200F]/g, '')].sort(), [...s.outer].sort(), 'the same characters, marks aside');
    }
  });

  test('the comparison is strict: a mark before its letter or a moved bracket does not match', () => {
    const source = sourceOf('حُررت البند (1) – Clause 2', 'ar');
    assert.equal(matchFrom(normalise('حُررت البند (1) – Clause 2'), 0, source), source.text.length);
    assert.equal(
      matchFrom(normalise('حُررت البند (1) –\nClause 2'), 0, source),
      source.text.length,
      'a line break where the direction changes',
    );
    assert.ok(matchFrom(normalise('ُحررت البند (1) – Clause 2'), 0, source) < source.text.length, 'haraka before its letter');
    assert.ok(matchFrom(normalise('حُررت البند ( – )1 Clause 2'), 0, source) < source.text.length, 'bracket and digit moved');
    assert.ok(matchFrom(normalise('حُررت البند(1) – Clause 2'), 0, source) < source.text.length, 'a space between words lost');
  });
});
