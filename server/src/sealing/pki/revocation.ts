import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ensureDir, PUBLIC_MODE, writeAtomic } from './files.js';
import { normaliseSerialHex, toPem } from './encoding.js';

/**
 * What the built-in CA has issued and revoked, one small file per certificate so that several server
 * processes on one shared volume never overwrite each other's records:
 *   pki/issued/<serial>.pem    every certificate the CA issued (also superseded ones: documents sealed
 *                              with them must keep answering "good")
 *   pki/revoked/<serial>.json  { serial, revoked_at (Unix seconds), reason }
 * OCSP answers "good" for an issued serial, "revoked" for a revoked one, "unknown" otherwise.
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

const revocationFile = z.object({
  serial: z.string().regex(/^[0-9a-f]+$/),
  revoked_at: z.number().int(),
  reason: z.enum(REVOCATION_REASONS),
});

const issuedDir = (pkiDir: string) => path.join(pkiDir, 'issued');
const revokedDir = (pkiDir: string) => path.join(pkiDir, 'revoked');

export function recordIssued(pkiDir: string, serialHex: string, der: Uint8Array): void {
  ensureDir(issuedDir(pkiDir));
  writeAtomic(path.join(issuedDir(pkiDir), `${normaliseSerialHex(serialHex)}.pem`), toPem(der, 'CERTIFICATE'), PUBLIC_MODE);
}

export function isIssued(pkiDir: string, serialHex: string): boolean {
  return existsSync(path.join(issuedDir(pkiDir), `${normaliseSerialHex(serialHex)}.pem`));
}

/** Every revocation on disk, by serial. A file that does not parse stops with its name (never ignored). */
export function readRevocations(pkiDir: string): Map<string, Revocation> {
  const dir = revokedDir(pkiDir);
  const out = new Map<string, Revocation>();
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith('.json')) continue;
    const file = path.join(dir, name);
    const parsed = revocationFile.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success) throw new Error(`unreadable revocation record ${file}`);
    out.set(parsed.data.serial, parsed.data);
  }
  return out;
}

export function writeRevocation(pkiDir: string, r: Revocation): void {
  ensureDir(revokedDir(pkiDir));
  writeAtomic(path.join(revokedDir(pkiDir), `${r.serial}.json`), `${JSON.stringify(r)}\n`, PUBLIC_MODE);
}
