import type { ServiceContext } from '../context.js';
import { documentHash } from '../domain/documentHash.js';
import { presentVerification, type Integrity } from '../presenters/verification.js';
import type { Db } from '../store/db.js';
import { findByReference } from '../store/sealing.js';
import { getRequestById, signersOf } from '../store/signatureRequests.js';

/** The public verification object of spec 2.6, or null for an unknown reference. */
export async function verificationFor(ctx: ServiceContext, db: Db, reference: string) {
  const sealed = await findByReference(db, reference.trim().toUpperCase());
  if (!sealed) return null;
  const request = (await getRequestById(db, sealed.signature_request_id))!;
  const signers = await signersOf(db, request.id);
  let integrity: Integrity = 'unknown';
  if (sealed.document_text.length > 0 && sealed.document_hash) {
    integrity = documentHash(ctx.secrets.documentKey, sealed.document_text) === sealed.document_hash ? 'intact' : 'modified';
  }
  return presentVerification(sealed, request, signers, integrity);
}
