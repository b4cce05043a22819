import { createHmac, timingSafeEqual } from 'node:crypto';
import { nowSeconds } from '../clock.js';
import { namesMatch } from '../domain/nameMatch.js';
import { OPEN_STATUSES, SIGNER_MOVES, signerRefusal, type SignerTrigger } from '../domain/requestStates.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import type { ServiceContext } from '../context.js';
import type { Actor } from './signatureRequests.js';
import { applySignerMove, REFUSAL_TEXT, signerView, type ActionOrigin } from './signerActions.js';
import { getAccount } from '../store/accounts.js';
import { getCompanyVerification } from '../store/companyVerifications.js';
import type { Db } from '../store/db.js';
import {
  findByProviderReference,
  getVerification,
  insertVerification,
  latestVerificationOf,
  updateVerification,
  type IdentityVerificationRecord,
  type VerificationNameMatch,
  type VerificationStatus,
} from '../store/identityVerifications.js';
import {
  getRequestById,
  getSigner,
  signersOf,
  updateSigner,
  type IdentityState,
  type SignatureRequestRecord,
  type SignerRecord,
} from '../store/signatureRequests.js';
import { GenericProvider } from '../identity/genericProvider.js';
import {
  ProviderUnavailable,
  type IdentityProvider,
  type ProviderDocument,
  type ProviderResult,
  type ProviderStatus,
} from '../identity/provider.js';

/**
 * Identity verification of signers (spec 1.3, 3.2, 6.3): test mode runs a simulation page where
 * the signer chooses Approve or Decline; live mode opens a hosted verification at the configured
 * provider and applies its signed result callbacks. Every change of a signer goes through
 * applySignerMove, in one transaction with its event; a result that changes nothing emits nothing.
 */

/** The verification level asked of providers: an official document and a live face match (spec 1.3). */
export const IDENTITY_LEVEL = 'document_liveness';
export const SIMULATION_PROVIDER = 'simulation';
/** How long a simulation page link works. */
export const SIMULATION_LINK_SECONDS = 3600;
/** The document a simulated approval reads (no real document exists in test mode). */
export const SIMULATED_DOCUMENT = { type: 'simulated_id', numberLast4: '0000' } as const;

// ---------------------------------------------------------------------------------------------
// The live adapter, built lazily from the configuration (no wiring in server.ts)

const adapters = new WeakMap<ServiceContext, IdentityProvider | null>();

/** The live provider adapter of this server, or null when none is configured. */
export function identityProvider(ctx: ServiceContext): IdentityProvider | null {
  if (!adapters.has(ctx)) {
    const c = ctx.config;
    adapters.set(
      ctx,
      c.TAWQI_IDENTITY_PROVIDER_URL && c.TAWQI_IDENTITY_PROVIDER_KEY && c.TAWQI_IDENTITY_CALLBACK_SECRET
        ? new GenericProvider({
            baseUrl: c.TAWQI_IDENTITY_PROVIDER_URL,
            apiKey: c.TAWQI_IDENTITY_PROVIDER_KEY,
            callbackSecret: c.TAWQI_IDENTITY_CALLBACK_SECRET,
            clock: ctx.clock,
          })
        : null,
    );
  }
  return adapters.get(ctx)!;
}

export const callbackUrl = (ctx: ServiceContext, provider: IdentityProvider): string =>
  `${ctx.publicUrl}/identity/callbacks/${provider.name}`;

// ---------------------------------------------------------------------------------------------
// Refusals

type StartRefusal =
  | 'identity_not_required'
  | 'request_not_open'
  | 'already_finished'
  | 'not_your_turn'
  | 'otp_required'
  | 'identity_in_review'
  | 'identity_not_startable';

const TEXT: Record<StartRefusal | 'not_on_hold' | 'already_decided' | 'not_simulation', { en: string; ar: string }> = {
  identity_not_required: { en: 'This signer does not need identity verification.', ar: 'هذا الموقّع لا يحتاج إلى التحقق من الهوية.' },
  // The reasons the signer rules share keep the signer rules' texts.
  request_not_open: REFUSAL_TEXT.request_not_open,
  already_finished: REFUSAL_TEXT.already_finished,
  not_your_turn: REFUSAL_TEXT.not_your_turn,
  otp_required: { en: 'The one-time code must be entered before identity verification.', ar: 'يجب إدخال رمز التحقق قبل التحقق من الهوية.' },
  identity_in_review: {
    en: 'The identity verification is in review; wait for its result.',
    ar: 'التحقق من الهوية قيد المراجعة؛ انتظر نتيجته.',
  },
  identity_not_startable: {
    en: 'Identity verification cannot be started in the signer’s current identity state.',
    ar: 'لا يمكن بدء التحقق من الهوية في حالة هوية الموقّع الحالية.',
  },
  not_on_hold: { en: 'This signer is not held for a name review.', ar: 'هذا الموقّع ليس موقوفًا لمراجعة الاسم.' },
  already_decided: { en: 'This identity verification already has a result.', ar: 'هذا التحقق من الهوية له نتيجة بالفعل.' },
  not_simulation: {
    en: 'Only a test-mode verification can be decided by simulation.',
    ar: 'لا يمكن البت بالمحاكاة إلا في تحقق وضع الاختبار.',
  },
};

const refusal = (reason: keyof typeof TEXT, param = 'signer'): ApiError =>
  new ApiError('invalid_state', param, { reason }, {}, TEXT[reason]);

// ---------------------------------------------------------------------------------------------
// Loading

interface Loaded {
  request: SignatureRequestRecord;
  signer: SignerRecord;
  signers: SignerRecord[];
}

async function loadSigner(trx: Db, signerId: string): Promise<Loaded> {
  const signer = await getSigner(trx, signerId);
  if (!signer) throw new ApiError('not_found', 'signer');
  const request = (await getRequestById(trx, signer.signature_request_id))!;
  const signers = await signersOf(trx, request.id);
  return { request, signer: signers.find((s) => s.id === signerId)!, signers };
}

/** Moves not made by the signer (provider results, reviewers) keep the signer's own recorded origin. */
const signerOrigin = (s: SignerRecord): ActionOrigin => ({ ip: s.ip, user_agent: s.user_agent });

function startRefusal({ request, signer, signers }: Loaded): StartRefusal | null {
  if (!signer.require_identity || signer.identity.status === 'not_required') return 'identity_not_required';
  if (!OPEN_STATUSES.includes(request.status)) return 'request_not_open';
  if (signer.identity.status === 'in_review') return 'identity_in_review';
  const r = signerRefusal(request, signerView(signer), signers.filter((s) => s !== signer).map(signerView), 'identity_verified');
  if (r === 'request_not_open' || r === 'already_finished' || r === 'not_your_turn' || r === 'otp_required') return r;
  if (r !== null) return 'identity_not_startable';
  return null;
}

// ---------------------------------------------------------------------------------------------
// Starting a verification

export interface StartedVerification {
  verificationId: string;
  /** Where to send the signer: the simulation page (test mode) or the provider's hosted page. */
  url: string;
}

/**
 * Start (or resume) the identity verification of an OTP-verified signer who needs one. An open
 * verification (pending, or resubmission requested) is resumed rather than duplicated; after a
 * decline a new one is made. Live mode calls the provider outside any transaction.
 */
/** A new pending verification of a signer or a company representative, at `providerName` (or the simulation). */
export function newVerification(
  ctx: ServiceContext,
  of: { accountId: string; livemode: boolean; subject: IdentityVerificationRecord['subject']; subjectId: string },
  providerName: string,
): IdentityVerificationRecord {
  const now = nowSeconds(ctx.clock);
  return {
    id: newId('identityVerification', ctx.clock),
    account_id: of.accountId,
    livemode: of.livemode,
    subject: of.subject,
    signer_id: of.subjectId,
    provider: providerName,
    level: IDENTITY_LEVEL,
    status: 'pending',
    provider_reference: null,
    document_name: null,
    document_type: null,
    document_last4: null,
    name_match: null,
    created_at: now,
    updated_at: now,
    completed_at: null,
  };
}

/** The signer's open verification (pending, or waiting for a resubmission), or a new pending one. */
async function openVerification(
  ctx: ServiceContext,
  trx: Db,
  request: SignatureRequestRecord,
  signer: SignerRecord,
  providerName: string,
): Promise<IdentityVerificationRecord> {
  const open = await latestVerificationOf(trx, signer.id);
  if (open && (open.status === 'pending' || open.status === 'resubmission_requested')) return open;
  const v = newVerification(
    ctx,
    { accountId: request.account_id, livemode: request.livemode, subject: 'signer', subjectId: signer.id },
    providerName,
  );
  await insertVerification(trx, v);
  return v;
}

/** Ask the provider for a session (after commit); an unreachable provider is identity_provider_unavailable. */
async function createAtProvider(
  ctx: ServiceContext,
  provider: IdentityProvider,
  v: IdentityVerificationRecord,
  expectedName: string,
  returnUrl: string | null,
): Promise<{ providerReference: string | null; url: string }> {
  try {
    return await provider.createVerification({
      reference: v.id,
      expectedName,
      level: v.level,
      callbackUrl: callbackUrl(ctx, provider),
      returnUrl,
    });
  } catch (err) {
    if (!(err instanceof ProviderUnavailable)) throw err;
    ctx.log.warn({ verification: v.id, err: err.message }, 'identity provider unavailable');
    throw new ApiError('identity_provider_unavailable');
  }
}

export async function startIdentityVerification(
  ctx: ServiceContext,
  signerId: string,
  opts: { returnUrl?: string | null } = {},
): Promise<StartedVerification> {
  const returnUrl = opts.returnUrl ?? null;
  if (returnUrl !== null && !isHttpUrl(returnUrl)) {
    throw new ApiError(
      'parameter_invalid',
      'return_url',
      {},
      {},
      { en: 'return_url must be an http(s) URL.', ar: 'يجب أن يكون return_url عنوان http(s).' },
    );
  }
  const prepared = await ctx.store.tx(async (trx) => {
    const loaded = await loadSigner(trx, signerId);
    const why = startRefusal(loaded);
    if (why) throw refusal(why);
    const { request, signer } = loaded;
    const provider = request.livemode ? identityProvider(ctx) : null;
    if (request.livemode && !provider) {
      throw new ApiError(
        'invalid_request',
        null,
        {},
        {},
        {
          en: 'Live identity verification is not configured on this server (TAWQI_IDENTITY_PROVIDER_URL).',
          ar: 'التحقق من الهوية في الوضع الحي غير مهيأ على هذا الخادم (TAWQI_IDENTITY_PROVIDER_URL).',
        },
      );
    }
    const v = await openVerification(ctx, trx, request, signer, provider?.name ?? SIMULATION_PROVIDER);
    if (signer.identity.verification_id !== v.id) {
      // Not a move: the identity status stays; the signer now points at its current verification.
      await updateSigner(trx, signer.id, { identity: { ...signer.identity, provider: v.provider, level: v.level, verification_id: v.id } });
    }
    return { v, signer, provider };
  });
  ctx.afterCommit();
  const { v, signer, provider } = prepared;
  if (!provider) return { verificationId: v.id, url: simulationUrl(ctx, v, returnUrl) };

  return openAtProvider(ctx, provider, v, signer.name, returnUrl);
}

/**
 * After the commit that made (or found) the verification: open (or resume) it at the provider and
 * keep the provider's reference; where to send the person is the provider's hosted page.
 */
export async function openAtProvider(
  ctx: ServiceContext,
  provider: IdentityProvider,
  v: IdentityVerificationRecord,
  expectedName: string,
  returnUrl: string | null,
): Promise<StartedVerification> {
  const created = await createAtProvider(ctx, provider, v, expectedName, returnUrl);
  if (created.providerReference !== v.provider_reference) {
    await ctx.store.tx((trx) =>
      updateVerification(trx, v.id, { provider_reference: created.providerReference, updated_at: nowSeconds(ctx.clock) }),
    );
  }
  return { verificationId: v.id, url: created.url };
}

const isHttpUrl = (u: string): boolean => {
  try {
    const p = new URL(u).protocol;
    return p === 'https:' || p === 'http:';
  } catch {
    return false;
  }
};

// ---------------------------------------------------------------------------------------------
// Applying a result (simulation or provider)

/** Which provider results each verification status accepts; any other result changes nothing. */
const NEXT: Record<VerificationStatus, readonly ProviderStatus[]> = {
  pending: ['in_review', 'approved', 'declined'],
  in_review: ['resubmission_requested', 'approved', 'declined'],
  resubmission_requested: ['in_review', 'approved', 'declined'],
  approved: [],
  declined: [],
};

type IdentityTrigger = Exclude<SignerTrigger, 'invite'>;

const TRIGGER: Record<ProviderStatus, IdentityTrigger> = {
  approved: 'identity_verified',
  declined: 'identity_declined',
  in_review: 'identity_in_review',
  resubmission_requested: 'identity_resubmission_requested',
};

export type ResultOutcome =
  /** The verification changed (and the signer with it, with its event, when the signer could move). */
  | 'applied'
  /** The same result again: nothing changes, no event (each event fires once per state change). */
  | 'duplicate'
  /** A result the verification's status does not accept (e.g. after a final result): ignored. */
  | 'ignored';

export interface ResultApplied {
  outcome: ResultOutcome;
  verification: IdentityVerificationRecord;
  /** The signer event emitted, if any. */
  event: string | null;
}

/** Apply one result to a verification and its signer, in the caller's transaction. */
export async function applyIdentityResult(
  ctx: ServiceContext,
  trx: Db,
  v: IdentityVerificationRecord,
  result: { status: ProviderStatus; document?: ProviderDocument | undefined },
): Promise<ResultApplied> {
  if (v.status === result.status) return { outcome: 'duplicate', verification: v, event: null };
  if (!NEXT[v.status].includes(result.status)) {
    ctx.log.warn({ verification: v.id, from: v.status, result: result.status }, 'identity result ignored: not accepted in this state');
    return { outcome: 'ignored', verification: v, event: null };
  }
  if (v.subject === 'representative') return applyRepresentativeResult(ctx, trx, v, result);
  const now = nowSeconds(ctx.clock);
  const { signer } = await loadSigner(trx, v.signer_id);
  const account = (await getAccount(trx, v.account_id))!;
  const doc = result.document;

  let trigger: IdentityTrigger = TRIGGER[result.status];
  let nameMatch: VerificationNameMatch | null = null;
  let eventExtra: Record<string, unknown> = {};
  if (result.status === 'approved' && doc) {
    const same = namesMatch(signer.name, doc.name);
    nameMatch = {
      state: same ? 'match' : 'mismatch',
      sent_name: signer.name,
      document_name: doc.name,
      document_type: doc.type,
      document_last4: doc.numberLast4,
      mode: same ? null : account.identity_match_mode,
      decision: null,
      decided_at: null,
    };
    if (!same) {
      eventExtra = { identity_match: matchDetails(nameMatch) };
      if (account.identity_match_mode === 'hold') trigger = 'identity_match_hold';
    }
  }

  const changes: Partial<IdentityVerificationRecord> = { status: result.status, updated_at: now };
  if (result.status === 'approved' || result.status === 'declined') changes.completed_at = now;
  if (doc) Object.assign(changes, { document_name: doc.name, document_type: doc.type, document_last4: doc.numberLast4 });
  if (nameMatch) changes.name_match = nameMatch;
  await updateVerification(trx, v.id, changes);
  const updated = { ...v, ...changes };

  const identity: Partial<IdentityState> = { provider: v.provider, level: v.level, verification_id: v.id };
  if (result.status === 'approved')
    identity.name_match = nameMatch && { state: nameMatch.state, sent_name: nameMatch.sent_name, document_name: nameMatch.document_name };
  if (signer.identity.verification_id !== v.id) {
    // A result for a verification the signer no longer follows: recorded, the signer is not moved.
    ctx.log.warn({ verification: v.id, signer: signer.id }, 'identity result for a superseded verification');
    return { outcome: 'applied', verification: updated, event: null };
  }
  try {
    await applySignerMove(ctx, trx, signer.id, trigger, signerOrigin(signer), { identity, eventExtra });
  } catch (err) {
    // The signer cannot take this move now (request closed, signer finished, or a state the table
    // does not allow): the verification keeps the provider's result; the signer does not move.
    if (!(err instanceof ApiError) || err.code !== 'invalid_state') throw err;
    ctx.log.warn(
      { verification: v.id, signer: signer.id, trigger, reason: err.extra.reason },
      'identity result recorded without a signer move',
    );
    return { outcome: 'applied', verification: updated, event: null };
  }
  return { outcome: 'applied', verification: updated, event: SIGNER_MOVES[trigger].event };
}

/**
 * A company representative's check (company verification, spec part 5): the result and the name
 * read are recorded on the verification, with the name match against the name the owner gave; no
 * signer moves and no event fires — the operator reads it when reviewing the company.
 */
async function applyRepresentativeResult(
  ctx: ServiceContext,
  trx: Db,
  v: IdentityVerificationRecord,
  result: { status: ProviderStatus; document?: ProviderDocument | undefined },
): Promise<ResultApplied> {
  const now = nowSeconds(ctx.clock);
  const changes: Partial<IdentityVerificationRecord> = { status: result.status, updated_at: now };
  if (result.status === 'approved' || result.status === 'declined') changes.completed_at = now;
  const doc = result.document;
  if (doc) {
    const expected = await verificationSubjectName(trx, v);
    const same = namesMatch(expected, doc.name);
    Object.assign(changes, { document_name: doc.name, document_type: doc.type, document_last4: doc.numberLast4 });
    changes.name_match = {
      state: same ? 'match' : 'mismatch',
      sent_name: expected,
      document_name: doc.name,
      document_type: doc.type,
      document_last4: doc.numberLast4,
      mode: null,
      decision: null,
      decided_at: null,
    };
  }
  await updateVerification(trx, v.id, changes);
  return { outcome: 'applied', verification: { ...v, ...changes }, event: null };
}

/** The name a verification expects: the signer's, or the representative's the owner gave. */
export async function verificationSubjectName(trx: Db, v: Pick<IdentityVerificationRecord, 'subject' | 'signer_id'>): Promise<string> {
  if (v.subject === 'representative') return (await getCompanyVerification(trx, v.signer_id))?.representative_name ?? '';
  return (await getSigner(trx, v.signer_id))?.name ?? '';
}

/** The identity_match object of the hold (and record) payloads: both names, document type, last four. */
function matchDetails(m: VerificationNameMatch) {
  return { sent_name: m.sent_name, document_name: m.document_name, document_type: m.document_type, document_last4: m.document_last4 };
}

/** A signed provider callback, already parsed and verified by the adapter. Unknown verification → null. */
export async function handleProviderCallback(
  ctx: ServiceContext,
  provider: IdentityProvider,
  parsed: ProviderResult,
): Promise<ResultApplied | null> {
  const result = await ctx.store.tx(async (trx) => {
    let v = parsed.reference ? await getVerification(trx, parsed.reference) : undefined;
    if (
      v &&
      (v.provider !== provider.name || !v.livemode || (v.provider_reference !== null && v.provider_reference !== parsed.providerReference))
    )
      v = undefined;
    v ??= await findByProviderReference(trx, provider.name, parsed.providerReference);
    if (!v) return null;
    if (v.provider_reference === null) {
      // The result arrived before the provider's answer to our create call was stored.
      await updateVerification(trx, v.id, { provider_reference: parsed.providerReference });
      v.provider_reference = parsed.providerReference;
    }
    return applyIdentityResult(ctx, trx, v, { status: parsed.status, document: parsed.document });
  });
  ctx.afterCommit();
  return result;
}

/**
 * Test mode only: the signer's choice on the simulation page. Approve reads a simulated document
 * bearing `documentName` (the name sent, unless the tester typed another to try the name match).
 */
export async function simulateIdentityDecision(
  ctx: ServiceContext,
  verificationOrSignerId: string,
  decision: 'approve' | 'decline',
  opts: { documentName?: string } = {},
): Promise<ResultApplied> {
  const result = await ctx.store.tx((trx) => decideSimulation(ctx, trx, verificationOrSignerId, decision, opts));
  ctx.afterCommit();
  return result;
}

/** simulateIdentityDecision in the caller's transaction (the test helper stores its answer with it). */
export async function decideSimulation(
  ctx: ServiceContext,
  trx: Db,
  verificationOrSignerId: string,
  decision: 'approve' | 'decline',
  opts: { documentName?: string } = {},
): Promise<ResultApplied> {
  const v = verificationOrSignerId.startsWith('sgr_')
    ? await latestVerificationOf(trx, verificationOrSignerId)
    : await getVerification(trx, verificationOrSignerId);
  if (!v) throw new ApiError('not_found', 'verification');
  if (v.livemode || v.provider !== SIMULATION_PROVIDER) throw refusal('not_simulation', 'verification');
  if (v.status === 'approved' || v.status === 'declined') throw refusal('already_decided', 'verification');
  if (decision === 'decline') return applyIdentityResult(ctx, trx, v, { status: 'declined' });
  const name = opts.documentName?.trim() || (await verificationSubjectName(trx, v));
  return applyIdentityResult(ctx, trx, v, { status: 'approved', document: { name: name.slice(0, 300), ...SIMULATED_DOCUMENT } });
}

// ---------------------------------------------------------------------------------------------
// Name review (POST /signers/{id}/identity_match)

/** A reviewer's decision on a held name mismatch: approved resumes signing, rejected stops it. */
export async function decideIdentityMatch(
  ctx: ServiceContext,
  trx: Db,
  actor: Actor,
  signerId: string,
  decision: 'approve' | 'reject',
): Promise<Loaded> {
  const signer = await getSigner(trx, signerId);
  const request = signer && (await getRequestById(trx, signer.signature_request_id));
  if (!signer || !request || request.account_id !== actor.account.id || request.livemode !== actor.livemode)
    throw new ApiError('not_found', 'id');
  if (signer.identity.status !== 'match_hold') throw refusal('not_on_hold', 'id');
  const v = signer.identity.verification_id ? await getVerification(trx, signer.identity.verification_id) : undefined;
  const now = nowSeconds(ctx.clock);
  const decided: 'approved' | 'rejected' = decision === 'approve' ? 'approved' : 'rejected';
  const m = v?.name_match ?? null;
  const details = m
    ? { decision: decided, ...matchDetails(m) }
    : {
        decision: decided,
        sent_name: signer.name,
        document_name: signer.identity.name_match?.document_name ?? null,
        document_type: null,
        document_last4: null,
      };
  const after = await applySignerMove(
    ctx,
    trx,
    signer.id,
    decision === 'approve' ? 'identity_match_approved' : 'identity_match_rejected',
    signerOrigin(signer),
    {
      eventExtra: { identity_match: details },
    },
  );
  if (v && m) await updateVerification(trx, v.id, { name_match: { ...m, decision: decided, decided_at: now }, updated_at: now });
  return { request: after.request, signers: after.signers, signer: after.signers.find((s) => s.id === signerId)! };
}

// ---------------------------------------------------------------------------------------------
// The simulation page's credential

function simulationKey(ctx: ServiceContext): Buffer {
  return createHmac('sha256', ctx.secrets.linkKey).update('tawqi:identity-simulation:v1').digest();
}

function simulationMac(
  ctx: ServiceContext,
  v: Pick<IdentityVerificationRecord, 'id' | 'signer_id'>,
  expiresAt: number,
  returnUrl: string | null,
): string {
  return createHmac('sha256', simulationKey(ctx))
    .update(`${v.id}\n${v.signer_id}\n${expiresAt}\n${returnUrl ?? ''}`)
    .digest('base64url');
}

/** `<expires>.<mac>`: binds the verification, its signer, an expiry and the return URL; nothing stored. */
export function simulationToken(
  ctx: ServiceContext,
  v: Pick<IdentityVerificationRecord, 'id' | 'signer_id'>,
  returnUrl: string | null,
): string {
  const expiresAt = nowSeconds(ctx.clock) + SIMULATION_LINK_SECONDS;
  return `${expiresAt}.${simulationMac(ctx, v, expiresAt, returnUrl)}`;
}

export function simulationUrl(
  ctx: ServiceContext,
  v: Pick<IdentityVerificationRecord, 'id' | 'signer_id'>,
  returnUrl: string | null,
): string {
  const q = new URLSearchParams({ token: simulationToken(ctx, v, returnUrl) });
  if (returnUrl !== null) q.set('return_url', returnUrl);
  return `${ctx.publicUrl}/identity/simulate/${v.id}?${q.toString()}`;
}

/** Constant-time check of a simulation token for this verification; false when forged or expired. */
export function checkSimulationToken(
  ctx: ServiceContext,
  v: Pick<IdentityVerificationRecord, 'id' | 'signer_id'>,
  token: unknown,
  returnUrl: string | null,
): boolean {
  if (typeof token !== 'string' || token.length > 200) return false;
  const m = /^(\d{1,12})\.([\w-]{43})$/.exec(token);
  if (!m) return false;
  const expiresAt = Number(m[1]);
  const expected = Buffer.from(simulationMac(ctx, v, expiresAt, returnUrl));
  const given = Buffer.from(m[2]!);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  return expiresAt >= nowSeconds(ctx.clock);
}
