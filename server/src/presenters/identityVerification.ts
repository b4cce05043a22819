import type { IdentityVerification } from '@tawqi/shared/api';
import type { IdentityVerificationRecord } from '../store/identityVerifications.js';

/** The identity_verification object: no document image and no full document number, ever. */
export function presentIdentityVerification(v: IdentityVerificationRecord, signatureRequestId: string | null): IdentityVerification {
  return {
    id: v.id,
    object: 'identity_verification' as const,
    livemode: v.livemode,
    signer: v.signer_id,
    signature_request: signatureRequestId,
    status: v.status,
    provider: v.provider,
    level: v.level,
    name_match: v.name_match,
    created_at: v.created_at,
    updated_at: v.updated_at,
    completed_at: v.completed_at,
  };
}
