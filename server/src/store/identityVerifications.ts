import type { VerificationStatus } from '@tawqi/shared/api';
import type { Tx } from './db.js';
import { decodeRow, encodeRow, type Codec } from './rowCodec.js';

/**
 * One identity verification of one signer: the provider's result and the name match. Never a
 * document image, never a full document number: only the name read, the document type and the
 * last four characters of its number.
 */
export { VERIFICATION_STATUSES } from '@tawqi/shared/api';
export type { VerificationStatus } from '@tawqi/shared/api';

export interface VerificationNameMatch {
  state: 'match' | 'mismatch';
  sent_name: string;
  document_name: string;
  document_type: string | null;
  document_last4: string | null;
  /** hold: signing held for a decision; record: the difference recorded only; null for a match. */
  mode: 'hold' | 'record' | null;
  decision: 'approved' | 'rejected' | null;
  decided_at: number | null;
}

/** Whose identity: a signer's, or a company representative's (company verification, spec part 5). */
export type VerificationSubject = 'signer' | 'representative';

export interface IdentityVerificationRecord {
  id: string;
  account_id: string;
  livemode: boolean;
  subject: VerificationSubject;
  /** The signer; for subject 'representative', the company verification (kyb_…) it belongs to. */
  signer_id: string;
  /** 'simulation' in test mode; the adapter name (e.g. 'generic') in live mode. */
  provider: string;
  level: string;
  status: VerificationStatus;
  provider_reference: string | null;
  document_name: string | null;
  document_type: string | null;
  document_last4: string | null;
  name_match: VerificationNameMatch | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

const verificationCodec: Codec<IdentityVerificationRecord> = { json: ['name_match'], bool: ['livemode'] };

export async function insertVerification(tx: Tx, v: IdentityVerificationRecord): Promise<void> {
  await tx
    .insertInto('identity_verifications')
    .values(encodeRow(verificationCodec, v) as never)
    .execute();
}

export async function getVerification(tx: Tx, id: string): Promise<IdentityVerificationRecord | undefined> {
  const row = await tx.selectFrom('identity_verifications').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? decodeRow(verificationCodec, row) : undefined;
}

/** A signer's verification of this account and mode; another account's or mode's id (or a representative's check) is not found. */
export async function findVerification(
  tx: Tx,
  accountId: string,
  livemode: boolean,
  id: string,
): Promise<IdentityVerificationRecord | undefined> {
  const row = await tx
    .selectFrom('identity_verifications')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('livemode', '=', livemode ? 1 : 0)
    .where('subject', '=', 'signer')
    .executeTakeFirst();
  return row ? decodeRow(verificationCodec, row) : undefined;
}

export async function findByProviderReference(
  tx: Tx,
  provider: string,
  reference: string,
): Promise<IdentityVerificationRecord | undefined> {
  const row = await tx
    .selectFrom('identity_verifications')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_reference', '=', reference)
    .executeTakeFirst();
  return row ? decodeRow(verificationCodec, row) : undefined;
}

/** The signer's most recent verification (ids are time-ordered). */
export async function latestVerificationOf(tx: Tx, signerId: string): Promise<IdentityVerificationRecord | undefined> {
  const row = await tx
    .selectFrom('identity_verifications')
    .selectAll()
    .where('signer_id', '=', signerId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? decodeRow(verificationCodec, row) : undefined;
}

export async function updateVerification(tx: Tx, id: string, changes: Partial<IdentityVerificationRecord>): Promise<void> {
  const values = encodeRow(verificationCodec, changes);
  if (Object.keys(values).length === 0) return;
  await tx
    .updateTable('identity_verifications')
    .set(values as never)
    .where('id', '=', id)
    .execute();
}
