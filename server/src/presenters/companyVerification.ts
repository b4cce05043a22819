/** Company verification as the console shows it: a document, the representative's check, a round of review. */
import type { CompanyDocument, CompanyVerification } from '../store/companyVerifications.js';
import type { IdentityVerificationRecord } from '../store/identityVerifications.js';

export function presentCompanyDocument(d: CompanyDocument) {
  return {
    id: d.id,
    object: 'company_document' as const,
    file_name: d.file_name,
    content_type: d.content_type,
    size: d.size,
    sha256: d.sha256,
    created_at: d.created_at,
    removed_at: d.removed_at,
  };
}

/** The representative's identity check: its state and, once read, the name match (never a document number beyond its last four). */
export function presentRepresentative(round: CompanyVerification, v: IdentityVerificationRecord | undefined) {
  if (!round.representative_name) return null;
  return {
    name: round.representative_name,
    verification_id: v?.id ?? null,
    status: v?.status ?? null,
    provider: v?.provider ?? null,
    /** True when the check ran on the simulation (no identity provider configured: a test installation). */
    simulated: v ? !v.livemode : null,
    name_match: v?.name_match ? { state: v.name_match.state, document_name: v.name_match.document_name } : null,
    document_type: v?.document_type ?? null,
    document_last4: v?.document_last4 ?? null,
    completed_at: v?.completed_at ?? null,
  };
}

export function presentSubmission(round: CompanyVerification) {
  return {
    id: round.id,
    object: 'company_verification_submission' as const,
    status: round.status,
    submitted_at: round.submitted_at,
    decided_at: round.decided_at,
    rejection_reason: round.status === 'rejected' ? round.decision_reason : null,
    created_at: round.created_at,
  };
}
