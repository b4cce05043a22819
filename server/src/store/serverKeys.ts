/**
 * Server secrets and PKI keys kept in the database (schema.ts ServerKeysTable), and the certificates
 * the built-in CA issued and revoked (PkiCertificatesTable). Rows only: the secrets arrive sealed
 * (services/keyMaterial.ts encrypts with TAWQI_MASTER_KEY), certificates are public.
 */
import type { Selectable } from 'kysely';
import type { Tx } from './types.js';
import type { PkiCertificatesTable, ServerKeysTable } from './schema.js';

export type ServerKeyRow = Selectable<ServerKeysTable>;
export type PkiCertificateRow = Selectable<PkiCertificatesTable>;

const blob = (bytes: Uint8Array): Buffer => Buffer.from(bytes);

export async function getServerKeys(tx: Tx, names: readonly string[]): Promise<ServerKeyRow[]> {
  if (names.length === 0) return [];
  return tx
    .selectFrom('server_keys')
    .selectAll()
    .where('name', 'in', [...names])
    .orderBy('name')
    .execute();
}

/** Insert the rows whose names are not stored yet; rows already there are kept as they are. */
export async function insertServerKeysIfAbsent(tx: Tx, rows: readonly ServerKeyRow[]): Promise<void> {
  if (rows.length === 0) return;
  await tx
    .insertInto('server_keys')
    .values(rows.map((r) => ({ ...r, encrypted_secret: blob(r.encrypted_secret), certificate: r.certificate && blob(r.certificate) })))
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/** Store a key's new certificate, and its new (sealed) secret when given. */
export async function updateServerKey(
  tx: Tx,
  name: string,
  change: { certificate: Uint8Array; encrypted_secret: Uint8Array | null },
  now: number,
): Promise<void> {
  await tx
    .updateTable('server_keys')
    .set({
      certificate: blob(change.certificate),
      ...(change.encrypted_secret ? { encrypted_secret: blob(change.encrypted_secret) } : {}),
      updated_at: now,
    })
    .where('name', '=', name)
    .execute();
}

/** Record a certificate the CA issued (a second record of the same serial is ignored). */
export async function recordIssuedCertificate(tx: Tx, serial: string, certificate: Uint8Array, now: number): Promise<void> {
  await tx
    .insertInto('pki_certificates')
    .values({ serial, certificate: blob(certificate), issued_at: now, revoked_at: null, revocation_reason: null })
    .onConflict((oc) => oc.column('serial').doNothing())
    .execute();
}

export async function isCertificateIssued(tx: Tx, serial: string): Promise<boolean> {
  const row = await tx.selectFrom('pki_certificates').select('serial').where('serial', '=', serial).executeTakeFirst();
  return row !== undefined;
}

export async function listRevokedCertificates(tx: Tx): Promise<{ serial: string; revoked_at: number; revocation_reason: string | null }[]> {
  const rows = await tx
    .selectFrom('pki_certificates')
    .select(['serial', 'revoked_at', 'revocation_reason'])
    .where('revoked_at', 'is not', null)
    .orderBy('serial')
    .execute();
  return rows.map((r) => ({ serial: r.serial, revoked_at: r.revoked_at!, revocation_reason: r.revocation_reason }));
}

/**
 * Revoke an issued certificate unless it is revoked already; returns the revocation that stands
 * (undefined when the serial was never issued).
 */
export async function revokeCertificateRow(
  tx: Tx,
  serial: string,
  revokedAt: number,
  reason: string,
): Promise<{ revoked_at: number; revocation_reason: string | null } | undefined> {
  await tx
    .updateTable('pki_certificates')
    .set({ revoked_at: revokedAt, revocation_reason: reason })
    .where('serial', '=', serial)
    .where('revoked_at', 'is', null)
    .execute();
  const row = await tx
    .selectFrom('pki_certificates')
    .select(['revoked_at', 'revocation_reason'])
    .where('serial', '=', serial)
    .executeTakeFirst();
  return row && row.revoked_at !== null ? { revoked_at: row.revoked_at, revocation_reason: row.revocation_reason } : undefined;
}
