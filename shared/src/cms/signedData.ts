/**
 * SignedData (RFC 5652 §5) with one SignerInfo around a signature made outside pkijs (node:crypto,
 * an HSM, the signer's token), wrapped in a ContentInfo; and the TimeStampToken check of PAdES B-T.
 */
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { readSignedAttributes } from './attributes.js';
import { CmsError, bytesEqual, childrenOf, der, explicitContent, issuerAndSerialOf, oidOf, parseDer, raw } from './der.js';
import { OID_CT_TST_INFO, OID_DATA, OID_ECDSA_SHA256, OID_SHA256, OID_SHA256_RSA, OID_SIGNED_DATA } from './oids.js';

/** An AlgorithmIdentifier next to a signature: RSA ones carry NULL parameters, ECDSA ones none (RFC 5758). */
export interface SignatureAlgorithmId {
  oid: string;
  nullParams: boolean;
}

export function algorithmId(oid: string, nullParams = false): pkijs.AlgorithmIdentifier {
  return nullParams
    ? new pkijs.AlgorithmIdentifier({ algorithmId: oid, algorithmParams: new asn1js.Null() })
    : new pkijs.AlgorithmIdentifier({ algorithmId: oid });
}

/** sha256WithRSAEncryption or ecdsa-with-SHA256. */
export function sha256SignatureAlgorithm(keyType: 'rsa' | 'ec'): SignatureAlgorithmId {
  return keyType === 'ec' ? { oid: OID_ECDSA_SHA256, nullParams: false } : { oid: OID_SHA256_RSA, nullParams: true };
}

export interface SignedDataParts {
  /** eContentType; id-data when absent. */
  contentType?: string;
  /** The encapsulated content; absent or null for a detached signature. */
  content?: Uint8Array | null;
  /** The certificate named by the SignerInfo (issuerAndSerialNumber). */
  signerCertificate: Uint8Array;
  /** Certificates to carry, as given (usually the signer's first, perhaps its chain); none when empty. */
  certificates: readonly Uint8Array[];
  /** The DER SET OF signed attributes exactly as signed (see signedAttributesDer); kept byte for byte. */
  signedAttributes: Uint8Array;
  signatureAlgorithm: SignatureAlgorithmId;
  /** SignerInfo.signature: PKCS#1 v1.5 bytes, or a DER ECDSA-Sig-Value (see ecdsaRawToDer). */
  signature: Uint8Array;
  unsignedAttributes?: readonly pkijs.Attribute[];
}

/**
 * A certificate that goes into SignedData.certificates as its DER, for pkijs's CertificateSet (which
 * takes Certificate instances): parsing each certificate with pkijs only to encode it again cost
 * about 3 ms per token of the built-in TSA.
 */
function certificateAsIs(certificate: Uint8Array): pkijs.Certificate {
  parseDer(certificate, 'certificate', 'invalid_certificate');
  return Object.assign(Object.create(pkijs.Certificate.prototype) as pkijs.Certificate, { toSchema: () => raw(certificate) });
}

/** A ContentInfo wrapping SignedData with one SignerInfo (issuerAndSerialNumber, SHA-256); DER. */
export function signedData(p: SignedDataParts): Uint8Array {
  const contentType = p.contentType ?? OID_DATA;
  // The issuer Name and serial number as the certificate encodes them (no pkijs parse of the certificate).
  const { issuer, serial } = issuerAndSerialOf(p.signerCertificate);
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: { toSchema: () => raw(issuer) } as never, serialNumber: raw(serial) }),
    digestAlgorithm: algorithmId(OID_SHA256),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes: readSignedAttributes(p.signedAttributes) }),
    signatureAlgorithm: algorithmId(p.signatureAlgorithm.oid, p.signatureAlgorithm.nullParams),
    signature: new asn1js.OctetString({ valueHex: p.signature }),
  });
  // The signed attributes as they will be encoded ([0] IMPLICIT) must be the bytes that were signed.
  const reencoded = der(signerInfo.signedAttrs!.toSchema());
  reencoded[0] = 0x31;
  if (!bytesEqual(reencoded, p.signedAttributes))
    throw new CmsError('invalid_cms', 'signed attributes changed while encoding the SignedData');
  if (p.unsignedAttributes?.length)
    signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({ type: 1, attributes: [...p.unsignedAttributes] });

  const signed = new pkijs.SignedData({
    // v3 when the content is not id-data (RFC 5652 §5.1), else v1.
    version: contentType === OID_DATA ? 1 : 3,
    digestAlgorithms: [algorithmId(OID_SHA256)],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: contentType }),
    signerInfos: [signerInfo],
  });
  // Set after construction: pkijs's constructor would split it into a constructed (BER) OCTET STRING.
  if (p.content) signed.encapContentInfo.eContent = new asn1js.OctetString({ valueHex: p.content });
  if (p.certificates.length) signed.certificates = p.certificates.map(certificateAsIs);
  const contentInfo = new pkijs.ContentInfo({ contentType: OID_SIGNED_DATA, content: signed.toSchema(true) });
  return der(contentInfo.toSchema());
}

/** The SignedData of a DER ContentInfo. */
export function readSignedData(cms: Uint8Array): pkijs.SignedData {
  const contentInfo = new pkijs.ContentInfo({ schema: parseDer(cms, 'CMS') });
  if (contentInfo.contentType !== OID_SIGNED_DATA) throw new CmsError('invalid_cms', 'CMS is not a SignedData');
  return new pkijs.SignedData({ schema: contentInfo.content });
}

export interface TimestampTokenInfo {
  /** DER of each certificate carried in the token (the TSA's certificate and chain, if sent). */
  certificates: Uint8Array[];
  genTime: Date;
}

/**
 * Checks that a TimeStampToken is a SignedData over a TSTInfo whose imprint is SHA-256 `digest`.
 * The token's structure is walked with asn1js (pkijs's SignedData schema matching costs several
 * milliseconds per token); the TSTInfo is read with pkijs. The TSA's signature is not verified
 * here: verifiers check it, and the TSA is ours or configured by the operator.
 */
export function checkTimestampToken(token: Uint8Array, digest: Uint8Array): TimestampTokenInfo {
  try {
    const signed = tokenSignedData(token);
    // SignedData ::= SEQUENCE { version, digestAlgorithms, encapContentInfo, [0] certificates OPTIONAL, … }
    const encap = childrenOf(signed[2]);
    if (oidOf(encap[0]) !== OID_CT_TST_INFO) throw new Error('content is not a TSTInfo');
    const eContent = explicitContent(encap[1]);
    if (!(eContent instanceof asn1js.OctetString)) throw new Error('TSTInfo is missing');
    const tstInfo = pkijs.TSTInfo.fromBER(eContent.getValue());
    if (tstInfo.messageImprint.hashAlgorithm.algorithmId !== OID_SHA256) throw new Error('message imprint is not SHA-256');
    const imprint = tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView;
    if (!bytesEqual(imprint, digest)) throw new Error('message imprint does not match the signature value');
    return { certificates: certificatesOf(signed), genTime: tstInfo.genTime };
  } catch (error) {
    if (error instanceof CmsError) throw error;
    throw new CmsError('invalid_timestamp', `timestamp token rejected: ${(error as Error).message}`);
  }
}

/** The certificates (DER) a TimeStampToken carries, read with asn1js as checkTimestampToken does; nothing is verified. */
export function timestampTokenCertificates(token: Uint8Array): Uint8Array[] {
  try {
    return certificatesOf(tokenSignedData(token));
  } catch (error) {
    if (error instanceof CmsError) throw error;
    throw new CmsError('invalid_timestamp', `timestamp token rejected: ${(error as Error).message}`);
  }
}

/** The components of the SignedData inside a token (a ContentInfo). */
function tokenSignedData(token: Uint8Array): asn1js.AsnType[] {
  const contentInfo = childrenOf(parseDer(token, 'timestamp token', 'invalid_timestamp'));
  if (oidOf(contentInfo[0]) !== OID_SIGNED_DATA) throw new Error('not a SignedData ContentInfo');
  return childrenOf(explicitContent(contentInfo[1]));
}

/** The plain X.509 certificates of a SignedData's [0] certificates set, DER. */
function certificatesOf(signed: asn1js.AsnType[]): Uint8Array[] {
  const certificateSet = signed.slice(3).find((b) => b.idBlock.tagClass === 3 && b.idBlock.tagNumber === 0);
  return (certificateSet ? childrenOf(certificateSet) : [])
    .filter((c) => c.idBlock.tagClass === 1 && c.idBlock.tagNumber === 16)
    .map((c) => new Uint8Array(c.valueBeforeDecodeView));
}
