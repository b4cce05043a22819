import { createPrivateKey, createPublicKey, generateKeyPairSync, sign as nodeSign, webcrypto, type KeyObject } from 'node:crypto';
import { OID_ECDSA_SHA256, OID_SHA256_RSA } from '@tawqi/shared/cms';

/**
 * Keys of the built-in PKI: ECDSA P-256 for the CA, seal, TSA and OCSP responder (fast — about
 * 12,000 signatures/s — small, and read by openssl, poppler/NSS and Adobe), Ed25519 for the evidence
 * record. Private keys are handled as PKCS#8 (DER across the storage port, PEM in files).
 */

export type SignatureHash = 'SHA-256';

export interface SignatureAlgorithm {
  /** The AlgorithmIdentifier OID to put next to a signature made by `signWithKey`. */
  oid: string;
  name: 'ecdsa-with-SHA256' | 'sha256WithRSAEncryption';
  /** RSA AlgorithmIdentifiers carry NULL parameters; ECDSA ones carry none (RFC 5758). */
  nullParams: boolean;
}

export function newEcKey(): KeyObject {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
}

export function newEd25519Key(): KeyObject {
  return generateKeyPairSync('ed25519').privateKey;
}

export function privateKeyPem(key: KeyObject): string {
  return key.export({ format: 'pem', type: 'pkcs8' }).toString();
}

export function publicKeyPem(key: KeyObject): string {
  return createPublicKey(key).export({ format: 'pem', type: 'spki' }).toString();
}

/** SubjectPublicKeyInfo DER of a (private or public) key. */
export function spkiDer(key: KeyObject): Uint8Array {
  return new Uint8Array(createPublicKey(key).export({ format: 'der', type: 'spki' }));
}

export function loadPrivateKeyPem(pem: string): KeyObject {
  return createPrivateKey({ key: pem, format: 'pem' });
}

export function pkcs8Der(key: KeyObject): Uint8Array {
  return new Uint8Array(key.export({ format: 'der', type: 'pkcs8' }));
}

export function loadPrivateKeyDer(pkcs8: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' });
}

/** The signature algorithm `signWithKey` uses for this key; throws for key types the seal cannot use. */
export function signatureAlgorithmFor(key: KeyObject): SignatureAlgorithm {
  if (key.asymmetricKeyType === 'ec') return { oid: OID_ECDSA_SHA256, name: 'ecdsa-with-SHA256', nullParams: false };
  if (key.asymmetricKeyType === 'rsa') return { oid: OID_SHA256_RSA, name: 'sha256WithRSAEncryption', nullParams: true };
  throw new Error(`unsupported key type for signing certificates and CMS: ${key.asymmetricKeyType ?? 'unknown'}`);
}

/**
 * Sign `data` (hashing it with SHA-256): ECDSA keys give a DER-encoded ECDSA-Sig-Value (what X.509,
 * CMS and OCSP carry), RSA keys an RSASSA-PKCS1-v1_5 signature.
 */
export function signWithKey(key: KeyObject, data: Uint8Array, hash: SignatureHash = 'SHA-256'): Uint8Array {
  if (hash !== 'SHA-256') throw new Error(`unsupported hash ${String(hash)}`);
  signatureAlgorithmFor(key);
  return new Uint8Array(nodeSign('sha256', data, { key, dsaEncoding: 'der' }));
}

/** The same key as a WebCrypto CryptoKey, for @peculiar/x509's certificate and CRL generators. */
export async function toCryptoKey(key: KeyObject): Promise<webcrypto.CryptoKey> {
  if (key.asymmetricKeyType !== 'ec') throw new Error('the built-in CA key must be ECDSA P-256');
  const der = key.export({ format: 'der', type: 'pkcs8' });
  return webcrypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
}

/** True when the certificate's SubjectPublicKeyInfo is this private key's public half. */
export function keyMatchesSpki(key: KeyObject, spki: Uint8Array): boolean {
  const normalised = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' }).export({ format: 'der', type: 'spki' });
  return Buffer.from(spkiDer(key)).equals(normalised);
}
