import { randomBytes, randomFillSync } from 'node:crypto';
import { ID_PREFIX, type IdKind } from '@tawqi/shared';
import type { Clock } from './clock.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A big-endian number given as limbs (the first below 2^32, the others 32 bits each), as `length`
 * base-62 digits (most significant first): long division by 62, one digit per pass (remainder ×
 * 2^32 + limb < 62 × 2^32 < 2^53, so plain numbers are exact). The limbs are consumed.
 */
function base62Limbs(limbs: number[], length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    let rem = 0;
    for (let j = 0; j < limbs.length; j++) {
      const acc = rem * 4294967296 + limbs[j]!;
      const q = Math.floor(acc / 62);
      limbs[j] = q;
      rem = acc - q * 62;
    }
    out = BASE62[rem] + out;
  }
  return out;
}

/** The big-endian number in `bytes`, as `length` base-62 digits (the same digits as BigInt arithmetic, at a fifth of the cost). */
export function base62(bytes: Uint8Array, length: number): string {
  const limbs: number[] = [];
  const head = bytes.length % 4;
  if (head > 0) {
    let v = 0;
    for (let k = 0; k < head; k++) v = v * 256 + bytes[k]!;
    limbs.push(v);
  }
  for (let k = head; k < bytes.length; k += 4)
    limbs.push(((bytes[k]! << 24) | (bytes[k + 1]! << 16) | (bytes[k + 2]! << 8) | bytes[k + 3]!) >>> 0);
  return base62Limbs(limbs, length);
}

/**
 * Add one to a 96-bit number held as three 32-bit limbs (most significant first), with carry. A
 * Uint32Array element wraps to 0 on overflow (read back: the value of `++r[i]` is not wrapped).
 */
export function increment96(r: Uint32Array): void {
  r[2] = r[2]! + 1;
  if (r[2] !== 0) return;
  r[1] = r[1]! + 1;
  if (r[1] === 0) r[0] = r[0]! + 1;
}

let lastMs = -1;
/** The random part of the last id: 96 bits as three 32-bit limbs, most significant first. */
const lastRandom = new Uint32Array(3);

/**
 * Time-ordered id: 48 bits of milliseconds then 96 random bits, base62, fixed width (24 chars),
 * so ids sort by creation and B-tree inserts stay local (fewer WAL pages per commit). Within one
 * millisecond the random part counts up from the previous id (as ULID does), so ids made by this
 * process are strictly increasing and lists ordered by id are ordered by creation. A fresh random
 * part has its top bit cleared: headroom for counting up. (Plain 32-bit limbs, no BigInt: ids are
 * made about ten times per create.)
 */
export function newId(kind: IdKind, clock: Clock): string {
  let ms = Math.floor(clock.nowMs());
  const r = lastRandom;
  if (ms <= lastMs && !(r[0] === 0xffffffff && r[1] === 0xffffffff && r[2] === 0xffffffff)) {
    ms = lastMs;
    increment96(r);
  } else {
    randomFillSync(r);
    r[0]! >>>= 1;
  }
  lastMs = ms;
  return ID_PREFIX[kind] + base62Limbs([Math.floor(ms / 4294967296), ms >>> 0, r[0]!, r[1]!, r[2]!], 24);
}

/** A fully random secret of `bytes` bytes, hex encoded. */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/**
 * Random bytes taken from a pool the CSPRNG fills 4 KiB at a time, each byte handed out once (as
 * Node's randomUUID does): a call of randomBytes costs about 3.7 µs whatever its size, and every
 * request draws one for its id. The view is valid until the next call; callers read it at once.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function pooledRandom(bytes: number): Uint8Array {
  if (bytes > POOL_BYTES) return randomBytes(bytes);
  if (poolOffset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const view = pool.subarray(poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return view;
}

/** A fully random secret, base62 encoded (URL-safe), with at least `bits` bits of entropy. */
export function randomToken(bits = 192): string {
  const bytes = Math.ceil(bits / 8);
  return base62(pooledRandom(bytes), Math.ceil(bits / Math.log2(62)));
}
