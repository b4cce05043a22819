/**
 * Is this certificate fit for a qualified signature here? Key usage digitalSignature or
 * nonRepudiation, valid at the clock's time, a key PAdES can carry (RSA, ECDSA P-256/P-384), and a
 * path to one of the configured trusted roots (TAWQI_QES_TRUSTED_ROOTS) through the intermediates
 * the token offered: each link issued by the next (names and signature), each issuer a CA valid now.
 *
 * No revocation lookups here: a token certificate from a foreign CA names revocation services we do
 * not call while the signer waits (see README.md in this folder).
 */
import { X509Certificate, createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { OID_BASIC_CONSTRAINTS, OID_KEY_USAGE } from '@tawqi/shared/cms';
import type { PadesKeyAlgorithm } from '../pades/index.js';
import { allPem } from '../pki/index.js';

export type CertificateRefusal =
  'malformed' | 'not_signing' | 'expired' | 'not_yet_valid' | 'unsupported_key' | 'untrusted' | 'no_trusted_roots';

export class CertificateError extends Error {
  constructor(
    readonly reason: CertificateRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'CertificateError';
  }
}

export interface CheckedCertificate {
  certificate: Uint8Array;
  /** Hex SHA-256 of the DER. */
  sha256: string;
  keyAlgorithm: PadesKeyAlgorithm;
  /** Issuers from the leaf's up to and including the trusted root, DER. */
  chain: Uint8Array[];
  /** The subject's common name (or the whole subject). */
  name: string;
  notAfter: number;
}

const KU_DIGITAL_SIGNATURE = 0x80;
const KU_NON_REPUDIATION = 0x40;
const KU_KEY_CERT_SIGN = 0x04;
const MAX_PATH = 8;

export const sha256Hex = (der: Uint8Array): string => createHash('sha256').update(der).digest('hex');

function parse(der: Uint8Array): { node: X509Certificate; pkijs: pkijs.Certificate } {
  try {
    const node = new X509Certificate(Buffer.from(der));
    const parsed = asn1js.fromBER(new Uint8Array(der).buffer);
    if (parsed.offset === -1) throw new Error('not DER');
    return { node, pkijs: new pkijs.Certificate({ schema: parsed.result }) };
  } catch (err) {
    throw new CertificateError('malformed', `not an X.509 certificate: ${(err as Error).message}`);
  }
}

/** The first byte of the key usage bits, or null when the certificate has no key usage extension. */
function keyUsageBits(cert: pkijs.Certificate): number | null {
  const ext = cert.extensions?.find((e) => e.extnID === OID_KEY_USAGE);
  if (!ext) return null;
  const parsed = asn1js.fromBER(ext.extnValue.valueBlock.valueHexView.slice().buffer);
  if (!(parsed.result instanceof asn1js.BitString)) return 0;
  return parsed.result.valueBlock.valueHexView[0] ?? 0;
}

function isCa(cert: pkijs.Certificate): boolean {
  const ext = cert.extensions?.find((e) => e.extnID === OID_BASIC_CONSTRAINTS);
  if (!ext) return false;
  const parsed = asn1js.fromBER(ext.extnValue.valueBlock.valueHexView.slice().buffer);
  try {
    return new pkijs.BasicConstraints({ schema: parsed.result }).cA === true;
  } catch {
    return false;
  }
}

function keyAlgorithmOf(cert: X509Certificate): PadesKeyAlgorithm | null {
  const key = cert.publicKey;
  if (key.asymmetricKeyType === 'rsa') return (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048 ? 'RSA' : null;
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ECDSA-P256';
    if (curve === 'secp384r1') return 'ECDSA-P384';
  }
  return null;
}

const validAt = (cert: X509Certificate, nowMs: number): boolean => Date.parse(cert.validFrom) <= nowMs && nowMs <= Date.parse(cert.validTo);

function commonName(cert: X509Certificate): string {
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(cert.subject)?.[1];
  return (cn ?? cert.subject.replace(/\n/g, ', ')).trim();
}

/** `child` names `parent` as its issuer and verifies with its key, and `parent` may issue certificates now. */
function issuedBy(child: X509Certificate, parent: { node: X509Certificate; pkijs: pkijs.Certificate }, nowMs: number): boolean {
  if (!child.checkIssued(parent.node)) return false;
  if (!isCa(parent.pkijs) || !validAt(parent.node, nowMs)) return false;
  const ku = keyUsageBits(parent.pkijs);
  if (ku !== null && (ku & KU_KEY_CERT_SIGN) === 0) return false;
  try {
    return child.verify(parent.node.publicKey);
  } catch {
    return false;
  }
}

/** Checks a signer's certificate; throws CertificateError with the first reason it is refused. */
export function checkSigningCertificate(
  certificate: Uint8Array,
  offeredChain: readonly Uint8Array[],
  roots: readonly Uint8Array[],
  nowMs: number,
): CheckedCertificate {
  const leaf = parse(certificate);
  const ku = keyUsageBits(leaf.pkijs);
  if (ku === null || (ku & (KU_DIGITAL_SIGNATURE | KU_NON_REPUDIATION)) === 0) {
    throw new CertificateError('not_signing', 'the certificate has neither the digitalSignature nor the nonRepudiation key usage');
  }
  if (Date.parse(leaf.node.validFrom) > nowMs)
    throw new CertificateError('not_yet_valid', `the certificate is valid from ${leaf.node.validFrom}`);
  if (Date.parse(leaf.node.validTo) < nowMs) throw new CertificateError('expired', `the certificate expired on ${leaf.node.validTo}`);
  const keyAlgorithm = keyAlgorithmOf(leaf.node);
  if (!keyAlgorithm)
    throw new CertificateError('unsupported_key', 'the certificate key is neither RSA (2048 bits or more) nor ECDSA P-256/P-384');
  if (roots.length === 0)
    throw new CertificateError('no_trusted_roots', 'no trusted roots are configured for token signatures (TAWQI_QES_TRUSTED_ROOTS)');

  const anchors = roots.map((der) => ({ der, ...parse(der) }));
  const intermediates: { der: Uint8Array; node: X509Certificate; pkijs: pkijs.Certificate }[] = [];
  for (const der of offeredChain) {
    try {
      intermediates.push({ der, ...parse(der) });
    } catch {
      // A certificate on the token we cannot read does not help the path; ignore it.
    }
  }
  const chain: Uint8Array[] = [];
  let current = leaf.node;
  const leafHash = sha256Hex(certificate);
  for (let depth = 0; depth < MAX_PATH; depth += 1) {
    // A trusted root itself (only for an issuer: a self-signed leaf is no path).
    const anchor = anchors.find((a) => issuedBy(current, a, nowMs));
    if (anchor) {
      // (An offered chain may end with the root itself: then it is already in the path.)
      if (sha256Hex(anchor.der) !== sha256Hex(new Uint8Array(current.raw))) chain.push(anchor.der);
      return {
        certificate,
        sha256: leafHash,
        keyAlgorithm,
        chain,
        name: commonName(leaf.node),
        notAfter: Math.floor(Date.parse(leaf.node.validTo) / 1000),
      };
    }
    const next = intermediates.find(
      (i) => !chain.includes(i.der) && sha256Hex(i.der) !== sha256Hex(new Uint8Array(current.raw)) && issuedBy(current, i, nowMs),
    );
    if (!next) break;
    chain.push(next.der);
    current = next.node;
  }
  throw new CertificateError('untrusted', 'the certificate does not chain to a trusted root');
}

/**
 * The trusted roots from a PEM bundle, read again when the file changes. A missing or unreadable
 * file, or one without certificates, gives no roots (every token certificate is then refused).
 */
export class TrustedRoots {
  private cache: { mtimeMs: number; size: number; roots: Uint8Array[] } | null = null;

  constructor(
    private readonly file: string | undefined,
    private readonly onProblem: (message: string) => void = () => undefined,
  ) {}

  get(): Uint8Array[] {
    if (!this.file) return [];
    let stat: { mtimeMs: number; size: number };
    try {
      stat = statSync(this.file);
    } catch (err) {
      this.onProblem(`TAWQI_QES_TRUSTED_ROOTS: cannot read ${this.file}: ${(err as Error).message}`);
      return [];
    }
    if (this.cache && this.cache.mtimeMs === stat.mtimeMs && this.cache.size === stat.size) return this.cache.roots;
    const roots = pemCertificates(readFileSync(this.file, 'latin1'));
    if (roots.length === 0) this.onProblem(`TAWQI_QES_TRUSTED_ROOTS: ${this.file} holds no PEM certificate`);
    this.cache = { mtimeMs: stat.mtimeMs, size: stat.size, roots };
    return roots;
  }
}

export function pemCertificates(pem: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const der of allPem(pem, 'CERTIFICATE')) {
    try {
      new X509Certificate(Buffer.from(der));
      out.push(der);
    } catch {
      // not a certificate: skipped
    }
  }
  return out;
}
