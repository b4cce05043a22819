import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import { OID_CRL_NUMBER } from '@tawqi/shared/cms';
import type { Pki } from './pki.js';
import { REASON_CODES, type Revocation } from './revocation.js';

/**
 * The built-in CA's CRL (RFC 5280 v2, signed by the CA, ecdsa-with-SHA256): thisUpdate = the clock's
 * time, nextUpdate 7 days later, CRL number = thisUpdate in Unix seconds (increasing without shared
 * state), authority key identifier. Kept in memory and made again when the revocations change, once a
 * day (so a fetched CRL always has ≥ 6 days left), or when the clock went back before its thisUpdate.
 */

export const CRL_VALIDITY_MS = 7 * 86400_000;
const CRL_REFRESH_MS = 86400_000;

type CrlSigningKey = x509.X509CrlCreateParams['signingKey'];
const ECDSA_SHA256 = { name: 'ECDSA', hash: 'SHA-256' } as x509.X509CrlCreateParamsBase['signingAlgorithm'];

interface CachedCrl {
  der: Uint8Array;
  thisUpdateMs: number;
  revocationsKey: string;
  caSerial: string;
}

const cache = new WeakMap<Pki, CachedCrl>();
const inFlight = new WeakMap<Pki, Promise<CachedCrl>>();

/** The current CRL, DER (what GET /pki/crl serves and a PDF's DSS embeds). */
export async function crlDer(pki: Pki): Promise<Uint8Array> {
  const revocations = await pki.storage.revocations();
  const key = revocationsKey(revocations);
  const now = pki.clock.nowMs();
  const current = cache.get(pki);
  if (
    current &&
    current.revocationsKey === key &&
    current.caSerial === pki.ca.serialHex &&
    now >= current.thisUpdateMs &&
    now - current.thisUpdateMs < CRL_REFRESH_MS
  ) {
    return current.der;
  }
  let pending = inFlight.get(pki);
  if (!pending) {
    pending = makeCrl(pki, revocations, key).finally(() => inFlight.delete(pki));
    inFlight.set(pki, pending);
  }
  const made = await pending;
  cache.set(pki, made);
  return made.der;
}

/** Forget the cached CRL (after a revocation in this process). */
export function invalidateCrl(pki: Pki): void {
  cache.delete(pki);
}

function revocationsKey(revocations: Map<string, Revocation>): string {
  return [...revocations.values()].map((r) => `${r.serial}:${r.revoked_at}:${r.reason}`).join(',');
}

async function makeCrl(pki: Pki, revocations: Map<string, Revocation>, key: string): Promise<CachedCrl> {
  const thisUpdateMs = Math.floor(pki.clock.nowMs() / 1000) * 1000;
  const ca = new x509.X509Certificate(pki.ca.certificate);
  const crlNumber = asn1js.Integer.fromBigInt(BigInt(thisUpdateMs / 1000)).toBER(false);
  const crl = await x509.X509CrlGenerator.create({
    issuer: ca.subjectName,
    thisUpdate: new Date(thisUpdateMs),
    nextUpdate: new Date(thisUpdateMs + CRL_VALIDITY_MS),
    signingAlgorithm: ECDSA_SHA256,
    signingKey: pki.caSigningKey as unknown as CrlSigningKey,
    extensions: [
      await x509.AuthorityKeyIdentifierExtension.create(ca.publicKey),
      new x509.Extension(OID_CRL_NUMBER, false, new Uint8Array(crlNumber)),
    ],
    entries: [...revocations.values()].map((r) => ({
      serialNumber: r.serial,
      revocationDate: new Date(r.revoked_at * 1000),
      // RFC 5280 §5.3.1: leave the reason code out rather than say "unspecified".
      ...(r.reason === 'unspecified' ? {} : { reason: REASON_CODES[r.reason] as x509.X509CrlReason }),
    })),
  });
  return { der: new Uint8Array(crl.rawData), thisUpdateMs, revocationsKey: key, caSerial: pki.ca.serialHex };
}
