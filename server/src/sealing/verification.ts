import type { ServiceContext } from '../context.js';
import type { Db } from '../store/db.js';
import { findByReference } from '../store/sealing.js';
import { getRequestById, signersOf } from '../store/signatureRequests.js';
import { DOCUMENT_HASH_ALG, documentHash } from './documentHash.js';

/** A party name for the public: each word's first letter, the rest hidden ("S*** A***"). */
export function maskName(name: string): string {
  return name
    .trim()
    .split(/\s+/)
    .map((w) => `${[...w][0] ?? ''}***`)
    .join(' ');
}

export type Integrity = 'intact' | 'modified' | 'unknown';

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
  return {
    object: 'verification' as const,
    reference: sealed.reference,
    found: true,
    status: request.status,
    integrity,
    test: !request.livemode,
    sealed_at: sealed.sealed_at,
    completed_at: request.completed_at,
    document: {
      title: request.title,
      sha256: sealed.document_hash,
      hash_alg: DOCUMENT_HASH_ALG,
      format: request.format,
      legal_level: request.legal_level,
      pdf_sha256: sealed.pdf_sha256,
    },
    parties: signers.map((s) => ({ name: maskName(s.name), signed_at: s.signed_at })),
  };
}
