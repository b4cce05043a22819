import { nowSeconds } from '../clock.js';
import {
  afterSignature,
  nextInOrder,
  SIGNER_MOVES,
  signerRefusal,
  type SignerRefusal,
  type SignerTrigger,
} from '../domain/requestStates.js';
import { ApiError } from '../errors.js';
import type { Db } from '../store/db.js';
import {
  getRequestForMove,
  getSigner,
  signersOf,
  updateSigner,
  type IdentityState,
  type SignerChanges,
  type SignerRecord,
} from '../store/signatureRequests.js';
import type { ServiceContext } from '../context.js';
import { applyRequestMove, emitSignerEvent, inviteSigner, type RequestWithSigners } from './signatureRequests.js';

/** Where a signer's action came from; kept on the signer and in its events (masked for publishable keys). */
export interface ActionOrigin {
  ip: string | null;
  user_agent: string | null;
}

export const REFUSAL_TEXT: Record<SignerRefusal, { en: string; ar: string }> = {
  request_not_open: { en: 'This request no longer accepts signatures.', ar: 'هذا الطلب لم يعد يقبل التوقيع.' },
  not_your_turn: { en: 'A signer ahead of you has not signed yet.', ar: 'لم يوقّع بعدُ موقّع يسبقك في الترتيب.' },
  already_finished: { en: 'You have already signed or declined.', ar: 'لقد وقّعت أو رفضت بالفعل.' },
  otp_required: { en: 'Enter the one-time code first.', ar: 'أدخل رمز التحقق أولًا.' },
  identity_required: { en: 'Identity verification must be approved first.', ar: 'يجب اعتماد التحقق من الهوية أولًا.' },
  identity_in_review: { en: 'Your identity verification is in review.', ar: 'التحقق من هويتك قيد المراجعة.' },
  identity_declined: { en: 'Your identity verification was declined.', ar: 'رُفض التحقق من هويتك.' },
  identity_match_hold: {
    en: 'The name on your document differs; a reviewer will decide.',
    ar: 'الاسم في مستندك مختلف؛ سيقرر أحد المراجعين.',
  },
  identity_match_rejected: { en: 'Signing was stopped after the name review.', ar: 'أوقف التوقيع بعد مراجعة الاسم.' },
  move_not_allowed: { en: 'This step is not available now.', ar: 'هذه الخطوة غير متاحة الآن.' },
};

/**
 * The signer's request (its row locked on PostgreSQL: store/signatureRequests.ts getRequestForMove)
 * and its signers read after the lock, so a move in store.lockingTx decides on every other signer's
 * committed move.
 */
async function load(trx: Db, signerId: string): Promise<{ current: RequestWithSigners; signer: SignerRecord }> {
  const requestId = (await getSigner(trx, signerId))?.signature_request_id;
  if (!requestId) throw new ApiError('not_found', 'signer');
  const request = (await getRequestForMove(trx, requestId))!;
  const signers = await signersOf(trx, request.id);
  return { current: { request, signers }, signer: signers.find((s) => s.id === signerId)! };
}

function refuse(reason: SignerRefusal): ApiError {
  return new ApiError('invalid_state', 'signer', { reason }, {}, REFUSAL_TEXT[reason]);
}

/**
 * Apply one signer move (spec 3.2) with every rule checked, then the request move it causes:
 * first view → viewed; a signature → partially_signed or completed (and the next signer invited
 * when ordered); a decline → declined. One transaction, events included.
 */
export async function applySignerMove(
  ctx: ServiceContext,
  trx: Db,
  signerId: string,
  trigger: Exclude<SignerTrigger, 'invite'>,
  origin: ActionOrigin,
  details: { reason?: string; identity?: Partial<IdentityState>; eventExtra?: Record<string, unknown>; signatureImage?: string } = {},
): Promise<RequestWithSigners> {
  const { current, signer } = await load(trx, signerId);
  const { request, signers } = current;
  const now = nowSeconds(ctx.clock);
  if (trigger === 'view' && signer.viewed_at !== null) {
    const refusal = signerRefusal(request, signerView(signer), signers.filter((s) => s !== signer).map(signerView), 'view');
    if (refusal === 'request_not_open' || refusal === 'not_your_turn') throw refuse(refusal);
    return current; // a later view changes nothing
  }
  const refusal = signerRefusal(request, signerView(signer), signers.filter((s) => s !== signer).map(signerView), trigger);
  if (refusal) throw refuse(refusal);

  const move = SIGNER_MOVES[trigger];
  const changes: SignerChanges = { ip: origin.ip, user_agent: origin.user_agent };
  if (move.to) changes.status = move.to;
  if (move.identity) changes.identity = { ...signer.identity, ...details.identity, status: move.identity.to };
  if (trigger === 'view') changes.viewed_at = now;
  if (trigger === 'sign') changes.signed_at = now;
  if (details.signatureImage !== undefined) changes.signature_image = details.signatureImage;
  if (trigger === 'decline') {
    changes.declined_at = now;
    changes.decline_reason = details.reason?.slice(0, 500) ?? null;
  }
  Object.assign(signer, changes);
  await updateSigner(trx, signer.id, changes);

  if (trigger === 'view' && request.status === 'sent') await applyRequestMove(ctx, trx, current, 'first_view');
  await emitSignerEvent(ctx, trx, move.event, request, signer, origin, details.eventExtra ?? {});
  if (trigger === 'sign') {
    await applyRequestMove(ctx, trx, current, afterSignature(signers.map(signerView)));
    if (request.ordered && request.status === 'partially_signed') {
      const next = nextInOrder(signers, signerView);
      if (next) {
        await inviteSigner(ctx, trx, request, next, { followUp: true });
        await emitSignerEvent(ctx, trx, 'signer.sent', request, next);
      }
    }
  }
  if (trigger === 'decline') await applyRequestMove(ctx, trx, current, 'signer_declined');
  return current;
}

/** A signer as the pure signer rules of domain/requestStates.ts see it. */
export const signerView = (s: SignerRecord) => ({ status: s.status, order: s.position, identity_status: s.identity.status });
