/**
 * Inputs and outputs of the PAdES signer. Nothing here depends on where keys, timestamps or revocation
 * data come from: the platform PKI (sealing/pki), an operator's HSM or a signer's token behind the
 * desktop agent all fit these shapes.
 */

export type PadesKeyAlgorithm = 'RSA' | 'ECDSA-P256' | 'ECDSA-P384';

export interface PadesSigner {
  /** DER of the signing certificate. */
  certificate: Uint8Array;
  /** DER of intermediate/root certificates to include in SignedData.certificates. */
  chain: Uint8Array[];
  /**
   * Sign the DER-encoded signed attributes (SET OF, tag 0x31) with SHA-256; returns the raw signature
   * as the CMS SignerInfo expects (RSA PKCS#1 v1.5, or ECDSA DER).
   */
  sign(signedAttributesDer: Uint8Array): Promise<Uint8Array>;
  keyAlgorithm: PadesKeyAlgorithm;
}

/** Asks a TSA to stamp a SHA-256 digest; returns a DER TimeStampToken (a CMS ContentInfo). */
export type TimestampFn = (sha256OfData: Uint8Array) => Promise<Uint8Array>;

/** What goes into the /DSS for B-LT: DER certificates, DER CRLs, DER OCSPResponses. */
export interface RevocationData {
  certificates: Uint8Array[];
  crls: Uint8Array[];
  ocspResponses: Uint8Array[];
}

export type PadesLevel = 'B-T' | 'B-LT';

/** What the signature dictionary and widget say; identical for the one-shot and the split API. */
export interface PadesPlaceholderOptions {
  /** Written to /M (PDF date). The CMS carries no signing-time attribute (PAdES baseline). */
  signingTime: Date;
  reason?: string;
  /** /Name of the signature dictionary (the signer's or the platform's name). */
  name?: string;
  location?: string;
  contactInfo?: string;
  /**
   * Bytes reserved for the DER CMS in /Contents (the hex string is twice as long). Default 16384;
   * values below 16384 are refused so the timestamp token and chain always fit. Completing fails
   * with PadesError('placeholder_too_small') if the CMS is larger.
   */
  placeholderBytes?: number;
  /**
   * How the placeholder is added. 'rewrite': pdf-lib loads and re-saves the whole file
   * (@signpdf/placeholder-pdf-lib) — only for a PDF that has no signature yet. 'incremental': our
   * incremental-update writer appends a new field (keeps every earlier revision byte for byte).
   * Default: 'rewrite' for an unsigned PDF, 'incremental' for a PDF that already has a signature.
   */
  mode?: 'rewrite' | 'incremental';
  /** The page (0-based) that carries the invisible signature widget. Default 0. */
  pageIndex?: number;
}

export interface PreparePadesOptions extends PadesPlaceholderOptions {
  /** DER of the signing certificate (goes into signing-certificate-v2 and SignedData). */
  certificate: Uint8Array;
  /** DER of intermediate/root certificates for SignedData.certificates. */
  chain: Uint8Array[];
  keyAlgorithm: PadesKeyAlgorithm;
}

/**
 * A PDF with an empty signature placeholder and the bytes an external signer must sign. Plain data
 * (Uint8Arrays, numbers, strings): it can be stored between the two halves of a qes signature.
 */
export interface PreparedPades {
  /** The PDF with /ByteRange filled in and /Contents still zero. */
  pdfWithPlaceholder: Uint8Array;
  /** [0, contentsStart, contentsEnd, rest] as written to /ByteRange. */
  byteRange: [number, number, number, number];
  /** SHA-256 of the bytes the ByteRange covers (the CMS message-digest). */
  byteRangeDigest: Uint8Array;
  /** DER (tag 0x31) of the signed attributes: exactly the bytes the signer signs with SHA-256. */
  signedAttributesDer: Uint8Array;
  certificate: Uint8Array;
  chain: Uint8Array[];
  keyAlgorithm: PadesKeyAlgorithm;
  /** The signature field's name (/T), e.g. "Signature1". */
  fieldName: string;
}

export interface CompletePadesOptions {
  timestamp: TimestampFn;
  level: PadesLevel;
  /** Required for B-LT: CRLs and/or OCSP responses (and any extra certificates) for the /DSS. */
  revocation?: RevocationData;
}

export interface SignPadesOptions extends PadesPlaceholderOptions, CompletePadesOptions {
  signer: PadesSigner;
}

export type PadesErrorCode =
  | 'invalid_pdf'
  | 'unsupported_pdf'
  | 'placeholder_not_found'
  | 'placeholder_too_small'
  | 'invalid_certificate'
  | 'invalid_signature_value'
  | 'invalid_timestamp'
  | 'invalid_cms'
  | 'missing_revocation'
  | 'digest_mismatch';

export class PadesError extends Error {
  constructor(
    readonly code: PadesErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'PadesError';
  }
}
