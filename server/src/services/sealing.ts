/**
 * Sealing, orchestrated: what the final PDF, the certificate and the evidence record show, read
 * from the store; the qes document and final PDF; the seal job. The sealing engine (sealing/)
 * renders and signs from the structured input.
 */
import { createHash } from 'node:crypto';
import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../context.js';
import { queueFinalFileNotices } from '../delivery/messages.js';
import { sealedPdfKey } from '../domain/fileKeys.js';
import { maskEmail, maskPhone } from '../domain/keys.js';
import { emitEvent } from '../events/emit.js';
import { observeSeal } from '../metrics.js';
import { MAX_JOB_ATTEMPTS } from '../retry.js';
import { buildEvidence } from '../sealing/evidence.js';
import { appendDocumentTimestamp, appendDss, lastDocumentTimestamp } from '../sealing/pades/index.js';
import { qesRevocation } from '../sealing/qes/index.js';
import { sealedFinalPdf, timestampDigest } from '../sealing/seal.js';
import type { FinalDocumentInput, TrailEntry } from '../sealing/types.js';
import { getAccount } from '../store/accounts.js';
import type { Db } from '../store/db.js';
import { listEvents } from '../store/events.js';
import type { JobRecord } from '../store/jobs.js';
import { getQesDocument } from '../store/qes.js';
import { getSealedDocument, insertEvidence, updateSealedDocument, type SealedDocument } from '../store/sealing.js';
import {
  getRequestById,
  signatureImagesOf,
  signersOf,
  type SignatureRequestRecord,
  type SignerRecord,
} from '../store/signatureRequests.js';
import { pendingDocument } from './completion.js';
import { emitRequestEvent } from './signatureRequests.js';
import { verificationFor } from './verification.js';

/** Event types shown on the completion certificate's trail (what happened to the document). */
const TRAIL_TYPES = new Set([
  'signature_request.created',
  'signature_request.sent',
  'signer.sent',
  'signer.viewed',
  'signer.otp_verified',
  'signer.identity_verified',
  'signer.identity_match_hold',
  'signer.identity_match_decided',
  'signer.signed',
  'signature_request.completed',
]);

/** A drawn signature's PNG bytes from its data URL (data:image/png;base64,…). */
const pngOf = (dataUrl: string | undefined): Buffer | null =>
  dataUrl ? Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64') : null;

/** Everything the final PDF, the certificate and the evidence record show, read from the store. */
export async function finalDocumentInput(ctx: ServiceContext, db: Db, sealed: SealedDocument): Promise<FinalDocumentInput> {
  const request = (await getRequestById(db, sealed.signature_request_id))!;
  const signers = await signersOf(db, request.id);
  const images = await signatureImagesOf(db, request.id);
  const account = (await getAccount(db, request.account_id))!;
  const events = await listEvents(db, {
    accountId: request.account_id,
    livemode: request.livemode,
    signatureRequestId: request.id,
    limit: 1000,
  });
  const names = new Map(signers.map((s) => [s.id, s.name]));
  const trail: TrailEntry[] = events
    .filter((e) => TRAIL_TYPES.has(e.type))
    .reverse()
    .map((e) => {
      const obj = e.data.object as { object?: string; id?: string };
      return {
        at: e.created_at,
        type: e.type,
        actor: obj.object === 'signer' && obj.id ? (names.get(obj.id) ?? 'signer') : 'system',
        ip: e.request_info?.ip ?? null,
        user_agent: e.request_info?.user_agent ?? null,
      };
    });
  const branding = account.branding as { brand_name?: unknown };
  return {
    request_id: request.id,
    reference: sealed.reference,
    title: request.title,
    language: request.language,
    legal_level: request.legal_level,
    format: request.format,
    livemode: request.livemode,
    document_text: sealed.document_text,
    document_hash: sealed.document_hash,
    created_at: request.created_at,
    completed_at: request.completed_at ?? sealed.created_at,
    sender: { account_name: account.name, brand_name: typeof branding.brand_name === 'string' ? branding.brand_name : null },
    signers: signers.map((s) => ({
      id: s.id,
      name: s.name,
      email_masked: s.email ? maskEmail(s.email) : null,
      phone_masked: s.phone ? maskPhone(s.phone) : null,
      order: s.position,
      method: s.method,
      signature_png: pngOf(images.get(s.id)),
      signed_at: s.signed_at ?? sealed.created_at,
      ip: s.ip,
      user_agent: s.user_agent,
      identity: s.require_identity
        ? { status: s.identity.status, provider: s.identity.provider, name_match: s.identity.name_match?.state ?? null }
        : null,
    })),
    trail,
    verification_url: `${ctx.publicUrl}/verify/${sealed.reference}`,
  };
}

/**
 * The final document as far as it is known before completion (what the first token signer signs):
 * the contract with every field value, then the certificate page with the signers and trail so far.
 * Not known yet, and shown as "—": the reference, the completion time, the signing times of signers
 * who have not signed, the verification address.
 */
export async function qesDocumentInput(
  ctx: ServiceContext,
  db: Db,
  request: SignatureRequestRecord,
  signers: readonly SignerRecord[],
): Promise<FinalDocumentInput> {
  // NaN stands for every time not known yet: the renderer writes "—" for it.
  const sealed = await pendingDocument(ctx, db, request, signers, request.reference ?? '', Number.NaN);
  const input = await finalDocumentInput(ctx, db, sealed);
  return { ...input, verification_url: request.reference ? input.verification_url : '' };
}

/**
 * The final PDF of a qes request: the token-signed PDF as the last signer left it (every signature
 * an incremental revision); for pades-lt, B-LTA: a /DSS appended when its last revision is not one,
 * then a document timestamp.
 */
export async function qesFinalPdf(ctx: ServiceContext, input: FinalDocumentInput): Promise<Uint8Array> {
  const doc = await getQesDocument(ctx.store.db, input.request_id);
  if (!doc || doc.signatures === 0) throw new Error(`qes request ${input.request_id} has no token-signed PDF`);
  const pdf = new Uint8Array(doc.pdf);
  if (input.format !== 'pades-lt') return pdf;
  const withDss = doc.dss === 1 ? pdf : await appendDss(pdf, await qesRevocation(ctx.pki));
  return appendDocumentTimestamp(withDss, timestampDigest(ctx.pki));
}

/** The final PDF for the request's format: platform-evidence embeds no signature; pades-t/-lt are sealed; qes is token-signed. */
export async function produceFinalPdf(ctx: ServiceContext, input: FinalDocumentInput): Promise<Uint8Array> {
  // qes: the signers' tokens signed the document; it is final as they left it (a /DSS added for pades-lt).
  if (input.legal_level === 'qes') return qesFinalPdf(ctx, input);
  return sealedFinalPdf(ctx.pki, input, ctx.publicUrl);
}

/**
 * B-LTA: when the final PDF's last document timestamp can be checked until (the renewal job's due
 * date); null without one, or when its token does not carry the TSA's certificate (an external TSA
 * that ignored certReq: nothing to renew by, said in the log; the PDF is still good).
 */
function timestampExpiry(ctx: ServiceContext, requestId: string, pdf: Uint8Array): number | null {
  try {
    const last = lastDocumentTimestamp(pdf);
    return last ? Math.floor(last.notAfter.getTime() / 1000) : null;
  } catch (err) {
    ctx.log.warn({ signature_request_id: requestId, err: String(err) }, 'document timestamp unreadable: the archive will not be renewed');
    return null;
  }
}

/**
 * Job: seal a completed request. Render (and for PAdES formats sign) the final PDF, store it
 * (ctx.files, atomically on every backend), then in one transaction: pdf_status ready with its
 * SHA-256, the evidence record (live only), document.sealed and verification.created (live only),
 * and the final-file notices.
 * After the last attempt fails the PDF is marked unavailable (final_document_url still serves the text).
 */
export async function runSeal(ctx: ServiceContext, payload: Record<string, unknown>, job: JobRecord): Promise<void> {
  const requestId = String(payload.signature_request_id);
  const sealed = await getSealedDocument(ctx.store.db, requestId);
  if (!sealed || sealed.pdf_status !== 'pending') return;
  const key = sealedPdfKey(requestId);
  let bytes: Uint8Array;
  let input: FinalDocumentInput;
  try {
    input = await finalDocumentInput(ctx, ctx.store.db, sealed);
    const started = performance.now();
    bytes = await produceFinalPdf(ctx, input);
    observeSeal(input.format, input.legal_level, (performance.now() - started) / 1000);
    await ctx.files.put(key, bytes);
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
    await updateSealedDocument(trx, requestId, {
      pdf_status: 'ready',
      pdf_file: key.slice(key.lastIndexOf('/') + 1), // <id>.pdf, the name it has always had
      pdf_sha256: pdfSha256,
      sealed_at: now,
      error: null,
      timestamp_expires_at: timestampExpiry(ctx, requestId, bytes),
    });
    const request = (await getRequestById(trx, requestId))!;
    if (!request.livemode) return;
    const signers = await signersOf(trx, requestId);
    await insertEvidence(trx, { signature_request_id: requestId, ...evidence!, created_at: now });
    await emitRequestEvent(ctx, trx, 'document.sealed', request, signers);
    const verification = await verificationFor(ctx, trx, request.reference!);
    await emitEvent(trx, ctx.clock, {
      accountId: request.account_id,
      livemode: true,
      type: 'verification.created',
      object: verification!,
      signatureRequestId: requestId,
    });
    const account = (await getAccount(trx, request.account_id))!;
    await queueFinalFileNotices(ctx, trx, request, signers, account.owner_email);
  });
  ctx.afterCommit();
}
