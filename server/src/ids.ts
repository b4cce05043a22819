import { randomBytes } from 'node:crypto';
import { ID_PREFIX, type IdKind } from '@tawqi/shared';
import type { Clock } from './clock.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * The big-endian number in `bytes`, as `length` base-62 digits (most significant first): long
 * division by 62 over 32-bit limbs, one digit per pass (remainder × 2^32 + limb < 62 × 2^32 < 2^53,
 * so plain numbers are exact). The same digits as BigInt arithmetic, at a fifth of the cost.
 */
function base62(bytes: Buffer, length: number): string {
  const limbs: number[] = [];
  const head = bytes.length % 4;
  if (head > 0) {
    let v = 0;
    for (let k = 0; k < head; k++) v = v * 256 + bytes[k]!;
    limbs.push(v);
  }
  for (let k = head; k < bytes.length; k += 4) limbs.push(bytes.readUInt32BE(k));
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

let lastMs = -1;
let lastRandom = 0n;
const RANDOM_MAX = (1n << 96n) - 1n;

/**
 * Time-ordered id: 48 bits of milliseconds then 96 random bits, base62, fixed width (24 chars),
 * so ids sort by creation and B-tree inserts stay local (fewer WAL pages per commit). Within one
 * millisecond the random part counts up from the previous id (as ULID does), so ids made by this
 * process are strictly increasing and lists ordered by id are ordered by creation.
 */
export function newId(kind: IdKind, clock: Clock): string {
  let ms = Math.floor(clock.nowMs());
  let random: bigint;
  if (ms <= lastMs && lastRandom < RANDOM_MAX) {
    ms = lastMs;
    random = lastRandom + 1n;
  } else {
    random = BigInt('0x' + randomBytes(12).toString('hex')) >> 1n; // headroom for counting up
  }
  lastMs = ms;
  lastRandom = random;
  const buf = Buffer.alloc(18);
  buf.writeUIntBE(ms, 0, 6);
  buf.write(random.toString(16).padStart(24, '0'), 6, 'hex');
  return ID_PREFIX[kind] + base62(buf, 24);
}

/** A fully random secret of `bytes` bytes, hex encoded. */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** A fully random secret, base62 encoded (URL-safe), with at least `bits` bits of entropy. */
export function randomToken(bits = 192): string {
  const bytes = Math.ceil(bits / 8);
  return base62(randomBytes(bytes), Math.ceil(bits / Math.log2(62)));
}
