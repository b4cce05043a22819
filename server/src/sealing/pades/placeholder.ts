/**
 * Signature placeholders: a signature field whose /V is a signature dictionary (/Type /Sig,
 * /Filter /Adobe.PPKLite, /SubFilter /ETSI.CAdES.detached, /M) with a /ByteRange placeholder and an
 * empty /Contents; then the ByteRange is filled in and, once the CMS exists, written into /Contents.
 *
 * The widget is invisible (/Rect [0 0 0 0], printable flag, empty appearance stream): the visible
 * signature is part of the rendered certificate page, so viewers list the signature in their
 * signature panel only.
 *
 * Two ways to add the placeholder:
 * - rewrite: pdf-lib loads the PDF, @signpdf/placeholder-pdf-lib adds field, widget and signature
 *   dictionary, pdf-lib saves a new file (classic cross-reference table, no object streams). Only
 *   for a PDF that carries no signature yet.
 * - incremental: our writer appends the same objects as an incremental update, so earlier
 *   signatures stay valid (a second signer).
 */
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString } from 'pdf-lib';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { IncrementalUpdate, serialise } from './incremental.js';
import { literalStringBody, pdfDate, textString } from './pdfText.js';
import { PadesError, type PadesPlaceholderOptions } from './types.js';

export const SUBFILTER = 'ETSI.CAdES.detached';
export const MIN_PLACEHOLDER_BYTES = 16384;
/** The same placeholder name @signpdf uses: /ByteRange [0 /********** /********** /**********]. */
const BYTE_RANGE_NAME = '**********';
const APP_NAME = 'Tawqi';
const SIG_FLAGS_SIGNATURES_EXIST_APPEND_ONLY = 3;
const ANNOTATION_FLAG_PRINT = 4;

export interface PlaceholderResult {
  pdf: Uint8Array;
  fieldName: string;
}

function placeholderBytesOf(options: PadesPlaceholderOptions): number {
  const bytes = options.placeholderBytes ?? MIN_PLACEHOLDER_BYTES;
  if (!Number.isSafeInteger(bytes) || bytes < MIN_PLACEHOLDER_BYTES) {
    throw new PadesError('placeholder_too_small', `placeholderBytes must be an integer ≥ ${MIN_PLACEHOLDER_BYTES}`);
  }
  return bytes;
}

/** True if the file already has a signature (then only an incremental update keeps it valid). */
export function hasSignature(pdf: Uint8Array): boolean {
  return Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).indexOf('/ByteRange') >= 0;
}

export async function addPlaceholder(pdf: Uint8Array, options: PadesPlaceholderOptions): Promise<PlaceholderResult> {
  const mode = options.mode ?? (hasSignature(pdf) ? 'incremental' : 'rewrite');
  if (mode === 'rewrite' && hasSignature(pdf)) {
    throw new PadesError('unsupported_pdf', 'the PDF is already signed: rewriting it would break that signature; use mode "incremental"');
  }
  return mode === 'rewrite' ? addPlaceholderRewrite(pdf, options) : addPlaceholderIncremental(pdf, options);
}

async function loadForRewrite(pdf: Uint8Array): Promise<PDFDocument> {
  try {
    return await PDFDocument.load(pdf, { updateMetadata: false });
  } catch (error) {
    const message = (error as Error).message;
    throw new PadesError(/encrypt/i.test(message) ? 'unsupported_pdf' : 'invalid_pdf', `cannot parse the PDF: ${message}`);
  }
}

async function addPlaceholderRewrite(pdf: Uint8Array, options: PadesPlaceholderOptions): Promise<PlaceholderResult> {
  const placeholderBytes = placeholderBytesOf(options);
  const doc = await loadForRewrite(pdf);
  const page = doc.getPages()[options.pageIndex ?? 0];
  if (!page) throw new PadesError('invalid_pdf', `the PDF has no page ${options.pageIndex ?? 0}`);
  const fieldName = uniqueFieldName(doc);
  pdflibAddPlaceholder({
    pdfPage: page,
    // placeholder-pdf-lib writes these with PDFString.of, which neither escapes nor encodes: give
    // it literal-string bodies (ASCII, UTF-16BE in octal escapes for other scripts).
    reason: literalStringBody(options.reason ?? ''),
    contactInfo: literalStringBody(options.contactInfo ?? ''),
    name: literalStringBody(options.name ?? ''),
    location: literalStringBody(options.location ?? ''),
    signingTime: options.signingTime,
    // The hex string holds this many characters: two per CMS byte.
    signatureLength: placeholderBytes * 2,
    subFilter: SUBFILTER,
    widgetRect: [0, 0, 0, 0],
    appName: APP_NAME,
  });
  // placeholder-pdf-lib names every field "Signature1"; a PDF with earlier (unsigned) signature
  // fields gets the next free name.
  if (fieldName !== 'Signature1') renameNewestField(doc, fieldName);
  const bytes = await doc.save({ useObjectStreams: false, updateFieldAppearances: false });
  return { pdf: bytes, fieldName };
}

function fieldsOf(catalog: PDFDict): PDFArray | undefined {
  const acroForm = catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
  return acroForm?.lookupMaybe(PDFName.of('Fields'), PDFArray);
}

function uniqueFieldName(doc: PDFDocument): string {
  const names = new Set<string>();
  const fields = fieldsOf(doc.catalog);
  for (let i = 0; fields && i < fields.size(); i += 1) {
    const field = fields.lookupMaybe(i, PDFDict);
    const name = field?.lookupMaybe(PDFName.of('T'), PDFString, PDFHexString);
    if (name) names.add(name.decodeText());
  }
  let n = 1;
  while (names.has(`Signature${n}`)) n += 1;
  return `Signature${n}`;
}

function renameNewestField(doc: PDFDocument, fieldName: string): void {
  const fields = fieldsOf(doc.catalog);
  const newest = fields?.lookupMaybe(fields.size() - 1, PDFDict);
  newest?.set(PDFName.of('T'), PDFString.of(fieldName));
}

/** The signature dictionary with placeholders, serialised by hand so the placeholder is exact. */
function signatureDictionary(options: PadesPlaceholderOptions, placeholderBytes: number): Uint8Array {
  const text = (key: string, value: string | undefined): string =>
    value === undefined ? '' : `/${key} ${Buffer.from(serialise(textString(value))).toString('latin1')}\n`;
  const dict =
    '<<\n/Type /Sig\n/Filter /Adobe.PPKLite\n' +
    `/SubFilter /${SUBFILTER}\n` +
    `/ByteRange [0 /${BYTE_RANGE_NAME} /${BYTE_RANGE_NAME} /${BYTE_RANGE_NAME}]\n` +
    `/Contents <${'0'.repeat(placeholderBytes * 2)}>\n` +
    `/M (${pdfDate(options.signingTime)})\n` +
    text('Name', options.name) +
    text('Reason', options.reason) +
    text('Location', options.location) +
    text('ContactInfo', options.contactInfo) +
    `/Prop_Build << /Filter << /Name /Adobe.PPKLite >> /App << /Name /${APP_NAME} >> >>\n>>`;
  return Buffer.from(dict, 'latin1');
}

/**
 * The dictionary of a document timestamp (ISO 32000-2 §12.8.5, PAdES B-LTA): /Type /DocTimeStamp,
 * /SubFilter /ETSI.RFC3161, and /Contents for the RFC 3161 TimeStampToken itself (no CMS around it,
 * no /M: the time is the token's genTime).
 */
export function docTimeStampDictionary(placeholderBytes: number): Uint8Array {
  const dict =
    '<<\n/Type /DocTimeStamp\n/Filter /Adobe.PPKLite\n/SubFilter /ETSI.RFC3161\n' +
    `/ByteRange [0 /${BYTE_RANGE_NAME} /${BYTE_RANGE_NAME} /${BYTE_RANGE_NAME}]\n` +
    `/Contents <${'0'.repeat(placeholderBytes * 2)}>\n` +
    `/Prop_Build << /App << /Name /${APP_NAME} >> >>\n>>`;
  return Buffer.from(dict, 'latin1');
}

function addPlaceholderIncremental(pdf: Uint8Array, options: PadesPlaceholderOptions): Promise<PlaceholderResult> {
  return addFieldIncremental(pdf, signatureDictionary(options, placeholderBytesOf(options)), options.pageIndex ?? 0);
}

/**
 * Appends, as an incremental update, an invisible signature field on page `pageIndex` whose /V is
 * `dictionary` (a signature or document timestamp dictionary with its placeholders, serialised).
 */
export async function addFieldIncremental(pdf: Uint8Array, dictionary: Uint8Array, pageIndex: number): Promise<PlaceholderResult> {
  const update = await IncrementalUpdate.open(pdf);
  const { context } = update;
  const pages = update.doc.getPages();
  const page = pages[pageIndex];
  if (!page) throw new PadesError('invalid_pdf', `the PDF has no page ${pageIndex}`);
  const fieldName = uniqueFieldName(update.doc);

  const sigRef = update.allocate();
  update.set(sigRef, dictionary);
  const appearanceRef = update.allocate();
  update.set(appearanceRef, context.formXObject([], { BBox: [0, 0, 0, 0], Resources: {} }));
  const widgetRef = update.allocate();
  update.set(
    widgetRef,
    context.obj({
      Type: 'Annot',
      Subtype: 'Widget',
      FT: 'Sig',
      Rect: [0, 0, 0, 0],
      V: sigRef,
      T: PDFString.of(fieldName),
      F: ANNOTATION_FLAG_PRINT,
      P: page.ref,
      AP: { N: appearanceRef },
    }),
  );

  // The page lists the widget in /Annots.
  const annots = update.resolve(page.node, page.ref, 'Annots', 'array');
  if (annots.value) {
    annots.value.push(widgetRef);
    update.set(annots.ownerRef, annots.ownerRef === page.ref ? page.node : annots.value);
  } else {
    page.node.set(PDFName.of('Annots'), context.obj([widgetRef]));
    update.set(page.ref, page.node);
  }

  // The AcroForm lists the field and says signatures exist (append only).
  const rootRef = update.rootRef;
  const catalog = update.catalog;
  let acroFormRef: PDFRef;
  let acroForm: PDFDict;
  const existing = catalog.get(PDFName.of('AcroForm'));
  if (existing instanceof PDFRef) {
    acroFormRef = existing;
    acroForm = context.lookup(existing, PDFDict);
  } else {
    // Direct or missing: move it into its own object and point the catalog at it.
    acroForm = existing instanceof PDFDict ? existing : context.obj({});
    acroFormRef = update.allocate();
    catalog.set(PDFName.of('AcroForm'), acroFormRef);
    update.set(rootRef, catalog);
  }
  const flags = acroForm.lookupMaybe(PDFName.of('SigFlags'), PDFNumber)?.asNumber() ?? 0;
  acroForm.set(PDFName.of('SigFlags'), PDFNumber.of(flags | SIG_FLAGS_SIGNATURES_EXIST_APPEND_ONLY));
  const fields = update.resolve(acroForm, acroFormRef, 'Fields', 'array');
  if (fields.value) {
    fields.value.push(widgetRef);
    if (fields.ownerRef !== acroFormRef) update.set(fields.ownerRef, fields.value);
  } else {
    acroForm.set(PDFName.of('Fields'), context.obj([widgetRef]));
  }
  update.set(acroFormRef, acroForm);

  return { pdf: update.toBytes(), fieldName };
}

export interface FilledPlaceholder {
  pdf: Uint8Array;
  byteRange: [number, number, number, number];
}

/**
 * Finds the one unfilled /ByteRange placeholder (as @signpdf does), writes the real ByteRange over
 * it (padded with spaces to the same length) and zero-fills /Contents as hex. The ByteRange covers
 * the whole file except the /Contents hex string including its angle brackets.
 */
export function fillByteRange(input: Uint8Array): FilledPlaceholder {
  const pdf = Buffer.from(input); // a copy: the caller's bytes stay as they are
  const placeholderName = `/${BYTE_RANGE_NAME}`;
  let found: { start: number; end: number } | undefined;
  for (let offset = 0; ;) {
    const position = pdf.indexOf('/ByteRange', offset);
    if (position < 0) break;
    const open = pdf.indexOf('[', position);
    const close = pdf.indexOf(']', open);
    if (open < 0 || close < 0) break;
    const items = pdf
      .subarray(open + 1, close)
      .toString('latin1')
      .split(/\s+/)
      .filter(Boolean);
    if (items.length === 4 && items[0] === '0' && items.slice(1).every((i) => i === placeholderName)) {
      if (found) throw new PadesError('placeholder_not_found', 'the PDF has more than one ByteRange placeholder');
      found = { start: open, end: close + 1 };
    }
    offset = close;
  }
  if (!found) throw new PadesError('placeholder_not_found', 'the PDF has no ByteRange placeholder');

  // /Contents of the same dictionary: between the object's start and its endobj.
  const objectEnd = pdf.indexOf('endobj', found.end);
  const objectStart = Math.max(pdf.lastIndexOf(' obj', found.start), 0);
  const contentsKey = pdf.indexOf('/Contents', objectStart);
  if (contentsKey < 0 || contentsKey > objectEnd)
    throw new PadesError('placeholder_not_found', 'the signature dictionary has no /Contents');
  let open = contentsKey + '/Contents'.length;
  while (isSpace(pdf[open])) open += 1;
  const close = pdf.indexOf('>', open);
  if (pdf[open] !== 0x3c || close < 0 || close > objectEnd) throw new PadesError('placeholder_not_found', '/Contents is not a hex string');

  const contentsStart = open;
  const contentsEnd = close + 1;
  const byteRange: [number, number, number, number] = [0, contentsStart, contentsEnd, pdf.length - contentsEnd];
  const text = `[${byteRange.join(' ')}]`;
  const width = found.end - found.start;
  if (text.length > width) throw new PadesError('unsupported_pdf', 'the file is too large for the ByteRange placeholder');
  pdf.write(text.padEnd(width, ' '), found.start, 'latin1');
  pdf.fill('0', contentsStart + 1, contentsEnd - 1, 'latin1');
  return { pdf: new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength), byteRange };
}

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c;
}

/** The bytes a signature over `byteRange` covers. */
export function signedBytes(pdf: Uint8Array, byteRange: readonly [number, number, number, number]): Uint8Array {
  const [a, b, c, d] = byteRange;
  const out = new Uint8Array(b + d);
  out.set(pdf.subarray(a, a + b), 0);
  out.set(pdf.subarray(c, c + d), b);
  return out;
}

/** Writes the DER CMS into /Contents (hex, zero-padded), failing clearly if it does not fit. */
export function embedCms(
  pdfWithPlaceholder: Uint8Array,
  byteRange: readonly [number, number, number, number],
  cms: Uint8Array,
): Uint8Array {
  const [, contentsStart, contentsEnd] = byteRange;
  const room = (contentsEnd - contentsStart - 2) / 2;
  if (cms.byteLength > room) {
    throw new PadesError(
      'placeholder_too_small',
      `the CMS is ${cms.byteLength} bytes but the placeholder holds ${room}: raise placeholderBytes`,
    );
  }
  if (pdfWithPlaceholder[contentsStart] !== 0x3c || pdfWithPlaceholder[contentsEnd - 1] !== 0x3e) {
    throw new PadesError('placeholder_not_found', 'the ByteRange does not frame a /Contents hex string');
  }
  const out = Buffer.from(pdfWithPlaceholder);
  out.write(Buffer.from(cms).toString('hex').toUpperCase(), contentsStart + 1, 'latin1');
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
