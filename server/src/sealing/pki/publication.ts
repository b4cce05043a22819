import { X509Certificate } from 'node:crypto';
import { normaliseSerialHex } from './encoding.js';
import type { Pki } from './pki.js';

/**
 * What GET /pki tells verifiers: each certificate and key, where to fetch it, and plainly that the
 * built-in ones are made by this server and are not publicly trusted.
 */

export interface CertificateSummary {
  subject: string;
  issuer: string;
  serial: string;
  not_before: number;
  not_after: number;
  sha256_fingerprint: string;
  built_in: boolean;
  /** Always false for built-in certificates; null for an operator's certificate (we cannot tell). */
  publicly_trusted: boolean | null;
}

export interface PkiDescription {
  object: 'pki';
  notice: string;
  ca: CertificateSummary & { pem_url: string; der_url: string };
  seal: CertificateSummary & { chain_length: number };
  tsa: { url: string; policy: string; external_url: string | null; certificate: CertificateSummary & { pem_url: string } };
  ocsp: { url: string; certificate: CertificateSummary & { pem_url: string } };
  crl: { url: string };
  evidence_key: { algorithm: 'Ed25519'; key_id: string; pem_url: string; public_key_pem: string };
}

export const NOT_TRUSTED_NOTICE =
  'The CA, seal, TSA and OCSP certificates marked built_in were created by this Tawqi server. They are not publicly trusted: ' +
  'a verifier must add this CA as a trust anchor on purpose, after checking its fingerprint with the operator.';

/** Node's "O=Tawqi\nCN=a\, b" as "O=Tawqi, CN=a, b": for people to read, not to parse. */
const readable = (name: string): string =>
  name
    .split('\n')
    .map((rdn) => rdn.replace(/\\(.)/g, '$1'))
    .join(', ');

function summary(der: Uint8Array, builtIn: boolean): CertificateSummary {
  const c = new X509Certificate(Buffer.from(der));
  return {
    subject: readable(c.subject),
    issuer: readable(c.issuer),
    serial: normaliseSerialHex(c.serialNumber),
    not_before: Math.floor(new Date(c.validFrom).getTime() / 1000),
    not_after: Math.floor(new Date(c.validTo).getTime() / 1000),
    sha256_fingerprint: c.fingerprint256,
    built_in: builtIn,
    publicly_trusted: builtIn ? false : null,
  };
}

export function describePki(pki: Pki): PkiDescription {
  const u = pki.urls;
  const seal = pki.seal;
  return {
    object: 'pki',
    notice: NOT_TRUSTED_NOTICE,
    ca: { ...summary(pki.ca.certificate, true), pem_url: `${u.base}/pki/ca.pem`, der_url: u.caIssuers },
    seal: { ...summary(seal.certificate, seal.builtIn), chain_length: seal.chain.length },
    tsa: {
      url: u.tsa,
      policy: pki.tsa.policyOid,
      external_url: pki.externalTsaUrl,
      certificate: { ...summary(pki.tsa.certificate, true), pem_url: `${u.base}/pki/tsa.pem` },
    },
    ocsp: { url: u.ocsp, certificate: { ...summary(pki.ocsp.certificate, true), pem_url: `${u.base}/pki/ocsp.pem` } },
    crl: { url: u.crl },
    evidence_key: {
      algorithm: 'Ed25519',
      key_id: pki.evidence.keyId,
      pem_url: `${u.base}/pki/evidence-key.pem`,
      public_key_pem: pki.evidence.publicKeyPem,
    },
  };
}

/** "AB:CD:…" SHA-256 fingerprint of a DER certificate. */
export function fingerprint256(der: Uint8Array): string {
  return new X509Certificate(Buffer.from(der)).fingerprint256;
}
