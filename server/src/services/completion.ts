import { nowSeconds } from '../clock.js';
import { documentValues } from '../domain/requestRules.js';
import { renderTemplate } from '../domain/templates.js';
import { documentHash } from '../domain/documentHash.js';
import type { Db } from '../store/db.js';
import { scheduleJob } from '../store/jobs.js';
import { insertSealedDocument } from '../store/sealing.js';
import type { SignatureRequestRecord, SignerRecord } from '../store/signatureRequests.js';
import { findTemplate } from '../store/templates.js';
import type { ServiceContext } from '../context.js';

/**
 * In the completing transaction: fix the document text (template filled with every signer's
 * values) and its hash for verification, mark the PDF pending, and schedule the sealing job.
 */
export async function recordCompletion(ctx: ServiceContext, trx: Db, request: SignatureRequestRecord, signers: readonly SignerRecord[]): Promise<void> {
  const template = await findTemplate(trx, request.account_id, request.template_id);
  const text = template ? renderTemplate(template.body, documentValues(signers)) : '';
  const now = nowSeconds(ctx.clock);
  await insertSealedDocument(trx, {
    signature_request_id: request.id,
    account_id: request.account_id,
    livemode: request.livemode ? 1 : 0,
    reference: request.reference!,
    document_text: text,
    document_hash: documentHash(ctx.secrets.documentKey, text),
    pdf_status: 'pending',
    pdf_file: null,
    pdf_sha256: null,
    error: null,
    created_at: now,
    sealed_at: null,
  });
  await scheduleJob(trx, 'seal_request', now, { signature_request_id: request.id }, now, `seal:${request.id}`);
}
