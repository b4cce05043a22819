/**
 * Certificate paths: from a signing (or TSA) certificate up through the certificates at hand (the
 * CMS's, the /DSS's) to a trust anchor, each link checked by name and signature (node:crypto).
 */
import { X509Certificate, createHash } from 'node:crypto';
import type { CertificateInfo, ChainReport } from './types.js';

const MAX_DEPTH = 8;

/** SHA-256 of a certificate's DER, hex: how a report names a certificate (CertificateInfo.sha256). */
export const certificateSha256 = (cert: X509Certificate): string => createHash('sha256').update(cert.raw).digest('hex');

export function certificateInfo(cert: X509Certificate): CertificateInfo {
  return {
    subject: cert.subject.replace(/\n/g, ', '),
    issuer: cert.issuer.replace(/\n/g, ', '),
    serial: cert.serialNumber.toLowerCase(),
    notBefore: new Date(cert.validFrom).toISOString(),
    notAfter: new Date(cert.validTo).toISOString(),
    sha256: certificateSha256(cert),
  };
}

/** "CN, O" of a certificate's subject (what a reader calls the signer). */
export function signerName(cert: X509Certificate): string {
  const parts = cert.subject.split('\n');
  // Node escapes a comma inside a value (\,); a reader wants the name as written.
  const pick = (key: string) =>
    parts
      .find((p) => p.startsWith(`${key}=`))
      ?.slice(key.length + 1)
      .replace(/\\(.)/g, '$1');
  return [pick('CN'), pick('O')].filter((p): p is string => !!p).join(', ') || cert.subject.replace(/\n/g, ', ');
}

export const parseCertificates = (ders: readonly Uint8Array[]): X509Certificate[] =>
  ders.flatMap((der) => {
    try {
      return [new X509Certificate(Buffer.from(der))];
    } catch {
      return [];
    }
  });

/** `issuer` is a CA (basicConstraints cA) that signed `cert`: an end-entity certificate never issues one. */
export const issuedBy = (cert: X509Certificate, issuer: X509Certificate): boolean => {
  try {
    return issuer.ca && cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
};

const sameCert = (a: X509Certificate, b: X509Certificate): boolean => a.raw.equals(b.raw);

const validAt = (cert: X509Certificate, at: Date): boolean =>
  new Date(cert.validFrom).getTime() <= at.getTime() && at.getTime() <= new Date(cert.validTo).getTime();

/** Walks up from `leaf` to an anchor; `at` is the time the certificates must be valid at. */
export function buildChain(leaf: X509Certificate, pool: X509Certificate[], anchors: X509Certificate[], at: Date): ChainReport {
  const path: X509Certificate[] = [leaf];
  let anchor: X509Certificate | null = null;
  for (let current = leaf; path.length <= MAX_DEPTH;) {
    anchor = anchors.find((a) => sameCert(a, current) || issuedBy(current, a)) ?? null;
    if (anchor) break;
    const next = pool.find((c) => !path.some((p) => sameCert(p, c)) && issuedBy(current, c));
    if (!next) break;
    path.push(next);
    current = next;
  }
  if (anchor && !path.some((p) => sameCert(p, anchor!))) path.push(anchor);
  return {
    certificates: path.map(certificateInfo),
    trustAnchor: anchor ? anchor.subject.replace(/\n/g, ', ') : null,
    validAtTime: path.every((c) => validAt(c, at)),
    checkedAt: at.toISOString(),
  };
}
