/**
 * The state machine of spec 3.1 (request moves) and the signer rules of 3.2, tested as the pure
 * module they are: every (status, trigger) pair against an expected table written from the spec,
 * every signer refusal, and the helpers the signer service uses after a signature.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  afterSignature,
  canMove,
  FINAL_STATUSES,
  InvalidMove,
  isFinal,
  moveRequest,
  nextInOrder,
  OPEN_STATUSES,
  REQUEST_MOVES,
  REQUEST_STATUSES,
  SIGNER_MOVES,
  signerRefusal,
  type IdentityStatus,
  type RequestStatus,
  type RequestTrigger,
  type SignerStatus,
  type SignerTrigger,
  type SignerView,
} from '../../server/src/domain/requestStates.js';

const TRIGGERS: RequestTrigger[] = [
  'create_draft',
  'create_sent',
  'send',
  'first_view',
  'signer_signed',
  'all_signed',
  'signer_declined',
  'expire',
  'cancel',
];
const NON_FINAL_SIGNABLE: RequestStatus[] = ['sent', 'viewed', 'partially_signed'];

/** Spec 3.1, row by row: the source states each trigger accepts, the result and the events it names. */
const EXPECTED: Record<RequestTrigger, { from: (RequestStatus | 'new')[]; to: RequestStatus; events: string[] }> = {
  create_draft: { from: ['new'], to: 'draft', events: ['signature_request.created'] },
  create_sent: { from: ['new'], to: 'sent', events: ['signature_request.sent'] },
  send: { from: ['draft'], to: 'sent', events: ['signature_request.sent'] },
  first_view: { from: ['sent'], to: 'viewed', events: ['signature_request.viewed'] },
  signer_signed: { from: NON_FINAL_SIGNABLE, to: 'partially_signed', events: ['signature_request.partially_signed'] },
  all_signed: { from: NON_FINAL_SIGNABLE, to: 'completed', events: ['signature_request.completed'] },
  signer_declined: { from: NON_FINAL_SIGNABLE, to: 'declined', events: ['signature_request.declined'] },
  expire: { from: ['draft', ...NON_FINAL_SIGNABLE], to: 'expired', events: ['signature_request.expired'] },
  cancel: { from: ['draft', ...NON_FINAL_SIGNABLE], to: 'canceled', events: ['signature_request.canceled'] },
};

const signer = (status: SignerStatus, order = 1, identity_status: IdentityStatus = 'not_required'): SignerView => ({
  status,
  order,
  identity_status,
});
const open = (ordered = false) => ({ status: 'sent' as RequestStatus, ordered });

describe('request moves (spec 3.1)', () => {
  test('the table has exactly one row per trigger, with the states, result and events of the spec', () => {
    assert.deepEqual(Object.keys(REQUEST_MOVES).sort(), [...TRIGGERS].sort());
    for (const trigger of TRIGGERS) {
      const move = REQUEST_MOVES[trigger];
      assert.deepEqual([...move.from].sort(), [...EXPECTED[trigger].from].sort(), `sources of ${trigger}`);
      assert.equal(move.to, EXPECTED[trigger].to, `result of ${trigger}`);
      assert.deepEqual([...move.events], EXPECTED[trigger].events, `events of ${trigger}`);
    }
  });

  test('every (status, trigger) pair: allowed exactly per the table, InvalidMove otherwise', () => {
    let allowed = 0;
    let refused = 0;
    for (const from of ['new', ...REQUEST_STATUSES] as const) {
      for (const trigger of TRIGGERS) {
        const ok = EXPECTED[trigger].from.includes(from);
        if (from !== 'new') assert.equal(canMove(from, trigger), ok, `canMove(${from}, ${trigger})`);
        if (ok) {
          const move = moveRequest(from, trigger);
          assert.equal(move.to, EXPECTED[trigger].to);
          assert.deepEqual([...move.events], EXPECTED[trigger].events);
          allowed++;
        } else {
          assert.throws(
            () => moveRequest(from, trigger),
            (err: unknown) => {
              assert.ok(err instanceof InvalidMove, `moveRequest(${from}, ${trigger}) must throw InvalidMove`);
              assert.equal(err.trigger, trigger);
              assert.equal(err.from, from);
              assert.match(err.message, new RegExp(`${trigger}.*${from}`));
              return true;
            },
          );
          refused++;
        }
      }
    }
    assert.equal(allowed + refused, 9 * 9);
    assert.equal(allowed, 2 + 1 + 1 + 3 * 3 + 4 * 2);
  });

  test('final states have no way out; only the create triggers start from nothing', () => {
    assert.deepEqual([...FINAL_STATUSES].sort(), ['canceled', 'completed', 'declined', 'expired']);
    assert.deepEqual([...OPEN_STATUSES].sort(), ['partially_signed', 'sent', 'viewed']);
    for (const status of REQUEST_STATUSES) {
      assert.equal(isFinal(status), FINAL_STATUSES.includes(status));
      if (isFinal(status))
        for (const trigger of TRIGGERS) assert.equal(canMove(status, trigger), false, `${status} must be final (${trigger})`);
    }
    for (const trigger of TRIGGERS) {
      assert.equal(REQUEST_MOVES[trigger].from.includes('new'), trigger === 'create_draft' || trigger === 'create_sent');
    }
    // A completed or canceled request cannot be canceled (409 request_not_cancelable at the API).
    assert.throws(() => moveRequest('completed', 'cancel'), InvalidMove);
    assert.throws(() => moveRequest('canceled', 'cancel'), InvalidMove);
    // A draft is sent once; a sent request is not "sent" again by the table (a repeat send is a reminder).
    assert.throws(() => moveRequest('sent', 'send'), InvalidMove);
    // Only the first view moves the request.
    assert.throws(() => moveRequest('viewed', 'first_view'), InvalidMove);
    assert.throws(() => moveRequest('draft', 'first_view'), InvalidMove);
  });
});

describe('signer rules (spec 3.2)', () => {
  test('signer move table: each move names the event of spec 3.2 / 6.3', () => {
    const events: Record<SignerTrigger, string> = {
      invite: 'signer.sent',
      view: 'signer.viewed',
      otp_verified: 'signer.otp_verified',
      identity_verified: 'signer.identity_verified',
      identity_in_review: 'signer.identity_in_review',
      identity_resubmission_requested: 'signer.identity_resubmission_requested',
      identity_declined: 'signer.identity_declined',
      identity_match_hold: 'signer.identity_match_hold',
      identity_match_approved: 'signer.identity_match_decided',
      identity_match_rejected: 'signer.identity_match_decided',
      sign: 'signer.signed',
      decline: 'signer.declined',
    };
    assert.deepEqual(Object.keys(SIGNER_MOVES).sort(), Object.keys(events).sort());
    for (const [trigger, event] of Object.entries(events)) assert.equal(SIGNER_MOVES[trigger as SignerTrigger].event, event);
    assert.equal(SIGNER_MOVES.sign.to, 'signed');
    assert.equal(SIGNER_MOVES.decline.to, 'declined');
    assert.equal(SIGNER_MOVES.identity_verified.identity?.to, 'approved');
    assert.equal(SIGNER_MOVES.identity_match_approved.identity?.to, 'approved');
    assert.equal(SIGNER_MOVES.identity_match_rejected.identity?.to, 'match_rejected');
  });

  test('the happy path of a signer without identity: view, code, sign', () => {
    assert.equal(signerRefusal(open(), signer('sent'), [], 'view'), null);
    assert.equal(signerRefusal(open(), signer('viewed'), [], 'otp_verified'), null);
    assert.equal(signerRefusal(open(), signer('sent'), [], 'otp_verified'), null);
    assert.equal(signerRefusal(open(), signer('otp_verified'), [], 'sign'), null);
    for (const status of ['sent', 'viewed', 'otp_verified'] as const)
      assert.equal(signerRefusal(open(), signer(status), [], 'decline'), null);
    assert.equal(signerRefusal({ status: 'draft', ordered: false }, signer('pending'), [], 'invite'), null);
  });

  test('request_not_open: no signer move on a draft or a final request', () => {
    for (const status of ['draft', ...FINAL_STATUSES] as RequestStatus[]) {
      for (const trigger of ['view', 'otp_verified', 'sign', 'decline', 'identity_verified'] as const) {
        assert.equal(
          signerRefusal({ status, ordered: false }, signer('otp_verified', 1, 'required'), [], trigger),
          'request_not_open',
          `${status} ${trigger}`,
        );
      }
    }
    for (const status of OPEN_STATUSES) assert.equal(signerRefusal({ status, ordered: false }, signer('otp_verified'), [], 'sign'), null);
  });

  test('not_your_turn: in ordered requests a signer waits for everyone ahead; unordered requests do not', () => {
    const first = signer('sent', 1);
    const second = signer('sent', 2);
    for (const trigger of ['view', 'otp_verified', 'sign', 'decline'] as const) {
      assert.equal(signerRefusal(open(true), second, [first], trigger), 'not_your_turn', trigger);
    }
    assert.equal(signerRefusal(open(true), signer('otp_verified', 2), [signer('viewed', 1)], 'sign'), 'not_your_turn');
    assert.equal(signerRefusal(open(true), signer('otp_verified', 3), [signer('signed', 1), signer('sent', 2)], 'sign'), 'not_your_turn');
    assert.equal(signerRefusal(open(true), signer('otp_verified', 3), [signer('signed', 1), signer('signed', 2)], 'sign'), null);
    assert.equal(signerRefusal(open(true), first, [second], 'view'), null, 'the first signer may act');
    assert.equal(signerRefusal(open(true), signer('sent', 2), [signer('signed', 1)], 'view'), null);
    assert.equal(signerRefusal(open(false), signer('otp_verified', 2), [signer('sent', 1)], 'sign'), null, 'unordered: any order');
  });

  test('already_finished: a signer who signed or declined cannot act again', () => {
    for (const status of ['signed', 'declined'] as const) {
      for (const trigger of ['view', 'otp_verified', 'sign', 'decline'] as const) {
        assert.equal(
          signerRefusal({ status: 'partially_signed', ordered: false }, signer(status), [signer('sent', 2)], trigger),
          'already_finished',
        );
      }
    }
  });

  test('otp_required: signing needs the one-time code first; identity steps come after the code', () => {
    for (const status of ['sent', 'viewed'] as const) {
      assert.equal(signerRefusal(open(), signer(status), [], 'sign'), 'otp_required');
      assert.equal(signerRefusal(open(), signer(status, 1, 'required'), [], 'sign'), 'otp_required');
      assert.equal(signerRefusal(open(), signer(status, 1, 'required'), [], 'identity_verified'), 'otp_required');
      assert.equal(signerRefusal(open(), signer(status, 1, 'required'), [], 'identity_in_review'), 'otp_required');
    }
  });

  test('identity required: no signature until identity is approved', () => {
    assert.equal(signerRefusal(open(), signer('otp_verified', 1, 'required'), [], 'sign'), 'identity_required');
    assert.equal(signerRefusal(open(), signer('otp_verified', 1, 'resubmission_requested'), [], 'sign'), 'identity_required');
    assert.equal(signerRefusal(open(), signer('otp_verified', 1, 'in_review'), [], 'sign'), 'identity_in_review');
    assert.equal(signerRefusal(open(), signer('otp_verified', 1, 'declined'), [], 'sign'), 'identity_declined');
    assert.equal(signerRefusal(open(), signer('otp_verified', 1, 'match_hold'), [], 'sign'), 'identity_match_hold');
    assert.equal(signerRefusal(open(), signer('otp_verified', 1, 'match_rejected'), [], 'sign'), 'identity_match_rejected');
    assert.equal(signerRefusal(open(), signer('identity_verified', 1, 'approved'), [], 'sign'), null);
    // Declining stays possible whatever the identity state.
    for (const id of ['required', 'in_review', 'declined', 'match_hold', 'match_rejected'] as const) {
      assert.equal(signerRefusal(open(), signer('otp_verified', 1, id), [], 'decline'), null, id);
    }
  });

  test('identity moves only from the identity states the table names', () => {
    const from = (id: IdentityStatus, trigger: SignerTrigger, status: SignerStatus = 'otp_verified') =>
      signerRefusal(open(), signer(status, 1, id), [], trigger);
    // Verified: from required, in review, resubmission requested, and declined ("unless a later verification is approved").
    for (const id of ['required', 'in_review', 'resubmission_requested', 'declined'] as const)
      assert.equal(from(id, 'identity_verified'), null, id);
    for (const id of ['match_hold', 'match_rejected', 'approved'] as const)
      assert.equal(from(id, 'identity_verified'), 'move_not_allowed', id);
    // In review: from required or after a resubmission request.
    for (const id of ['required', 'resubmission_requested'] as const) assert.equal(from(id, 'identity_in_review'), null);
    for (const id of ['in_review', 'match_hold', 'match_rejected', 'approved'] as const)
      assert.equal(from(id, 'identity_in_review'), 'move_not_allowed', id);
    assert.equal(from('declined', 'identity_in_review'), null, 'a later verification may go to review after a decline');
    // Resubmission: only a reviewer in review asks for it.
    assert.equal(from('in_review', 'identity_resubmission_requested'), null);
    for (const id of ['required', 'resubmission_requested', 'declined', 'match_hold', 'approved'] as const) {
      assert.equal(from(id, 'identity_resubmission_requested'), 'move_not_allowed', id);
    }
    // Declined: not twice in a row, not after approval or a name decision.
    for (const id of ['required', 'in_review', 'resubmission_requested'] as const) assert.equal(from(id, 'identity_declined'), null);
    for (const id of ['declined', 'match_hold', 'match_rejected', 'approved'] as const)
      assert.equal(from(id, 'identity_declined'), 'move_not_allowed', id);
    // Match hold, then one decision.
    for (const id of ['required', 'in_review', 'resubmission_requested', 'declined'] as const)
      assert.equal(from(id, 'identity_match_hold'), null);
    for (const id of ['match_hold', 'match_rejected', 'approved'] as const)
      assert.equal(from(id, 'identity_match_hold'), 'move_not_allowed', id);
    for (const trigger of ['identity_match_approved', 'identity_match_rejected'] as const) {
      assert.equal(from('match_hold', trigger), null);
      for (const id of ['required', 'in_review', 'declined', 'match_rejected', 'approved'] as const)
        assert.equal(from(id, trigger), 'move_not_allowed', `${trigger} from ${id}`);
    }
    // A signer who needs no identity has no identity moves at all.
    for (const trigger of [
      'identity_verified',
      'identity_in_review',
      'identity_declined',
      'identity_match_hold',
      'identity_match_approved',
    ] as const) {
      assert.equal(from('not_required', trigger), 'move_not_allowed', trigger);
    }
  });

  test('progress moves from the wrong signer state are refused', () => {
    assert.equal(signerRefusal(open(), signer('viewed'), [], 'view'), 'move_not_allowed');
    assert.equal(signerRefusal(open(), signer('otp_verified'), [], 'otp_verified'), 'move_not_allowed');
    assert.equal(signerRefusal(open(), signer('pending'), [], 'decline'), 'move_not_allowed');
    assert.equal(signerRefusal(open(), signer('sent'), [], 'invite'), 'move_not_allowed');
  });

  test('afterSignature: completed only when every signer has signed', () => {
    assert.equal(afterSignature([signer('signed', 1)]), 'all_signed');
    assert.equal(afterSignature([signer('signed', 1), signer('signed', 2)]), 'all_signed');
    assert.equal(afterSignature([signer('signed', 1), signer('sent', 2)]), 'signer_signed');
    assert.equal(afterSignature([signer('signed', 1), signer('pending', 2), signer('signed', 3)]), 'signer_signed');
  });

  test('nextInOrder: the first unsigned signer by order, only while still pending', () => {
    type Row = { name: string; v: SignerView };
    const rows = (...views: SignerView[]): Row[] => views.map((v, i) => ({ name: `s${v.order}-${i}`, v }));
    const next = (list: Row[]) => nextInOrder(list, (r) => r.v)?.v.order ?? null;
    assert.equal(next(rows(signer('signed', 1), signer('pending', 2), signer('pending', 3))), 2);
    assert.equal(next(rows(signer('pending', 3), signer('signed', 1), signer('pending', 2))), 2, 'by order, not by position in the array');
    assert.equal(next(rows(signer('signed', 1), signer('signed', 2), signer('pending', 3))), 3);
    assert.equal(next(rows(signer('signed', 1), signer('sent', 2))), null, 'already invited');
    assert.equal(next(rows(signer('signed', 1), signer('signed', 2))), null, 'nobody left');
    assert.equal(next(rows(signer('signed', 1), signer('declined', 2), signer('pending', 3))), null, 'a decline stops the order');
  });
});
