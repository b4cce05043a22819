import { createHash } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { nowSeconds } from '../clock.js';
import type { JobRecord } from '../store/jobs.js';
import { MAX_JOB_ATTEMPTS } from '../jobs/runner.js';
import type { ServiceContext } from '../services/context.js';
import { emitEvent } from '../services/events.js';
import { queueFinalFileNotices } from '../services/invitations.js';
import { emitRequestEvent } from '../services/signatureRequests.js';
import { observeSeal } from '../metrics.js';
import { getAccount } from '../store/accounts.js';
import { getSealedDocument, insertEvidence, updateSealedDocument } from '../store/sealing.js';
import { getRequestById, signersOf } from '../store/signatureRequests.js';
import { buildEvidence } from './evidence.js';
import { finalDocumentInput } from './input.js';
import { signPades, type PadesSigner } from './pades/index.js';
import { renderFinalPdf } from './pdf/index.js';
import { crlDer, ocspResponseFor, timestamp, tokenFromResponse, type Pki } from './pki/index.js';
import { qesFinalPdf } from './qes/index.js';
import type { FinalDocumentInput } from './types.js';
import { verificationFor } from './verification.js';

export function pdfFile(dataDir: string, requestId: string): string {
  return path.join(dataDir, 'documents', `${requestId}.pdf`);
}

/** An RFC 3161 token (ContentInfo DER) over a SHA-256 digest, from the built-in or configured TSA. */
export const timestampDigest = (pki: Pki) => async (digest: Uint8Array): Promise<Uint8Array> =>
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

/** The final PDF for the request's format: platform-evidence embeds no signature; pades-t/-lt are sealed; qes is token-signed. */
export async function produceFinalPdf(ctx: ServiceContext, input: FinalDocumentInput): Promise<Uint8Array> {
  // qes: the signers' tokens signed the document; it is final as they left it (a /DSS added for pades-lt).
  if (input.legal_level === 'qes') return qesFinalPdf(ctx, input);
  const pdf = await renderFinalPdf(input);
  if (input.format !== 'pades-t' && input.format !== 'pades-lt') return pdf;
  const pki = ctx.pki;
  await pki.maintain(); // renews leaf certificates that are due; cheap otherwise
  const level = input.format === 'pades-lt' ? 'B-LT' : 'B-T';
  const seal = pki.seal;
  const revocation =
    level === 'B-LT'
      ? { certificates: [seal.certificate, ...seal.chain, pki.tsa.certificate], crls: [await crlDer(pki)], ocspResponses: [await ocspResponseFor(pki, seal.certificate)] }
      : undefined;
  return signPades(pdf, {
    signer: sealPadesSigner(pki),
    timestamp: timestampDigest(pki),
    level,
    revocation,
    signingTime: new Date(input.completed_at * 1000),
    name: input.sender.brand_name ?? input.sender.account_name,
    reason: input.language === 'ar' ? `ختم المستند ${input.reference}` : `Sealed ${input.reference}`,
    location: ctx.publicUrl,
  });
}

/**
 * Job: seal a completed request. Render (and for PAdES formats sign) the final PDF, write it
 * atomically, then in one transaction: pdf_status ready with its SHA-256, the evidence record
 * (live only), document.sealed and verification.created (live only), and the final-file notices.
 * After the last attempt fails the PDF is marked unavailable (final_document_url still serves the text).
 */
export async function runSeal(ctx: ServiceContext, payload: Record<string, unknown>, job: JobRecord): Promise<void> {
  const requestId = String(payload.signature_request_id);
  const sealed = await getSealedDocument(ctx.store.db, requestId);
  if (!sealed || sealed.pdf_status !== 'pending') return;
  const file = pdfFile(ctx.config.DATA_DIR, requestId);
  let bytes: Uint8Array;
  let input: FinalDocumentInput;
  try {
    input = await finalDocumentInput(ctx, ctx.store.db, sealed);
    const started = performance.now();
    bytes = await produceFinalPdf(ctx, input);
    observeSeal(input.format, input.legal_level, (performance.now() - started) / 1000);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(`${file}.tmp`, bytes, { mode: 0o600 });
    await rename(`${file}.tmp`, file);
  } catch (err) {
    if (job.attempts + 1 >= MAX_JOB_ATTEMPTS) {
      await updateSealedDocument(ctx.store.db, requestId, { pdf_status: 'unavailable', error: String(err).slice(0, 500) });
      ctx.log.error({ signature_request_id: requestId, err: String(err) }, 'final PDF unavailable');
      return;
    }
    throw err;
  }
  const pdfSha256 = createHash('sha256').update(bytes).digest('hex');
  const evidence = sealed.livemode === 1 ? await buildEvidence(ctx.pki, input, pdfSha256) : null;

  await ctx.store.tx(async (trx) => {
    const current = await getSealedDocument(trx, requestId);
    if (!current || current.pdf_status !== 'pending') return;
    const now = nowSeconds(ctx.clock);
    await updateSealedDocument(trx, requestId, { pdf_status: 'ready', pdf_file: path.basename(file), pdf_sha256: pdfSha256, sealed_at: now, error: null });
    const request = (await getRequestById(trx, requestId))!;
    if (!request.livemode) return;
    const signers = await signersOf(trx, requestId);
    await insertEvidence(trx, { signature_request_id: requestId, ...evidence!, created_at: now });
    await emitRequestEvent(ctx, trx, 'document.sealed', request, signers);
    const verification = await verificationFor(ctx, trx, request.reference!);
    await emitEvent(trx, ctx.clock, { accountId: request.account_id, livemode: true, type: 'verification.created', object: verification!, signatureRequestId: requestId });
    const account = (await getAccount(trx, request.account_id))!;
    await queueFinalFileNotices(ctx, trx, request, signers, account.owner_email);
  });
  ctx.afterCommit();
}
