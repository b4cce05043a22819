import { isFinal } from '../domain/requestStates.js';
import type { RequestStatus } from '../domain/requestStates.js';
import type { Db } from '../store/db.js';
import { openReviewRows, type ReviewRow } from '../store/identityReviews.js';

/**
 * The identity review queue of the console (issue 15 point 5): signers held on a name mismatch
 * (both names, document type, last four characters of the document number) and identity checks a
 * provider put in review. Decisions are not made here: the console sends them through the public
 * API (POST /signers/{id}/identity_match) with its internal credential.
 */
export interface IdentityReview {
  /** The verification's id (also the list cursor). */
  id: string;
  object: 'identity_review';
  /** name_match: a mismatch held for a decision; in_review: the provider's manual review. */
  kind: 'name_match' | 'in_review';
  signer: { id: string; name: string; status: string };
  signature_request: { id: string; title: string };
  sent_name: string;
  document_name: string | null;
  document_type: string | null;
  document_last4: string | null;
  since: number;
}

/** Whether the row is still an open item: the signer still follows this verification, still waits, and the request is open. */
function stillOpen(r: ReviewRow): 'name_match' | 'in_review' | null {
  if (isFinal(r.request_status as RequestStatus) || r.identity.verification_id !== r.verification_id) return null;
  if (r.verification_status === 'in_review') return r.identity.status === 'in_review' ? 'in_review' : null;
  return r.identity.status === 'match_hold' ? 'name_match' : null;
}

function present(r: ReviewRow, kind: 'name_match' | 'in_review'): IdentityReview {
  return {
    id: r.verification_id,
    object: 'identity_review',
    kind,
    signer: { id: r.signer_id, name: r.signer_name, status: r.signer_status },
    signature_request: { id: r.request_id, title: r.request_title },
    sent_name: r.name_match?.sent_name ?? r.signer_name,
    document_name: r.name_match?.document_name ?? null,
    document_type: r.name_match?.document_type ?? r.document_type,
    document_last4: r.name_match?.document_last4 ?? r.document_last4,
    since: r.updated_at,
  };
}

/**
 * Open reviews, newest first: up to `limit + 1` items (one more than a page, for listPage's
 * has_more). Stale rows are skipped, reading in batches until enough items or the rows run out.
 */
export async function listIdentityReviews(
  db: Db,
  q: { accountId: string; livemode: boolean; limit: number; startingAfter?: string },
): Promise<IdentityReview[]> {
  const items: IdentityReview[] = [];
  let cursor = q.startingAfter;
  for (;;) {
    const rows = await openReviewRows(db, q.accountId, q.livemode, q.limit + 1, cursor);
    for (const r of rows) {
      const kind = stillOpen(r);
      if (kind) items.push(present(r, kind));
      if (items.length > q.limit) return items;
    }
    if (rows.length <= q.limit) return items;
    cursor = rows[rows.length - 1]!.verification_id;
  }
}
