import { z } from 'zod';

/**
 * What the built-in CA has issued and revoked (kept by the PkiStorage: files under pki/issued and
 * pki/revoked, or database rows): every certificate the CA issued, also superseded ones (documents
 * sealed with them must keep answering "good"), and each revocation { serial, revoked_at (Unix
 * seconds), reason }. OCSP answers "good" for an issued serial, "revoked" for a revoked one,
 * "unknown" otherwise.
 */

export const REVOCATION_REASONS = [
  'unspecified',
  'keyCompromise',
  'cACompromise',
  'affiliationChanged',
  'superseded',
  'cessationOfOperation',
  'certificateHold',
  'privilegeWithdrawn',
] as const;
export type RevocationReason = (typeof REVOCATION_REASONS)[number];

/** CRLReason codes (RFC 5280 §5.3.1); 7 is unused. */
export const REASON_CODES: Record<RevocationReason, number> = {
  unspecified: 0,
  keyCompromise: 1,
  cACompromise: 2,
  affiliationChanged: 3,
  superseded: 4,
  cessationOfOperation: 5,
  certificateHold: 6,
  privilegeWithdrawn: 9,
};

export interface Revocation {
  /** Lowercase hex without leading zero bytes. */
  serial: string;
  revoked_at: number;
  reason: RevocationReason;
}

/** A stored revocation record (a file's JSON, or a row), checked before use: a bad one is never ignored. */
export const revocationRecord = z.object({
  serial: z.string().regex(/^[0-9a-f]+$/),
  revoked_at: z.number().int(),
  reason: z.enum(REVOCATION_REASONS),
});
