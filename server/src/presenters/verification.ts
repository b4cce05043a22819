import type { Verification } from '@tawqi/shared/api';
import { DOCUMENT_HASH_ALG } from '../domain/documentHash.js';
import { maskName } from '../domain/keys.js';
import type { SealedDocument } from '../store/sealing.js';
import type { SignatureRequestRecord, SignerRecord } from '../store/signatureRequests.js';

export type Integrity = 'intact' | 'modified' | 'unknown';

/** The public verification object of spec 2.6. */
export function presentVerification(
  sealed: SealedDocument,
  request: SignatureRequestRecord,
  signers: readonly SignerRecord[],
  integrity: Integrity,
): Verification {
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
