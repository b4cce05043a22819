/**
 * Choosing the signature mechanism for a key and building the DigestInfo for CKM_RSA_PKCS. Pure
 * functions. (PKCS#11's raw ECDSA r‖s becomes DER with ecdsaRawToDer of @tawqi/shared/cms.)
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
