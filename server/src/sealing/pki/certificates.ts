import 'reflect-metadata';
import { webcrypto, type KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { randomSerialHex } from './encoding.js';
import { spkiDer } from './keys.js';
import { BUILT_IN_CERT_POLICY_OID, OID_OCSP_NOCHECK } from '@tawqi/shared/cms';

/**
 * Certificate profiles of the built-in CA (@peculiar/x509 generator, ECDSA P-256 with SHA-256).
 * Every subject says "built-in, not publicly trusted", and every issued certificate carries the
 * BUILT_IN_CERT_POLICY_OID policy, so no verifier can mistake it for a publicly trusted one.
 */

// The DOM's Crypto/CryptoKey types are not in this project's lib: name them through x509's own signatures.
type X509Crypto = Parameters<typeof x509.cryptoProvider.set>[0];
type X509SigningKey = x509.X509CertificateCreateWithKeyParams['signingKey'];
const ECDSA_SHA256 = { name: 'ECDSA', hash: 'SHA-256' } as x509.X509CertificateCreateParamsBase['signingAlgorithm'];

x509.cryptoProvider.set(webcrypto as unknown as X509Crypto);

export type LeafRole = 'seal' | 'tsa' | 'ocsp';

export const CA_YEARS = 10;
export const LEAF_YEARS = 3;

/** Where verifiers fetch revocation data and the issuer, all under `${publicUrl}/pki/…`. */
export interface PkiUrls {
  base: string;
  ocsp: string;
  crl: string;
  caIssuers: string;
  tsa: string;
}

export function pkiUrls(publicUrl: string): PkiUrls {
  const base = publicUrl.replace(/\/+$/, '');
  return { base, ocsp: `${base}/pki/ocsp`, crl: `${base}/pki/crl`, caIssuers: `${base}/pki/ca.cer`, tsa: `${base}/tsa` };
}

const SUBJECTS: Record<'ca' | LeafRole, string> = {
  ca: 'Tawqi local CA (built-in, not publicly trusted)',
  seal: 'Tawqi seal (built-in, not publicly trusted)',
  tsa: 'Tawqi TSA (built-in, not publicly trusted)',
  ocsp: 'Tawqi OCSP responder (built-in, not publicly trusted)',
};

/** O=Tawqi, OU=Installation <id>, CN=… — the installation id tells two servers' CAs apart by name. */
function subjectName(role: 'ca' | LeafRole, installation: string): x509.JsonName {
  return [{ O: ['Tawqi'] }, { OU: [`Installation ${installation}`] }, { CN: [SUBJECTS[role]] }];
}

function addYears(at: Date, years: number): Date {
  const d = new Date(at.getTime());
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d;
}

/** Certificate times have one-second resolution: start at the current second. */
const wholeSecond = (ms: number): Date => new Date(Math.floor(ms / 1000) * 1000);

export interface IssuedCertificate {
  der: Uint8Array;
  serialHex: string;
}

export async function issueCaCertificate(
  caKey: KeyObject,
  signingKey: webcrypto.CryptoKey,
  installation: string,
  nowMs: number,
): Promise<IssuedCertificate> {
  const notBefore = wholeSecond(nowMs);
  const publicKey = spkiDer(caKey);
  const serialHex = randomSerialHex();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialHex,
    subject: subjectName('ca', installation),
    issuer: subjectName('ca', installation),
    notBefore,
    notAfter: addYears(notBefore, CA_YEARS),
    publicKey,
    signingKey: signingKey as unknown as X509SigningKey,
    signingAlgorithm: ECDSA_SHA256,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
      new x509.CertificatePolicyExtension([BUILT_IN_CERT_POLICY_OID]),
    ],
  });
  return { der: new Uint8Array(cert.rawData), serialHex };
}

export interface LeafRequest {
  role: LeafRole;
  /** The leaf's key (its public half is certified). */
  key: KeyObject;
  installation: string;
  urls: PkiUrls;
  nowMs: number;
  ca: { der: Uint8Array; signingKey: webcrypto.CryptoKey };
}

export async function issueLeafCertificate(req: LeafRequest): Promise<IssuedCertificate> {
  const caCert = new x509.X509Certificate(req.ca.der);
  const notBefore = wholeSecond(req.nowMs);
  const wanted = addYears(notBefore, LEAF_YEARS);
  const notAfter = wanted.getTime() > caCert.notAfter.getTime() ? caCert.notAfter : wanted;
  const publicKey = spkiDer(req.key);
  const serialHex = randomSerialHex();
  const { KeyUsageFlags: KU } = x509;
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    await x509.SubjectKeyIdentifierExtension.create(publicKey),
    await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
    new x509.CertificatePolicyExtension([BUILT_IN_CERT_POLICY_OID]),
  ];
  switch (req.role) {
    case 'seal':
      extensions.push(new x509.KeyUsagesExtension(KU.digitalSignature | KU.nonRepudiation, true));
      break;
    case 'tsa':
      extensions.push(new x509.KeyUsagesExtension(KU.digitalSignature, true));
      // RFC 3161 §2.3: exactly one EKU, id-kp-timeStamping, and the extension MUST be critical.
      extensions.push(new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.timeStamping], true));
      break;
    case 'ocsp':
      extensions.push(new x509.KeyUsagesExtension(KU.digitalSignature, true));
      extensions.push(new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.ocspSigning], false));
      // RFC 6960 §4.2.2.2.1: clients need not check the responder certificate itself (value NULL).
      extensions.push(new x509.Extension(OID_OCSP_NOCHECK, false, new Uint8Array([0x05, 0x00])));
      break;
  }
  if (req.role !== 'ocsp') {
    extensions.push(new x509.AuthorityInfoAccessExtension({ ocsp: req.urls.ocsp, caIssuers: req.urls.caIssuers }));
    extensions.push(new x509.CRLDistributionPointsExtension([req.urls.crl]));
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialHex,
    subject: subjectName(req.role, req.installation),
    issuer: caCert.subjectName,
    notBefore,
    notAfter,
    publicKey,
    signingKey: req.ca.signingKey as unknown as X509SigningKey,
    signingAlgorithm: ECDSA_SHA256,
    extensions,
  });
  return { der: new Uint8Array(cert.rawData), serialHex };
}

/** The CRL distribution point URL written in a certificate (null when it has none). */
export function crlUrlOf(der: Uint8Array): string | null {
  const cert = new x509.X509Certificate(der);
  const ext = cert.getExtension(x509.CRLDistributionPointsExtension);
  const name = ext?.distributionPoints[0]?.distributionPoint?.fullName?.[0];
  return name?.uniformResourceIdentifier ?? null;
}
