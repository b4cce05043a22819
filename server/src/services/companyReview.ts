/**
 * The operator's review of company verifications (the admin console): the queue of submitted
 * rounds (pending first, oldest first; then decided ones, newest first), a round with its
 * representative's check and its documents, a document's bytes, and the decision. Approving sets
 * the account's kyb_status to approved, so its live keys pass the kyb_required gate from the next
 * request; rejecting records the reason the owner reads. Every step is in the audit log with the
 * operator as actor and the account as target, in the transaction of the change.
 */
import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../context.js';
import { ApiError } from '../errors.js';
import { presentCompanyDocument, presentRepresentative, presentSubmission } from '../presenters/companyVerification.js';
import { getAccount, updateAccount } from '../store/accounts.js';
import {
  companyDocumentsByIds,
  getCompanyVerification,
  listCompanyVerifications,
  updateCompanyVerification,
  type CompanyVerification,
} from '../store/companyVerifications.js';
import { getVerification } from '../store/identityVerifications.js';
import type { Tx } from '../store/types.js';
import { readDocumentBytes } from './companyVerification.js';
import { recordAudit, type AuditActor } from './consoleAudit.js';

const DECIDED = ['approved', 'rejected'] as const;

/** One page of the queue after `startingAfter` (a round id): the pending rounds, then the decided ones. */
async function queueRounds(tx: Tx, limit: number, startingAfter?: CompanyVerification): Promise<CompanyVerification[]> {
  const inPending = !startingAfter || startingAfter.status === 'pending';
  const pending = inPending ? await listCompanyVerifications(tx, ['pending'], 'asc', limit, startingAfter?.id) : [];
  if (pending.length >= limit) return pending;
  const decidedAfter = inPending ? undefined : startingAfter.id;
  return [...pending, ...(await listCompanyVerifications(tx, DECIDED, 'desc', limit - pending.length, decidedAfter))];
}

async function presentRound(tx: Tx, round: CompanyVerification) {
  const account = await getAccount(tx, round.account_id);
  const v = round.representative_verification_id ? await getVerification(tx, round.representative_verification_id) : undefined;
  return {
    ...presentSubmission(round),
    decision_reason: round.decision_reason,
    decided_by: round.decided_by,
    account: { id: round.account_id, name: account?.name ?? '', kyb_status: account?.kyb_status ?? 'none' },
    representative: presentRepresentative(round, v),
    document_count: round.document_ids.length,
  };
}

/** The queue page (`limit + 1` rows read, so the list envelope knows whether more follow). */
export async function reviewQueue(ctx: ServiceContext, limit: number, startingAfter?: string) {
  const db = ctx.store.db;
  const cursor = startingAfter ? await getCompanyVerification(db, startingAfter) : undefined;
  const rounds = await queueRounds(db, limit + 1, cursor);
  return Promise.all(rounds.map((r) => presentRound(db, r)));
}

/** Whether an id names a submitted round (a valid queue cursor). */
export async function isQueued(ctx: ServiceContext, id: string): Promise<boolean> {
  const round = await getCompanyVerification(ctx.store.db, id);
  return round !== undefined && round.status !== 'draft';
}

async function submittedRound(tx: Tx, id: string): Promise<CompanyVerification> {
  const round = await getCompanyVerification(tx, id);
  if (!round || round.status === 'draft') throw new ApiError('not_found', 'id');
  return round;
}

/** A submitted round with its documents (as submitted). */
export async function reviewDetail(ctx: ServiceContext, id: string) {
  const db = ctx.store.db;
  const round = await submittedRound(db, id);
  const documents = await companyDocumentsByIds(db, round.account_id, round.document_ids);
  return { ...(await presentRound(db, round)), documents: documents.map(presentCompanyDocument) };
}

/** The operator as the audit log records them acting on an account. */
const onAccount = (operator: AuditActor, accountId: string): AuditActor => ({ ...operator, account_id: accountId });

/** A submitted document's bytes for the reviewer; the download is audited. */
export async function reviewDocument(ctx: ServiceContext, operator: AuditActor, id: string, documentId: string) {
  const { round, doc } = await ctx.store.tx(async (trx) => {
    const round = await submittedRound(trx, id);
    const [doc] = round.document_ids.includes(documentId) ? await companyDocumentsByIds(trx, round.account_id, [documentId]) : [];
    if (!doc) throw new ApiError('not_found', 'document_id');
    await recordAudit(trx, ctx.clock, onAccount(operator, round.account_id), {
      action: 'admin.company_document_downloaded',
      target: round.account_id,
      detail: { company_verification: round.id, document: doc.id },
    });
    return { round, doc };
  });
  return { round, doc, bytes: await readDocumentBytes(ctx, doc) };
}

const TEXT = {
  not_pending: { en: 'Only a pending verification can be decided.', ar: 'لا يُبتّ إلا في توثيق قيد المراجعة.' },
  representative: {
    en: "The representative's identity check is not approved; reject with a reason instead.",
    ar: 'التحقق من هوية الممثل غير معتمد؛ ارفض مع ذكر السبب بدلًا من ذلك.',
  },
};

/** Approve or reject a pending round (a rejection carries the reason the owner reads). */
export async function decideCompanyVerification(
  ctx: ServiceContext,
  operator: AuditActor,
  id: string,
  decision: 'approve' | 'reject',
  reason: string | null,
) {
  await ctx.store.tx(async (trx) => {
    const round = await submittedRound(trx, id);
    if (round.status !== 'pending') throw new ApiError('invalid_state', 'id', { reason: 'not_pending' }, {}, TEXT.not_pending);
    const v = round.representative_verification_id ? await getVerification(trx, round.representative_verification_id) : undefined;
    if (decision === 'approve' && v?.status !== 'approved')
      throw new ApiError('invalid_state', 'id', { reason: 'representative_not_approved' }, {}, TEXT.representative);
    const now = nowSeconds(ctx.clock);
    const status = decision === 'approve' ? 'approved' : 'rejected';
    await updateCompanyVerification(trx, round.id, {
      status,
      decided_at: now,
      decided_by: operator.user_id,
      decision_reason: reason,
      updated_at: now,
    });
    await updateAccount(trx, round.account_id, { kyb_status: status });
    await recordAudit(trx, ctx.clock, onAccount(operator, round.account_id), {
      action: `admin.company_verification_${status}`,
      target: round.account_id,
      detail: { company_verification: round.id, ...(reason ? { reason } : {}) },
    });
  });
  return reviewDetail(ctx, id);
}
