/**
 * Ids: prefix + 24 base-62 digits of 48 bits of milliseconds and 96 random bits; strictly
 * increasing within a process (counting up inside one millisecond, carries included).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { ManualClock } from '../../server/src/clock.js';
import { base62, increment96, newId, randomToken } from '../../server/src/ids.js';

const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The reference: BigInt arithmetic. */
function base62BigInt(bytes: Uint8Array, length: number): string {
  let n = BigInt('0x' + (Buffer.from(bytes).toString('hex') || '0'));
  let out = '';
  for (let i = 0; i < length; i++) {
    out = DIGITS[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

/** The number an id's 24 digits stand for. */
function value(id: string): bigint {
  return [...id.slice(id.indexOf('_') + 1)].reduce((n, c) => n * 62n + BigInt(DIGITS.indexOf(c)), 0n);
}

describe('ids', () => {
  test('base62 gives the same digits as BigInt arithmetic', () => {
    for (const size of [1, 2, 3, 4, 5, 12, 16, 18, 24]) {
      for (let i = 0; i < 200; i++) {
        const bytes = randomBytes(size);
        const length = Math.ceil((size * 8) / Math.log2(62));
        assert.equal(base62(bytes, length), base62BigInt(bytes, length), bytes.toString('hex'));
      }
    }
    assert.equal(base62(Buffer.alloc(18, 0xff), 24), base62BigInt(Buffer.alloc(18, 0xff), 24));
  });

  test('counting up carries across the 32-bit limbs', () => {
    const r = new Uint32Array([5, 0xffffffff, 0xffffffff]);
    increment96(r);
    assert.deepEqual([...r], [6, 0, 0]);
    increment96(r);
    assert.deepEqual([...r], [6, 0, 1]);
    const mid = new Uint32Array([0, 7, 0xffffffff]);
    increment96(mid);
    assert.deepEqual([...mid], [0, 8, 0]);
  });

  test('an id is its prefix and 24 digits: the millisecond in the top 48 bits, then 96 bits that count up within it', () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    const ids = Array.from({ length: 2000 }, () => newId('signatureRequest', clock));
    for (const id of ids) assert.match(id, /^sr_[0-9A-Za-z]{24}$/);
    const values = ids.map(value);
    for (let i = 1; i < values.length; i++)
      assert.equal(values[i]! - values[i - 1]!, 1n, 'within one millisecond each id is the previous one plus one');
    assert.equal(values[0]! >> 96n, BigInt(clock.nowMs()), 'the millisecond');
    assert.equal((values[0]! >> 95n) & 1n, 0n, 'a fresh random part starts with headroom (top bit clear)');

    clock.advanceSeconds(1);
    const later = value(newId('signer', clock));
    assert.equal(later >> 96n, BigInt(clock.nowMs()), 'a new millisecond: a new random part');
    assert.ok(later > values.at(-1)!);
    // A clock that goes back keeps the ids increasing (the last millisecond is kept).
    const back = new ManualClock(Date.UTC(2026, 10, 22, 11, 0, 0));
    assert.ok(value(newId('event', back)) > later);
  });

  test('random tokens from the pool: the right length, all distinct across many refills, every digit used', () => {
    // 20,000 tokens of 12 bytes take about 60 refills of the 4 KiB pool, and a token of 300 bytes skips it.
    const tokens = Array.from({ length: 20_000 }, () => randomToken(96));
    for (const t of tokens) assert.match(t, /^[0-9A-Za-z]{17}$/);
    assert.equal(new Set(tokens).size, tokens.length, 'no byte of the pool is handed out twice');
    assert.equal(new Set(tokens.join('')).size, 62, 'the digits spread over the whole alphabet');
    assert.match(randomToken(2400), /^[0-9A-Za-z]{404}$/);
    assert.notEqual(randomToken(2400), randomToken(2400));
  });
});
