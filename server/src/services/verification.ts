import type { Verification } from '@tawqi/shared/api';
import type { ServiceContext } from '../context.js';
import { documentHash } from '../domain/documentHash.js';
import { presentVerification, type Integrity } from '../presenters/verification.js';
import { getAccount } from '../store/accounts.js';
import type { Db } from '../store/db.js';
import { findByReference } from '../store/sealing.js';
import { getRequestById, signersOf, type SignatureRequestRecord } from '../store/signatureRequests.js';

async function load(
  ctx: ServiceContext,
  db: Db,
  reference: string,
): Promise<{ verification: Verification; request: SignatureRequestRecord; earlierPdfSha256: string[] } | null> {
  const sealed = await findByReference(db, reference.trim().toUpperCase());
  if (!sealed) return null;
  const request = (await getRequestById(db, sealed.signature_request_id))!;
  const signers = await signersOf(db, request.id);
  let integrity: Integrity = 'unknown';
  if (sealed.document_text.length > 0 && sealed.document_hash) {
    integrity = documentHash(ctx.secrets.documentKey, sealed.document_text) === sealed.document_hash ? 'intact' : 'modified';
  }
  const earlierPdfSha256 = JSON.parse(sealed.earlier_pdf_sha256) as string[];
  return { verification: presentVerification(sealed, request, signers, integrity), request, earlierPdfSha256 };
}

/** The public verification object of spec 2.6, or null for an unknown reference. */
export async function verificationFor(ctx: ServiceContext, db: Db, reference: string): Promise<Verification | null> {
  return (await load(ctx, db, reference))?.verification ?? null;
}

/**
 * The verification, the sender's branding settings (the public page wears them as the signing page
 * does) and the hashes the sealed file had before its archive renewals (the page's file check
 * recognises an earlier download as such).
 */
export async function verificationPageFor(
  ctx: ServiceContext,
  db: Db,
  reference: string,
): Promise<{ verification: Verification; branding: Record<string, unknown>; earlierPdfSha256: string[] } | null> {
  const found = await load(ctx, db, reference);
  if (!found) return null;
  const account = await getAccount(db, found.request.account_id);
  return { verification: found.verification, branding: account?.branding ?? {}, earlierPdfSha256: found.earlierPdfSha256 };
}
