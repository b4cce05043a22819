/**
 * The token panel's states and transitions (signing-page/src/views/tokenMachine.ts), as the pure
 * function they are: which screen each event leads to, what the note says, and which events leave
 * the screen as it is (the panel renders only on a new phase).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CertificateInfo, TokenInfo } from '@tawqi/shared';
import {
  initialState,
  listsOnTokenChange,
  stateName,
  transition,
  type TokenEvent,
  type TokenState,
} from '../../signing-page/src/views/tokenMachine.js';

function token(locked = false): TokenInfo {
  return { label: 'Token', model: 'SoftHSM', pin: { locked, final_try: false } } as unknown as TokenInfo;
}

function cert(sha: string, locked = false): CertificateInfo {
  return { cert_sha256: sha.padEnd(64, '0'), name: sha, token: token(locked) } as unknown as CertificateInfo;
}

const A = cert('a');
const B = cert('b');
const LOCKED = cert('c', true);

const run = (events: TokenEvent[], from: TokenState = initialState): TokenState => events.reduce(transition, from);
const listed = (certificates: CertificateInfo[], tokens = [token()], refused: Record<string, string> | null = {}): TokenEvent => ({
  type: 'listed',
  tokens,
  certificates,
  refused,
});
const choosing = run([{ type: 'connect' }, listed([A, B])]);

describe('token panel state machine', () => {
  test('connecting, then the list: choose with the first usable certificate', () => {
    const s = run([{ type: 'connect' }]);
    assert.equal(stateName(s.phase), 'connecting');
    assert.notEqual(s.phase, initialState.phase, 'connecting again is a new screen');
    assert.equal(stateName(choosing.phase), 'choose');
    assert.equal(choosing.selected, A.cert_sha256);
    assert.equal(run([listed([LOCKED, B])]).selected, B.cert_sha256);
  });

  test('certificates the server refuses: never pre-selected, listed with the reason; none selected when all are refused or unchecked', () => {
    const aRefused = { [A.cert_sha256]: 'expired' };
    const one = run([listed([A, B], [token()], aRefused)]);
    assert.deepEqual(one.phase, { k: 'choose' });
    assert.equal(one.selected, B.cert_sha256, 'the acceptable one, though listed second');
    assert.deepEqual(one.refused, aRefused);
    const all = run([listed([A, B], [token()], { ...aRefused, [B.cert_sha256]: 'untrusted' })]);
    assert.deepEqual(all.phase, { k: 'choose' }, 'still listed, to show why');
    assert.equal(all.selected, null);
    const chosen = transition(choosing, { type: 'select', certificate: A.cert_sha256 });
    assert.equal(
      transition(chosen, listed([A, B], [token()], aRefused)).selected,
      B.cert_sha256,
      'a choice the server now refuses is dropped',
    );
    const unchecked = run([listed([A, B], [token()], null)]);
    assert.equal(unchecked.selected, null, 'the check could not be made: nothing pre-selected');
    assert.deepEqual(unchecked.refused, {});
  });

  test('no token, no usable certificate, PIN locked', () => {
    assert.deepEqual(run([listed([], [])]).phase, { k: 'no_token' });
    assert.deepEqual(run([listed([])]).phase, { k: 'no_certificate', pinLocked: false });
    assert.deepEqual(run([listed([], [token(true)])]).phase, { k: 'no_certificate', pinLocked: true });
    assert.deepEqual(run([listed([LOCKED])]).phase, { k: 'no_certificate', pinLocked: true });
  });

  test('agent failures: the reason screen', () => {
    assert.equal(stateName(run([{ type: 'agent_failed', code: 'origin_not_trusted' }]).phase), 'not_trusted');
    assert.equal(stateName(run([{ type: 'agent_failed', code: 'unsupported_version' }]).phase), 'outdated');
    assert.equal(stateName(run([{ type: 'agent_failed', code: 'unavailable' }]).phase), 'unavailable');
    assert.equal(stateName(run([{ type: 'agent_closed' }], choosing).phase), 'unavailable');
  });

  test('a lost agent during a signature leaves the working screen to the signature’s failure', () => {
    const working = run([{ type: 'sign_started' }, { type: 'prepared' }], choosing);
    assert.equal(transition(working, { type: 'agent_closed' }), working);
    assert.equal(stateName(run([{ type: 'sign_failed', code: 'disconnected', finalTry: false }], working).phase), 'unavailable');
    assert.equal(stateName(run([{ type: 'sign_failed', code: 'origin_not_trusted', finalTry: false }], working).phase), 'not_trusted');
  });

  test('a choice and the start of a signature keep the screen', () => {
    const chosen = transition(choosing, { type: 'select', certificate: B.cert_sha256 });
    assert.equal(chosen.phase, choosing.phase);
    assert.equal(chosen.selected, B.cert_sha256);
    const refused = transition(chosen, { type: 'server_refused', code: 'certificate_invalid', message: 'expired' });
    const started = transition(refused, { type: 'sign_started' });
    assert.equal(started.phase, refused.phase);
    assert.equal(started.note, null);
    assert.equal(transition(chosen, listed([A, B])).selected, B.cert_sha256, 'the choice survives a new list');
  });

  test('the signature’s steps: preparing, the agent’s statuses, completing, done', () => {
    const names: string[] = [];
    let s = choosing;
    for (const e of [
      { type: 'sign_started' },
      { type: 'prepared' },
      { type: 'agent_status', status: 'awaiting_consent' },
      { type: 'agent_status', status: 'awaiting_pin' },
      { type: 'agent_status', status: 'signing' },
      { type: 'agent_status', status: 'completing' },
      { type: 'completed' },
    ] as TokenEvent[]) {
      s = transition(s, e);
      names.push(stateName(s.phase));
    }
    assert.deepEqual(names, [
      'choose',
      'working-preparing',
      'working-awaiting_consent',
      'working-awaiting_pin',
      'working-signing',
      'working-completing',
      'done',
    ]);
  });

  test('a server refusal: back to the list with its note', () => {
    const s = run([{ type: 'sign_started' }, { type: 'server_refused', code: 'ticket_invalid', message: null }], choosing);
    assert.equal(stateName(s.phase), 'choose');
    assert.notEqual(s.phase, choosing.phase);
    assert.deepEqual(s.note, { from: 'server', tone: 'warn', code: 'ticket_invalid', message: null });
    assert.equal(stateName(transition(run([{ type: 'prepared' }], choosing), { type: 'complete_failed' }).phase), 'choose');
  });

  test('a failed signature: a note, then the list (or listing again first)', () => {
    const working = run([{ type: 'prepared' }, { type: 'agent_status', status: 'awaiting_pin' }], choosing);
    const wrongPin = transition(working, { type: 'sign_failed', code: 'pin_incorrect', finalTry: true });
    assert.equal(stateName(wrongPin.phase), 'choose');
    assert.deepEqual(wrongPin.note, { from: 'agent', tone: 'warn', code: 'pin_incorrect', finalTry: true });
    assert.equal(transition(working, { type: 'sign_failed', code: 'user_canceled', finalTry: false }).note?.tone, 'info');
    const removed = transition(working, { type: 'sign_failed', code: 'no_token', finalTry: false });
    assert.equal(removed.phase, working.phase, 'listing again decides the screen');
    const relisted = transition(removed, listed([], []));
    assert.equal(stateName(relisted.phase), 'no_token');
    assert.equal(relisted.note?.code, 'no_token', 'the note shows with the new screen');
    assert.equal(transition(relisted, { type: 'connect' }).note, null, 'retry clears it');
  });

  test('token changes list again only on the list screens', () => {
    assert.equal(listsOnTokenChange(choosing), true);
    assert.equal(listsOnTokenChange(run([listed([], [])])), true);
    assert.equal(listsOnTokenChange(run([listed([])])), true);
    assert.equal(listsOnTokenChange(initialState), false);
    assert.equal(listsOnTokenChange(run([{ type: 'prepared' }], choosing)), false);
    assert.equal(listsOnTokenChange(run([{ type: 'agent_failed', code: 'x' }])), false);
  });
});
