/**
 * The signature request state machine (spec 3.1) and the signer rules (spec 3.2), as explicit
 * tables. Pure: no I/O. Every endpoint and job moves a request only through `moveRequest`.
 */
import type { IdentityStatus, RequestStatus, SignerStatus } from '@tawqi/shared/api';

// The value lists are part of the published API objects (@tawqi/shared/api).
export { IDENTITY_STATUSES, REQUEST_STATUSES, SIGNER_STATUSES } from '@tawqi/shared/api';
export type { IdentityStatus, RequestStatus, SignerStatus } from '@tawqi/shared/api';

export const FINAL_STATUSES: readonly RequestStatus[] = ['completed', 'declined', 'expired', 'canceled'];
/** Sent and not yet final: signers may act. */
export const OPEN_STATUSES: readonly RequestStatus[] = ['sent', 'viewed', 'partially_signed'];

export type RequestTrigger =
  'create_draft' | 'create_sent' | 'send' | 'first_view' | 'signer_signed' | 'all_signed' | 'signer_declined' | 'expire' | 'cancel';

export interface RequestMove {
  from: readonly (RequestStatus | 'new')[];
  to: RequestStatus;
  /** Request-level events the move emits (signer-level ones are named by the signer moves). */
  events: readonly string[];
}

/** One row per line of spec 3.1. */
export const REQUEST_MOVES: Record<RequestTrigger, RequestMove> = {
  create_draft: { from: ['new'], to: 'draft', events: ['signature_request.created'] },
  create_sent: { from: ['new'], to: 'sent', events: ['signature_request.sent'] },
  send: { from: ['draft'], to: 'sent', events: ['signature_request.sent'] },
  first_view: { from: ['sent'], to: 'viewed', events: ['signature_request.viewed'] },
  signer_signed: { from: OPEN_STATUSES, to: 'partially_signed', events: ['signature_request.partially_signed'] },
  all_signed: { from: OPEN_STATUSES, to: 'completed', events: ['signature_request.completed'] },
  signer_declined: { from: OPEN_STATUSES, to: 'declined', events: ['signature_request.declined'] },
  expire: { from: ['draft', ...OPEN_STATUSES], to: 'expired', events: ['signature_request.expired'] },
  cancel: { from: ['draft', ...OPEN_STATUSES], to: 'canceled', events: ['signature_request.canceled'] },
};

export class InvalidMove extends Error {
  constructor(
    readonly trigger: RequestTrigger,
    readonly from: RequestStatus | 'new',
  ) {
    super(`move ${trigger} is not allowed from ${from}`);
  }
}

export function moveRequest(from: RequestStatus | 'new', trigger: RequestTrigger): RequestMove {
  const move = REQUEST_MOVES[trigger];
  if (!move.from.includes(from)) throw new InvalidMove(trigger, from);
  return move;
}

export function canMove(from: RequestStatus, trigger: RequestTrigger): boolean {
  return REQUEST_MOVES[trigger].from.includes(from);
}

export const isFinal = (s: RequestStatus): boolean => FINAL_STATUSES.includes(s);

// ---------------------------------------------------------------------------------------------
// Signers (spec 3.2)

export type SignerTrigger =
  | 'invite'
  | 'view'
  | 'otp_verified'
  | 'identity_verified'
  | 'identity_in_review'
  | 'identity_resubmission_requested'
  | 'identity_declined'
  | 'identity_match_hold'
  | 'identity_match_approved'
  | 'identity_match_rejected'
  | 'sign'
  | 'decline';

export interface SignerMove {
  from: readonly SignerStatus[];
  /** null: the progress status stays; the identity status (if any) changes. */
  to: SignerStatus | null;
  identity?: { from: readonly IdentityStatus[]; to: IdentityStatus };
  event: string;
}

const ACTIVE: readonly SignerStatus[] = ['sent', 'viewed', 'otp_verified', 'identity_verified'];
const IDENTITY_OPEN: readonly IdentityStatus[] = ['required', 'in_review', 'resubmission_requested', 'declined'];

/** Signer moves; identity moves need an OTP-verified signer (identity comes after the code). */
export const SIGNER_MOVES: Record<SignerTrigger, SignerMove> = {
  invite: { from: ['pending'], to: 'sent', event: 'signer.sent' },
  view: { from: ['sent'], to: 'viewed', event: 'signer.viewed' },
  otp_verified: { from: ['sent', 'viewed'], to: 'otp_verified', event: 'signer.otp_verified' },
  identity_verified: {
    from: ['otp_verified'],
    to: 'identity_verified',
    identity: { from: IDENTITY_OPEN, to: 'approved' },
    event: 'signer.identity_verified',
  },
  identity_in_review: {
    from: ['otp_verified'],
    to: null,
    identity: { from: ['required', 'resubmission_requested', 'declined'], to: 'in_review' },
    event: 'signer.identity_in_review',
  },
  identity_resubmission_requested: {
    from: ['otp_verified'],
    to: null,
    identity: { from: ['in_review'], to: 'resubmission_requested' },
    event: 'signer.identity_resubmission_requested',
  },
  identity_declined: {
    from: ['otp_verified'],
    to: null,
    identity: { from: ['required', 'in_review', 'resubmission_requested'], to: 'declined' },
    event: 'signer.identity_declined',
  },
  identity_match_hold: {
    from: ['otp_verified'],
    to: null,
    identity: { from: IDENTITY_OPEN, to: 'match_hold' },
    event: 'signer.identity_match_hold',
  },
  identity_match_approved: {
    from: ['otp_verified'],
    to: 'identity_verified',
    identity: { from: ['match_hold'], to: 'approved' },
    event: 'signer.identity_match_decided',
  },
  identity_match_rejected: {
    from: ['otp_verified'],
    to: null,
    identity: { from: ['match_hold'], to: 'match_rejected' },
    event: 'signer.identity_match_decided',
  },
  sign: { from: ['otp_verified', 'identity_verified'], to: 'signed', event: 'signer.signed' },
  decline: { from: ACTIVE, to: 'declined', event: 'signer.declined' },
};

export interface SignerView {
  status: SignerStatus;
  order: number;
  identity_status: IdentityStatus;
}

export type SignerRefusal =
  | 'request_not_open'
  | 'not_your_turn'
  | 'already_finished'
  | 'otp_required'
  | 'identity_required'
  | 'identity_in_review'
  | 'identity_declined'
  | 'identity_match_hold'
  | 'identity_match_rejected'
  | 'move_not_allowed';

/** Why a signer cannot make `trigger` now (null when allowed). `ordered` requests sign in turn. */
export function signerRefusal(
  request: { status: RequestStatus; ordered: boolean },
  signer: SignerView,
  others: readonly SignerView[],
  trigger: SignerTrigger,
): SignerRefusal | null {
  if (trigger !== 'invite' && !OPEN_STATUSES.includes(request.status)) return 'request_not_open';
  if (signer.status === 'signed' || signer.status === 'declined') return 'already_finished';
  if (request.ordered && trigger !== 'invite' && others.some((o) => o.order < signer.order && o.status !== 'signed'))
    return 'not_your_turn';
  const move = SIGNER_MOVES[trigger];
  if (trigger === 'sign') {
    if (signer.status === 'sent' || signer.status === 'viewed' || signer.status === 'pending') return 'otp_required';
    const id = signer.identity_status;
    if (id === 'in_review') return 'identity_in_review';
    if (id === 'declined') return 'identity_declined';
    if (id === 'match_hold') return 'identity_match_hold';
    if (id === 'match_rejected') return 'identity_match_rejected';
    if (id !== 'not_required' && id !== 'approved') return 'identity_required';
  }
  if (move.identity) {
    if (signer.identity_status === 'not_required') return 'move_not_allowed';
    if (!move.identity.from.includes(signer.identity_status)) return 'move_not_allowed';
  }
  if (!move.from.includes(signer.status)) return trigger.startsWith('identity') ? 'otp_required' : 'move_not_allowed';
  return null;
}

/** The request move that follows a signer's signature: completed when every signer has signed. */
export function afterSignature(signers: readonly SignerView[]): RequestTrigger {
  return signers.every((s) => s.status === 'signed') ? 'all_signed' : 'signer_signed';
}

/** In an ordered request, the next signer to invite after the others' statuses; null when none. */
export function nextInOrder<T>(signers: readonly T[], viewOf: (s: T) => SignerView): T | null {
  const sorted = [...signers].sort((a, b) => viewOf(a).order - viewOf(b).order);
  const next = sorted.find((s) => viewOf(s).status !== 'signed');
  return next && viewOf(next).status === 'pending' ? next : null;
}
