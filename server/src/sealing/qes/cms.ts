/**
 * Checks the detached CMS SignedData the desktop agent returns, before it goes into the PDF, and says
 * which check failed (the `reason` of a cms_invalid error): one SignerInfo with SHA-256; signed
 * attributes content-type (id-data), message-digest, signing-certificate-v2 and no signing-time;
 * message-digest = the prepared ByteRange digest; the signing certificate (signing-certificate-v2,
 * the SignerInfo's sid and any certificate the CMS carries for it) = the ticket's certificate; the
 * signature over the DER of the signed attributes verifies with that certificate's key.
 * completePadesFromCms repeats the digest and signature checks; these run first for clear answers.
 */
import { X509Certificate, verify } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import {
  OID_ATTR_CONTENT_TYPE,
  OID_ATTR_MESSAGE_DIGEST,
  OID_ATTR_SIGNING_CERTIFICATE_V2,
  OID_ATTR_SIGNING_TIME,
  OID_DATA,
  OID_SHA256,
  OID_SUBJECT_KEY_IDENTIFIER,
  messageDigestOf,
  readSignedData,
  signingCertificateHashOf,
} from '@tawqi/shared/cms';
import { sha256Hex } from './certificates.js';

export type CmsRefusal = 'malformed' | 'attributes' | 'digest_mismatch' | 'certificate_mismatch' | 'signature_invalid';

export class CmsCheckError extends Error {
  constructor(
    readonly reason: CmsRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'CmsCheckError';
  }
}

const hex = (bytes: ArrayBuffer | Uint8Array): string =>
  Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)).toString('hex');

function sidMatches(sid: unknown, certificate: pkijs.Certificate): boolean {
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    return sid.issuer.isEqual(certificate.issuer) && sid.serialNumber.isEqual(certificate.serialNumber);
  }
  // subjectKeyIdentifier [0]: compare with the certificate's SKI extension.
  const keyId = sid as asn1js.Primitive | undefined;
  const ski = certificate.extensions?.find((e) => e.extnID === OID_SUBJECT_KEY_IDENTIFIER);
  if (!keyId?.valueBlock || !ski) return false;
  const parsed = asn1js.fromBER(ski.extnValue.valueBlock.valueHexView.slice().buffer).result as asn1js.OctetString;
  return hex(keyId.valueBlock.valueHexView) === hex(parsed.valueBlock.valueHexView);
}

/** Throws CmsCheckError unless `cms` is the agent's signature over `digest` with `certificate`. */
export function checkAgentCms(cms: Uint8Array, expected: { digest: Uint8Array; certificate: Uint8Array }): void {
  let signedData: pkijs.SignedData;
  try {
    signedData = readSignedData(cms);
  } catch (err) {
    throw new CmsCheckError('malformed', `not a DER CMS SignedData: ${(err as Error).message}`);
  }
  const signerInfo = signedData.signerInfos[0];
  if (signedData.signerInfos.length !== 1 || !signerInfo) throw new CmsCheckError('malformed', 'the CMS must have exactly one SignerInfo');
  if (signedData.encapContentInfo.eContent) throw new CmsCheckError('malformed', 'the CMS must be detached');
  if (signerInfo.digestAlgorithm.algorithmId !== OID_SHA256) throw new CmsCheckError('malformed', 'the digest algorithm must be SHA-256');
  if (!signerInfo.signedAttrs) throw new CmsCheckError('attributes', 'the SignerInfo has no signed attributes');

  const signedAttributesDer = new Uint8Array(signerInfo.signedAttrs.encodedValue);
  const attributes = signerInfo.signedAttrs.attributes;
  const types = attributes.map((a) => a.type);
  for (const required of [OID_ATTR_CONTENT_TYPE, OID_ATTR_MESSAGE_DIGEST, OID_ATTR_SIGNING_CERTIFICATE_V2]) {
    if (!types.includes(required)) throw new CmsCheckError('attributes', `the signed attributes lack ${required}`);
  }
  if (types.includes(OID_ATTR_SIGNING_TIME)) throw new CmsCheckError('attributes', 'PAdES signed attributes must not contain signing-time');
  const contentType = attributes.find((a) => a.type === OID_ATTR_CONTENT_TYPE)?.values[0];
  if (!(contentType instanceof asn1js.ObjectIdentifier) || contentType.valueBlock.toString() !== OID_DATA) {
    throw new CmsCheckError('attributes', 'the content-type attribute must be id-data');
  }

  let digest: Uint8Array;
  let certHash: Uint8Array;
  try {
    digest = messageDigestOf(signedAttributesDer);
    certHash = signingCertificateHashOf(signedAttributesDer);
  } catch (err) {
    throw new CmsCheckError('attributes', (err as Error).message);
  }
  if (hex(digest) !== hex(expected.digest))
    throw new CmsCheckError('digest_mismatch', 'the CMS signs another document version (message-digest differs)');

  const expectedHash = sha256Hex(expected.certificate);
  if (hex(certHash) !== expectedHash)
    throw new CmsCheckError('certificate_mismatch', 'signing-certificate-v2 names another certificate than the ticket');
  const certificate = pkijs.Certificate.fromBER(new Uint8Array(expected.certificate).buffer);
  if (!sidMatches(signerInfo.sid, certificate))
    throw new CmsCheckError('certificate_mismatch', 'the SignerInfo names another certificate than the ticket');
  for (const carried of signedData.certificates ?? []) {
    if (!(carried instanceof pkijs.Certificate)) continue;
    const der = new Uint8Array(carried.toSchema().toBER(false));
    if (sidMatches(signerInfo.sid, carried) && sha256Hex(der) !== expectedHash) {
      throw new CmsCheckError('certificate_mismatch', 'the CMS carries another signing certificate than the ticket');
    }
  }

  const signature = new Uint8Array(signerInfo.signature.valueBlock.valueHexView);
  const key = new X509Certificate(Buffer.from(expected.certificate)).publicKey;
  let ok = false;
  try {
    ok = verify(
      'sha256',
      signedAttributesDer,
      key.asymmetricKeyType === 'ec' && signature[0] !== 0x30 ? { key, dsaEncoding: 'ieee-p1363' } : key,
      signature,
    );
  } catch {
    ok = false;
  }
  if (!ok)
    throw new CmsCheckError('signature_invalid', 'the signature does not verify over the signed attributes with the certificate key');
}
