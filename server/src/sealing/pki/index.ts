/**
 * The built-in PKI: local CA, seal, RFC 3161 TSA, OCSP, CRL and the Ed25519 evidence key.
 * See README.md in this folder. Other modules import from here only.
 */
export { loadOrCreatePki, Pki, type CertifiedKey, type PkiOptions } from './pki.js';
export type { PkiStorage, PkiMaterial, StoredLeaf } from './storage.js';
export { filePkiStorage, readFolderPki, type FolderPki } from './fileStorage.js';
export { pkiOptionsFromConfig } from './options.js';
export { pkiUrls, type PkiUrls, type LeafRole } from './certificates.js';
export type { SealSigner, EvidenceKey } from './signers.js';
export type { SignatureAlgorithm, SignatureHash } from './keys.js';
export {
  timestamp,
  timestampData,
  respondToTimeStampQuery,
  tokenFromResponse,
  readTimeStampToken,
  TimestampError,
  type MessageImprintInput,
  type TimestampOptions,
  type TimeStampTokenInfo,
} from './tsa.js';
export { ExternalTsaError } from './externalTsa.js';
export { ocspResponseFor, respondToOcspRequest, OcspError } from './ocsp.js';
export { crlDer } from './crl.js';
export { revokeCertificate, RevocationError } from './revoke.js';
export { REVOCATION_REASONS, revocationRecord, type Revocation, type RevocationReason } from './revocation.js';
export { describePki, type PkiDescription, type CertificateSummary } from './publication.js';
export { loadPkcs12, Pkcs12Error, type Pkcs12Seal } from './pkcs12.js';
export { toPem, fromPem, allPem, normaliseSerialHex } from './encoding.js';
