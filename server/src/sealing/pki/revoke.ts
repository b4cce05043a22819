import { X509Certificate } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import { invalidateCrl } from './crl.js';
import { normaliseSerialHex } from './encoding.js';
import type { Pki } from './pki.js';
import type { Revocation, RevocationReason } from './revocation.js';

export class RevocationError extends Error {}

/**
 * Revoke a certificate the built-in CA issued (by DER certificate or hex serial). From then on OCSP
 * answers "revoked" and the next CRL lists it. Revoking one of the server's own leaf certificates (seal,
 * TSA, OCSP responder) replaces it at once with a new key and certificate. Revoking twice returns the
 * first record.
 */
export async function revokeCertificate(
  pki: Pki,
  target: Uint8Array | string,
  options: { reason?: RevocationReason; at?: number } = {},
): Promise<Revocation> {
  let serial: string;
  if (typeof target === 'string') {
    serial = normaliseSerialHex(target);
  } else {
    const cert = new X509Certificate(Buffer.from(target));
    const ca = new X509Certificate(Buffer.from(pki.ca.certificate));
    if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) throw new RevocationError('the certificate was not issued by the built-in CA');
    serial = normaliseSerialHex(cert.serialNumber);
  }
  if (!(await pki.storage.isIssued(serial))) throw new RevocationError(`the built-in CA has not issued serial ${serial}`);
  const existing = (await pki.storage.revocations()).get(serial);
  if (existing) return existing;
  const revocation: Revocation = { serial, revoked_at: options.at ?? nowSeconds(pki.clock), reason: options.reason ?? 'unspecified' };
  // Another process may have revoked it a moment ago: its record stands.
  const standing = await pki.storage.revoke(revocation);
  invalidateCrl(pki);
  await pki.maintain({ force: true });
  return standing;
}
