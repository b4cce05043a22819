/**
 * Qualified signatures with a signer's token (DESIGN §5; README.md in this folder): what the
 * sealing side needs — the document a first token signer signs, the revocation data for a token
 * signature's /DSS, and the final PDF of a qes request.
 */
import { documentValues } from '../../domain/requestRules.js';
import { renderTemplate } from '../../domain/templates.js';
import type { ServiceContext } from '../../context.js';
import type { Db } from '../../store/db.js';
import type { SealedDocument } from '../../store/sealing.js';
import type { SignatureRequestRecord, SignerRecord } from '../../store/signatureRequests.js';
import { findTemplate } from '../../store/templates.js';
import { documentHash } from '../documentHash.js';
import { finalDocumentInput } from '../input.js';
import { appendDss, type RevocationData } from '../pades/index.js';
import { crlDer, ocspResponseFor, type Pki } from '../pki/index.js';
import type { FinalDocumentInput } from '../types.js';
import { getQesDocument } from './store.js';

export { checkAgentCms, CmsCheckError, type CmsRefusal } from './cms.js';
export { checkSigningCertificate, CertificateError, TrustedRoots, pemCertificates, sha256Hex, type CertificateRefusal, type CheckedCertificate } from './certificates.js';
export { previewOf, type Preview } from './preview.js';
export { issueTicket, verifyTicket, TicketError, TICKET_LIFETIME_SECONDS, type TicketRefusal } from './ticket.js';
export * from './store.js';

/**
 * The final document as far as it is known before completion (what the first token signer signs):
 * the contract with every field value, then the certificate page with the signers and trail so far.
 * Not known yet, and shown as "—": the reference, the completion time, the signing times of signers
 * who have not signed, the verification address.
 */
export async function qesDocumentInput(ctx: ServiceContext, db: Db, request: SignatureRequestRecord, signers: readonly SignerRecord[]): Promise<FinalDocumentInput> {
  const template = await findTemplate(db, request.account_id, request.template_id);
  const text = template ? renderTemplate(template.body, documentValues(signers)) : '';
  const sealed: SealedDocument = {
    signature_request_id: request.id,
    account_id: request.account_id,
    livemode: request.livemode ? 1 : 0,
    reference: request.reference ?? '',
    document_text: text,
    document_hash: documentHash(ctx.secrets.documentKey, text),
    pdf_status: 'pending',
    pdf_file: null,
    pdf_sha256: null,
    error: null,
    // Stands for every time not known yet: the renderer writes "—" for it.
    created_at: Number.NaN,
    sealed_at: null,
  };
  const input = await finalDocumentInput(ctx, db, sealed);
  return { ...input, verification_url: request.reference ? input.verification_url : '' };
}

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

/**
 * The final PDF of a qes request: the token-signed PDF as the last signer left it (every signature
 * an incremental revision), with a /DSS appended for pades-lt when its last revision is not one.
 */
export async function qesFinalPdf(ctx: ServiceContext, input: FinalDocumentInput): Promise<Uint8Array> {
  const doc = await getQesDocument(ctx.store.db, input.request_id);
  if (!doc || doc.signatures === 0) throw new Error(`qes request ${input.request_id} has no token-signed PDF`);
  const pdf = new Uint8Array(doc.pdf);
  if (input.format !== 'pades-lt' || doc.dss === 1) return pdf;
  return appendDss(pdf, await qesRevocation(ctx.pki));
}
