/**
 * The qes path on the signing page (DESIGN §5; signing-page/API.md, token calls):
 *
 *   check     each listed certificate → prepare's certificate check, answered per certificate, nothing
 *             stored (the page offers only what prepare will take)
 *   prepare   certificate → checked (key usage, validity, chain) → the PDF to sign (first token
 *             signer: the final document rendered as far as known; later ones: the request's current
 *             token-signed PDF) with a placeholder (incremental after the first signature) → the
 *             PreparedPades stored by signer (single use, lives as long as its ticket) → a sign ticket
 *   preview   ticket → page 1 of the prepared PDF (for the agent's consent window)
 *   complete  the agent's CMS → checked → signature timestamp, embedded, /DSS for pades-lt → the new
 *             token-signed PDF and the signer's `sign` move in one transaction
 *
 * The CMS, timestamp and PDF work runs before the transaction; the transaction checks again that the
 * ticket is still open and the PDF it was prepared on is still the current one.
 */
import { createHash } from 'node:crypto';
import type { TokenCheckBody, TokenChecked, TokenPrepareBody, TokenPrepared } from '@tawqi/shared';
import { PDFDocument } from 'pdf-lib';
import { nowSeconds } from '../clock.js';
import { ApiError } from '../errors.js';
import { endSignerSessions } from '../store/pageSessions.js';
import { completePadesFromCms, PadesError, preparePades } from '../sealing/pades/index.js';
import { renderFinalPdf } from '../sealing/pdf/index.js';
import {
  CertificateError,
  checkAgentCms,
  checkSigningCertificate,
  CmsCheckError,
  decodePrepared,
  encodePrepared,
  issueTicket,
  previewOf,
  qesRevocation,
  TicketError,
  TrustedRoots,
  verifyTicket,
  type CheckedCertificate,
  type Preview,
} from '../sealing/qes/index.js';
import { timestampDigest } from '../sealing/seal.js';
import { getPrepared, getQesDocument, markPreparedUsed, savePrepared, saveQesDocument, type QesPreparedRow } from '../store/qes.js';
import { qesDocumentInput } from './sealing.js';
import type { ServiceContext } from '../context.js';
import { applySignerMove, type ActionOrigin } from './signerActions.js';
import { pageStep, type PageContext } from './signerJourney.js';

/** Bytes reserved for each token CMS: a 4096-bit RSA chain of four plus our timestamp fit with room. */
const TOKEN_PLACEHOLDER_BYTES = 24576;
const MAX_CHAIN = 8;

const rootsByContext = new WeakMap<ServiceContext, TrustedRoots>();
function trustedRoots(ctx: ServiceContext): Uint8Array[] {
  let roots = rootsByContext.get(ctx);
  if (!roots) {
    roots = new TrustedRoots(ctx.config.TAWQI_QES_TRUSTED_ROOTS, (message) => ctx.log.warn(message));
    rootsByContext.set(ctx, roots);
  }
  return roots.get();
}

const issuerOf = (ctx: ServiceContext): string => new URL(ctx.publicUrl).origin;
export const previewUrl = (ctx: ServiceContext): string => `${ctx.publicUrl.replace(/\/+$/, '')}/sign/api/token/preview`;

function decodeDer(value: string, param: string): Uint8Array {
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? Buffer.from(value, 'base64') : Buffer.alloc(0);
  if (bytes.length === 0 || bytes[0] !== 0x30) {
    throw new ApiError(
      'parameter_invalid',
      param,
      {},
      {},
      { en: `${param} must be DER in base64.`, ar: `يجب أن تكون قيمة ${param} بصيغة DER بترميز base64.` },
    );
  }
  return new Uint8Array(bytes);
}

const CERTIFICATE_TEXT: Record<string, { en: string; ar: string }> = {
  malformed: { en: 'The certificate could not be read.', ar: 'تعذّرت قراءة الشهادة.' },
  not_signing: { en: 'This certificate is not meant for signing (key usage).', ar: 'هذه الشهادة غير مخصصة للتوقيع (استخدام المفتاح).' },
  expired: { en: 'This certificate has expired.', ar: 'انتهت صلاحية هذه الشهادة.' },
  not_yet_valid: { en: 'This certificate is not valid yet.', ar: 'هذه الشهادة ليست سارية بعد.' },
  unsupported_key: {
    en: 'This certificate’s key type cannot be used (RSA 2048+ or ECDSA P-256/P-384).',
    ar: 'نوع مفتاح هذه الشهادة غير مدعوم (RSA 2048 فأكثر أو ECDSA P-256/P-384).',
  },
  untrusted: {
    en: 'This certificate was not issued by a trusted certification authority.',
    ar: 'هذه الشهادة غير صادرة عن جهة تصديق موثوقة.',
  },
  no_trusted_roots: {
    en: 'This service accepts no token certificates yet (no trusted roots are configured).',
    ar: 'لا تقبل هذه الخدمة شهادات رموز الأمان بعد (لم تُضبط جهات تصديق موثوقة).',
  },
};

const CMS_TEXT: Record<string, { en: string; ar: string }> = {
  malformed: { en: 'The signature from the signing agent could not be read.', ar: 'تعذّرت قراءة التوقيع الوارد من برنامج التوقيع.' },
  attributes: {
    en: 'The signature from the signing agent lacks required attributes.',
    ar: 'ينقص التوقيع الوارد من برنامج التوقيع سمات مطلوبة.',
  },
  digest_mismatch: { en: 'The signature is for another version of the document.', ar: 'التوقيع لنسخة أخرى من المستند.' },
  certificate_mismatch: {
    en: 'The document was signed with another certificate than the one chosen.',
    ar: 'وُقّع المستند بشهادة غير الشهادة المختارة.',
  },
  signature_invalid: { en: 'The signature does not verify with the certificate.', ar: 'لا يتحقق التوقيع بمفتاح الشهادة.' },
  too_large: { en: 'The signature is too large to embed.', ar: 'التوقيع أكبر من أن يُضمَّن في المستند.' },
};

const TICKET_TEXT: Record<string, { en: string; ar: string }> = {
  expired: { en: 'The sign ticket has expired; start the signature again.', ar: 'انتهت صلاحية تذكرة التوقيع؛ ابدأ التوقيع من جديد.' },
  used: { en: 'This sign ticket was already used.', ar: 'استُخدمت تذكرة التوقيع هذه من قبل.' },
  unknown: {
    en: 'This sign ticket was replaced by a newer one; start the signature again.',
    ar: 'حلّت محل تذكرة التوقيع هذه تذكرة أحدث؛ ابدأ التوقيع من جديد.',
  },
};

const certificateError = (err: CertificateError): ApiError =>
  new ApiError('certificate_invalid', 'certificate', { reason: err.reason }, {}, CERTIFICATE_TEXT[err.reason] ?? null);
const cmsError = (reason: string): ApiError => new ApiError('cms_invalid', 'cms', { reason }, {}, CMS_TEXT[reason] ?? null);
const ticketError = (reason: string): ApiError =>
  new ApiError('ticket_invalid', 'ticket', { reason }, { 'WWW-Authenticate': 'Bearer error="invalid_token"' }, TICKET_TEXT[reason] ?? null);

/** Token calls are for a token signer at the review step. */
function assertTokenStep(p: PageContext): void {
  const step = pageStep(p);
  if (step !== 'review') throw new ApiError('invalid_state', null, { reason: step });
  if (p.signer.method !== 'token') throw new ApiError('invalid_state', null, { reason: 'method_not_token' });
}

function checkCertificate(ctx: ServiceContext, certificate: Uint8Array, chain: readonly Uint8Array[]): CheckedCertificate {
  try {
    return checkSigningCertificate(certificate, chain, trustedRoots(ctx), ctx.clock.nowMs());
  } catch (err) {
    if (err instanceof CertificateError) throw certificateError(err);
    throw err;
  }
}

/** DER from base64, or null (check answers a verdict where prepare answers 400). */
function derOrNull(value: string): Uint8Array | null {
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? Buffer.from(value, 'base64') : Buffer.alloc(0);
  return bytes.length > 0 && bytes[0] === 0x30 ? new Uint8Array(bytes) : null;
}

/**
 * POST /token/check: prepare's certificate check on each certificate the agent lists, with no ticket,
 * no prepared signature and no write — so the page can offer only certificates prepare will take.
 */
export function checkTokenCertificates(ctx: ServiceContext, p: PageContext, body: TokenCheckBody): TokenChecked {
  assertTokenStep(p);
  const lang = p.request.language === 'en' ? 'en' : 'ar';
  const refused = (cert_sha256: string | null, reason: string) => ({
    cert_sha256,
    ok: false,
    reason,
    message: (CERTIFICATE_TEXT[reason] ?? CERTIFICATE_TEXT.malformed!)[lang],
  });
  return {
    certificates: body.certificates.map((c) => {
      const certificate = derOrNull(c.certificate);
      if (!certificate) return refused(null, 'malformed');
      const sha = createHash('sha256').update(certificate).digest('hex');
      const chain = (c.chain ?? []).slice(0, MAX_CHAIN).map(derOrNull);
      if (chain.some((d) => d === null)) return refused(sha, 'malformed');
      try {
        checkSigningCertificate(certificate, chain as Uint8Array[], trustedRoots(ctx), ctx.clock.nowMs());
        return { cert_sha256: sha, ok: true, reason: null, message: null };
      } catch (err) {
        if (err instanceof CertificateError) return refused(sha, err.reason);
        throw err;
      }
    }),
  };
}

async function pageCount(pdf: Uint8Array): Promise<number> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, ignoreEncryption: true });
  return doc.getPageCount();
}

export async function prepareTokenSignature(ctx: ServiceContext, p: PageContext, body: TokenPrepareBody): Promise<TokenPrepared> {
  assertTokenStep(p);
  const certificate = decodeDer(body.certificate, 'certificate');
  const offered = (body.chain ?? []).slice(0, MAX_CHAIN).map((c, i) => decodeDer(c, `chain[${i}]`));
  const checked = checkCertificate(ctx, certificate, offered);

  const now = nowSeconds(ctx.clock);
  const current = await getQesDocument(ctx.store.db, p.request.id);
  const base =
    current && current.signatures > 0
      ? new Uint8Array(current.pdf)
      : await renderFinalPdf(await qesDocumentInput(ctx, ctx.store.db, p.request, p.signers));
  const en = p.request.language === 'en';
  const prepared = await preparePades(base, {
    signingTime: new Date(ctx.clock.nowMs()),
    name: checked.name,
    reason: en ? `Signed by ${p.signer.name}` : `وقّعه ${p.signer.name}`,
    location: ctx.publicUrl,
    placeholderBytes: TOKEN_PLACEHOLDER_BYTES,
    mode: current && current.signatures > 0 ? 'incremental' : 'rewrite',
    certificate,
    chain: checked.chain,
    keyAlgorithm: checked.keyAlgorithm,
  });
  const digest = Buffer.from(prepared.byteRangeDigest).toString('hex');
  const { ticket, payload } = issueTicket(
    ctx.pki.evidence,
    {
      iss: issuerOf(ctx),
      request_id: p.request.id,
      signer_id: p.signer.id,
      title: p.request.title.slice(0, 500) || p.request.id,
      pages: await pageCount(prepared.pdfWithPlaceholder),
      digest,
      cert_sha256: checked.sha256,
      preview_url: previewUrl(ctx),
    },
    now,
  );
  await savePrepared(ctx.store.db, {
    signer_id: p.signer.id,
    signature_request_id: p.request.id,
    jti: payload.jti,
    cert_sha256: checked.sha256,
    digest,
    base_sha256: current && current.signatures > 0 ? current.pdf_sha256 : null,
    prepared: encodePrepared(prepared),
    pdf: prepared.pdfWithPlaceholder,
    expires_at: payload.exp,
    created_at: now,
    completed_at: null,
  });
  return { ticket, preview_url: payload.preview_url, digest, cert_sha256: checked.sha256, expires_at: payload.exp };
}

/** A ticket's open prepared signature: the signature, expiry and issuer of the ticket, then its jti. */
async function openPrepared(ctx: ServiceContext, ticket: string): Promise<QesPreparedRow> {
  let payload;
  try {
    payload = verifyTicket(ctx.pki.evidence, ticket, issuerOf(ctx), nowSeconds(ctx.clock));
  } catch (err) {
    if (err instanceof TicketError) throw ticketError(err.reason);
    throw err;
  }
  const row = await getPrepared(ctx.store.db, payload.signer_id);
  if (!row || row.jti !== payload.jti) throw ticketError('unknown');
  if (row.completed_at !== null) throw ticketError('used');
  return row;
}

/** GET /sign/api/token/preview with `Authorization: Bearer <ticket>`. */
export async function tokenPreview(ctx: ServiceContext, ticket: string | null): Promise<Preview> {
  if (!ticket) throw ticketError('malformed');
  const row = await openPrepared(ctx, ticket);
  return previewOf(new Uint8Array(row.pdf));
}

export interface TokenCompleteBody {
  /** The agent's detached CMS SignedData, DER in base64. */
  cms: string;
  /** The ticket the CMS answers; without it, the signer's open prepared signature. */
  ticket?: string | undefined;
}

export async function completeTokenSignature(
  ctx: ServiceContext,
  p: PageContext,
  body: TokenCompleteBody,
  origin: ActionOrigin,
): Promise<void> {
  // The ticket first: a replayed one is refused as such, whatever the signer's step now is.
  let row: QesPreparedRow | undefined;
  if (body.ticket !== undefined) {
    row = await openPrepared(ctx, body.ticket);
    if (row.signer_id !== p.signer.id) throw ticketError('other_signer');
  }
  assertTokenStep(p);
  if (!row) {
    row = await getPrepared(ctx.store.db, p.signer.id);
    if (!row) throw new ApiError('invalid_state', null, { reason: 'not_prepared' });
    if (row.completed_at !== null) throw ticketError('used');
  }
  if (row.expires_at <= nowSeconds(ctx.clock)) throw ticketError('expired');

  const cms = decodeDer(body.cms, 'cms');
  const prepared = decodePrepared(row);
  try {
    checkAgentCms(cms, { digest: prepared.byteRangeDigest, certificate: prepared.certificate });
  } catch (err) {
    if (err instanceof CmsCheckError) throw cmsError(err.reason);
    throw err;
  }
  // Checked again now (the roots may have changed, the certificate may have expired meanwhile).
  checkCertificate(ctx, prepared.certificate, prepared.chain);

  const level = p.request.format === 'pades-lt' ? 'B-LT' : 'B-T';
  let signed: Uint8Array;
  try {
    signed = await completePadesFromCms(prepared, cms, {
      timestamp: timestampDigest(ctx.pki),
      level,
      ...(level === 'B-LT' ? { revocation: await qesRevocation(ctx.pki, prepared) } : {}),
    });
  } catch (err) {
    if (err instanceof PadesError) {
      if (err.code === 'digest_mismatch') throw cmsError('digest_mismatch');
      if (err.code === 'invalid_signature_value') throw cmsError('signature_invalid');
      if (err.code === 'invalid_cms' || err.code === 'invalid_certificate') throw cmsError('malformed');
      if (err.code === 'placeholder_too_small') throw cmsError('too_large');
    }
    throw err;
  }

  const jti = row.jti;
  const baseSha = row.base_sha256;
  await ctx.store.tx(async (trx) => {
    const now = nowSeconds(ctx.clock);
    const document = await getQesDocument(trx, p.request.id);
    const currentSha = document && document.signatures > 0 ? document.pdf_sha256 : null;
    // Another token signer of the request signed since this one prepared: prepare again on top of it.
    if (currentSha !== baseSha) throw new ApiError('invalid_state', null, { reason: 'document_changed' });
    if (!(await markPreparedUsed(trx, p.signer.id, jti, now))) throw ticketError('used');
    await saveQesDocument(trx, {
      signature_request_id: p.request.id,
      pdf: signed,
      pdf_sha256: createHash('sha256').update(signed).digest('hex'),
      signatures: (document?.signatures ?? 0) + 1,
      dss: level === 'B-LT' ? 1 : 0,
      updated_at: now,
    });
    await applySignerMove(ctx, trx, p.signer.id, 'sign', origin);
    await endSignerSessions(trx, p.signer.id, now);
  });
}
