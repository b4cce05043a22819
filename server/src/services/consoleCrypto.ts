/**
 * The console's secrets at rest and on the wire, all from the console key (ServerSecrets.consoleKey:
 * DATA_DIR/secrets.json on SQLite, server_keys sealed with TAWQI_MASTER_KEY on PostgreSQL). One key
 * is derived per use with HKDF, so a CSRF token says nothing about the TOTP key and vice versa.
 *
 * - Session and emailed tokens: fully random, stored as their SHA-256 (a leaked table opens nothing).
 * - CSRF tokens: HMAC of the session id, so they need no storage and die with the session.
 * - TOTP secrets: AES-256-GCM, the user id as additional data (a secret copied to another user's
 *   row does not open). Layout: 0x01 | nonce (12) | ciphertext | tag (16).
 * - Recovery codes: a keyed HMAC of the normalised code. Each code carries 60 random bits, so no
 *   slow hash is needed against guessing from a leaked table without the key, and the lookup is
 *   one indexed row instead of trying a salted hash per code.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { base62, randomToken } from '../ids.js';

const derive = (consoleKey: Buffer, info: string): Buffer => Buffer.from(hkdfSync('sha256', consoleKey, Buffer.alloc(0), info, 32));

const VERSION = 0x01;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** A new session or emailed-link token (256 bits) and the id stored for it. */
export function newSecretToken(): { token: string; id: string } {
  const token = randomToken(256);
  return { token, id: sha256Hex(token) };
}

/** Equal strings, compared in constant time (lengths are not secret). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

export function csrfTokenFor(consoleKey: Buffer, sessionId: string): string {
  return createHmac('sha256', derive(consoleKey, 'tawqi console: csrf v1')).update(sessionId).digest('base64url');
}

export function sealTotpSecret(consoleKey: Buffer, userId: string, secret: Uint8Array): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', derive(consoleKey, 'tawqi console: totp v1'), nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(userId, 'utf8'));
  const body = Buffer.concat([cipher.update(secret), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), nonce, body, cipher.getAuthTag()]);
}

/** The TOTP secret sealed for `userId`; throws when the value is damaged, another user's or another key's. */
export function openTotpSecret(consoleKey: Buffer, userId: string, sealed: Uint8Array): Buffer {
  const box = Buffer.from(sealed);
  if (box.length < 1 + NONCE_BYTES + TAG_BYTES || box[0] !== VERSION) throw new Error('console: unknown TOTP secret format');
  const decipher = createDecipheriv('aes-256-gcm', derive(consoleKey, 'tawqi console: totp v1'), box.subarray(1, 1 + NONCE_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(Buffer.from(userId, 'utf8'));
  decipher.setAuthTag(box.subarray(box.length - TAG_BYTES));
  return Buffer.concat([decipher.update(box.subarray(1 + NONCE_BYTES, box.length - TAG_BYTES)), decipher.final()]);
}

/** A recovery code as shown once: 12 base-62 characters (~71 bits) in groups of four, e.g. `a1B2-c3D4-e5F6`. */
export function newRecoveryCode(): string {
  return base62(randomBytes(10), 12).replace(/(.{4})(?=.)/g, '$1-');
}

/** What a user types is compared without dashes or spaces (case matters: the code is base 62). */
export function recoveryCodeHash(consoleKey: Buffer, code: string): string {
  return createHmac('sha256', derive(consoleKey, 'tawqi console: recovery codes v1')).update(code.replace(/[\s-]/g, '')).digest('hex');
}
