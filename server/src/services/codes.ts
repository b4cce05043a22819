import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Low-entropy secrets typed by people (access codes, one-time codes) are stored with scrypt and a
 * per-value salt, and compared in constant time.
 */
const N = 16384;

/**
 * Hash a code with scrypt on libuv's thread pool: scrypt takes ~25 ms of CPU, which on the event
 * loop (or inside a group commit) would stall every other request for as long.
 */
export function hashCodeAsync(code: string): Promise<string> {
  const salt = randomBytes(16);
  return new Promise((resolve, reject) =>
    scrypt(code, salt, 32, { N, r: 8, p: 1 }, (err, hash) => (err ? reject(err) : resolve(encode(salt, hash)))),
  );
}

function encode(salt: Buffer, hash: Buffer): string {
  return `scrypt$${N}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Check a code against its stored hash, with scrypt on libuv's thread pool (~25 ms: not on the event loop), in constant time. */
export async function verifyCodeAsync(code: string, stored: string): Promise<boolean> {
  const [scheme, n, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await new Promise<Buffer>((resolve, reject) =>
    scrypt(code, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: 8, p: 1 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
  return timingSafeEqual(actual, expected);
}
