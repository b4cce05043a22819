/**
 * The revisions of a PDF (each incremental update ends with %%EOF) and the signature dictionaries in
 * it. A revision is read by loading the file's bytes up to its end: pdf-lib then sees exactly what
 * the signer saw.
 */
import * as asn1js from 'asn1js';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString, type PDFObject } from 'pdf-lib';

/** Offsets just past each %%EOF (and its end-of-line): where each revision ends. */
export function revisionEnds(pdf: Uint8Array): number[] {
  const buffer = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const ends: number[] = [];
  for (let at = buffer.indexOf('%%EOF'); at >= 0; at = buffer.indexOf('%%EOF', at + 5)) {
    let end = at + 5;
    if (pdf[end] === 0x0d) end += 1;
    if (pdf[end] === 0x0a) end += 1;
    ends.push(end);
  }
  if (ends.length === 0 || ends[ends.length - 1]! < pdf.byteLength) ends.push(pdf.byteLength);
  return ends;
}

export const loadRevision = (pdf: Uint8Array, end: number): Promise<PDFDocument> =>
  PDFDocument.load(pdf.subarray(0, end), { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });

export interface FoundSignature {
  ref: PDFRef;
  kind: 'signature' | 'document-timestamp';
  byteRange: number[];
  subFilter: string | null;
  claimedTime: string | null;
  fieldName: string | null;
}

const text = (value: PDFObject | undefined): string | null =>
  value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : null;

/** "D:20260101120000Z" or "D:20260101120000+03'00'" as ISO 8601; null when unreadable. */
export function pdfDate(value: string | null): string | null {
  const m = value ? /^D:(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(Z|[+-]\d{2}'?\d{2}'?)?/.exec(value) : null;
  if (!m) return null;
  const zone = !m[7] || m[7] === 'Z' ? 'Z' : `${m[7].slice(0, 3)}:${m[7].replace(/'/g, '').slice(3, 5)}`;
  const date = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${zone}`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function byteRangeOf(dict: PDFDict): number[] | null {
  const array = dict.lookup(PDFName.of('ByteRange'));
  if (!(array instanceof PDFArray)) return null;
  return array.asArray().map((item) => (item instanceof PDFNumber ? item.asNumber() : NaN));
}

/** The field name (/T) of every signature field, by the ref of its value (/V). */
function fieldNames(doc: PDFDocument): Map<string, string> {
  const names = new Map<string, string>();
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict)) continue;
    const value = object.get(PDFName.of('V'));
    const name = text(object.get(PDFName.of('T')));
    if (value instanceof PDFRef && name !== null) names.set(value.toString(), name);
  }
  return names;
}

/** Every signature and document timestamp dictionary (any revision: later ones only add objects). */
export function findSignatures(doc: PDFDocument): FoundSignature[] {
  const names = fieldNames(doc);
  const found: FoundSignature[] = [];
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict) || !object.has(PDFName.of('Contents'))) continue;
    const byteRange = byteRangeOf(object);
    if (!byteRange) continue;
    const subFilter = object.lookup(PDFName.of('SubFilter'));
    const subFilterName = subFilter instanceof PDFName ? subFilter.decodeText() : null;
    const isTimestamp = object.lookup(PDFName.of('Type')) === PDFName.of('DocTimeStamp') || subFilterName === 'ETSI.RFC3161';
    found.push({
      ref,
      kind: isTimestamp ? 'document-timestamp' : 'signature',
      byteRange,
      subFilter: subFilterName,
      claimedTime: pdfDate(text(object.lookup(PDFName.of('M')))),
      fieldName: names.get(ref.toString()) ?? null,
    });
  }
  return found.sort((a, b) => (a.byteRange[3] ?? 0) + (a.byteRange[2] ?? 0) - ((b.byteRange[3] ?? 0) + (b.byteRange[2] ?? 0)));
}

export interface SignedRange {
  /** The DER CMS taken from the file between the two ranges. */
  cms: Uint8Array;
  /** The bytes the ByteRange covers. */
  signed: Uint8Array;
  /** Index into revisionEnds of the revision it covers. */
  revision: number;
  /** The ranges are well-formed, start at 0, leave out only /Contents <…> and end at a revision's end. */
  coversRevision: boolean;
}

/** /Contents is zero-padded to its placeholder's size: the DER ends where its outer length says. */
function withoutPadding(contents: Uint8Array): Uint8Array {
  const parsed = asn1js.fromBER(contents);
  return parsed.offset > 0 ? contents.subarray(0, parsed.offset) : contents;
}

const HEX = /^[0-9a-fA-F\s]*$/;

/** Reads what a ByteRange covers; null when it is not even four numbers inside the file. */
export function readByteRange(pdf: Uint8Array, byteRange: number[], ends: number[]): SignedRange | null {
  const [a, b, c, d] = byteRange;
  if (byteRange.length !== 4 || ![a, b, c, d].every((n) => Number.isSafeInteger(n) && n! >= 0)) return null;
  if (b! > c! || a! + b! > pdf.byteLength || c! + d! > pdf.byteLength) return null;
  const hex = Buffer.from(pdf.subarray(a! + b! + 1, c! - 1)).toString('latin1');
  const end = c! + d!;
  // A range may stop right after %%EOF or after its end-of-line.
  const revision = ends.findIndex((e) => e >= end && e - end <= 2 && pdf.subarray(end, e).every((x) => x === 0x0a || x === 0x0d));
  const coversRevision = a === 0 && revision >= 0 && pdf[b!] === 0x3c && pdf[c! - 1] === 0x3e && HEX.test(hex);
  const signed = Buffer.concat([pdf.subarray(a!, a! + b!), pdf.subarray(c!, c! + d!)]);
  return { cms: withoutPadding(new Uint8Array(Buffer.from(hex.replace(/\s/g, ''), 'hex'))), signed, revision, coversRevision };
}
