/**
 * CMS attributes (RFC 5652 §11, RFC 5035, RFC 3161 appendix A), one build/read pair per attribute,
 * and the signed attributes as the DER SET OF a signer signs. Hashes come in as input (the caller
 * computes them with node:crypto or crypto.subtle), so everything here is synchronous and runs in
 * Node and browsers.
 */
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { CmsError, childrenOf, compareDer, der, issuerAndSerialOf, oidOf, parseDer, raw } from './der.js';
import {
  OID_ATTR_CONTENT_TYPE,
  OID_ATTR_MESSAGE_DIGEST,
  OID_ATTR_SIGNATURE_TIME_STAMP_TOKEN,
  OID_ATTR_SIGNING_CERTIFICATE_V2,
  OID_ATTR_SIGNING_TIME,
  OID_DATA,
  OID_SHA256,
} from './oids.js';

function valueOf(attribute: pkijs.Attribute, type: string): asn1js.AsnType {
  if (attribute.type !== type) throw new CmsError('invalid_cms', `attribute ${attribute.type} is not ${type}`);
  const value = attribute.values[0];
  if (!value) throw new CmsError('invalid_cms', `attribute ${type} has no value`);
  return value as asn1js.AsnType;
}

/** The encoding of a block as it was read, or as it encodes when it was built here. */
function encodedOf(block: asn1js.AsnType): Uint8Array {
  const view = (block as { valueBeforeDecodeView?: Uint8Array }).valueBeforeDecodeView;
  return view?.byteLength ? new Uint8Array(view) : der(block);
}

/** content-type: the eContentType the signature covers (id-data for PAdES, id-ct-TSTInfo for a TSA). */
export function contentTypeAttribute(oid: string): pkijs.Attribute {
  return new pkijs.Attribute({ type: OID_ATTR_CONTENT_TYPE, values: [new asn1js.ObjectIdentifier({ value: oid })] });
}

export function readContentType(attribute: pkijs.Attribute): string {
  const oid = oidOf(valueOf(attribute, OID_ATTR_CONTENT_TYPE));
  if (!oid) throw new CmsError('invalid_cms', 'content-type is not an OBJECT IDENTIFIER');
  return oid;
}

/** message-digest: the digest of the signed content. */
export function messageDigestAttribute(digest: Uint8Array): pkijs.Attribute {
  return new pkijs.Attribute({ type: OID_ATTR_MESSAGE_DIGEST, values: [new asn1js.OctetString({ valueHex: digest })] });
}

export function readMessageDigest(attribute: pkijs.Attribute): Uint8Array {
  const value = valueOf(attribute, OID_ATTR_MESSAGE_DIGEST);
  if (!(value instanceof asn1js.OctetString)) throw new CmsError('invalid_cms', 'message-digest is not an OCTET STRING');
  return new Uint8Array(value.getValue());
}

/** signing-time (UTCTime, whole seconds). */
export function signingTimeAttribute(at: Date): pkijs.Attribute {
  return new pkijs.Attribute({
    type: OID_ATTR_SIGNING_TIME,
    values: [new asn1js.UTCTime({ valueDate: new Date(Math.floor(at.getTime() / 1000) * 1000) })],
  });
}

export function readSigningTime(attribute: pkijs.Attribute): Date {
  const value = valueOf(attribute, OID_ATTR_SIGNING_TIME);
  if (value instanceof asn1js.UTCTime || value instanceof asn1js.GeneralizedTime) return value.toDate();
  throw new CmsError('invalid_cms', 'signing-time is not a UTCTime or GeneralizedTime');
}

/**
 * signing-certificate-v2 (RFC 5035): SigningCertificateV2 { certs: [ESSCertIDv2 { certHash, issuerSerial }] }.
 * `certificateHash` is the SHA-256 of `certificate`; hashAlgorithm is left out because SHA-256 is its
 * DEFAULT (DER). IssuerSerial { issuer GeneralNames (directoryName [4]), serialNumber } copies the
 * issuer Name and serial number from the certificate byte for byte.
 */
export function signingCertificateV2Attribute(certificate: Uint8Array, certificateHash: Uint8Array): pkijs.Attribute {
  if (certificateHash.byteLength !== 32) throw new CmsError('invalid_certificate', 'the certificate hash must be SHA-256 (32 bytes)');
  const { issuer, serial } = issuerAndSerialOf(certificate);
  const essCertIdV2 = new asn1js.Sequence({
    value: [
      new asn1js.OctetString({ valueHex: certificateHash }),
      new asn1js.Sequence({
        value: [
          new asn1js.Sequence({ value: [new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 4 }, value: [raw(issuer)] })] }),
          raw(serial),
        ],
      }),
    ],
  });
  return new pkijs.Attribute({
    type: OID_ATTR_SIGNING_CERTIFICATE_V2,
    values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
  });
}

export interface SigningCertificateV2 {
  /** hashAlgorithm of the first ESSCertIDv2 (SHA-256 when absent, its DEFAULT). */
  hashAlgorithm: string;
  certHash: Uint8Array;
  /** DER of issuerSerial's serialNumber INTEGER, when issuerSerial is present. */
  serialNumber: Uint8Array | null;
}

/** The first ESSCertIDv2 of a signing-certificate-v2 attribute. */
export function readSigningCertificateV2(attribute: pkijs.Attribute): SigningCertificateV2 {
  const value = valueOf(attribute, OID_ATTR_SIGNING_CERTIFICATE_V2);
  try {
    const essCertId = childrenOf(childrenOf(childrenOf(value)[0])[0]);
    let at = 0;
    let hashAlgorithm = OID_SHA256;
    if (essCertId[0] instanceof asn1js.Sequence) {
      hashAlgorithm = oidOf(childrenOf(essCertId[0])[0]) ?? '';
      at = 1;
    }
    const certHash = essCertId[at];
    if (!(certHash instanceof asn1js.OctetString)) throw new Error('no certHash');
    const issuerSerial = essCertId[at + 1];
    const serial = issuerSerial ? childrenOf(issuerSerial)[1] : undefined;
    return {
      hashAlgorithm,
      certHash: new Uint8Array(certHash.getValue()),
      serialNumber: serial ? encodedOf(serial) : null,
    };
  } catch (error) {
    if (error instanceof CmsError) throw error;
    throw new CmsError('invalid_cms', `signing-certificate-v2 is missing or malformed: ${(error as Error).message}`);
  }
}

/** signature-time-stamp (unsigned): the TSA's TimeStampToken, put in byte for byte (re-encoding a TSA's BER could break its signature). */
export function signatureTimeStampTokenAttribute(token: Uint8Array): pkijs.Attribute {
  return new pkijs.Attribute({ type: OID_ATTR_SIGNATURE_TIME_STAMP_TOKEN, values: [raw(token)] });
}

export function readSignatureTimeStampToken(attribute: pkijs.Attribute): Uint8Array {
  return encodedOf(valueOf(attribute, OID_ATTR_SIGNATURE_TIME_STAMP_TOKEN));
}

/**
 * The DER SET OF (tag 0x31) of signed attributes, elements in DER order (X.690 §11.6): the bytes a
 * signer signs. SignerInfo.signedAttrs carries the same bytes with tag [0].
 */
export function signedAttributesDer(attributes: readonly pkijs.Attribute[]): Uint8Array {
  const encoded = attributes.map((attribute) => der(attribute.toSchema())).sort(compareDer);
  return der(new asn1js.Set({ value: encoded.map(raw) }));
}

/** The attributes of a DER SET OF signed attributes. */
export function readSignedAttributes(signedAttributes: Uint8Array): pkijs.Attribute[] {
  if (signedAttributes[0] !== 0x31) throw new CmsError('invalid_cms', 'signed attributes must be a DER SET OF (tag 0x31)');
  const set = parseDer(signedAttributes, 'signed attributes') as asn1js.Set;
  return set.valueBlock.value.map((schema) => new pkijs.Attribute({ schema }));
}

/**
 * The signed attributes of a PAdES baseline / CAdES detached signature (ETSI EN 319 142-1) over a
 * SHA-256 `messageDigest`: content-type id-data, message-digest, signing-certificate-v2 — and no
 * signing-time (the time is the PDF's /M and the signature timestamp). `certificateHash` is the
 * SHA-256 of `certificate`.
 */
export function padesSignedAttributes(certificate: Uint8Array, certificateHash: Uint8Array, messageDigest: Uint8Array): Uint8Array {
  if (messageDigest.byteLength !== 32) throw new CmsError('digest_mismatch', 'message digest must be SHA-256 (32 bytes)');
  return signedAttributesDer([
    contentTypeAttribute(OID_DATA),
    messageDigestAttribute(messageDigest),
    signingCertificateV2Attribute(certificate, certificateHash),
  ]);
}

function findAttribute(signedAttributes: Uint8Array, type: string): pkijs.Attribute | undefined {
  return readSignedAttributes(signedAttributes).find((a) => a.type === type);
}

/** The value of the message-digest attribute in DER signed attributes. */
export function messageDigestOf(signedAttributes: Uint8Array): Uint8Array {
  const attribute = findAttribute(signedAttributes, OID_ATTR_MESSAGE_DIGEST);
  if (!attribute || !(attribute.values[0] instanceof asn1js.OctetString))
    throw new CmsError('invalid_cms', 'signed attributes have no message-digest');
  return readMessageDigest(attribute);
}

/**
 * certHash of the first ESSCertIDv2 in signing-certificate-v2 of DER signed attributes (SHA-256 only:
 * the hashAlgorithm must be absent, i.e. the default, or SHA-256).
 */
export function signingCertificateHashOf(signedAttributes: Uint8Array): Uint8Array {
  const attribute = findAttribute(signedAttributes, OID_ATTR_SIGNING_CERTIFICATE_V2);
  if (!attribute) throw new CmsError('invalid_cms', 'signing-certificate-v2 is missing or malformed: unexpected ASN.1 structure');
  const { hashAlgorithm, certHash } = readSigningCertificateV2(attribute);
  if (hashAlgorithm !== OID_SHA256)
    throw new CmsError('invalid_cms', 'signing-certificate-v2 is missing or malformed: certHash is not SHA-256');
  return certHash;
}
