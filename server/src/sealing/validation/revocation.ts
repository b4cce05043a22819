/**
 * Revocation data that counts for one certificate. A CRL or an OCSP response in a file is only
 * bytes anyone can write, so it is used (for "revoked", and for the B-LT level) only when it is
 * authenticated by the certificate's issuer:
 *
 * - a CRL naming the certificate's issuer, signed with that issuer's key or by a certificate with
 *   the cRLSign key usage that the issuer issued (RFC 5280 §6.3.3);
 * - an OCSP response naming the certificate (issuer name hash and serial), signed by the issuer
 *   itself or by a delegated responder certificate with id-kp-OCSPSigning that the issuer issued
 *   (RFC 6960 §4.2.2.2).
 *
 * What names the certificate but fails that is counted as ignored.
 */
import { X509Certificate, createHash } from 'node:crypto';
import { KeyUsageFlags, KeyUsagesExtension, X509Certificate as PeculiarCertificate } from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { issuedBy, parseCertificates } from './chain.js';
import { hashName } from './cms.js';

const OID_KP_OCSP_SIGNING = '1.3.6.1.5.5.7.3.9';

export interface RevocationSources {
  crls: readonly Uint8Array[];
  ocsps: readonly Uint8Array[];
}

export interface RevocationFinding {
  /** An authenticated CRL or OCSP response says the certificate was revoked at or before the time checked. */
  revoked: boolean;
  /** Authenticated CRLs and OCSP responses about the certificate. */
  authentic: number;
  /** CRLs and OCSP responses about the certificate whose signature is not its issuer's (or a delegate's). */
  ignoredCrls: number;
  ignoredOcsps: number;
}

const asPkijs = (cert: X509Certificate): pkijs.Certificate => pkijs.Certificate.fromBER(new Uint8Array(cert.raw));

/** The signature over `data` verifies with `cert`'s public key (pkijs: RSA, RSA-PSS, ECDSA). */
async function signedBy(
  cert: X509Certificate,
  data: Uint8Array,
  signature: asn1js.BitString,
  algorithm: pkijs.AlgorithmIdentifier,
): Promise<boolean> {
  try {
    const engine = pkijs.getEngine().crypto;
    return !!engine && (await engine.verifyWithPublicKey(data, signature, asPkijs(cert).subjectPublicKeyInfo, algorithm));
  } catch {
    return false;
  }
}

async function anySigned(
  signers: X509Certificate[],
  data: Uint8Array,
  signature: asn1js.BitString,
  algorithm: pkijs.AlgorithmIdentifier,
): Promise<boolean> {
  for (const signer of signers) if (await signedBy(signer, data, signature, algorithm)) return true;
  return false;
}

const hasCrlSign = (cert: X509Certificate): boolean => {
  const usage = new PeculiarCertificate(new Uint8Array(cert.raw)).getExtension(KeyUsagesExtension);
  return !!usage && (usage.usages & KeyUsageFlags.cRLSign) !== 0;
};

/** The keys allowed to sign a CRL of `issuers`' name: the issuers' own and their cRLSign delegates'. */
const crlSigners = (issuers: X509Certificate[], pool: X509Certificate[]): X509Certificate[] => [
  ...issuers,
  ...pool.filter((c) => hasCrlSign(c) && issuers.some((i) => issuedBy(c, i))),
];

/** The keys allowed to sign an OCSP response about a certificate of `issuers`: theirs and their OCSPSigning delegates'. */
const ocspSigners = (issuers: X509Certificate[], pool: X509Certificate[]): X509Certificate[] => [
  ...issuers,
  ...pool.filter((c) => (c.keyUsage ?? []).includes(OID_KP_OCSP_SIGNING) && issuers.some((i) => issuedBy(c, i))),
];

interface Tally {
  revoked: boolean;
  authentic: number;
  ignored: number;
}

async function tallyCrls(cert: pkijs.Certificate, ders: readonly Uint8Array[], signers: X509Certificate[], at: number): Promise<Tally> {
  const tally: Tally = { revoked: false, authentic: 0, ignored: 0 };
  const serial = Buffer.from(cert.serialNumber.valueBlock.valueHexView);
  for (const der of ders) {
    let crl: pkijs.CertificateRevocationList;
    try {
      crl = pkijs.CertificateRevocationList.fromBER(der);
    } catch {
      continue;
    }
    if (!crl.issuer.isEqual(cert.issuer)) continue;
    if (!(await anySigned(signers, crl.tbsView, crl.signatureValue, crl.signature))) {
      tally.ignored += 1;
      continue;
    }
    tally.authentic += 1;
    const entry = crl.revokedCertificates?.find((r) => Buffer.from(r.userCertificate.valueBlock.valueHexView).equals(serial));
    if (entry && entry.revocationDate.value.getTime() <= at) tally.revoked = true;
  }
  return tally;
}

/** The single responses of a basic OCSP response that name `cert`, or null when it is not one. */
function namingResponses(
  der: Uint8Array,
  cert: pkijs.Certificate,
): { basic: pkijs.BasicOCSPResponse; singles: pkijs.SingleResponse[] } | null {
  try {
    const bytes = pkijs.OCSPResponse.fromBER(der).responseBytes?.response.valueBlock.valueHexView;
    if (!bytes) return null;
    const basic = pkijs.BasicOCSPResponse.fromBER(bytes);
    const issuer = cert.issuer.toSchema().toBER();
    const serial = Buffer.from(cert.serialNumber.valueBlock.valueHexView);
    const singles = basic.tbsResponseData.responses.filter((single) => {
      const hash = hashName(single.certID.hashAlgorithm.algorithmId);
      const nameHash = Buffer.from(single.certID.issuerNameHash.valueBlock.valueHexView);
      return (
        hash !== null &&
        createHash(hash).update(new Uint8Array(issuer)).digest().equals(nameHash) &&
        Buffer.from(single.certID.serialNumber.valueBlock.valueHexView).equals(serial)
      );
    });
    return singles.length > 0 ? { basic, singles } : null;
  } catch {
    return null;
  }
}

/** When a single response says revoked: its revocationTime, else null (good or unknown). */
function revokedAt(single: pkijs.SingleResponse): Date | null {
  const status = single.certStatus as asn1js.Constructed;
  if (status.idBlock.tagNumber !== 1) return null;
  const time = status.valueBlock.value[0] as asn1js.GeneralizedTime | undefined;
  return time ? time.toDate() : null;
}

async function tallyOcsps(
  cert: pkijs.Certificate,
  ders: readonly Uint8Array[],
  issuers: X509Certificate[],
  pool: X509Certificate[],
  at: number,
): Promise<Tally> {
  const tally: Tally = { revoked: false, authentic: 0, ignored: 0 };
  for (const der of ders) {
    const found = namingResponses(der, cert);
    if (!found) continue;
    const { basic, singles } = found;
    const carried = parseCertificates((basic.certs ?? []).map((c) => new Uint8Array(c.toSchema().toBER())));
    const signers = ocspSigners(issuers, [...carried, ...pool]);
    if (!(await anySigned(signers, basic.tbsResponseData.tbsView, basic.signature, basic.signatureAlgorithm))) {
      tally.ignored += 1;
      continue;
    }
    tally.authentic += 1;
    if (singles.some((s) => (revokedAt(s)?.getTime() ?? Infinity) <= at)) tally.revoked = true;
  }
  return tally;
}

/**
 * What the CRLs and OCSP responses of `sources` say about `cert` at `at` (ms), counting only those
 * its issuer (found in `pool`, which holds every certificate at hand and the trust anchors) authenticates.
 */
export async function checkRevocation(
  cert: X509Certificate,
  pool: X509Certificate[],
  sources: RevocationSources,
  at: number,
): Promise<RevocationFinding> {
  const issuers = pool.filter((c) => !c.raw.equals(cert.raw) && issuedBy(cert, c));
  const parsed = asPkijs(cert);
  const crls = await tallyCrls(parsed, sources.crls, crlSigners(issuers, pool), at);
  const ocsps = await tallyOcsps(parsed, sources.ocsps, issuers, pool, at);
  return {
    revoked: crls.revoked || ocsps.revoked,
    authentic: crls.authentic + ocsps.authentic,
    ignoredCrls: crls.ignored,
    ignoredOcsps: ocsps.ignored,
  };
}
