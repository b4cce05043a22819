/**
 * Choosing the signature mechanism for a key, building the DigestInfo for CKM_RSA_PKCS, and turning
 * PKCS#11's raw ECDSA r‖s into the DER ECDSA-Sig-Value that CMS carries. Pure functions.
 */
import { CKM_ECDSA, CKM_ECDSA_SHA256, CKM_RSA_PKCS, CKM_SHA256_RSA_PKCS } from './constants.js';

export type KeyType = 'rsa' | 'ec';

/** What the token is given: the message itself, its SHA-256, or a DigestInfo around the SHA-256. */
export type MechanismInput = 'message' | 'digest' | 'digest-info';

export interface MechanismChoice {
  mechanism: number;
  name: 'CKM_SHA256_RSA_PKCS' | 'CKM_RSA_PKCS' | 'CKM_ECDSA' | 'CKM_ECDSA_SHA256';
  input: MechanismInput;
}

const PREFERENCES: Record<KeyType, MechanismChoice[]> = {
  rsa: [
    { mechanism: CKM_SHA256_RSA_PKCS, name: 'CKM_SHA256_RSA_PKCS', input: 'message' },
    { mechanism: CKM_RSA_PKCS, name: 'CKM_RSA_PKCS', input: 'digest-info' },
  ],
  ec: [
    { mechanism: CKM_ECDSA, name: 'CKM_ECDSA', input: 'digest' },
    { mechanism: CKM_ECDSA_SHA256, name: 'CKM_ECDSA_SHA256', input: 'message' },
  ],
};

/**
 * The first mechanism of our preference the token offers. `available` null means the token would not
 * list its mechanisms: then the plain ones (CKM_RSA_PKCS, CKM_ECDSA) are tried, which every token has.
 */
export function chooseMechanism(keyType: KeyType, available: readonly number[] | null): MechanismChoice | null {
  const prefs = PREFERENCES[keyType];
  if (available === null) {
    const plain = keyType === 'rsa' ? CKM_RSA_PKCS : CKM_ECDSA;
    return prefs.find((p) => p.mechanism === plain) ?? null;
  }
  return prefs.find((p) => available.includes(p.mechanism)) ?? null;
}

/** DigestInfo ::= SEQUENCE { AlgorithmIdentifier sha256 NULL, OCTET STRING digest } — DER prefix (RFC 8017 §9.2). */
const SHA256_DIGEST_INFO_PREFIX = Uint8Array.from([
  0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20,
]);

export function sha256DigestInfo(digest: Uint8Array): Uint8Array {
  if (digest.byteLength !== 32) throw new Error('a SHA-256 digest is 32 bytes');
  const out = new Uint8Array(SHA256_DIGEST_INFO_PREFIX.byteLength + 32);
  out.set(SHA256_DIGEST_INFO_PREFIX, 0);
  out.set(digest, SHA256_DIGEST_INFO_PREFIX.byteLength);
  return out;
}

function derLength(length: number): number[] {
  if (length < 0x80) return [length];
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return [0x80 | bytes.length, ...bytes];
}

/** A DER INTEGER holding the unsigned big-endian `value`: leading zeros dropped, one 0x00 added when the high bit is set. */
function derUnsignedInteger(value: Uint8Array): number[] {
  let start = 0;
  while (start < value.byteLength - 1 && value[start] === 0) start++;
  const body = Array.from(value.subarray(start));
  if (body.length === 0) body.push(0);
  if ((body[0] ?? 0) & 0x80) body.unshift(0);
  return [0x02, ...derLength(body.length), ...body];
}

/** ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } from PKCS#11's r‖s (equal halves). */
export function ecdsaRawToDer(raw: Uint8Array): Uint8Array {
  if (raw.byteLength === 0 || raw.byteLength % 2 !== 0) throw new Error('raw ECDSA signature must be r‖s of equal length');
  const half = raw.byteLength / 2;
  const r = derUnsignedInteger(raw.subarray(0, half));
  const s = derUnsignedInteger(raw.subarray(half));
  return Uint8Array.from([0x30, ...derLength(r.length + s.length), ...r, ...s]);
}
