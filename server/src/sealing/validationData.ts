/**
 * Validation data for a /DSS (PAdES B-LT and B-LTA): what a verifier needs, years later and
 * offline, to check a signature and the timestamps over it.
 *
 * We can vouch only for our own CA: an OCSP response is made for each certificate the built-in CA
 * issued (the signer's when it is ours, the TSA's) and the CRL is ours. A foreign CA's CRL or OCSP
 * (an operator's PKCS#12 seal, a signer's token, an external TSA) is not fetched: its certificates
 * are added as they came (in the token or the chain), and a verifier fetches their status online.
 */
import type { RevocationData } from './pades/index.js';
import { crlDer, ocspResponseFor, type Pki } from './pki/index.js';

/** Our OCSP response for `certificate`, or null when the built-in CA did not issue it. */
async function ourOcsp(pki: Pki, certificate: Uint8Array): Promise<Uint8Array | null> {
  try {
    return await ocspResponseFor(pki, certificate);
  } catch {
    return null;
  }
}

/**
 * For a signature and its signature timestamp: the signer's chain and our OCSP for the signer when
 * our CA issued it; with the built-in TSA, its certificate, our CA and our OCSP for the TSA; our CRL.
 */
export async function signatureValidationData(
  pki: Pki,
  signer?: { certificate: Uint8Array; chain: readonly Uint8Array[] },
): Promise<RevocationData> {
  const tsa = pki.externalTsaUrl === null ? await timestampValidationData(pki, [pki.tsa.certificate]) : null;
  const signerOcsp = signer ? await ourOcsp(pki, signer.certificate) : null;
  return {
    certificates: [...(signer ? [signer.certificate, ...signer.chain] : []), ...(tsa?.certificates ?? [])],
    crls: [await crlDer(pki)],
    ocspResponses: [...(tsa?.ocspResponses ?? []), ...(signerOcsp ? [signerOcsp] : [])],
  };
}

/**
 * For a timestamp (the signature timestamp or a document timestamp): the certificates its token
 * carries, and for those our CA issued, our CA certificate, our CRL and an OCSP response each.
 */
export async function timestampValidationData(pki: Pki, tokenCertificates: readonly Uint8Array[]): Promise<RevocationData> {
  const ocsp: Uint8Array[] = [];
  for (const certificate of tokenCertificates) {
    const response = await ourOcsp(pki, certificate);
    if (response) ocsp.push(response);
  }
  const ours = ocsp.length > 0;
  return {
    certificates: [...tokenCertificates, ...(ours ? [pki.ca.certificate] : [])],
    crls: ours ? [await crlDer(pki)] : [],
    ocspResponses: ocsp,
  };
}
