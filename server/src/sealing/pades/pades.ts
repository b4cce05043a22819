/**
 * PAdES baseline signatures (ETSI EN 319 142-1) B-T and B-LT.
 *
 *   preparePades   PDF → PDF with placeholder, ByteRange digest, DER signed attributes to sign
 *   completePades  + signature value → CMS (+ signature-time-stamp) in /Contents (+ /DSS for B-LT)
 *   signPades      both, with a PadesSigner that signs in process (the platform seal)
 *   appendSignature  signPades for a PDF that is already signed: always an incremental update
 *
 * The split lets the qes flow hand the signed attributes to a signer's token through the desktop
 * agent and finish later (PreparedPades is plain data and can be stored in between).
 */
import { appendDss } from './dss.js';
import {
  OID_ATTR_CONTENT_TYPE,
  OID_ATTR_MESSAGE_DIGEST,
  OID_ATTR_SIGNING_CERTIFICATE_V2,
  OID_ATTR_SIGNING_TIME,
  messageDigestOf,
  readSignedData,
  signingCertificateHashOf,
} from '@tawqi/shared/cms';
import { assembleCms, buildSignedAttributes, normaliseSignatureValue, padesErrors, sha256 } from './signature.js';
import { addPlaceholder, embedCms, fillByteRange, signedBytes } from './placeholder.js';
import { PadesError, type CompletePadesOptions, type PreparePadesOptions, type PreparedPades, type SignPadesOptions } from './types.js';

const equal = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));

export async function preparePades(pdf: Uint8Array, options: PreparePadesOptions): Promise<PreparedPades> {
  const { pdf: withPlaceholder, fieldName } = await addPlaceholder(pdf, options);
  const { pdf: pdfWithPlaceholder, byteRange } = fillByteRange(withPlaceholder);
  const byteRangeDigest = sha256(signedBytes(pdfWithPlaceholder, byteRange));
  const signedAttributesDer = buildSignedAttributes(options.certificate, byteRangeDigest);
  return {
    pdfWithPlaceholder,
    byteRange,
    byteRangeDigest,
    signedAttributesDer,
    certificate: options.certificate,
    chain: options.chain,
    keyAlgorithm: options.keyAlgorithm,
    fieldName,
  };
}

/** Checks that a PreparedPades still belongs together (e.g. after a round trip through storage). */
function checkPrepared(prepared: PreparedPades): void {
  const digest = sha256(signedBytes(prepared.pdfWithPlaceholder, prepared.byteRange));
  if (
    !equal(digest, prepared.byteRangeDigest) ||
    !equal(
      padesErrors(() => messageDigestOf(prepared.signedAttributesDer)),
      digest,
    )
  ) {
    throw new PadesError('digest_mismatch', 'the prepared PDF, its ByteRange digest and the signed attributes do not match');
  }
}

/**
 * Finishes a prepared signature with the signer's signature over prepared.signedAttributesDer:
 * assembles the CMS, adds the signature-time-stamp (B-T), embeds it, and for B-LT appends a /DSS.
 */
export async function completePades(
  prepared: PreparedPades,
  signatureValue: Uint8Array,
  options: CompletePadesOptions,
): Promise<Uint8Array> {
  checkPrepared(prepared);
  if (options.level === 'B-LT') checkRevocation(options);
  const signature = normaliseSignatureValue({
    certificate: prepared.certificate,
    keyAlgorithm: prepared.keyAlgorithm,
    signedAttributesDer: prepared.signedAttributesDer,
    signatureValue,
  });
  const { cms, timestampCertificates } = await assembleCms({
    certificate: prepared.certificate,
    chain: prepared.chain,
    keyAlgorithm: prepared.keyAlgorithm,
    signedAttributesDer: prepared.signedAttributesDer,
    signatureValue: signature,
    timestamp: options.timestamp,
  });
  const signed = embedCms(prepared.pdfWithPlaceholder, prepared.byteRange, cms);
  if (options.level === 'B-T') return signed;
  const revocation = options.revocation ?? { certificates: [], crls: [], ocspResponses: [] };
  return appendDss(signed, {
    certificates: [prepared.certificate, ...prepared.chain, ...timestampCertificates, ...revocation.certificates],
    crls: revocation.crls,
    ocspResponses: revocation.ocspResponses,
  });
}

/**
 * Finishes a prepared signature from a detached CMS SignedData made elsewhere (the desktop agent
 * returns one): its signed attributes must carry this PDF's digest and its signature must verify
 * with prepared.certificate; the SignerInfo's signed attributes and signature are kept and the
 * SignedData is rebuilt with the timestamp (and the chain we know).
 */
export async function completePadesFromCms(prepared: PreparedPades, cms: Uint8Array, options: CompletePadesOptions): Promise<Uint8Array> {
  const signedData = padesErrors(() => readSignedData(cms));
  const signerInfo = signedData.signerInfos[0];
  if (signedData.signerInfos.length !== 1 || !signerInfo?.signedAttrs) {
    throw new PadesError('invalid_cms', 'the CMS must have exactly one SignerInfo with signed attributes');
  }
  if (signedData.encapContentInfo.eContent) throw new PadesError('invalid_cms', 'the CMS must be detached');
  const signedAttributesDer = new Uint8Array(signerInfo.signedAttrs.encodedValue);
  const types = signerInfo.signedAttrs.attributes.map((a) => a.type);
  for (const required of [OID_ATTR_CONTENT_TYPE, OID_ATTR_MESSAGE_DIGEST, OID_ATTR_SIGNING_CERTIFICATE_V2]) {
    if (!types.includes(required)) throw new PadesError('invalid_cms', `the signed attributes lack ${required}`);
  }
  if (types.includes(OID_ATTR_SIGNING_TIME))
    throw new PadesError('invalid_cms', 'PAdES baseline signed attributes must not contain signing-time');
  if (
    !equal(
      padesErrors(() => messageDigestOf(signedAttributesDer)),
      prepared.byteRangeDigest,
    )
  ) {
    throw new PadesError('digest_mismatch', 'the CMS signs a different document');
  }
  if (
    !equal(
      padesErrors(() => signingCertificateHashOf(signedAttributesDer)),
      sha256(prepared.certificate),
    )
  ) {
    throw new PadesError('invalid_cms', 'signing-certificate-v2 names another certificate than the prepared one');
  }
  return completePades({ ...prepared, signedAttributesDer }, new Uint8Array(signerInfo.signature.valueBlock.valueHexView), options);
}

function checkRevocation(options: CompletePadesOptions): void {
  const revocation = options.revocation;
  if (!revocation || revocation.crls.length + revocation.ocspResponses.length === 0) {
    throw new PadesError('missing_revocation', 'B-LT needs revocation data (CRLs or OCSP responses) for the /DSS');
  }
}

/** One-shot PAdES B-T / B-LT with an in-process signer (the platform seal). */
export async function signPades(pdf: Uint8Array, options: SignPadesOptions): Promise<Uint8Array> {
  const { signer, timestamp, level, revocation, ...placeholder } = options;
  if (level === 'B-LT') checkRevocation(options);
  const prepared = await preparePades(pdf, {
    ...placeholder,
    certificate: signer.certificate,
    chain: signer.chain,
    keyAlgorithm: signer.keyAlgorithm,
  });
  const signature = await signer.sign(prepared.signedAttributesDer);
  return completePades(prepared, signature, { timestamp, level, ...(revocation ? { revocation } : {}) });
}

/**
 * Adds a further signature to an already signed PDF (a second signer, or the seal after a signer's
 * qes signature): a new field and placeholder in an incremental update after the last revision.
 */
export async function appendSignature(pdf: Uint8Array, options: SignPadesOptions): Promise<Uint8Array> {
  return signPades(pdf, { ...options, mode: 'incremental' });
}
