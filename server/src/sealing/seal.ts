import { embeddedEvidence } from './evidence.js';
import { appendDocumentTimestamp, appendDss, lastDocumentTimestamp, signPades, type PadesSigner } from './pades/index.js';
import { renderFinalPdf } from './pdf/index.js';
import { timestamp, tokenFromResponse, type Pki } from './pki/index.js';
import type { FinalDocumentInput } from './types.js';
import { signatureValidationData, timestampValidationData } from './validationData.js';

/** An RFC 3161 token (ContentInfo DER) over a SHA-256 digest, from the built-in or configured TSA. */
export const timestampDigest =
  (pki: Pki) =>
  async (digest: Uint8Array): Promise<Uint8Array> =>
    tokenFromResponse(await timestamp(pki, { hashAlgorithm: 'SHA-256', hashedMessage: digest }));

/** The platform seal as a PAdES signer (aes path). */
export function sealPadesSigner(pki: Pki): PadesSigner {
  const seal = pki.seal;
  return {
    certificate: seal.certificate,
    chain: [...seal.chain],
    keyAlgorithm: seal.signatureAlgorithm.name === 'sha256WithRSAEncryption' ? 'RSA' : 'ECDSA-P256',
    sign: async (der) => seal.sign(der),
  };
}

/**
 * The final PDF of an aes or ses request from its input: platform-evidence embeds no signature;
 * pades-t/-lt are sealed with the platform seal (qes requests: services/sealing.ts). A live
 * request's PDF carries its signed evidence record (evidence.ts embeddedEvidence); test requests
 * get none, as they get no stored evidence record.
 */
export async function sealedFinalPdf(pki: Pki, input: FinalDocumentInput, location: string): Promise<Uint8Array> {
  const pdf = await renderFinalPdf(input, input.livemode ? await embeddedEvidence(pki, input) : []);
  if (input.format !== 'pades-t' && input.format !== 'pades-lt') return pdf;
  await pki.maintain(); // renews leaf certificates that are due; cheap otherwise
  const level = input.format === 'pades-lt' ? 'B-LT' : 'B-T';
  const seal = pki.seal;
  const signed = await signPades(pdf, {
    signer: sealPadesSigner(pki),
    timestamp: timestampDigest(pki),
    level,
    // The seal's chain and revocation data, and the TSA's: the document timestamp that follows is
    // made by the same TSA, so this /DSS covers it too (with the built-in TSA).
    revocation: level === 'B-LT' ? await signatureValidationData(pki, seal) : undefined,
    signingTime: new Date(input.completed_at * 1000),
    name: input.sender.brand_name ?? input.sender.account_name,
    reason: input.language === 'ar' ? `ختم المستند ${input.reference}` : `Sealed ${input.reference}`,
    location,
  });
  return level === 'B-LT' ? appendDocumentTimestamp(signed, timestampDigest(pki)) : signed;
}

/**
 * Renews a B-LTA archive (its last document timestamp's TSA certificate nears its end): a /DSS
 * update with the validation data of that timestamp (its certificates, our CRL and OCSP for ours),
 * then a new document timestamp over everything. Earlier revisions stay byte for byte.
 */
export async function renewArchiveTimestamp(pki: Pki, pdf: Uint8Array): Promise<Uint8Array> {
  const last = lastDocumentTimestamp(pdf);
  if (!last) throw new Error('the PDF has no document timestamp to renew');
  await pki.maintain();
  const withDss = await appendDss(pdf, await timestampValidationData(pki, last.certificates));
  return appendDocumentTimestamp(withDss, timestampDigest(pki));
}
