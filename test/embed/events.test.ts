/**
 * @tawqi/embed's reading of frame messages (sdk/embed/src/events.ts): only the four known messages,
 * well formed, become events, and an event carries the known fields alone. Which window and origin
 * a message may come from is tested in Chromium (test/e2e/embed.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventOf } from '../../sdk/embed/src/events.js';

const ids = { signature_request: 'sr_123', signer: 'sgr_456' };

describe('@tawqi/embed: frame messages to events', () => {
  test('the four messages of the signing page', () => {
    assert.deepEqual(eventOf({ type: 'svc:viewed', ...ids }), { type: 'viewed', ...ids });
    assert.deepEqual(eventOf({ type: 'svc:signed', ...ids }), { type: 'signed', ...ids });
    assert.deepEqual(eventOf({ type: 'svc:declined', ...ids, reason: 'Wrong amount' }), {
      type: 'declined',
      ...ids,
      reason: 'Wrong amount',
    });
    assert.deepEqual(eventOf({ type: 'svc:declined', ...ids, reason: null }), { type: 'declined', ...ids, reason: null });
    assert.deepEqual(eventOf({ type: 'svc:declined', ...ids }), { type: 'declined', ...ids, reason: null });
    assert.deepEqual(eventOf({ type: 'svc:resize', height: 812.4 }), { type: 'resize', height: 813 });
  });

  test('only the known fields are passed on', () => {
    assert.deepEqual(eventOf({ type: 'svc:signed', ...ids, html: '<img onerror=x>', __proto__: { polluted: true } }), {
      type: 'signed',
      ...ids,
    });
    assert.deepEqual(eventOf({ type: 'svc:resize', height: 10, signer: 'sgr_1' }), { type: 'resize', height: 10 });
  });

  test('anything else is not an event', () => {
    const refused: unknown[] = [
      null,
      undefined,
      'svc:signed',
      42,
      [],
      {},
      { type: 'signed', ...ids },
      { type: 'svc:completed', ...ids },
      { type: 'svc:signed' },
      { type: 'svc:signed', signature_request: 'sr_1' },
      { type: 'svc:signed', signature_request: 1, signer: 'sgr_1' },
      { type: 'svc:signed', signature_request: '', signer: 'sgr_1' },
      { type: 'svc:signed', signature_request: 'x'.repeat(2001), signer: 'sgr_1' },
      { type: 'svc:declined', ...ids, reason: 7 },
      { type: 'svc:resize' },
      { type: 'svc:resize', height: '800' },
      { type: 'svc:resize', height: -1 },
      { type: 'svc:resize', height: Number.NaN },
      { type: 'svc:resize', height: Number.POSITIVE_INFINITY },
      { type: 'svc:resize', height: 100_001 },
    ];
    for (const data of refused) assert.equal(eventOf(data), null, JSON.stringify(data));
  });

  test('a long reason is cut to 2000 characters', () => {
    const e = eventOf({ type: 'svc:declined', ...ids, reason: 'x'.repeat(5000) });
    assert.equal(e?.type === 'declined' && e.reason?.length, 2000);
  });
});
