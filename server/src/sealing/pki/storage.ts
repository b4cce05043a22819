import type { LeafRole } from './certificates.js';
import type { Revocation } from './revocation.js';

/**
 * Where the PKI keeps its keys, certificates and revocations: the port the PKI is given, so that it
 * imports no store. Two implementations:
 *   - files under DATA_DIR/pki (fileStorage.ts; SQLite installations, the layout of every earlier version);
 *   - the database, private keys encrypted with TAWQI_MASTER_KEY (services/keyMaterial.ts; PostgreSQL
 *     installations, where every server process shares them).
 * Private keys cross the port as PKCS#8 DER, certificates as DER.
 */

export interface StoredLeaf {
  /** PKCS#8 DER. */
  privateKey: Uint8Array;
  /** DER; null when none was issued for this key yet (or its file is missing). */
  certificate: Uint8Array | null;
}

/** Everything the PKI is made of. */
export interface PkiMaterial {
  ca: { privateKey: Uint8Array; certificate: Uint8Array };
  evidence: { privateKey: Uint8Array };
  /** null: the leaf's key is missing (a lost file); the PKI makes a new key and certificate. */
  leaves: Record<LeafRole, StoredLeaf | null>;
}

export interface PkiStorage {
  /** Where the material is, for messages: a folder, or "the database". */
  readonly location: string;
  /**
   * The stored PKI; when there is none yet, `fresh()` is stored (its leaf certificates recorded as
   * issued) — unless another process stored its own first, and then that one is returned. Every
   * process starting at the same moment so ends up with the same PKI.
   */
  loadOrCreate(fresh: () => Promise<PkiMaterial>): Promise<PkiMaterial>;
  /** The leaves as stored now: another process may have renewed or replaced them. */
  loadLeaves(): Promise<Record<LeafRole, StoredLeaf | null>>;
  /**
   * Keep a leaf's new certificate, recording it as issued first (a certificate in use is always one
   * OCSP knows), with its new key when `newKey` is given.
   */
  saveLeaf(role: LeafRole, certificate: { serialHex: string; der: Uint8Array }, newKey: Uint8Array | null): Promise<void>;
  /** Record a certificate the CA issued (idempotent). */
  recordIssued(serialHex: string, der: Uint8Array): Promise<void>;
  isIssued(serialHex: string): Promise<boolean>;
  /** Every revocation, by serial. */
  revocations(): Promise<Map<string, Revocation>>;
  /** Record a revocation unless the serial is revoked already; returns the record that stands. */
  revoke(revocation: Revocation): Promise<Revocation>;
}
