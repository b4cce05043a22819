/**
 * The final PDF (spec part 1 point 4; part 5: test requests carry a watermark) checked with real
 * tools: qpdf --check, poppler's pdftotext / pdfinfo / pdffonts, and rendered page images saved
 * under test-artifacts/ for a person to look at.
 *
 * Arabic must come out shaped and in logical order: pdftotext reads the text back through the
 * fonts' ToUnicode maps, so a wrong letter (a shared dotless glyph mapped to the wrong character),
 * reversed order or presentation-form code points all fail the exact-string checks below.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';
import { renderCertificatePdf, renderFinalPdf } from '../../server/src/sealing/pdf/index.js';
import type { FinalDocumentInput, SignerOnDocument, TrailEntry } from '../../server/src/sealing/types.js';
import {
  pdfFonts,
  pdfImageList,
  pdfImagePixels,
  pdfInfo,
  pdfPageCount,
  pdfToText,
  qpdfCheck,
  renderPagePng,
  renderPageRgb,
  type RgbImage,
} from '../support/pdfTools.js';
import { pngDataUrl } from '../support/signing.js';

const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-artifacts');
const T0 = Date.UTC(2026, 6, 1, 9, 0, 0) / 1000;

// ---------------------------------------------------------------------------------------------
// Inputs

/** RGBA pixels of a dark-blue, anti-aliased scribble on a transparent background (like signature_pad's). */
function signaturePixels(width: number, height: number, seed: number): Buffer {
  const pixels = Buffer.alloc(width * height * 4);
  const plot = (x: number, y: number, alpha: number) => {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const at = 4 * (y * width + x);
    pixels.set([18, 38, 110, Math.max(pixels[at + 3]!, alpha)], at);
  };
  for (let t = 0; t < 6000; t++) {
    const u = t / 6000;
    const x = width * (0.06 + 0.88 * u) + Math.sin(u * 40 + seed) * width * 0.03;
    const y = height * (0.5 + 0.28 * Math.sin(u * 9 + seed) * Math.cos(u * 3)) + Math.sin(u * 70) * height * 0.06;
    for (let dx = -3; dx <= 3; dx++) {
      for (let dy = -3; dy <= 3; dy++) {
        const d = Math.hypot(dx, dy);
        if (d <= 2.6) plot(Math.round(x + dx), Math.round(y + dy), d <= 1.6 ? 255 : 110);
      }
    }
  }
  return pixels;
}

/**
 * An 8-bit RGBA PNG of the pixels. Rows cycle through the five PNG filters (None, Sub, Up, Average,
 * Paeth), so the embedder's unfiltering of each is exercised.
 */
function encodePng(width: number, height: number, pixels: Buffer): Buffer {
  const stride = width * 4;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const filter = y % 5;
    raw[y * (stride + 1)] = filter;
    for (let x = 0; x < stride; x++) {
      const at = y * stride + x;
      const a = x >= 4 ? pixels[at - 4]! : 0;
      const b = y > 0 ? pixels[at - stride]! : 0;
      const c = x >= 4 && y > 0 ? pixels[at - stride - 4]! : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      raw[y * (stride + 1) + 1 + x] = (pixels[at]! - [0, a, b, (a + b) >> 1, paeth][filter]!) & 0xff;
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const signaturePng = (width: number, height: number, seed: number) => encodePng(width, height, signaturePixels(width, height, seed));

const tinyPng = () => Buffer.from(pngDataUrl().split(',')[1]!, 'base64');

const UA_CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const UA_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const UA_HOSTILE = `curl/8.5.0 <script>alert(1)</script> ${'Z'.repeat(900)}`;

const AR_TITLE = 'اتفاقية عدم إفصاح';
const AR_SENTENCE = 'يلتزم الطرفان بعدم الإفصاح عن المعلومات السرية لأي طرف ثالث دون موافقة كتابية مسبقة';
const AR_LONG_WORD = 'كلمةطويلة'.repeat(24);
const LONG_URL = `https://example.com/files/${'abcdefghij'.repeat(22)}`;

const arabicText = (repeat = 1) => {
  const body = [
    'أبرمت هذه الاتفاقية بتاريخ 2026-07-01 بين شركة النيل للتقنية (Nile Tech LLC)، ويمثلها السيدة سارة أحمد، وبين السيد John Smith (البريد john.smith@example.com).',
    `${AR_SENTENCE}. ويشمل ذلك الخطط التجارية وقوائم العملاء والبيانات الفنية والمالية.`,
    'لا يجوز لأي طرف استخدام المعلومات السرية إلا لغرض تنفيذ هذه الاتفاقية، وتبقى الالتزامات سارية لمدة 3 سنوات من تاريخ التوقيع.',
    'قيمة الشرط الجزائي 250,000 جنيه مصري (مائتان وخمسون ألف جنيه) تُدفع خلال 30 يوماً من تاريخ المطالبة، وفقاً للمرجع REF-7K3M9QXA.',
  ];
  const paragraphs: string[] = [];
  for (let i = 0; i < repeat; i++) paragraphs.push(...body);
  paragraphs.push(
    'ملاحظة المرسل كما أُدخلت: <script>alert("x")</script> & "quotes" \'single\' \\ backslash {braces} [brackets].',
    `رابط طويل: ${LONG_URL}`,
    `كلمة طويلة: ${AR_LONG_WORD}`,
    'السطر الأول من العنوان\nالسطر الثاني من العنوان',
  );
  return paragraphs.join('\n\n');
};

const hash = (text: string) => createHmac('sha256', 'document-key').update(text).digest('hex');

function trailFor(signers: readonly SignerOnDocument[]): TrailEntry[] {
  const trail: TrailEntry[] = [
    { at: T0, type: 'signature_request.created', actor: 'system', ip: null, user_agent: null },
    { at: T0 + 2, type: 'signature_request.sent', actor: 'system', ip: null, user_agent: null },
  ];
  for (const s of signers) {
    trail.push({ at: s.signed_at - 900, type: 'signer.viewed', actor: s.name, ip: s.ip, user_agent: s.user_agent });
    trail.push({ at: s.signed_at - 600, type: 'signer.otp_verified', actor: s.name, ip: s.ip, user_agent: s.user_agent });
    trail.push({ at: s.signed_at, type: 'signer.signed', actor: s.name, ip: s.ip, user_agent: s.user_agent });
  }
  trail.push({ at: signers.at(-1)!.signed_at + 1, type: 'signature_request.completed', actor: 'system', ip: null, user_agent: null });
  return trail;
}

function arabicInput(options: { repeat?: number; livemode?: boolean } = {}): FinalDocumentInput {
  const text = arabicText(options.repeat);
  const signers: SignerOnDocument[] = [
    {
      id: 'sgr_01J0AR0000000000000001',
      name: 'سارة أحمد',
      email_masked: 's***@example.com',
      phone_masked: '********4567',
      order: 1,
      method: 'draw',
      signature_png: signaturePng(600, 200, 1),
      signed_at: T0 + 3600,
      ip: '192.168.10.24',
      user_agent: UA_CHROME,
      identity: { status: 'approved', provider: 'simulated', name_match: 'match' },
    },
    {
      id: 'sgr_01J0AR0000000000000002',
      name: 'John Smith',
      email_masked: 'j***@example.org',
      phone_masked: null,
      order: 2,
      method: 'draw',
      signature_png: signaturePng(480, 160, 2),
      signed_at: T0 + 7200,
      ip: '2001:db8::17',
      user_agent: UA_IPHONE,
      identity: null,
    },
    {
      id: 'sgr_01J0AR0000000000000003',
      name: 'محمد علي <script>alert(1)</script>',
      email_masked: 'm***@example.net',
      phone_masked: '*******8899',
      order: 3,
      method: 'draw',
      signature_png: tinyPng(),
      signed_at: T0 + 9000,
      ip: '10.0.0.7',
      user_agent: UA_HOSTILE,
      identity: null,
    },
  ];
  return {
    request_id: 'sr_01J0ABCDEF7K3M9QXA0000',
    reference: 'REF-7K3M9QXA',
    title: AR_TITLE,
    language: 'ar',
    legal_level: 'aes',
    format: 'platform-evidence',
    livemode: options.livemode ?? true,
    document_text: text,
    document_hash: hash(text),
    created_at: T0,
    completed_at: T0 + 9001,
    sender: { account_name: 'شركة النيل للتقنية', brand_name: 'Nile Tech' },
    signers,
    trail: trailFor(signers),
    verification_url: 'https://sign.example.com/verify/REF-7K3M9QXA',
  };
}

const EN_SENTENCE = 'The Receiving Party shall hold the Confidential Information in strict confidence';

function englishInput(options: { livemode?: boolean } = {}): FinalDocumentInput {
  const text = [
    'This Mutual Non-Disclosure Agreement is made on 2026-07-01 between Acme Trading Ltd, represented by Alice Johnson, and محمد علي (m.ali@example.com).',
    `1. ${EN_SENTENCE} and shall not disclose it to any third party without prior written consent.`,
    '2. The obligations of this Agreement survive for 3 (three) years after signature. The penalty amount is USD 25,000.',
    `3. Reference documents: ${LONG_URL}`,
    '4. Notes entered by the sender: <b>bold?</b> <script>alert("x")</script> — shown as typed.',
  ].join('\n\n');
  const signers: SignerOnDocument[] = [
    {
      id: 'sgr_01J0EN0000000000000001',
      name: 'Alice Johnson',
      email_masked: 'a***@acme.example',
      phone_masked: null,
      order: 1,
      method: 'draw',
      signature_png: signaturePng(600, 200, 3),
      signed_at: T0 + 1800,
      ip: '203.0.113.9',
      user_agent: UA_CHROME,
      identity: { status: 'approved', provider: 'simulated', name_match: 'match' },
    },
    {
      id: 'sgr_01J0EN0000000000000002',
      name: 'محمد علي',
      email_masked: 'm***@example.com',
      phone_masked: '*********1234',
      order: 2,
      method: 'draw',
      signature_png: signaturePng(500, 180, 4),
      signed_at: T0 + 5400,
      ip: '198.51.100.23',
      user_agent: UA_IPHONE,
      identity: { status: 'approved', provider: 'simulated', name_match: 'mismatch' },
    },
  ];
  return {
    request_id: 'sr_01J0ABCDEFEN00000000000',
    reference: 'REF-EN4Q2W8Z',
    title: 'Mutual Non-Disclosure Agreement',
    language: 'en',
    legal_level: 'aes',
    format: 'platform-evidence',
    livemode: options.livemode ?? true,
    document_text: text,
    document_hash: hash(text),
    created_at: T0,
    completed_at: T0 + 5401,
    sender: { account_name: 'Acme Trading Ltd', brand_name: null },
    signers,
    trail: trailFor(signers),
    verification_url: 'https://sign.example.com/verify/REF-EN4Q2W8Z',
  };
}

function tokenInput(): FinalDocumentInput {
  const base = englishInput();
  const signers = base.signers.map((s): SignerOnDocument => ({ ...s, method: 'token', signature_png: null }));
  return { ...base, legal_level: 'qes', format: 'pades-lt', signers, trail: trailFor(signers) };
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** Extracted text with poppler's bidi embedding marks removed and whitespace runs collapsed. */
const flat = (text: string) => text.replace(/[\u200E\u200F\u202A-\u202E\u2066-\u2069]/g, '').replace(/\s+/g, ' ');

/**
 * "صفحة X من Y" as poppler extracts it: in logical order, or — when it takes a short line for left to
 * right — in visual order ("Y من X صفحة"). Returns [X, Y].
 */
function arabicPageLabel(text: string): [number, number] | null {
  const logical = /صفحة\s*(\d+)\s*من\s*(\d+)/.exec(text);
  if (logical) return [Number(logical[1]), Number(logical[2])];
  const visual = /(\d+)\s*من\s*(\d+)\s*صفحة/.exec(text);
  return visual ? [Number(visual[2]), Number(visual[1])] : null;
}

/** The 1-based page where the certificate starts: the final PDF ends with the certificate's pages. */
async function certificateFirstPage(input: FinalDocumentInput, final: Uint8Array): Promise<number> {
  return (await pdfPageCount(final)) - (await pdfPageCount(await renderCertificatePdf(input))) + 1;
}

async function saveArtifact(pdf: Uint8Array, name: string, page: number): Promise<string> {
  await mkdir(ARTIFACTS, { recursive: true });
  const file = await renderPagePng(pdf, path.join(ARTIFACTS, `${name}.png`), { page, dpi: 96 });
  const png = await readFile(file);
  assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], `${file} is a PNG`);
  return file;
}

async function assertValid(pdf: Uint8Array): Promise<void> {
  const check = await qpdfCheck(pdf);
  assert.ok(check.ok, `qpdf --check:\n${check.out}`);
  assert.match(check.out, /No syntax or stream encoding errors found/);
}

// ---------------------------------------------------------------------------------------------

describe('final PDF: Arabic request', () => {
  const input = arabicInput();
  let final: Uint8Array;
  let text: string;

  test('renders a valid PDF: qpdf --check, A4 pages, metadata from the request', async () => {
    final = await renderFinalPdf(input);
    await assertValid(final);
    const info = await pdfInfo(final);
    assert.equal(info.Producer, 'Tawqi');
    assert.equal(info.Title, AR_TITLE);
    assert.match(info['Page size']!, /595\.28 x 841\.89 pts \(A4\)/);
    assert.match(info.CreationDate!, /2026/);
    assert.ok(Number(info.Pages) >= 2, `contract + certificate: ${info.Pages} pages`);
    text = flat(await pdfToText(final));
  });

  test('fonts are embedded subsets with a ToUnicode map (Noto Naskh Arabic and Noto Sans)', async () => {
    const fonts = await pdfFonts(final);
    assert.ok(
      fonts.some((f) => /\+NotoNaskhArabic-(Regular|Bold)$/.test(f.name)),
      JSON.stringify(fonts),
    );
    assert.ok(
      fonts.some((f) => /\+NotoSans-(Regular|Bold)$/.test(f.name)),
      JSON.stringify(fonts),
    );
    for (const f of fonts) assert.ok(f.embedded && f.subset && f.unicode, `${f.name}: embedded subset with ToUnicode`);
  });

  test('each signature image is embedded once, with its transparency, pixel for pixel', async () => {
    const list = await pdfImageList(final);
    const images = list.filter((i) => i.type === 'image');
    assert.deepEqual(
      images.map((i) => [i.width, i.height]),
      [
        [600, 200],
        [480, 160],
        [1, 1],
      ],
      'one image per drawn signature',
    );
    assert.equal(new Set(images.map((i) => i.object)).size, 3, 'three image objects');
    assert.deepEqual(
      list.filter((i) => i.type === 'smask').map((i) => [i.width, i.height]),
      [
        [600, 200],
        [480, 160],
      ],
      'RGBA signatures keep their alpha',
    );
    // The first signature, decoded by poppler, equals the pixels drawn: colour where the stroke is, alpha everywhere.
    const [color, alpha] = await pdfImagePixels(final);
    const pixels = signaturePixels(600, 200, 1);
    let stroke = 0;
    for (let p = 0; p < 600 * 200; p++) {
      assert.equal(alpha!.data[3 * p], pixels[4 * p + 3], `alpha of pixel ${p}`);
      if (pixels[4 * p + 3]! > 0) {
        stroke++;
        assert.deepEqual([...color!.data.subarray(3 * p, 3 * p + 3)], [18, 38, 110], `colour of pixel ${p}`);
      }
    }
    assert.ok(stroke > 3000, `${stroke} stroke pixels checked`);
  });

  test('Arabic text extracts shaped letters in logical order (title, a whole sentence, hamza and lam-alef words)', () => {
    assert.ok(text.includes(AR_TITLE), 'the exact title');
    assert.ok(text.includes(AR_SENTENCE), 'a full sentence, in order, letter for letter');
    for (const word of ['الإفصاح', 'لا يجوز', 'الالتزامات', 'الاتفاقية', 'إلا', 'مائتان وخمسون ألف جنيه', 'ويمثلها السيدة سارة أحمد']) {
      assert.ok(text.includes(word), `contains ${word}`);
    }
    // ى and ي share one dotless glyph in Noto Naskh: after "يجوز", "وتبقى" must still read with ى.
    assert.ok(text.includes('وتبقى الالتزامات سارية'), 'alef maksura kept apart from yeh');
    // No Arabic presentation forms: what was shaped is read back as the letters that were typed.
    assert.doesNotMatch(text, /[\uFB50-\uFDFF\uFE70-\uFEFF]/);
  });

  test('Latin names, numbers, references, hostile text and long tokens come through in Arabic paragraphs', () => {
    // Markup is text: shown as typed. (Within an Arabic line the bidi algorithm moves the outer "<"
    // and ">" to the run's edges, as a browser does with dir="rtl"; the Latin run stays whole.)
    for (const s of [
      'John Smith',
      'Nile Tech LLC',
      'john.smith@example.com',
      '250,000',
      'REF-7K3M9QXA',
      'script>alert("x")</script',
      'backslash',
    ]) {
      assert.ok(text.includes(s), `contains ${s}`);
    }
    // Tokens wider than a line are broken between characters; every piece is there.
    const compact = text.replace(/ /g, '');
    assert.ok(compact.includes(LONG_URL), 'the long URL, broken across lines');
    assert.ok(compact.includes(AR_LONG_WORD), 'the long Arabic word, broken across lines');
  });

  test('the signature blocks carry each signer name and signing time', () => {
    for (const name of ['سارة أحمد', 'John Smith', 'محمد علي']) assert.ok(text.includes(name), name);
    assert.ok(text.includes('2026-07-01') && text.includes('10:00:00 UTC') && text.includes('11:00:00 UTC'), 'signing times in UTC');
    assert.ok(text.includes('وقت التوقيع'), 'the Arabic label');
  });

  test('the certificate page: request, masked contacts, ips, user agents, trail, hash and reference', async () => {
    const first = await certificateFirstPage(input, final);
    const cert = flat(await pdfToText(final, { first }));
    for (const s of [
      'شهادة إتمام التوقيع',
      input.request_id,
      'REF-7K3M9QXA',
      's***@example.com',
      '********4567',
      'j***@example.org',
      'm***@example.net',
      '192.168.10.24',
      '2001:db8::17',
      '10.0.0.7',
      'Mozilla/5.0',
      'Chrome/126.0.0.0',
      'AppleWebKit/605.1.15',
      'curl/8.5.0',
      'signature_request.created',
      'signer.otp_verified',
      'signer.signed',
      'signature_request.completed',
      'https://sign.example.com/verify/REF-7K3M9QXA',
      'توقيع إلكتروني متقدم',
      'AES',
      'تم التحقق',
      'simulated',
      'النظام',
      'سجل الأحداث',
    ]) {
      assert.ok(cert.includes(s), `certificate contains ${s}`);
    }
    assert.ok(cert.replace(/ /g, '').includes(input.document_hash), 'the document hash');
    // The contract text is not on the certificate pages; contacts appear masked only.
    assert.ok(!cert.includes(AR_SENTENCE));
    assert.ok(!cert.includes('john.smith@example.com'));
  });

  test('page footer and header: page X of Y, reference, sealed by Tawqi', async () => {
    const pages = await pdfPageCount(final);
    const page1 = flat(await pdfToText(final, { first: 1, last: 1 }));
    assert.deepEqual(arabicPageLabel(page1), [1, pages], 'page 1 of N');
    assert.ok(page1.includes('مختوم بواسطة Tawqi'));
    assert.ok(page1.includes('REF-7K3M9QXA'));
  });

  test('no test watermark on a live document', () => {
    assert.ok(!text.includes('TEST'), 'no TEST watermark');
    assert.ok(!text.includes('مستند تجريبي'), 'no test banner');
  });

  test('rendered pages saved for review: test-artifacts/sealing-pdf-ar-*.png', async () => {
    await saveArtifact(final, 'sealing-pdf-ar-contract-p1', 1);
    await saveArtifact(final, 'sealing-pdf-ar-certificate', await certificateFirstPage(input, final));
  });
});

describe('final PDF: English request', () => {
  const input = englishInput();
  let final: Uint8Array;
  let text: string;

  test('renders a valid PDF with the contract, names and an Arabic name in English text', async () => {
    final = await renderFinalPdf(input);
    await assertValid(final);
    text = flat(await pdfToText(final));
    for (const s of [
      'Mutual Non-Disclosure Agreement',
      EN_SENTENCE,
      'Alice Johnson',
      'محمد علي',
      'm.ali@example.com',
      'USD 25,000',
      '<script>alert("x")</script>',
      'Signed at: 2026-07-01 09:30:00 UTC',
      'Sealed by Tawqi · REF-EN4Q2W8Z',
    ]) {
      assert.ok(text.includes(s), `contains ${s}`);
    }
    assert.ok(text.includes(`Page 1 of ${await pdfPageCount(final)}`));
    assert.ok(text.replace(/ /g, '').includes(LONG_URL));
  });

  test('the certificate lists signers, masked contacts, trail and hash in English', async () => {
    const cert = flat(await pdfToText(final, { first: await certificateFirstPage(input, final) }));
    for (const s of [
      'Certificate of completion',
      'Advanced electronic signature (AES)',
      'a***@acme.example',
      '*********1234',
      '203.0.113.9',
      '198.51.100.23',
      'Drawn',
      'Verified',
      'mismatch',
      'Event trail',
      'System',
      'https://sign.example.com/verify/REF-EN4Q2W8Z',
    ]) {
      assert.ok(cert.includes(s), `certificate contains ${s}`);
    }
    assert.ok(cert.replace(/ /g, '').includes(input.document_hash));
  });

  test('rendered pages saved for review: test-artifacts/sealing-pdf-en-*.png', async () => {
    await saveArtifact(final, 'sealing-pdf-en-contract-p1', 1);
    await saveArtifact(final, 'sealing-pdf-en-certificate', await certificateFirstPage(input, final));
  });
});

/**
 * Pixels in the middle of the page tinted red (the watermark's colour; nothing else on a page is red):
 * poppler splits diagonal text into single letters, so the watermark is checked by its look.
 */
function redInCentre(image: RgbImage): number {
  let count = 0;
  for (let y = Math.floor(image.height / 3); y < (2 * image.height) / 3; y++) {
    for (let x = Math.floor(image.width / 4); x < (3 * image.width) / 4; x++) {
      const at = 3 * (y * image.width + x);
      const [r, g, b] = [image.data[at]!, image.data[at + 1]!, image.data[at + 2]!];
      if (r - g > 12 && r - b > 12) count++;
    }
  }
  return count;
}

describe('final PDF: behaviour', () => {
  test('a test request carries the diagonal watermark and the banner on every page; a live one does not', async () => {
    const testPdf = await renderFinalPdf(englishInput({ livemode: false }));
    await assertValid(testPdf);
    const pages = await pdfPageCount(testPdf);
    for (let page = 1; page <= pages; page++) {
      const text = flat(await pdfToText(testPdf, { first: page, last: page }));
      assert.ok(text.includes('TEST DOCUMENT — created with a test key; it has no legal effect.'), `page ${page}: banner`);
      assert.ok(redInCentre(await renderPageRgb(testPdf, { page })) > 300, `page ${page}: watermark`);
    }
    const arabicTest = await renderFinalPdf(arabicInput({ livemode: false }));
    const arPages = await pdfPageCount(arabicTest);
    const arText = flat(await pdfToText(arabicTest));
    assert.equal(
      arText.split('مستند تجريبي — أنشئ بمفتاح اختبار وليس له أي أثر قانوني').length - 1,
      arPages,
      'Arabic banner on every page',
    );
    assert.ok(arText.includes('تجريبي (بلا أثر قانوني)'), 'the certificate says test mode');
    for (let page = 1; page <= arPages; page++)
      assert.ok(redInCentre(await renderPageRgb(arabicTest, { page })) > 300, `Arabic page ${page}: watermark`);

    const livePdf = await renderFinalPdf(englishInput());
    const live = flat(await pdfToText(livePdf));
    assert.ok(!live.includes('TEST') && !live.includes('اختبار'), 'live: no watermark or banner text');
    for (let page = 1; page <= (await pdfPageCount(livePdf)); page++)
      assert.equal(redInCentre(await renderPageRgb(livePdf, { page })), 0, `live page ${page}`);
    await saveArtifact(testPdf, 'sealing-pdf-test-mode-p1', 1);
    await saveArtifact(arabicTest, 'sealing-pdf-ar-test-mode-p1', 1);
  });

  test('a longer contract paginates: more pages, each numbered, still valid', async () => {
    const short = await renderFinalPdf(arabicInput());
    const long = await renderFinalPdf(arabicInput({ repeat: 14 }));
    await assertValid(long);
    const shortPages = await pdfPageCount(short);
    const longPages = await pdfPageCount(long);
    assert.ok(longPages > shortPages + 2, `${longPages} pages > ${shortPages} + 2`);
    const last = flat(await pdfToText(long, { first: longPages, last: longPages }));
    assert.deepEqual(arabicPageLabel(last), [longPages, longPages]);
    const text = flat(await pdfToText(long));
    assert.equal(text.split(AR_SENTENCE).length - 1, 14, 'every copy of the sentence, in order');
  });

  test('token signatures are shown as a qualified-certificate block, without an image', async () => {
    const input = tokenInput();
    const pdf = await renderFinalPdf(input);
    await assertValid(pdf);
    const text = flat(await pdfToText(pdf));
    assert.equal(text.split('Signed with a qualified certificate (hardware token)').length - 1, 2);
    assert.ok(text.includes('Qualified electronic signature (QES)'));
    assert.ok(text.includes('Hardware'), 'the method column');
  });

  test('the certificate PDF alone has the certificate and not the contract', async () => {
    const input = arabicInput();
    const cert = await renderCertificatePdf(input);
    await assertValid(cert);
    const text = flat(await pdfToText(cert));
    assert.ok(text.includes('شهادة إتمام التوقيع'));
    assert.ok(text.includes('REF-7K3M9QXA'));
    assert.ok(text.includes('s***@example.com'));
    assert.ok(text.includes('192.168.10.24'));
    assert.ok(text.replace(/ /g, '').includes(input.document_hash));
    assert.ok(!text.includes(AR_SENTENCE), 'no contract text');
    assert.ok(!text.includes('التوقيعات'), 'no signature blocks');
    assert.match((await pdfInfo(cert)).Title!, /^شهادة إتمام التوقيع — /);
  });

  test('the same input gives the same bytes', async () => {
    const digest = async (input: FinalDocumentInput) =>
      createHash('sha256')
        .update(await renderFinalPdf(input))
        .digest('hex');
    assert.equal(await digest(arabicInput()), await digest(arabicInput()));
    assert.equal(await digest(englishInput()), await digest(englishInput()));
  });

  test('an unreadable signature image does not stop the document; the block says so', async () => {
    const input = englishInput();
    input.signers[0] = { ...input.signers[0]!, signature_png: new Uint8Array([1, 2, 3]) };
    const pdf = await renderFinalPdf(input);
    await assertValid(pdf);
    assert.ok(flat(await pdfToText(pdf)).includes('The signature image could not be read'));
  });

  test('a missing tool is reported with the package that provides it', async () => {
    const { PATH } = process.env;
    process.env.PATH = '/nonexistent';
    try {
      await assert.rejects(qpdfCheck(new Uint8Array([1])), /qpdf is not installed.*apt-get install -y poppler-utils qpdf/);
    } finally {
      process.env.PATH = PATH;
    }
  });
});
