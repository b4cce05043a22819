/**
 * Company verification by the account's owner (spec part 5: "identity check of the representative,
 * then review of company documents"): upload documents, start the representative's identity check
 * (the configured identity provider, or its simulation when none is configured — a test
 * installation), submit for review. The account's kyb_status is the state every user reads:
 * none → pending (submitted) → approved | rejected (with the reviewer's reason; the owner may then
 * work on a new round and submit again). The operator's review is in companyReview.ts.
 */
import { createHash } from 'node:crypto';
import { nowSeconds } from '../clock.js';
import { cleanFileName, COMPANY_DOCUMENT_TYPES, MAX_COMPANY_DOCUMENTS, sniffDocumentType } from '../domain/companyDocuments.js';
import { companyDocumentKey } from '../domain/fileKeys.js';
import type { ServiceContext } from '../context.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { presentCompanyDocument, presentRepresentative, presentSubmission } from '../presenters/companyVerification.js';
import { getAccount, updateAccount } from '../store/accounts.js';
import {
  activeCompanyDocuments,
  getCompanyDocument,
  insertCompanyDocument,
  insertCompanyVerification,
  latestCompanyVerification,
  removeCompanyDocument,
  updateCompanyVerification,
  type CompanyDocument,
  type CompanyVerification,
} from '../store/companyVerifications.js';
import { getVerification, insertVerification } from '../store/identityVerifications.js';
import type { Tx } from '../store/types.js';
import { recordAudit, type AuditActor } from './consoleAudit.js';
import { identityProvider, newVerification, openAtProvider, SIMULATION_PROVIDER, simulationUrl } from './identity.js';

export type OwnerActor = AuditActor & { account_id: string };

type Refusal = 'verified' | 'under_review' | 'representative_in_review' | 'representative_not_approved' | 'no_documents' | 'too_many';

const TEXT: Record<Refusal, { en: string; ar: string }> = {
  verified: { en: 'The company is already verified.', ar: 'الشركة موثّقة بالفعل.' },
  under_review: {
    en: 'The company verification is under review; nothing can change until the reviewer decides.',
    ar: 'توثيق الشركة قيد المراجعة؛ لا يمكن تغيير شيء حتى يقرر المراجع.',
  },
  representative_in_review: {
    en: "The representative's identity check is in review at the provider; wait for its result.",
    ar: 'التحقق من هوية الممثل قيد المراجعة لدى المزوّد؛ انتظر نتيجته.',
  },
  representative_not_approved: {
    en: "The representative's identity check must be approved before submitting.",
    ar: 'يجب اعتماد التحقق من هوية الممثل قبل الإرسال للمراجعة.',
  },
  no_documents: { en: 'Upload at least one company document before submitting.', ar: 'ارفع مستندًا واحدًا على الأقل للشركة قبل الإرسال.' },
  too_many: {
    en: `At most ${MAX_COMPANY_DOCUMENTS} documents; remove one first.`,
    ar: `${MAX_COMPANY_DOCUMENTS} مستندات على الأكثر؛ احذف مستندًا أولًا.`,
  },
};

const refusal = (reason: Refusal, param: string | null = null): ApiError =>
  new ApiError('invalid_state', param, { reason }, {}, TEXT[reason]);

/** Where the representative is sent back after the check: the console's verification page (the kyb_required verify_url). */
function verificationPageUrl(ctx: ServiceContext): string {
  const consoleUrl = ctx.config.TAWQI_CONSOLE_URL;
  return /^https?:\/\//.test(consoleUrl) ? `${consoleUrl}/verification` : `${ctx.publicUrl}${consoleUrl}/verification`;
}

/**
 * The round the owner may work on: the latest draft, else a new draft (after a rejection it keeps
 * the representative's check, so only what the reviewer objected to needs doing again). Refused
 * while a round is under review or once the company is verified.
 */
async function workingRound(ctx: ServiceContext, trx: Tx, accountId: string): Promise<CompanyVerification> {
  const account = (await getAccount(trx, accountId))!;
  if (account.kyb_status === 'approved') throw refusal('verified');
  const latest = await latestCompanyVerification(trx, accountId);
  if (latest?.status === 'pending' || account.kyb_status === 'pending') throw refusal('under_review');
  if (latest?.status === 'draft') return latest;
  const now = nowSeconds(ctx.clock);
  const round: CompanyVerification = {
    id: newId('companyVerification', ctx.clock),
    account_id: accountId,
    status: 'draft',
    representative_name: latest?.representative_name ?? null,
    representative_verification_id: latest?.representative_verification_id ?? null,
    document_ids: [],
    submitted_at: null,
    submitted_by: null,
    decided_at: null,
    decided_by: null,
    decision_reason: null,
    created_at: now,
    updated_at: now,
  };
  await insertCompanyVerification(trx, round);
  return round;
}

/** What the verification page shows: the state, the latest round, the representative's check, the documents. */
export async function companyVerificationView(ctx: ServiceContext, accountId: string) {
  const db = ctx.store.db;
  const account = (await getAccount(db, accountId))!;
  const round = await latestCompanyVerification(db, accountId);
  const v = round?.representative_verification_id ? await getVerification(db, round.representative_verification_id) : undefined;
  const documents = await activeCompanyDocuments(db, accountId);
  const editable = account.kyb_status !== 'approved' && account.kyb_status !== 'pending';
  return {
    object: 'company_verification' as const,
    status: account.kyb_status,
    submission: round ? presentSubmission(round) : null,
    representative: round ? presentRepresentative(round, v) : null,
    documents: documents.map(presentCompanyDocument),
    can_submit: editable && v?.status === 'approved' && documents.length > 0,
    editable,
    limits: {
      max_document_bytes: ctx.config.TAWQI_COMPANY_DOCUMENT_MAX_BYTES,
      max_documents: MAX_COMPANY_DOCUMENTS,
      accepted_types: COMPANY_DOCUMENT_TYPES,
    },
  };
}

/**
 * Keep an uploaded document: its type read from its first bytes (PDF, PNG, JPEG), its size within
 * TAWQI_COMPANY_DOCUMENT_MAX_BYTES (the route stops reading past it). The bytes go to file storage
 * first; the row follows in one transaction with its audit entry (a failed transaction leaves an
 * unreferenced file, removed at once when possible — never a row without its file).
 */
export async function uploadCompanyDocument(ctx: ServiceContext, actor: OwnerActor, fileName: string, bytes: Buffer) {
  const max = ctx.config.TAWQI_COMPANY_DOCUMENT_MAX_BYTES;
  if (bytes.length > max) throw documentTooLarge(max);
  if (bytes.length === 0) throw new ApiError('parameter_missing', 'file', {}, {}, { en: 'The file is empty.', ar: 'الملف فارغ.' });
  const type = sniffDocumentType(bytes);
  if (!type)
    throw new ApiError(
      'parameter_invalid',
      'file',
      { reason: 'file_type', accepted_types: COMPANY_DOCUMENT_TYPES },
      {},
      {
        en: 'The file is not a PDF, PNG or JPEG (its content was checked, not its name).',
        ar: 'الملف ليس PDF ولا PNG ولا JPEG (فُحص محتواه لا اسمه).',
      },
    );
  const id = newId('companyDocument', ctx.clock);
  const doc: CompanyDocument = {
    id,
    account_id: actor.account_id,
    file_key: companyDocumentKey(actor.account_id, id),
    file_name: cleanFileName(fileName),
    content_type: type,
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    uploaded_by: actor.user_id,
    created_at: nowSeconds(ctx.clock),
    removed_at: null,
  };
  await ctx.files.put(doc.file_key, bytes);
  try {
    await ctx.store.tx(async (trx) => {
      await workingRound(ctx, trx, actor.account_id);
      if ((await activeCompanyDocuments(trx, actor.account_id)).length >= MAX_COMPANY_DOCUMENTS) throw refusal('too_many', 'file');
      await insertCompanyDocument(trx, doc);
      const detail = { file_name: doc.file_name, content_type: type, size: doc.size, sha256: doc.sha256 };
      await recordAudit(trx, ctx.clock, actor, { action: 'company_document.uploaded', target: id, detail });
    });
  } catch (err) {
    await ctx.files.delete(doc.file_key).catch(() => undefined);
    throw err;
  }
  return presentCompanyDocument(doc);
}

export function documentTooLarge(max: number): ApiError {
  const mb = max >= 1024 * 1024;
  const size = String(Math.round((max / (mb ? 1024 * 1024 : 1024)) * 10) / 10);
  return new ApiError(
    'request_too_large',
    'file',
    { max_bytes: max },
    {},
    {
      en: `The file is larger than ${size} ${mb ? 'MB' : 'KB'} (${max} bytes).`,
      ar: `الملف أكبر من ${size} ${mb ? 'ميغابايت' : 'كيلوبايت'} (${max} بايت).`,
    },
  );
}

/** Take a document out of the next submission (the row and file stay: a submitted round may name it). */
export async function removeDocument(ctx: ServiceContext, actor: OwnerActor, documentId: string): Promise<void> {
  await ctx.store.tx(async (trx) => {
    const doc = await getCompanyDocument(trx, actor.account_id, documentId);
    if (!doc || doc.removed_at !== null) throw new ApiError('not_found', 'id');
    await workingRound(ctx, trx, actor.account_id);
    await removeCompanyDocument(trx, doc.id, nowSeconds(ctx.clock));
    await recordAudit(trx, ctx.clock, actor, { action: 'company_document.removed', target: doc.id, detail: { file_name: doc.file_name } });
  });
}

/** A document of the account with its bytes (the owner's own download). */
export async function readAccountDocument(ctx: ServiceContext, accountId: string, documentId: string) {
  const doc = await getCompanyDocument(ctx.store.db, accountId, documentId);
  if (!doc) throw new ApiError('not_found', 'id');
  return { doc, bytes: await readDocumentBytes(ctx, doc) };
}

export async function readDocumentBytes(ctx: ServiceContext, doc: CompanyDocument): Promise<Buffer> {
  const bytes = await ctx.files.get(doc.file_key);
  if (!bytes) throw new Error(`company document ${doc.id}: no file under ${doc.file_key}`);
  return bytes;
}

/**
 * Start (or resume) the representative's identity check on the working round: a check still open
 * for the same name at the same provider is resumed (the provider's reference is idempotent);
 * otherwise a new one is made (a new name, a declined or earlier check). The provider is asked
 * after the commit; without one configured, the simulation page is the link.
 */
export async function startRepresentativeCheck(ctx: ServiceContext, actor: OwnerActor, name: string) {
  const provider = identityProvider(ctx);
  const providerName = provider?.name ?? SIMULATION_PROVIDER;
  const v = await ctx.store.tx(async (trx) => {
    const round = await workingRound(ctx, trx, actor.account_id);
    const current = round.representative_verification_id ? await getVerification(trx, round.representative_verification_id) : undefined;
    if (current?.status === 'in_review') throw refusal('representative_in_review', 'name');
    const open = current?.status === 'pending' || current?.status === 'resubmission_requested';
    if (current && open && current.provider === providerName && current.signer_id === round.id && round.representative_name === name)
      return current;
    const made = newVerification(
      ctx,
      { accountId: actor.account_id, livemode: provider !== null, subject: 'representative', subjectId: round.id },
      providerName,
    );
    await insertVerification(trx, made);
    const now = nowSeconds(ctx.clock);
    await updateCompanyVerification(trx, round.id, { representative_name: name, representative_verification_id: made.id, updated_at: now });
    await recordAudit(trx, ctx.clock, actor, {
      action: 'company_verification.representative_started',
      target: round.id,
      detail: { verification: made.id, provider: providerName },
    });
    return made;
  });
  ctx.afterCommit();
  const returnUrl = verificationPageUrl(ctx);
  const started = provider
    ? await openAtProvider(ctx, provider, v, name, returnUrl)
    : { verificationId: v.id, url: simulationUrl(ctx, v, returnUrl) };
  return { verification_id: started.verificationId, url: started.url, provider: providerName, simulated: provider === null };
}

/** Submit the working round for review: the representative's check approved and at least one document. */
export async function submitCompanyVerification(ctx: ServiceContext, actor: OwnerActor): Promise<void> {
  await ctx.store.tx(async (trx) => {
    const round = await workingRound(ctx, trx, actor.account_id);
    const v = round.representative_verification_id ? await getVerification(trx, round.representative_verification_id) : undefined;
    if (v?.status !== 'approved') throw refusal('representative_not_approved');
    const documents = await activeCompanyDocuments(trx, actor.account_id);
    if (documents.length === 0) throw refusal('no_documents');
    const now = nowSeconds(ctx.clock);
    const ids = documents.map((d) => d.id);
    await updateCompanyVerification(trx, round.id, {
      status: 'pending',
      document_ids: ids,
      submitted_at: now,
      submitted_by: actor.user_id,
      updated_at: now,
    });
    await updateAccount(trx, actor.account_id, { kyb_status: 'pending' });
    await recordAudit(trx, ctx.clock, actor, { action: 'company_verification.submitted', target: round.id, detail: { documents: ids } });
  });
}
