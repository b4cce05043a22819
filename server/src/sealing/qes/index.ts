/**
 * Qualified signatures with a signer's token (DESIGN §5; README.md in this folder): what the
 * sealing side needs — the checks, the ticket, the preview and the revocation data for a token
 * signature's /DSS (services/qes.ts and services/sealing.ts run the flow).
 */

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
 * the signer's certificate when our CA issued it (sealing/validationData.ts).
 */
export { signatureValidationData as qesRevocation } from '../validationData.js';
