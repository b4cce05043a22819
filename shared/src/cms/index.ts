/**
 * @tawqi/shared/cms: the one CMS / ASN.1 module of the server (PAdES, the built-in TSA and OCSP) and
 * the agent, on pkijs + asn1js. Browser-safe and synchronous: hashes come in as input (computed by the
 * caller with node:crypto or crypto.subtle), no Node buffers, no node:crypto. A separate entry point so the
 * main `@tawqi/shared` entry (and the signing page's bundle) does not pull pkijs.
 *
 *   attributes   one build/read pair per attribute, the DER SET OF signed attributes, the PAdES set
 *   signedData   SignedData/ContentInfo assembly and reading, the signature-timestamp token check
 *   der          DER parsing/encoding/ordering, raw bytes in an asn1js tree, ECDSA encodings
 *   oids         object identifiers
 */
export * from './oids.js';
export * from './der.js';
export * from './attributes.js';
export * from './signedData.js';
