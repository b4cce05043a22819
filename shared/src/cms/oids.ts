/**
 * Object identifiers used by the CMS module, the built-in PKI and the agent.
 *
 * Tawqi's own arc is a UUID OID (ITU-T X.667, no registration needed): 2.25 followed by the decimal
 * value of the UUID c63091f4-4876-4c22-acad-c92c5315d5fb, fixed for the product (not per installation).
 * Allocated below it:
 *   .1  policy of the built-in time-stamping authority, version 1 (TSTInfo.policy)
 *   .2  policy of every certificate the built-in CA issues: "built-in, not publicly trusted"
 */
export const TAWQI_ARC = '2.25.263439333718113131027169297263135938043';
export const TSA_POLICY_OID = `${TAWQI_ARC}.1`;
export const BUILT_IN_CERT_POLICY_OID = `${TAWQI_ARC}.2`;

// Hashes (RFC 5754; SHA-1 only to read CertIDs of OCSP requests).
export const OID_SHA1 = '1.3.14.3.2.26';
export const OID_SHA256 = '2.16.840.1.101.3.4.2.1';
export const OID_SHA384 = '2.16.840.1.101.3.4.2.2';
export const OID_SHA512 = '2.16.840.1.101.3.4.2.3';

// Signature algorithms.
export const OID_ECDSA_SHA256 = '1.2.840.10045.4.3.2';
export const OID_SHA256_RSA = '1.2.840.113549.1.1.11';

// CMS (RFC 5652, 5035, 3161).
export const OID_DATA = '1.2.840.113549.1.7.1';
export const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
export const OID_CT_TST_INFO = '1.2.840.113549.1.9.16.1.4';
export const OID_ATTR_CONTENT_TYPE = '1.2.840.113549.1.9.3';
export const OID_ATTR_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
export const OID_ATTR_SIGNING_TIME = '1.2.840.113549.1.9.5';
export const OID_ATTR_SIGNING_CERTIFICATE_V2 = '1.2.840.113549.1.9.16.2.47';
export const OID_ATTR_SIGNATURE_TIME_STAMP_TOKEN = '1.2.840.113549.1.9.16.2.14';

// OCSP (RFC 6960).
export const OID_OCSP_BASIC = '1.3.6.1.5.5.7.48.1.1';
export const OID_OCSP_NONCE = '1.3.6.1.5.5.7.48.1.2';
export const OID_OCSP_NOCHECK = '1.3.6.1.5.5.7.48.1.5';

// Extended key usages and extensions.
export const OID_SUBJECT_KEY_IDENTIFIER = '2.5.29.14';
export const OID_KEY_USAGE = '2.5.29.15';
export const OID_BASIC_CONSTRAINTS = '2.5.29.19';
export const OID_KP_TIME_STAMPING = '1.3.6.1.5.5.7.3.8';
export const OID_KP_OCSP_SIGNING = '1.3.6.1.5.5.7.3.9';
export const OID_CRL_NUMBER = '2.5.29.20';
export const OID_CRL_DISTRIBUTION_POINTS = '2.5.29.31';
export const OID_AUTHORITY_INFO_ACCESS = '1.3.6.1.5.5.7.1.1';

/**
 * asn1js prints an arc above 2^53 (like the UUID arc above) as "{hex}", the hex being its base-128
 * digits one per byte; turn such arcs back into decimal so OIDs read by pkijs compare equal to ours.
 */
export function normaliseOid(oid: string): string {
  return oid.replace(/\{([0-9a-fA-F]+)\}/g, (_m, hex: string) => {
    let value = 0n;
    for (let i = 0; i + 1 < hex.length; i += 2) value = value * 128n + BigInt(parseInt(hex.slice(i, i + 2), 16) & 0x7f);
    return value.toString(10);
  });
}

/** Hash names (node:crypto spelling) by OID, and the digest length each must have. */
export const HASHES: Readonly<Record<string, { node: string; name: string; length: number }>> = {
  [OID_SHA1]: { node: 'sha1', name: 'SHA-1', length: 20 },
  [OID_SHA256]: { node: 'sha256', name: 'SHA-256', length: 32 },
  [OID_SHA384]: { node: 'sha384', name: 'SHA-384', length: 48 },
  [OID_SHA512]: { node: 'sha512', name: 'SHA-512', length: 64 },
};

/** 'SHA-256' (or 'sha256') or an OID → the OID; null when unknown. */
export function hashOid(nameOrOid: string): string | null {
  if (HASHES[nameOrOid]) return nameOrOid;
  const wanted = nameOrOid.replace(/-/g, '').toLowerCase();
  for (const [oid, h] of Object.entries(HASHES)) if (h.node === wanted) return oid;
  return null;
}
