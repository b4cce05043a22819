import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { toArrayBuffer } from './encoding.js';
import type { SignatureAlgorithm } from './keys.js';
import { OID_ATTR_CONTENT_TYPE, OID_ATTR_MESSAGE_DIGEST, OID_ATTR_SIGNING_CERTIFICATE_V2, OID_ATTR_SIGNING_TIME, OID_SHA256, OID_SIGNED_DATA } from './oids.js';

/**
 * CMS building blocks (RFC 5652, RFC 5035) on pkijs, shared by the TSA here and by PAdES signing:
 * signed attributes in DER order, the signing-certificate-v2 attribute, and SignerInfo/SignedData
 * assembly around a signature made outside pkijs (node:crypto, an HSM, the signer's token).
 */

export function parseCertificate(der: Uint8Array): pkijs.Certificate {
  return pkijs.Certificate.fromBER(toArrayBuffer(der));
}

export function contentTypeAttribute(oid: string): pkijs.Attribute {
  return new pkijs.Attribute({ type: OID_ATTR_CONTENT_TYPE, values: [new asn1js.ObjectIdentifier({ value: oid })] });
}

export function messageDigestAttribute(digest: Uint8Array): pkijs.Attribute {
  return new pkijs.Attribute({ type: OID_ATTR_MESSAGE_DIGEST, values: [new asn1js.OctetString({ valueHex: toArrayBuffer(digest) })] });
}

export function signingTimeAttribute(at: Date): pkijs.Attribute {
  return new pkijs.Attribute({ type: OID_ATTR_SIGNING_TIME, values: [new asn1js.UTCTime({ valueDate: new Date(Math.floor(at.getTime() / 1000) * 1000) })] });
}

/**
 * signing-certificate-v2 (RFC 5035): SigningCertificateV2 { certs: [ESSCertIDv2 { certHash: SHA-256 of
 * the certificate, issuerSerial }] }. hashAlgorithm is left out because SHA-256 is its DEFAULT (DER).
 */
export function signingCertificateV2Attribute(certDer: Uint8Array): pkijs.Attribute {
  const cert = parseCertificate(certDer);
  const certHash = createHash('sha256').update(certDer).digest();
  const issuerSerial = new asn1js.Sequence({
    value: [new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: cert.issuer })] }).toSchema(), cert.serialNumber],
  });
  const essCertIdV2 = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: toArrayBuffer(certHash) }), issuerSerial] });
  const signingCertificateV2 = new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] });
  return new pkijs.Attribute({ type: OID_ATTR_SIGNING_CERTIFICATE_V2, values: [signingCertificateV2] });
}

function compareDer(a: Uint8Array, b: Uint8Array): number {
  // X.690 §11.6: SET OF components in ascending order of their encodings, shorter ones padded with 0s.
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Signed attributes in DER order, and the exact bytes to sign (the SET OF with its universal tag, 0x31). */
export function signedAttributes(attributes: pkijs.Attribute[]): { attrs: pkijs.SignedAndUnsignedAttributes; toSign: Uint8Array } {
  const sorted = attributes
    .map((a) => ({ a, der: new Uint8Array(a.toSchema().toBER(false)) }))
    .sort((x, y) => compareDer(x.der, y.der))
    .map((x) => x.a);
  const attrs = new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes: sorted });
  const toSign = new Uint8Array(attrs.toSchema().toBER(false));
  toSign[0] = 0x31;
  return { attrs, toSign };
}

export function algorithmId(oid: string, nullParams = false): pkijs.AlgorithmIdentifier {
  return nullParams ? new pkijs.AlgorithmIdentifier({ algorithmId: oid, algorithmParams: new asn1js.Null() }) : new pkijs.AlgorithmIdentifier({ algorithmId: oid });
}

export interface SignedDataParts {
  /** eContentType and the encapsulated content (null for a detached signature). */
  contentType: string;
  content: Uint8Array | null;
  signerCertificate: Uint8Array;
  signedAttrs: pkijs.SignedAndUnsignedAttributes;
  signature: Uint8Array;
  signatureAlgorithm: SignatureAlgorithm;
  /** Certificates to include (usually the signer's, perhaps its chain); none when empty. */
  certificates: Uint8Array[];
  unsignedAttrs?: pkijs.Attribute[];
}

/** A ContentInfo wrapping SignedData with one SignerInfo (issuerAndSerialNumber, SHA-256), DER. */
export function signedDataContentInfo(p: SignedDataParts): Uint8Array {
  const signer = parseCertificate(p.signerCertificate);
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: signer.issuer, serialNumber: signer.serialNumber }),
    digestAlgorithm: algorithmId(OID_SHA256),
    signedAttrs: p.signedAttrs,
    signatureAlgorithm: algorithmId(p.signatureAlgorithm.oid, p.signatureAlgorithm.nullParams),
    signature: new asn1js.OctetString({ valueHex: toArrayBuffer(p.signature) }),
  });
  if (p.unsignedAttrs?.length) signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({ type: 1, attributes: p.unsignedAttrs });
  const signedData = new pkijs.SignedData({
    // v3 when the content is not id-data (RFC 5652 §5.1), else v1.
    version: p.contentType === '1.2.840.113549.1.7.1' ? 1 : 3,
    digestAlgorithms: [algorithmId(OID_SHA256)],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: p.contentType }),
    signerInfos: [signerInfo],
  });
  // Set after construction: pkijs's constructor would split it into a constructed (BER) OCTET STRING.
  if (p.content) signedData.encapContentInfo.eContent = new asn1js.OctetString({ valueHex: toArrayBuffer(p.content) });
  if (p.certificates.length) signedData.certificates = p.certificates.map(parseCertificate);
  const contentInfo = new pkijs.ContentInfo({ contentType: OID_SIGNED_DATA, content: signedData.toSchema(true) });
  return new Uint8Array(contentInfo.toSchema().toBER(false));
}
