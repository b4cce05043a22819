/**
 * The document timestamp of PAdES B-LTA (ETSI EN 319 142-1 §5.5): an incremental update adding a
 * signature field whose /V is a /Type /DocTimeStamp dictionary (/SubFilter /ETSI.RFC3161) and whose
 * /Contents is an RFC 3161 TimeStampToken over SHA-256 of the ByteRange, i.e. over the whole file
 * before it (every signature, every /DSS) and the new field itself.
 *
 * It reuses the incremental field writer and the placeholder machinery of signatures, so earlier
 * revisions stay byte for byte and the trailer keeps its /ID.
 */
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { checkTimestampToken, readSignedData } from '@tawqi/shared/cms';
import { addFieldIncremental, docTimeStampDictionary, embedCms, fillByteRange, signedBytes } from './placeholder.js';
import { padesErrors, sha256 } from './signature.js';
import { PadesError, type TimestampFn } from './types.js';

/**
 * Room for the token: a built-in TSA token with its certificate is about 1 KB, an external TSA's
 * with a full chain a few KB. A token that does not fit is retried once with room for it.
 */
export const DOC_TIMESTAMP_PLACEHOLDER_BYTES = 8192;

export interface DocumentTimestampOptions {
  /** Bytes reserved for the DER token in /Contents. Default DOC_TIMESTAMP_PLACEHOLDER_BYTES. */
  placeholderBytes?: number;
  /** The page (0-based) that carries the invisible field's widget. Default 0. */
  pageIndex?: number;
}

/** Appends a document timestamp (B-LTA) to a PDF, signed or not; returns the new file. */
export async function appendDocumentTimestamp(
  pdf: Uint8Array,
  timestamp: TimestampFn,
  options: DocumentTimestampOptions = {},
): Promise<Uint8Array> {
  const room = options.placeholderBytes ?? DOC_TIMESTAMP_PLACEHOLDER_BYTES;
  const pageIndex = options.pageIndex ?? 0;
  const first = await stamp(pdf, timestamp, room, pageIndex);
  if (first.pdf) return first.pdf;
  // The TSA's token is larger than the room (a long chain): once more with room for it.
  const second = await stamp(pdf, timestamp, first.tokenBytes + 1024, pageIndex);
  if (second.pdf) return second.pdf;
  throw new PadesError('placeholder_too_small', `the timestamp token (${second.tokenBytes} bytes) does not fit`);
}

async function stamp(
  pdf: Uint8Array,
  timestamp: TimestampFn,
  room: number,
  pageIndex: number,
): Promise<{ pdf: Uint8Array | null; tokenBytes: number }> {
  const { pdf: withField } = await addFieldIncremental(pdf, docTimeStampDictionary(room), pageIndex);
  const { pdf: placeholder, byteRange } = fillByteRange(withField);
  const digest = sha256(signedBytes(placeholder, byteRange));
  const token = await timestamp(digest);
  padesErrors(() => checkTimestampToken(token, digest));
  if (token.byteLength > room) return { pdf: null, tokenBytes: token.byteLength };
  return { pdf: embedCms(placeholder, byteRange, token), tokenBytes: token.byteLength };
}

export interface EmbeddedTimestamp {
  /** The DER TimeStampToken (ContentInfo), padding cut off. */
  token: Uint8Array;
  /** Every certificate the token carries (the TSA's first). */
  certificates: Uint8Array[];
  /** When the TSA's certificate ends: the token can be checked until then. */
  notAfter: Date;
}

/** The last document timestamp of a PDF (the one of its latest revision that has one), or null. */
export function lastDocumentTimestamp(pdf: Uint8Array): EmbeddedTimestamp | null {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const at = text.lastIndexOf('/ETSI.RFC3161');
  if (at < 0) return null;
  const objectStart = text.lastIndexOf(' obj', at);
  const contents = text.indexOf('/Contents', objectStart);
  const open = text.indexOf('<', contents);
  const close = text.indexOf('>', open);
  if (contents < 0 || open < 0 || close < 0 || close > text.indexOf('endobj', at)) {
    throw new PadesError('invalid_pdf', 'the document timestamp has no /Contents');
  }
  const padded = Buffer.from(text.subarray(open + 1, close).toString('latin1'), 'hex');
  return padesErrors(() => tokenSummary(derPrefix(padded)));
}

/** The DER value at the start of a zero-padded /Contents. */
function derPrefix(padded: Uint8Array): Uint8Array {
  const parsed = asn1js.fromBER(padded);
  if (parsed.offset === -1) throw new PadesError('invalid_timestamp', 'the document timestamp is not DER');
  return new Uint8Array(padded.subarray(0, parsed.offset));
}

function tokenSummary(token: Uint8Array): EmbeddedTimestamp {
  const signed = readSignedData(token);
  const certificates = (signed.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  const sid = signed.signerInfos[0]?.sid;
  const signer =
    sid instanceof pkijs.IssuerAndSerialNumber ? certificates.find((c) => c.serialNumber.isEqual(sid.serialNumber)) : certificates[0];
  if (!signer) throw new PadesError('invalid_timestamp', 'the document timestamp does not carry its TSA certificate');
  const ders = [signer, ...certificates.filter((c) => c !== signer)].map((c) => new Uint8Array(c.toSchema().toBER(false)));
  return { token, certificates: ders, notAfter: signer.notAfter.value };
}
