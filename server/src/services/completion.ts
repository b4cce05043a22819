import { nowSeconds } from '../clock.js';
import { documentValues } from '../domain/requestRules.js';
import { renderTemplate } from '../domain/templates.js';
import { documentHash } from '../domain/documentHash.js';
import type { Db } from '../store/db.js';
import { scheduleJob } from '../store/jobs.js';
import { insertSealedDocument, type SealedDocument } from '../store/sealing.js';
import type { SignatureRequestRecord, SignerRecord } from '../store/signatureRequests.js';
import { findTemplate } from '../store/templates.js';
import type { ServiceContext } from '../context.js';

/**
 * In the completing transaction: fix the document text (template filled with every signer's
 * values) and its hash for verification, mark the PDF pending, and schedule the sealing job.
 */
export async function recordCompletion(
  ctx: ServiceContext,
  trx: Db,
  request: SignatureRequestRecord,
  signers: readonly SignerRecord[],
): Promise<void> {
  const now = nowSeconds(ctx.clock);
  await insertSealedDocument(trx, await pendingDocument(ctx, trx, request, signers, request.reference!, now));
  await scheduleJob(trx, 'seal_request', now, { signature_request_id: request.id }, now, `seal:${request.id}`);
}

/**
 * The document of a request as it stands (template filled with every signer's values, its hash),
 * its PDF pending: the row the completing transaction inserts, and the base of the qes document
 * signed before completion (services/sealing.ts qesDocumentInput).
 */
export async function pendingDocument(
  ctx: ServiceContext,
  db: Db,
  request: SignatureRequestRecord,
  signers: readonly SignerRecord[],
  reference: string,
  createdAt: number,
): Promise<SealedDocument> {
  const template = await findTemplate(db, request.account_id, request.template_id);
  const text = template ? renderTemplate(template.body, documentValues(signers)) : '';
  return {
    signature_request_id: request.id,
    account_id: request.account_id,
    livemode: request.livemode ? 1 : 0,
    reference,
    document_text: text,
    document_hash: documentHash(ctx.secrets.documentKey, text),
    pdf_status: 'pending',
    pdf_file: null,
    pdf_sha256: null,
    error: null,
    created_at: createdAt,
    sealed_at: null,
    timestamp_expires_at: null,
    archive_retry_at: null,
    earlier_pdf_sha256: '[]',
  };
}
