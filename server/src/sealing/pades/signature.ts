/**
 * The CAdES detached SignedData inside a PAdES signature, on the CMS module (@tawqi/shared/cms).
 *
 * Split in two so the signature can come from elsewhere (a seal key in this process, an HSM, or a
 * signer's token behind the desktop agent):
 *   1. buildSignedAttributes(certificate, digest) → the DER SET OF (tag 0x31) the signer signs;
 *   2. assembleCms({ signedAttributesDer, signatureValue, … }) → the DER ContentInfo, with the
 *      signature-time-stamp unsigned attribute when a TSA is given.
 *
 * What is left here is the Node side: hashing, checking the signature value with node:crypto, and
 * the CMS module's errors as PadesErrors (same codes).
 */
import { X509Certificate, createHash, verify as verifySignature } from 'node:crypto';
import {
  CmsError,
  checkTimestampToken,
  distinctDer,
  ecdsaRawToDer,
  isDerEcdsa,
  padesSignedAttributes,
  sha256SignatureAlgorithm,
  signatureTimeStampTokenAttribute,
  signedData,
} from '@tawqi/shared/cms';
import { PadesError, type PadesKeyAlgorithm, type TimestampFn } from './types.js';

export const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());

/** Runs `fn`, turning a CmsError into the PadesError of the same code. */
export function padesErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof CmsError) throw new PadesError(error.code, error.message);
    throw error;
  }
}

/**
 * The DER of the signed attributes as a SET OF (tag 0x31), elements in DER order: the bytes a
 * signer signs with SHA-256. The same bytes go into SignerInfo.signedAttrs with tag [0].
 */
export function buildSignedAttributes(certificate: Uint8Array, messageDigest: Uint8Array): Uint8Array {
  return padesErrors(() => padesSignedAttributes(certificate, sha256(certificate), messageDigest));
}

const RAW_ECDSA_LENGTH: Record<PadesKeyAlgorithm, number> = { RSA: 0, 'ECDSA-P256': 64, 'ECDSA-P384': 96 };

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
    throw new PadesError(
      'invalid_signature_value',
      'the signature does not verify with the signing certificate over the signed attributes',
    );
  }
  return signature;
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
  let timestampCertificates: Uint8Array[] = [];
  let token: Uint8Array | null = null;
  if (input.timestamp) {
    const digest = sha256(input.signatureValue);
    token = await input.timestamp(digest);
    const checked = token;
    timestampCertificates = padesErrors(() => checkTimestampToken(checked, digest)).certificates;
  }
  const cms = padesErrors(() =>
    signedData({
      signerCertificate: input.certificate,
      certificates: distinctDer([input.certificate, ...input.chain]),
      signedAttributes: input.signedAttributesDer,
      signatureAlgorithm: sha256SignatureAlgorithm(input.keyAlgorithm === 'RSA' ? 'rsa' : 'ec'),
      signature: input.signatureValue,
      ...(token ? { unsignedAttributes: [signatureTimeStampTokenAttribute(token)] } : {}),
    }),
  );
  return { cms, timestampCertificates };
}
