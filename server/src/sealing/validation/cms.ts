/**
 * The cryptographic checks of one CMS SignedData (a PAdES signature, or an RFC 3161 token): the
 * message digest against the data, the signature against the signer's public key, and for a
 * signature its signature-time-stamp over the signature value.
 */
import { X509Certificate, createHash, constants, verify } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import {
  OID_ATTR_MESSAGE_DIGEST,
  OID_ATTR_SIGNATURE_TIME_STAMP_TOKEN,
  OID_SHA1,
  OID_SHA256,
  OID_SHA384,
  OID_SHA512,
  readMessageDigest,
  readSignedData,
} from '@tawqi/shared/cms';
import { parseCertificates } from './chain.js';

const HASHES: Record<string, string> = { [OID_SHA1]: 'sha1', [OID_SHA256]: 'sha256', [OID_SHA384]: 'sha384', [OID_SHA512]: 'sha512' };
const OID_RSA_PSS = '1.2.840.113549.1.1.10';

export const hashName = (oid: string): string | null => HASHES[oid] ?? null;

const digest = (algorithm: string, data: Uint8Array): Buffer => createHash(algorithm).update(data).digest();

export interface CmsCheck {
  /** Every certificate the SignedData carries. */
  certificates: X509Certificate[];
  signer: X509Certificate | null;
  /** The message-digest attribute equals the digest of `data` (or of the encapsulated content). */
  digestMatches: boolean;
  signatureValid: boolean;
  /** The raw SignerInfo signature value (what a signature-time-stamp stamps). */
  signatureValue: Uint8Array;
  /** The signature-time-stamp token, if the SignerInfo carries one. */
  timestampToken: Uint8Array | null;
  /** CRLs carried in SignedData.crls. */
  crls: number;
  /** The encapsulated content (a TSTInfo for a timestamp token), if any. */
  content: Uint8Array | null;
}

const pkijsCertificate = (cert: X509Certificate): pkijs.Certificate => pkijs.Certificate.fromBER(new Uint8Array(cert.raw));
const derOf = (value: { toSchema(): asn1js.AsnType }): Buffer => Buffer.from(value.toSchema().toBER());

/** The certificate a SignerInfo names (issuer and serial, or subject key identifier). */
function findSigner(info: pkijs.SignerInfo, certificates: X509Certificate[]): X509Certificate | null {
  const sid = info.sid as pkijs.IssuerAndSerialNumber | asn1js.OctetString;
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    const issuer = derOf(sid.issuer);
    const serial = Buffer.from(sid.serialNumber.valueBlock.valueHexView);
    return (
      certificates.find((c) => {
        const parsed = pkijsCertificate(c);
        return derOf(parsed.issuer).equals(issuer) && Buffer.from(parsed.serialNumber.valueBlock.valueHexView).equals(serial);
      }) ?? null
    );
  }
  const keyId = Buffer.from(sid.valueBlock.valueHexView);
  return (
    certificates.find((c) => {
      const ski = pkijsCertificate(c).extensions?.find((e) => e.extnID === '2.5.29.14');
      return ski && Buffer.from((ski.parsedValue as asn1js.OctetString).valueBlock.valueHexView).equals(keyId);
    }) ?? null
  );
}

function signatureVerifies(info: pkijs.SignerInfo, signer: X509Certificate, hash: string, content: Uint8Array): boolean {
  const signed = info.signedAttrs ? new Uint8Array(info.signedAttrs.encodedValue) : content;
  const value = new Uint8Array(info.signature.valueBlock.valueHexView);
  const pss = info.signatureAlgorithm.algorithmId === OID_RSA_PSS;
  try {
    const key = pss
      ? { key: signer.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }
      : signer.publicKey;
    return verify(hash, signed, key, value);
  } catch {
    return false;
  }
}

/**
 * Checks a CMS over `data` (detached), or over its own encapsulated content when `data` is null.
 * Throws when the CMS cannot be read at all (a FORMAT_FAILURE for the caller).
 */
export function checkCms(cms: Uint8Array, data: Uint8Array | null, extraCertificates: X509Certificate[] = []): CmsCheck {
  const signedData = readSignedData(cms);
  const info = signedData.signerInfos[0];
  if (!info) throw new Error('no SignerInfo');
  const hash = hashName(info.digestAlgorithm.algorithmId);
  if (!hash) throw new Error(`unsupported digest algorithm ${info.digestAlgorithm.algorithmId}`);
  const certificates = parseCertificates(
    (signedData.certificates ?? [])
      .filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate)
      .map((c) => new Uint8Array(c.toSchema().toBER())),
  );
  const eContent = signedData.encapContentInfo.eContent;
  const content = eContent ? new Uint8Array(eContent.getValue()) : null;
  const covered = data ?? content ?? new Uint8Array();
  const signer = findSigner(info, [...certificates, ...extraCertificates]);
  const attr = (oid: string) => info.signedAttrs?.attributes.find((a) => a.type === oid);
  const messageDigest = attr(OID_ATTR_MESSAGE_DIGEST);
  const actual = digest(hash, covered);
  const tokenAttr = info.unsignedAttrs?.attributes.find((a) => a.type === OID_ATTR_SIGNATURE_TIME_STAMP_TOKEN);
  return {
    certificates,
    signer,
    digestMatches: messageDigest ? actual.equals(readMessageDigest(messageDigest)) : !info.signedAttrs,
    signatureValid: signer !== null && signatureVerifies(info, signer, hash, covered),
    signatureValue: new Uint8Array(info.signature.valueBlock.valueHexView),
    timestampToken: tokenAttr?.values[0] ? new Uint8Array(tokenAttr.values[0].toBER()) : null,
    crls: signedData.crls?.length ?? 0,
    content,
  };
}

export interface TstInfo {
  genTime: Date;
  /** The message imprint equals the digest of the stamped data. */
  imprintMatches: boolean;
}

/** Reads the TSTInfo of a token's content and compares its imprint with `stamped`. */
export function readTstInfo(content: Uint8Array | null, stamped: Uint8Array): TstInfo {
  if (!content) throw new Error('timestamp token without TSTInfo');
  const tst = pkijs.TSTInfo.fromBER(content);
  const hash = hashName(tst.messageImprint.hashAlgorithm.algorithmId);
  const imprint = Buffer.from(tst.messageImprint.hashedMessage.valueBlock.valueHexView);
  return { genTime: tst.genTime, imprintMatches: hash !== null && digest(hash, stamped).equals(imprint) };
}
