/**
 * DER plumbing for the CMS module: parsing with a clear error, encoding, byte comparison in DER
 * order, raw bytes inside an asn1js tree, certificate fields as encoded, ECDSA signature encodings.
 * Browser-safe: Uint8Array only: no Node buffers and no node:crypto.
 */
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

export type CmsErrorCode = 'invalid_certificate' | 'invalid_cms' | 'invalid_timestamp' | 'digest_mismatch';

/** What the CMS module throws; the codes are PadesError's for the same failures. */
export class CmsError extends Error {
  constructor(
    readonly code: CmsErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CmsError';
  }
}

/** The DER of an asn1js block or a pkijs schema. */
export const der = (block: { toBER(sizeOnly?: boolean): ArrayBuffer }): Uint8Array => new Uint8Array(block.toBER(false));

/** Parses exactly one DER element (trailing bytes are refused). */
export function parseDer(bytes: Uint8Array, what: string, code: CmsErrorCode = 'invalid_cms'): asn1js.AsnType {
  const parsed = asn1js.fromBER(bytes);
  if (parsed.offset === -1 || parsed.offset !== bytes.byteLength) throw new CmsError(code, `${what} is not valid DER`);
  return parsed.result;
}

/** An exact-length ArrayBuffer copy (for APIs that want ArrayBuffers where callers hold views). */
export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  const out = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(out).set(bytes);
  return out;
}

/** X.690 §11.6 order of SET OF components: bytewise, a proper prefix first. */
export function compareDer(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.byteLength, b.byteLength);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.byteLength - b.byteLength;
}

export const bytesEqual = (a: Uint8Array, b: Uint8Array): boolean => compareDer(a, b) === 0;

/** The DER elements of a list without repeats, first occurrence kept. */
export function distinctDer(list: readonly Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const item of list) if (!out.some((seen) => bytesEqual(seen, item))) out.push(item);
  return out;
}

/**
 * Bytes that go into an asn1js tree as they are (asn1js's own RawData ignores the writer a parent
 * passes, so it cannot be nested). Used for fields copied from a certificate and for a TSA's token.
 */
class RawBlock {
  constructor(private readonly bytes: Uint8Array) {}
  toBER(_sizeOnly?: boolean, writer?: { write(buffer: ArrayBuffer): void }): ArrayBuffer {
    const buffer = toArrayBuffer(this.bytes);
    if (!writer) return buffer;
    writer.write(buffer);
    return new ArrayBuffer(0);
  }
}
export const raw = (bytes: Uint8Array): never => new RawBlock(bytes) as never;

export function parseCertificate(certificate: Uint8Array): pkijs.Certificate {
  const schema = parseDer(certificate, 'certificate', 'invalid_certificate');
  try {
    return new pkijs.Certificate({ schema });
  } catch (error) {
    throw new CmsError('invalid_certificate', `certificate is not an X.509 certificate: ${(error as Error).message}`);
  }
}

/** The issuer Name and serialNumber INTEGER of a certificate, as they are encoded in it. */
export function issuerAndSerialOf(certificate: Uint8Array): { issuer: Uint8Array; serial: Uint8Array } {
  const cert = parseDer(certificate, 'certificate', 'invalid_certificate') as asn1js.Sequence;
  const tbs = cert.valueBlock.value[0] as asn1js.Sequence | undefined;
  const fields = tbs?.valueBlock.value ?? [];
  // TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer, … }
  const offset = fields[0]?.idBlock.tagClass === 3 ? 1 : 0;
  const serial = fields[offset];
  const issuer = fields[offset + 2];
  if (!serial || !issuer) throw new CmsError('invalid_certificate', 'certificate has no issuer or serial number');
  return { issuer: new Uint8Array(issuer.valueBeforeDecodeView), serial: new Uint8Array(serial.valueBeforeDecodeView) };
}

function derLength(length: number): number[] {
  if (length < 0x80) return [length];
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return [0x80 | bytes.length, ...bytes];
}

/** A DER INTEGER holding the unsigned big-endian `value`: leading zeros dropped, one 0x00 added when the high bit is set. */
function derUnsignedInteger(value: Uint8Array): number[] {
  let start = 0;
  while (start < value.byteLength - 1 && value[start] === 0) start++;
  const body = Array.from(value.subarray(start));
  if (body.length === 0) body.push(0);
  if ((body[0] ?? 0) & 0x80) body.unshift(0);
  return [0x02, ...derLength(body.length), ...body];
}

/** ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } from the raw r‖s of PKCS#11 and WebCrypto (equal halves). */
export function ecdsaRawToDer(rawSignature: Uint8Array): Uint8Array {
  if (rawSignature.byteLength === 0 || rawSignature.byteLength % 2 !== 0)
    throw new Error('raw ECDSA signature must be r‖s of equal length');
  const half = rawSignature.byteLength / 2;
  const r = derUnsignedInteger(rawSignature.subarray(0, half));
  const s = derUnsignedInteger(rawSignature.subarray(half));
  return Uint8Array.from([0x30, ...derLength(r.length + s.length), ...r, ...s]);
}

/** True when `signature` is a DER ECDSA-Sig-Value (a SEQUENCE of two INTEGERs, nothing after it). */
export function isDerEcdsa(signature: Uint8Array): boolean {
  if (signature[0] !== 0x30) return false;
  const parsed = asn1js.fromBER(signature);
  if (parsed.offset !== signature.byteLength || !(parsed.result instanceof asn1js.Sequence)) return false;
  const parts = parsed.result.valueBlock.value;
  return parts.length === 2 && parts.every((p) => p instanceof asn1js.Integer);
}

/** The components of a constructed block; throws on anything else. */
export function childrenOf(block: asn1js.AsnType | undefined): asn1js.AsnType[] {
  const value = (block as asn1js.Constructed | undefined)?.valueBlock?.value;
  if (!Array.isArray(value)) throw new Error('unexpected ASN.1 structure');
  return value as asn1js.AsnType[];
}

export function oidOf(block: asn1js.AsnType | undefined): string | undefined {
  return block instanceof asn1js.ObjectIdentifier ? block.valueBlock.toString() : undefined;
}

/** The content of an explicit [0] tag. */
export function explicitContent(block: asn1js.AsnType | undefined): asn1js.AsnType | undefined {
  if (!block || block.idBlock.tagClass !== 3 || block.idBlock.tagNumber !== 0) throw new Error('missing [0] content');
  return childrenOf(block)[0];
}
