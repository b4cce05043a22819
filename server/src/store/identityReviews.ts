import { sql } from 'kysely';
import type { IdentityState } from '../domain/records.js';
import type { Tx } from './db.js';
import type { VerificationNameMatch } from './identityVerifications.js';

/**
 * The open items of the identity review queue (migration 16's partial index): verifications in
 * review and name mismatches held for a decision, with their signer and request. The predicate is
 * the index's, written as a literal (a bound parameter cannot prove it, so SQLite would not use the
 * index). A row may be stale (the signer moved on, the request closed): the service filters those.
 */
const OPEN_REVIEW = sql<boolean>`(v.status = 'in_review' OR (v.status = 'approved' AND v.name_match LIKE '%"mode":"hold"%"decision":null%'))`;

export interface ReviewRow {
  verification_id: string;
  verification_status: string;
  name_match: VerificationNameMatch | null;
  document_type: string | null;
  document_last4: string | null;
  updated_at: number;
  signer_id: string;
  signer_name: string;
  signer_status: string;
  identity: IdentityState;
  request_id: string;
  request_title: string;
  request_status: string;
}

/** Up to `limit` open review rows of an account and mode, newest first, after the cursor (a verification id). */
export async function openReviewRows(tx: Tx, accountId: string, livemode: boolean, limit: number, before?: string): Promise<ReviewRow[]> {
  let q = tx
    .selectFrom('identity_verifications as v')
    .innerJoin('signers as s', 's.id', 'v.signer_id')
    .innerJoin('signature_requests as r', 'r.id', 's.signature_request_id')
    .select([
      'v.id as verification_id',
      'v.status as verification_status',
      'v.name_match',
      'v.document_type',
      'v.document_last4',
      'v.updated_at',
      's.id as signer_id',
      's.name as signer_name',
      's.status as signer_status',
      's.identity',
      'r.id as request_id',
      'r.title as request_title',
      'r.status as request_status',
    ])
    .where('v.account_id', '=', accountId)
    .where('v.livemode', '=', livemode ? 1 : 0)
    .where(OPEN_REVIEW);
  if (before) q = q.where('v.id', '<', before);
  const rows = await q.orderBy('v.id', 'desc').limit(limit).execute();
  return rows.map((r) => ({
    ...r,
    name_match: r.name_match === null ? null : (JSON.parse(r.name_match) as VerificationNameMatch),
    identity: JSON.parse(r.identity) as IdentityState,
  }));
}
