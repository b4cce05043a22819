/**
 * Console passwords: scrypt (node:crypto; DESIGN §2), in a self-describing string
 *
 *   scrypt$<log2 N>$<r>$<p>$<salt, base64url>$<hash, base64url>
 *
 * so a later, costlier setting applies to new hashes while older ones still verify (and are
 * rehashed at the next sign-in, `needsRehash`). r = 8, p = 2 and N = 2^16 by default: OWASP's
 * scrypt alternative of the same strength as N = 2^17, p = 1 at half the memory (64 MiB per hash).
 * Measured on this 2-core machine: README ("The console"). scrypt runs on libuv's thread pool, so
 * the event loop keeps serving while a sign-in hashes.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

export const SCRYPT_R = 8;
export const SCRYPT_P = 2;
const SALT_BYTES = 16;
const HASH_BYTES = 32;

export interface ScryptCost {
  logN: number;
}

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, HASH_BYTES, { N, r, p, maxmem: 128 * N * r + 16 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string, cost: ScryptCost): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, cost.logN, SCRYPT_R, SCRYPT_P);
  return ['scrypt', cost.logN, SCRYPT_R, SCRYPT_P, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

const FORMAT = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([\w-]+)\$([\w-]+)$/;

/** Whether `password` matches `stored`; a malformed stored value matches nothing. Compared in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = FORMAT.exec(stored);
  if (!m) return false;
  const [logN, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (logN < 10 || logN > 22 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const expected = Buffer.from(m[5]!, 'base64url');
  const actual = await derive(password, Buffer.from(m[4]!, 'base64url'), logN, r, p);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

export function needsRehash(stored: string, cost: ScryptCost): boolean {
  const m = FORMAT.exec(stored);
  return !m || Number(m[1]) < cost.logN || Number(m[2]) !== SCRYPT_R || Number(m[3]) !== SCRYPT_P;
}

/**
 * A hash of no one's password, made once per cost: an unknown email, a user without a password or a
 * disabled one is checked against it, so every failed sign-in costs the same time and the answer's
 * delay does not tell which emails have an account.
 */
const decoys = new Map<number, Promise<string>>();
export function decoyHash(cost: ScryptCost): Promise<string> {
  let d = decoys.get(cost.logN);
  if (!d) decoys.set(cost.logN, (d = hashPassword(randomBytes(16).toString('hex'), cost)));
  return d;
}

/** The password rule: 10 to 200 characters (NIST SP 800-63B: length over composition rules). */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;
export function passwordProblem(password: string): { en: string; ar: string } | null {
  const n = [...password].length;
  if (n < PASSWORD_MIN) return { en: `Use at least ${PASSWORD_MIN} characters.`, ar: `استخدم ${PASSWORD_MIN} أحرف على الأقل.` };
  if (n > PASSWORD_MAX) return { en: `Use at most ${PASSWORD_MAX} characters.`, ar: `استخدم ${PASSWORD_MAX} حرفًا على الأكثر.` };
  return null;
}
