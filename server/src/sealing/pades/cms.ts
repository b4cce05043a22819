/**
 * The CAdES detached SignedData inside a PAdES signature, built with pkijs + asn1js.
 *
 * Split in two so the signature can come from elsewhere (a seal key in this process, an HSM, or a
 * signer's token behind the desktop agent):
 *   1. buildSignedAttributes(certificate, digest) → the DER SET OF (tag 0x31) the signer signs;
 *   2. assembleCms({ signedAttributesDer, signatureValue, … }) → the DER ContentInfo, with the
 *      signature-time-stamp unsigned attribute when a TSA is given.
 *
 * Signed attributes (PAdES baseline, ETSI EN 319 142-1): content-type, message-digest,
 * signing-certificate-v2 — and no signing-time (the time is the PDF's /M and the timestamp).
 */
import { X509Certificate, createHash, verify as verifySignature } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { PadesError, type PadesKeyAlgorithm, type TimestampFn } from './types.js';

export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha256WithRSAEncryption: '1.2.840.113549.1.1.11',
  ecdsaWithSHA256: '1.2.840.10045.4.3.2',
} as const;

export const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());

/**
 * Bytes that go into an asn1js tree as they are (asn1js's own RawData ignores the writer a parent
 * passes, so it cannot be nested). Used for the issuer Name and serial number copied from the
 * certificate, for the already-sorted signed attributes, and for the TSA's token.
 */
class RawBlock {
  constructor(private readonly bytes: Uint8Array) {}
  toBER(_sizeOnly?: boolean, writer?: { write(buffer: ArrayBuffer): void }): ArrayBuffer {
    const buffer = this.bytes.slice().buffer;
    if (!writer) return buffer;
    writer.write(buffer);
    return new ArrayBuffer(0);
  }
}
const raw = (bytes: Uint8Array): never => new RawBlock(bytes) as never;

const der = (block: { toBER(sizeOnly?: boolean): ArrayBuffer }): Uint8Array => new Uint8Array(block.toBER(false));

function parseDer(bytes: Uint8Array, what: string, code: 'invalid_certificate' | 'invalid_cms' | 'invalid_timestamp'): asn1js.AsnType {
  const parsed = asn1js.fromBER(bytes);
  if (parsed.offset === -1 || parsed.offset !== bytes.byteLength) {
    throw new PadesError(code, `${what} is not valid DER`);
  }
  return parsed.result;
}

function parseCertificate(certificate: Uint8Array): pkijs.Certificate {
  try {
    return new pkijs.Certificate({ schema: parseDer(certificate, 'certificate', 'invalid_certificate') });
  } catch (error) {
    if (error instanceof PadesError) throw error;
    throw new PadesError('invalid_certificate', `certificate is not an X.509 certificate: ${(error as Error).message}`);
  }
}

/** The issuer Name and serialNumber INTEGER of a certificate, as they are encoded in it. */
function issuerAndSerialRaw(certificate: Uint8Array): { issuer: Uint8Array; serial: Uint8Array } {
  const cert = parseDer(certificate, 'certificate', 'invalid_certificate') as asn1js.Sequence;
  const tbs = cert.valueBlock.value[0] as asn1js.Sequence | undefined;
  const fields = tbs?.valueBlock.value ?? [];
  // TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer, … }
  const offset = fields[0]?.idBlock.tagClass === 3 ? 1 : 0;
  const serial = fields[offset];
  const issuer = fields[offset + 2];
  if (!serial || !issuer) throw new PadesError('invalid_certificate', 'certificate has no issuer or serial number');
  return { issuer: new Uint8Array(issuer.valueBeforeDecodeView), serial: new Uint8Array(serial.valueBeforeDecodeView) };
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/**
 * The DER of the signed attributes as a SET OF (tag 0x31), elements in DER order: the bytes a
 * signer signs with SHA-256. The same bytes go into SignerInfo.signedAttrs with tag [0].
 */
export function buildSignedAttributes(certificate: Uint8Array, messageDigest: Uint8Array): Uint8Array {
  if (messageDigest.byteLength !== 32) throw new PadesError('digest_mismatch', 'message digest must be SHA-256 (32 bytes)');
  parseCertificate(certificate);
  const { issuer, serial } = issuerAndSerialRaw(certificate);

  // SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 }
  // ESSCertIDv2 ::= SEQUENCE { hashAlgorithm DEFAULT sha256 (omitted), certHash, issuerSerial }
  // IssuerSerial ::= SEQUENCE { issuer GeneralNames (directoryName [4]), serialNumber }
  const essCertIdV2 = new asn1js.Sequence({
    value: [
      new asn1js.OctetString({ valueHex: sha256(certificate) }),
      new asn1js.Sequence({
        value: [
          new asn1js.Sequence({
            value: [new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 4 }, value: [raw(issuer)] })],
          }),
          raw(serial),
        ],
      }),
    ],
  });
  const attributes = [
    new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
    new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: messageDigest })] }),
    new pkijs.Attribute({
      type: OID.signingCertificateV2,
      values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
    }),
  ];
  // DER: the elements of a SET OF are sorted by their encodings.
  const encoded = attributes.map((attribute) => der(attribute.toSchema())).sort(compareBytes);
  return der(new asn1js.Set({ value: encoded.map(raw) }));
}

/** The attributes of a DER SET OF signed attributes, as pkijs objects (for SignerInfo.signedAttrs). */
function parseSignedAttributes(signedAttributesDer: Uint8Array): pkijs.Attribute[] {
  if (signedAttributesDer[0] !== 0x31) throw new PadesError('invalid_cms', 'signed attributes must be a DER SET OF (tag 0x31)');
  const set = parseDer(signedAttributesDer, 'signed attributes', 'invalid_cms') as asn1js.Set;
  return set.valueBlock.value.map((schema) => new pkijs.Attribute({ schema }));
}

/** The value of the message-digest attribute in DER signed attributes. */
export function messageDigestOf(signedAttributesDer: Uint8Array): Uint8Array {
  const attribute = parseSignedAttributes(signedAttributesDer).find((a) => a.type === OID.messageDigest);
  const value = attribute?.values[0];
  if (!(value instanceof asn1js.OctetString)) throw new PadesError('invalid_cms', 'signed attributes have no message-digest');
  return new Uint8Array(value.getValue());
}

/**
 * certHash of the first ESSCertIDv2 in signing-certificate-v2 (SHA-256 only: the hashAlgorithm
 * must be absent, i.e. the default, or SHA-256).
 */
export function signingCertificateHashOf(signedAttributesDer: Uint8Array): Uint8Array {
  const attribute = parseSignedAttributes(signedAttributesDer).find((a) => a.type === OID.signingCertificateV2);
  try {
    const essCertId = childrenOf(childrenOf(childrenOf(attribute?.values[0])[0])[0]);
    let at = 0;
    if (essCertId[0] instanceof asn1js.Sequence) {
      if (oidOf(childrenOf(essCertId[0])[0]) !== OID.sha256) throw new Error('certHash is not SHA-256');
      at = 1;
    }
    const certHash = essCertId[at];
    if (!(certHash instanceof asn1js.OctetString)) throw new Error('no certHash');
    return new Uint8Array(certHash.getValue());
  } catch (error) {
    throw new PadesError('invalid_cms', `signing-certificate-v2 is missing or malformed: ${(error as Error).message}`);
  }
}

const RAW_ECDSA_LENGTH: Record<PadesKeyAlgorithm, number> = { RSA: 0, 'ECDSA-P256': 64, 'ECDSA-P384': 96 };

function isDerEcdsa(signature: Uint8Array): boolean {
  if (signature[0] !== 0x30) return false;
  const parsed = asn1js.fromBER(signature);
  if (parsed.offset !== signature.byteLength || !(parsed.result instanceof asn1js.Sequence)) return false;
  const parts = parsed.result.valueBlock.value;
  return parts.length === 2 && parts.every((p) => p instanceof asn1js.Integer);
}

/** ECDSA-Sig-Value DER from a raw r‖s signature (what PKCS#11 and WebCrypto return). */
function ecdsaRawToDer(raw: Uint8Array): Uint8Array {
  const half = raw.byteLength / 2;
  const integer = (bytes: Uint8Array): asn1js.Integer => {
    let start = 0;
    while (start < bytes.byteLength - 1 && bytes[start] === 0) start += 1;
    const trimmed = bytes.subarray(start);
    const value = (trimmed[0] ?? 0) & 0x80 ? Uint8Array.of(0, ...trimmed) : trimmed;
    return new asn1js.Integer({ valueHex: value });
  };
  return der(new asn1js.Sequence({ value: [integer(raw.subarray(0, half)), integer(raw.subarray(half))] }));
}

function keyAlgorithmOf(certificate: Uint8Array): PadesKeyAlgorithm | null {
  const key = new X509Certificate(certificate).publicKey;
  if (key.asymmetricKeyType === 'rsa') return 'RSA';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ECDSA-P256';
    if (curve === 'secp384r1') return 'ECDSA-P384';
  }
  return null;
}

/**
 * Check a signature value from a signer against the certificate and normalise it to what
 * SignerInfo.signature holds (PKCS#1 v1.5 bytes, or ECDSA-Sig-Value DER; raw r‖s is converted).
 */
export function normaliseSignatureValue(input: {
  certificate: Uint8Array;
  keyAlgorithm: PadesKeyAlgorithm;
  signedAttributesDer: Uint8Array;
  signatureValue: Uint8Array;
}): Uint8Array {
  const actual = keyAlgorithmOf(input.certificate);
  if (actual !== input.keyAlgorithm) {
    throw new PadesError('invalid_certificate', `certificate key is ${actual ?? 'unsupported'}, not ${input.keyAlgorithm}`);
  }
  let signature = input.signatureValue;
  if (input.keyAlgorithm !== 'RSA' && !isDerEcdsa(signature)) {
    if (signature.byteLength !== RAW_ECDSA_LENGTH[input.keyAlgorithm]) {
      throw new PadesError('invalid_signature_value', 'ECDSA signature is neither DER nor raw r‖s of the curve size');
    }
    signature = ecdsaRawToDer(signature);
  }
  const publicKey = new X509Certificate(input.certificate).publicKey;
  if (!verifySignature('sha256', input.signedAttributesDer, publicKey, signature)) {
    throw new PadesError('invalid_signature_value', 'the signature does not verify with the signing certificate over the signed attributes');
  }
  return signature;
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
    const contentInfo = childrenOf(parseDer(token, 'timestamp token', 'invalid_timestamp'));
    if (oidOf(contentInfo[0]) !== OID.signedData) throw new Error('not a SignedData ContentInfo');
    const signedData = childrenOf(explicitContent(contentInfo[1]));
    // SignedData ::= SEQUENCE { version, digestAlgorithms, encapContentInfo, [0] certificates OPTIONAL, … }
    const encap = childrenOf(signedData[2]);
    if (oidOf(encap[0]) !== OID.tstInfo) throw new Error('content is not a TSTInfo');
    const eContent = explicitContent(encap[1]);
    if (!(eContent instanceof asn1js.OctetString)) throw new Error('TSTInfo is missing');
    const tstInfo = pkijs.TSTInfo.fromBER(eContent.getValue());
    if (tstInfo.messageImprint.hashAlgorithm.algorithmId !== OID.sha256) throw new Error('message imprint is not SHA-256');
    const imprint = tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView;
    if (compareBytes(imprint, digest) !== 0) throw new Error('message imprint does not match the signature value');
    const certificateSet = signedData.slice(3).find((b) => b.idBlock.tagClass === 3 && b.idBlock.tagNumber === 0);
    const certificates = (certificateSet ? childrenOf(certificateSet) : [])
      .filter((c) => c.idBlock.tagClass === 1 && c.idBlock.tagNumber === 16) // plain X.509 certificates
      .map((c) => new Uint8Array(c.valueBeforeDecodeView));
    return { certificates, genTime: tstInfo.genTime };
  } catch (error) {
    if (error instanceof PadesError) throw error;
    throw new PadesError('invalid_timestamp', `timestamp token rejected: ${(error as Error).message}`);
  }
}

function childrenOf(block: asn1js.AsnType | undefined): asn1js.AsnType[] {
  const value = (block as asn1js.Constructed | undefined)?.valueBlock?.value;
  if (!Array.isArray(value)) throw new Error('unexpected ASN.1 structure');
  return value as asn1js.AsnType[];
}

function oidOf(block: asn1js.AsnType | undefined): string | undefined {
  return block instanceof asn1js.ObjectIdentifier ? block.valueBlock.toString() : undefined;
}

/** The content of an explicit [0] tag. */
function explicitContent(block: asn1js.AsnType | undefined): asn1js.AsnType | undefined {
  if (!block || block.idBlock.tagClass !== 3 || block.idBlock.tagNumber !== 0) throw new Error('missing [0] content');
  return childrenOf(block)[0];
}

export interface AssembleCmsInput {
  certificate: Uint8Array;
  chain: Uint8Array[];
  keyAlgorithm: PadesKeyAlgorithm;
  signedAttributesDer: Uint8Array;
  /** Already checked with normaliseSignatureValue. */
  signatureValue: Uint8Array;
  /** When given, a signature-time-stamp over the signature value is added (PAdES B-T). */
  timestamp?: TimestampFn;
}

export interface AssembledCms {
  cms: Uint8Array;
  /** Certificates from the timestamp token (for the DSS of B-LT). */
  timestampCertificates: Uint8Array[];
}

/** SignedData (detached, id-data) with one SignerInfo, wrapped in a ContentInfo; DER. */
export async function assembleCms(input: AssembleCmsInput): Promise<AssembledCms> {
  const certificate = parseCertificate(input.certificate);
  const seen = new Set<string>([Buffer.from(input.certificate).toString('base64')]);
  const certificates = [certificate];
  for (const extra of input.chain) {
    const key = Buffer.from(extra).toString('base64');
    if (seen.has(key)) continue;
    seen.add(key);
    certificates.push(parseCertificate(extra));
  }

  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
    digestAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes: parseSignedAttributes(input.signedAttributesDer) }),
    signatureAlgorithm:
      input.keyAlgorithm === 'RSA'
        ? new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256WithRSAEncryption, algorithmParams: new asn1js.Null() })
        : new pkijs.AlgorithmIdentifier({ algorithmId: OID.ecdsaWithSHA256 }),
    signature: new asn1js.OctetString({ valueHex: input.signatureValue }),
  });

  let timestampCertificates: Uint8Array[] = [];
  if (input.timestamp) {
    const digest = sha256(input.signatureValue);
    const token = await input.timestamp(digest);
    timestampCertificates = checkTimestampToken(token, digest).certificates;
    signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
      type: 1,
      // The token goes in byte for byte: re-encoding a TSA's BER could break its signature.
      attributes: [new pkijs.Attribute({ type: OID.signatureTimeStampToken, values: [raw(token)] })],
    });
  }

  const signedData = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 })],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    certificates,
    signerInfos: [signerInfo],
  });
  const contentInfo = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
  const cms = der(contentInfo.toSchema());
  assertSignedAttributesKept(cms, input.signedAttributesDer);
  return { cms, timestampCertificates };
}

/**
 * The signed attributes in the output must be exactly the signed bytes, tagged [0] IMPLICIT instead
 * of SET: the CMS must contain them byte for byte (cheaper than parsing the whole CMS again).
 */
function assertSignedAttributesKept(cms: Uint8Array, signedAttributesDer: Uint8Array): void {
  const tagged = Buffer.from(signedAttributesDer);
  tagged[0] = 0xa0;
  if (Buffer.from(cms.buffer, cms.byteOffset, cms.byteLength).indexOf(tagged) < 0) {
    throw new PadesError('invalid_cms', 'signed attributes changed while encoding the SignedData');
  }
}

/** Parses a DER ContentInfo holding a SignedData. */
export function parseCms(cms: Uint8Array): pkijs.SignedData {
  const contentInfo = new pkijs.ContentInfo({ schema: parseDer(cms, 'CMS', 'invalid_cms') });
  if (contentInfo.contentType !== OID.signedData) throw new PadesError('invalid_cms', 'CMS is not a SignedData');
  return new pkijs.SignedData({ schema: contentInfo.content });
}
