/**
 * The document timestamp of PAdES B-LTA (ETSI EN 319 142-1 §5.5): an incremental update adding a
 * signature field whose /V is a /Type /DocTimeStamp dictionary (/SubFilter /ETSI.RFC3161) and whose
 * /Contents is an RFC 3161 TimeStampToken over SHA-256 of the ByteRange, i.e. over the whole file
 * before it (every signature, every /DSS) and the new field itself.
 *
 * It reuses the incremental field writer and the placeholder machinery of signatures, so earlier
 * revisions stay byte for byte and the trailer keeps its /ID.
 */
import { X509Certificate } from 'node:crypto';
import { checkTimestampToken, timestampTokenCertificates } from '@tawqi/shared/cms';
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
  return padesErrors(() => tokenSummary(derPrefix(text.subarray(open + 1, close).toString('latin1'))));
}

/**
 * The DER value at the start of a zero-padded /Contents hex string: its length is read from the
 * SEQUENCE header, so only the token is decoded (the padding may be several times larger).
 */
function derPrefix(hex: string): Uint8Array {
  const header = Buffer.from(hex.slice(0, 12), 'hex');
  const first = header[1] ?? 0;
  const lengthBytes = first & 0x80 ? first & 0x7f : 0;
  if (header[0] !== 0x30 || lengthBytes > 4) throw new PadesError('invalid_timestamp', 'the document timestamp is not DER');
  let length = lengthBytes ? 0 : first;
  for (let i = 0; i < lengthBytes; i += 1) length = length * 256 + (header[2 + i] ?? 0);
  return new Uint8Array(Buffer.from(hex.slice(0, (2 + lengthBytes + length) * 2), 'hex'));
}

/** id-kp-timeStamping: the extended key usage of a TSA certificate (RFC 3161 §2.3). */
const EKU_TIME_STAMPING = '1.3.6.1.5.5.7.3.8';

/** The token's certificates, the TSA's first (the one with id-kp-timeStamping), and when it ends. */
function tokenSummary(token: Uint8Array): EmbeddedTimestamp {
  const certificates = timestampTokenCertificates(token).map((der) => ({ der, x509: new X509Certificate(der) }));
  const tsa = certificates.find((c) => c.x509.keyUsage?.includes(EKU_TIME_STAMPING));
  if (!tsa) throw new PadesError('invalid_timestamp', 'the document timestamp does not carry its TSA certificate');
  const ders = [tsa, ...certificates.filter((c) => c !== tsa)].map((c) => c.der);
  return { token, certificates: ders, notAfter: new Date(tsa.x509.validTo) };
}
