import { createPublicKey, sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { sha256Hex, toPem } from './encoding.js';
import { signatureAlgorithmFor, signWithKey, spkiDer, type SignatureAlgorithm, type SignatureHash } from './keys.js';

/** What the other sealing modules sign with: the seal (PAdES, aes path) and the evidence key. */

export interface SealSigner {
  /** The seal certificate, DER. */
  readonly certificate: Uint8Array;
  /** The issuers above it, DER, nearest first, ending with the root (for the built-in seal: [CA]). */
  readonly chain: readonly Uint8Array[];
  readonly privateKey: KeyObject;
  /** What `sign` produces: ecdsa-with-SHA256 (DER ECDSA-Sig-Value) or sha256WithRSAEncryption (PKCS#1 v1.5). */
  readonly signatureAlgorithm: SignatureAlgorithm;
  /** True for the certificate the server made itself (never presented as publicly trusted). */
  readonly builtIn: boolean;
  /** Sign `data` (e.g. the DER of CMS signed attributes); SHA-256 is the only hash. */
  sign(data: Uint8Array, hash?: SignatureHash): Uint8Array;
}

export function sealSigner(certificate: Uint8Array, chain: readonly Uint8Array[], privateKey: KeyObject, builtIn: boolean): SealSigner {
  const signatureAlgorithm = signatureAlgorithmFor(privateKey);
  return Object.freeze({
    certificate,
    chain: Object.freeze([...chain]),
    privateKey,
    signatureAlgorithm,
    builtIn,
    sign: (data: Uint8Array, hash: SignatureHash = 'SHA-256') => signWithKey(privateKey, data, hash),
  });
}

export interface EvidenceKey {
  /** The Ed25519 public key as SubjectPublicKeyInfo PEM (what GET /pki/evidence-key.pem serves). */
  readonly publicKeyPem: string;
  readonly publicKey: KeyObject;
  /** The raw 32-byte Ed25519 public key. */
  readonly publicKeyRaw: Uint8Array;
  /** SHA-256 of the SubjectPublicKeyInfo DER, hex: names the key in evidence records. */
  readonly keyId: string;
  /** Pure Ed25519 signature (64 bytes) over `bytes`. */
  sign(bytes: Uint8Array): Uint8Array;
  verify(bytes: Uint8Array, signature: Uint8Array): boolean;
}

export function evidenceKey(privateKey: KeyObject): EvidenceKey {
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the evidence key must be Ed25519');
  const publicKey = createPublicKey(privateKey);
  const spki = spkiDer(privateKey);
  return Object.freeze({
    publicKeyPem: toPem(spki, 'PUBLIC KEY'),
    publicKey,
    // An Ed25519 SPKI is a fixed 12-byte header followed by the 32-byte key (RFC 8410).
    publicKeyRaw: spki.slice(spki.length - 32),
    keyId: sha256Hex(spki),
    sign: (bytes: Uint8Array) => new Uint8Array(nodeSign(null, bytes, privateKey)),
    verify: (bytes: Uint8Array, signature: Uint8Array) => nodeVerify(null, bytes, publicKey, signature),
  });
}
