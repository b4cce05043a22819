/** A prepared PAdES signature as the qes_prepared row keeps it (store/qes.ts): JSON, the PDF in its own column. */
import type { PadesKeyAlgorithm, PreparedPades } from '../pades/index.js';

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'base64'));

interface StoredPrepared {
  byteRange: [number, number, number, number];
  byteRangeDigest: string;
  signedAttributesDer: string;
  certificate: string;
  chain: string[];
  keyAlgorithm: PadesKeyAlgorithm;
  fieldName: string;
}

/** PreparedPades → the JSON column (the PDF goes to its own BLOB column). */
export function encodePrepared(p: PreparedPades): string {
  const stored: StoredPrepared = {
    byteRange: p.byteRange,
    byteRangeDigest: b64(p.byteRangeDigest),
    signedAttributesDer: b64(p.signedAttributesDer),
    certificate: b64(p.certificate),
    chain: p.chain.map(b64),
    keyAlgorithm: p.keyAlgorithm,
    fieldName: p.fieldName,
  };
  return JSON.stringify(stored);
}

export function decodePrepared(row: { prepared: string; pdf: Uint8Array }): PreparedPades {
  const s = JSON.parse(row.prepared) as StoredPrepared;
  return {
    pdfWithPlaceholder: new Uint8Array(row.pdf),
    byteRange: s.byteRange,
    byteRangeDigest: bytes(s.byteRangeDigest),
    signedAttributesDer: bytes(s.signedAttributesDer),
    certificate: bytes(s.certificate),
    chain: s.chain.map(bytes),
    keyAlgorithm: s.keyAlgorithm,
    fieldName: s.fieldName,
  };
}
