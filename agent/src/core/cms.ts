/**
 * The detached CMS SignedData the agent returns, built with pkijs + asn1js:
 *
 *   ContentInfo { signedData, SignedData {
 *     version 1, digestAlgorithms { sha-256 }, encapContentInfo { id-data } (no eContent: detached),
 *     certificates { the signing certificate, then any chain certificates found on the token },
 *     signerInfos { one SignerInfo {
 *       version 1, sid issuerAndSerialNumber, digestAlgorithm sha-256,
 *       signedAttrs (DER order) { content-type id-data, message-digest, signing-certificate-v2 },
 *       signatureAlgorithm sha256WithRSAEncryption | ecdsa-with-SHA256, signature } } } }
 *
 * No signing-time: the time of a PAdES signature is the PDF's /M and the server's timestamp.
 * Two steps, because the signature comes from the token in between:
 *   buildSignedAttributes(certificate, digest) → the DER SET OF the token signs;
 *   assembleSignedData({ … signature }) → the ContentInfo DER.
 */
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { KeyType } from './pkcs11/mechanisms.js';
import { ecdsaRawToDer } from './pkcs11/mechanisms.js';

export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha256WithRSAEncryption: '1.2.840.113549.1.1.11',
  ecdsaWithSHA256: '1.2.840.10045.4.3.2',
} as const;

const der = (schema: { toBER(sizeOnly?: boolean): ArrayBuffer }): Uint8Array => new Uint8Array(schema.toBER(false));

function parseCertificate(bytes: Uint8Array): pkijs.Certificate {
  const asn = asn1js.fromBER(bytes);
  if (asn.offset === -1 || asn.offset !== bytes.byteLength) throw new Error('certificate is not DER');
  return new pkijs.Certificate({ schema: asn.result });
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.byteLength, b.byteLength);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.byteLength - b.byteLength;
}

/** The three signed attributes, sorted by their DER encodings (X.690 §11.6: SET OF in DER order). */
function signedAttributeList(certificate: Uint8Array, messageDigest: Uint8Array): pkijs.Attribute[] {
  if (messageDigest.byteLength !== 32) throw new Error('the message digest must be SHA-256 (32 bytes)');
  const cert = parseCertificate(certificate);
  const certHash = createHash('sha256').update(certificate).digest();
  // SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 }
  // ESSCertIDv2 ::= SEQUENCE { hashAlgorithm DEFAULT id-sha256 (so omitted in DER), certHash OCTET STRING,
  //                            issuerSerial IssuerSerial { issuer GeneralNames, serialNumber } }
  const issuerSerial = new asn1js.Sequence({
    value: [
      new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: cert.issuer })] }).toSchema(),
      cert.serialNumber,
    ],
  });
  const essCertIdV2 = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: certHash }), issuerSerial] });
  const attributes = [
    new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
    new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: messageDigest })] }),
    new pkijs.Attribute({
      type: OID.signingCertificateV2,
      values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
    }),
  ];
  return attributes
    .map((attribute) => ({ attribute, bytes: der(attribute.toSchema()) }))
    .sort((a, b) => compareBytes(a.bytes, b.bytes))
    .map(({ bytes }) => new pkijs.Attribute({ schema: asn1js.fromBER(bytes).result }));
}

/** The DER SET OF (tag 0x31) of the signed attributes: the exact bytes the token signs. */
export function buildSignedAttributes(certificate: Uint8Array, messageDigest: Uint8Array): Uint8Array {
  const attributes = signedAttributeList(certificate, messageDigest);
  return der(new asn1js.Set({ value: attributes.map((a) => a.toSchema()) }));
}

export interface AssembleInput {
  certificate: Uint8Array;
  /** Chain certificates from the token, leaf-first (the signing certificate not repeated). */
  chain: readonly Uint8Array[];
  /** The signed attributes exactly as buildSignedAttributes returned them and the token signed them. */
  signedAttributes: Uint8Array;
  keyType: KeyType;
  /** From the token: PKCS#1 v1.5 bytes for RSA, raw r‖s for ECDSA (converted to DER here). */
  signature: Uint8Array;
}

/** The ContentInfo DER of the detached SignedData. */
export function assembleSignedData(input: AssembleInput): Uint8Array {
  const cert = parseCertificate(input.certificate);
  const parsedAttrs = asn1js.fromBER(input.signedAttributes);
  if (parsedAttrs.offset === -1 || !(parsedAttrs.result instanceof asn1js.Set)) throw new Error('signed attributes must be a DER SET OF');
  const attributes = parsedAttrs.result.valueBlock.value.map((schema) => new pkijs.Attribute({ schema }));

  const signatureValue = input.keyType === 'ec' ? ecdsaRawToDer(input.signature) : input.signature;
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
    digestAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes }),
    signatureAlgorithm: new pkijs.AlgorithmIdentifier(
      input.keyType === 'ec'
        ? { algorithmId: OID.ecdsaWithSHA256 }
        : { algorithmId: OID.sha256WithRSAEncryption, algorithmParams: new asn1js.Null() },
    ),
    signature: new asn1js.OctetString({ valueHex: signatureValue }),
  });

  // The signed attributes as they will be encoded ([0] IMPLICIT) must be the bytes that were signed.
  const reencoded = der(signerInfo.signedAttrs?.toSchema() ?? new asn1js.Null());
  reencoded[0] = 0x31;
  if (compareBytes(reencoded, input.signedAttributes) !== 0) throw new Error('signed attributes changed while assembling the CMS');

  const certificates = [cert, ...input.chain.map(parseCertificate)];
  const signedData = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 })],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    certificates,
    signerInfos: [signerInfo],
  });
  const contentInfo = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
  return der(contentInfo.toSchema());
}
