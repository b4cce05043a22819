/**
 * The validation report (sealing/validation): plain JSON data, the shape `tawqi verify --json` prints
 * and POST /verify returns. Indications follow ETSI EN 319 102-1 §5.1.3; sub-indications are its
 * names plus MODIFIED_AFTER_SIGNING and NO_SIGNATURE_FOUND (ours, documented in the README).
 */

export type Indication = 'TOTAL-PASSED' | 'INDETERMINATE' | 'TOTAL-FAILED';

export type SubIndication =
  | 'FORMAT_FAILURE'
  | 'HASH_FAILURE'
  | 'SIG_CRYPTO_FAILURE'
  | 'REVOKED'
  | 'REVOKED_CA_NO_POE'
  | 'MODIFIED_AFTER_SIGNING'
  | 'NO_CERTIFICATE_CHAIN_FOUND'
  | 'NO_SIGNING_CERTIFICATE_FOUND'
  | 'OUT_OF_BOUNDS_NO_POE'
  | 'NO_SIGNATURE_FOUND';

export type Level = 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';

export interface CertificateInfo {
  subject: string;
  issuer: string;
  serial: string;
  notBefore: string;
  notAfter: string;
  /** SHA-256 of the DER, hex. */
  sha256: string;
}

export interface ChainReport {
  /** Signer first, up to and including the trust anchor when one is reached. */
  certificates: CertificateInfo[];
  /** Subject of the trust anchor reached, or null. */
  trustAnchor: string | null;
  /** Every certificate of the chain was valid at `checkedAt`. */
  validAtTime: boolean;
  /**
   * The time the chain is checked at: for a signer, the genTime of its signature-time-stamp (none: the
   * validation time); for a TSA (signature-time-stamp or document timestamp), its token's proof of
   * existence — the genTime of the earliest later trusted document timestamp covering it, else the
   * validation time.
   */
  checkedAt: string;
}

export interface TimestampReport {
  genTime: string;
  tsa: string;
  /** The token's message imprint is the digest of what it stamps. */
  imprintMatches: boolean;
  signatureValid: boolean;
  chain: ChainReport;
}

export interface IntegrityReport {
  /** ByteRange starts at 0, covers its revision up to %%EOF, and leaves out exactly /Contents. */
  byteRangeCoversRevision: boolean;
  /** The digest of the covered bytes equals the CMS message-digest (or, for a document timestamp, the TSTInfo imprint). */
  digestMatches: boolean;
  /** The CMS signature verifies with the signer's public key. */
  signatureValid: boolean;
}

export interface RevocationReport {
  /** CRLs and OCSP responses in the /DSS of the final revision. */
  dssCrls: number;
  dssOcsps: number;
  /** CRLs (and revocation-values) carried inside the CMS. */
  cmsCrls: number;
  /** An authenticated CRL or OCSP response of the /DSS says the signer's certificate was revoked at or before the signing time. */
  signerRevoked: boolean;
  /**
   * The CA certificates on the signer's path below its trust anchor that authenticated revocation
   * data of the /DSS (a CRL or OCSP response of their own issuer) says were revoked at or before
   * the signing time: their subjects. A revoked CA makes every certificate it issued untrustworthy.
   */
  revokedCas: string[];
  /**
   * CRLs and OCSP responses of the /DSS about the signer's certificate that its issuer does not
   * authenticate (not signed by the issuer, a cRLSign certificate it issued, or its delegated OCSP
   * responder): not used for signerRevoked, revokedCas nor the B-LT level.
   */
  ignoredCrls: number;
  ignoredOcsps: number;
}

export interface ModificationReport {
  /** Revisions appended after this one. */
  laterRevisions: number;
  /** What the later revisions changed that is not DSS, a document timestamp or a new signature field. */
  disallowed: string[];
}

export interface SignatureReport {
  kind: 'signature' | 'document-timestamp';
  fieldName: string | null;
  subFilter: string | null;
  /** Subject of the signing (or TSA) certificate: CN, O. */
  signer: string | null;
  /** 1-based revision the signature covers. */
  revision: number;
  /** /M of the signature dictionary: what the signer claims, not proven. */
  claimedTime: string | null;
  /** genTime of the signature-time-stamp (or of the document timestamp itself). */
  signingTime: string | null;
  level: Level | null;
  integrity: IntegrityReport;
  chain: ChainReport | null;
  timestamp: TimestampReport | null;
  revocation: RevocationReport;
  modifications: ModificationReport;
  indication: Indication;
  subIndication: SubIndication | null;
  /** Why, in the report's language. */
  message: string;
}

export interface ValidationReport {
  /** Report format version. */
  version: 1;
  lang: 'ar' | 'en';
  validatedAt: string;
  revisions: number;
  signatures: SignatureReport[];
  indication: Indication;
  subIndication: SubIndication | null;
  message: string;
}
