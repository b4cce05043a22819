/**
 * Qualified signatures with a signer's token (DESIGN §5; README.md in this folder): what the
 * sealing side needs — the checks, the ticket, the preview and the revocation data for a token
 * signature's /DSS (services/qes.ts and services/sealing.ts run the flow).
 */
import type { RevocationData } from '../pades/index.js';
import { crlDer, ocspResponseFor, type Pki } from '../pki/index.js';

export { checkAgentCms, CmsCheckError, type CmsRefusal } from './cms.js';
export {
  checkSigningCertificate,
  CertificateError,
  TrustedRoots,
  pemCertificates,
  sha256Hex,
  type CertificateRefusal,
  type CheckedCertificate,
} from './certificates.js';
export { previewOf, type Preview } from './preview.js';
export { issueTicket, verifyTicket, TicketError, TICKET_LIFETIME_SECONDS, type TicketRefusal } from './ticket.js';
export { encodePrepared, decodePrepared } from './prepared.js';

/**
 * What goes into the /DSS after a token signature (B-LT): the signer's chain as the token offered
 * it, our TSA's certificate and CA, our CRL, an OCSP response for our TSA certificate, and one for
 * the signer's certificate when our CA issued it. A foreign CA's CRL or OCSP is not fetched.
 */
export async function qesRevocation(pki: Pki, signer?: { certificate: Uint8Array; chain: readonly Uint8Array[] }): Promise<RevocationData> {
  const ocsp: Uint8Array[] = [];
  const builtInTsa = pki.externalTsaUrl === null;
  if (builtInTsa) ocsp.push(await ocspResponseFor(pki, pki.tsa.certificate));
  if (signer) {
    try {
      ocsp.push(await ocspResponseFor(pki, signer.certificate));
    } catch {
      // Not issued by our CA: nothing of ours to say about it.
    }
  }
  return {
    certificates: [...(signer?.chain ?? []), ...(builtInTsa ? [pki.tsa.certificate, pki.ca.certificate] : [])],
    crls: [await crlDer(pki)],
    ocspResponses: ocsp,
  };
}
