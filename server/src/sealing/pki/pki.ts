import { X509Certificate, randomBytes, type KeyObject, type webcrypto } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import { crlUrlOf, issueCaCertificate, issueLeafCertificate, pkiUrls, type LeafRole, type PkiUrls } from './certificates.js';
import { fromPem, normaliseSerialHex, sha256Hex, toPem } from './encoding.js';
import { ensureDir, PUBLIC_MODE, readText, SECRET_MODE, writeAtomic } from './files.js';
import { keyMatchesSpki, loadPrivateKeyPem, newEcKey, newEd25519Key, privateKeyPem, publicKeyPem, spkiDer, toCryptoKey } from './keys.js';
import { TSA_POLICY_OID } from '@tawqi/shared/cms';
import { loadPkcs12 } from './pkcs12.js';
import { readRevocations, recordIssued } from './revocation.js';
import { TimeStampSerials } from './serials.js';
import { evidenceKey, sealSigner, type EvidenceKey, type SealSigner } from './signers.js';

/**
 * The server's own trust material under DATA_DIR/pki (mode 0700), made on first start:
 *
 *   ca.key.pem / ca.pem           local root CA, ECDSA P-256, 10 years
 *   seal.key.pem / seal.pem       seal certificate for aes PAdES, 3 years
 *   tsa.key.pem / tsa.pem         RFC 3161 TSA certificate (EKU timeStamping, critical), 3 years
 *   ocsp.key.pem / ocsp.pem       OCSP responder certificate (EKU OCSPSigning, ocsp-nocheck), 3 years
 *   evidence.key.pem / .pub.pem   Ed25519 evidence key
 *   issued/, revoked/             see revocation.ts
 *
 * Private keys are PKCS#8 PEM files of mode 0600; certificates are PEM. Later starts load them.
 * Leaf certificates (seal, TSA, OCSP) are re-issued for the same key when the public URL their AIA and
 * CRL distribution point name changes, when they expire within 30 days, or when their file is missing;
 * the superseded ones stay in issued/ and keep answering "good". A revoked leaf is replaced with a new
 * key and certificate (revocation may mean the key was compromised). The CA and the evidence key are never
 * replaced automatically: losing them is an error that names the file.
 */

const LEAF_ROLES: readonly LeafRole[] = ['seal', 'tsa', 'ocsp'];
const RENEW_BEFORE_MS = 30 * 86400_000;
const CHECK_EVERY_MS = 3600_000;
const EVIDENCE_KEY_FILE = 'evidence.key.pem';
const EVIDENCE_PUB_FILE = 'evidence.pub.pem';
const keyFile = (role: 'ca' | LeafRole) => `${role}.key.pem`;
const certFile = (role: 'ca' | LeafRole) => `${role}.pem`;

export interface PkiOptions {
  /** Seal with the operator's certificate and key from a PKCS#12 file instead of the built-in seal. */
  sealP12?: { file: string; password: string };
  /** Send timestamp requests to this RFC 3161 TSA (http/https) instead of the built-in TSA. */
  tsaUrl?: string;
  log?: Pick<Logger, 'info' | 'warn'>;
}

/** A certificate held with its private key. */
export interface CertifiedKey {
  /** DER. */
  readonly certificate: Uint8Array;
  readonly privateKey: KeyObject;
  /** Lowercase hex, no leading zero bytes. */
  readonly serialHex: string;
  readonly notAfter: Date;
}

interface Leaf {
  key: KeyObject;
  cert: X509Certificate | null;
}

function certOf(der: Uint8Array): X509Certificate {
  return new X509Certificate(Buffer.from(der));
}

function describe(cert: X509Certificate, key: KeyObject): CertifiedKey {
  return Object.freeze({
    certificate: new Uint8Array(cert.raw),
    privateKey: key,
    serialHex: normaliseSerialHex(cert.serialNumber),
    notAfter: new Date(cert.validTo),
  });
}

export class Pki {
  /** Serial numbers of time-stamp tokens (tsa.ts). */
  readonly tsaSerials: TimeStampSerials;
  readonly evidence: EvidenceKey;
  /** The CA's key as a WebCrypto key, for the certificate and CRL generators. Internal to this folder. */
  readonly caSigningKey: webcrypto.CryptoKey;
  /** The CA's private key. Internal to this folder (certificates, CRLs); never leaves it. */
  readonly caPrivateKey: KeyObject;
  /** An operator-supplied seal (PKCS#12) that replaces the built-in one for sealing; null when none. */
  readonly operatorSeal: SealSigner | null;
  /** An external RFC 3161 TSA that `timestamp()` uses instead of the built-in one; null when none. */
  readonly externalTsaUrl: string | null;

  private readonly caCert: X509Certificate;
  private readonly leaves: Record<LeafRole, Leaf>;
  private currentUrls: PkiUrls;
  private builtInSealCache: SealSigner | null = null;
  private maintaining: Promise<void> | null = null;
  private nextCheckMs = 0;

  /** Use `loadOrCreatePki`. */
  constructor(
    readonly dir: string,
    readonly clock: Clock,
    publicUrl: string,
    parts: {
      caKey: KeyObject;
      caCert: X509Certificate;
      caSigningKey: webcrypto.CryptoKey;
      leaves: Record<LeafRole, Leaf>;
      evidence: EvidenceKey;
      operatorSeal: SealSigner | null;
      externalTsaUrl: string | null;
    },
    private readonly log?: PkiOptions['log'],
  ) {
    this.currentUrls = pkiUrls(publicUrl);
    this.caPrivateKey = parts.caKey;
    this.caCert = parts.caCert;
    this.caSigningKey = parts.caSigningKey;
    this.leaves = parts.leaves;
    this.evidence = parts.evidence;
    this.operatorSeal = parts.operatorSeal;
    this.externalTsaUrl = parts.externalTsaUrl;
    this.tsaSerials = new TimeStampSerials(clock);
  }

  /** The URLs written into the leaf certificates (AIA OCSP and CA issuers, CRL distribution point). */
  get urls(): PkiUrls {
    return this.currentUrls;
  }

  /** The root CA: publish it for verifiers; it is built-in and never publicly trusted. */
  get ca(): { readonly certificate: Uint8Array; readonly pem: string; readonly serialHex: string; readonly notAfter: Date } {
    const raw = new Uint8Array(this.caCert.raw);
    return {
      certificate: raw,
      pem: toPem(raw, 'CERTIFICATE'),
      serialHex: normaliseSerialHex(this.caCert.serialNumber),
      notAfter: new Date(this.caCert.validTo),
    };
  }

  /** What sealing signs with: the operator's PKCS#12 seal when configured, else the built-in one. */
  get seal(): SealSigner {
    return this.operatorSeal ?? this.builtInSeal;
  }

  /** The built-in seal (issued by the local CA), whatever the operator configured. */
  get builtInSeal(): SealSigner {
    const leaf = this.leafOrThrow('seal');
    if (!this.builtInSealCache || !Buffer.from(this.builtInSealCache.certificate).equals(leaf.raw)) {
      this.builtInSealCache = sealSigner(new Uint8Array(leaf.raw), [new Uint8Array(this.caCert.raw)], this.leaves.seal.key, true);
    }
    return this.builtInSealCache;
  }

  /** The built-in TSA's certificate and key, and its policy OID. */
  get tsa(): CertifiedKey & { readonly policyOid: string } {
    return { ...describe(this.leafOrThrow('tsa'), this.leaves.tsa.key), policyOid: TSA_POLICY_OID };
  }

  /** The OCSP responder's certificate and key. */
  get ocsp(): CertifiedKey {
    return describe(this.leafOrThrow('ocsp'), this.leaves.ocsp.key);
  }

  /**
   * Tell the PKI the public base URL (e.g. once the listen port is known, or after TAWQI_PUBLIC_URL
   * changed): leaf certificates naming another base are re-issued.
   */
  async setPublicUrl(publicUrl: string): Promise<void> {
    const urls = pkiUrls(publicUrl);
    if (urls.base === this.currentUrls.base) return;
    this.currentUrls = urls;
    await this.maintain({ force: true });
  }

  /**
   * Re-issue leaf certificates that are missing, expire within 30 days, are not yet valid at the
   * clock's time, or name another public URL. Cheap when nothing is due (called before each signature).
   */
  async maintain(options: { force?: boolean } = {}): Promise<void> {
    if (options.force) {
      // A run already under way may have read the state before the change that forces this one.
      await this.maintaining?.catch(() => undefined);
      this.nextCheckMs = 0;
    }
    if (this.clock.nowMs() < this.nextCheckMs) return;
    this.maintaining ??= this.renewDue().finally(() => {
      this.maintaining = null;
    });
    return this.maintaining;
  }

  private async renewDue(): Promise<void> {
    const revoked = new Set(readRevocations(this.dir).keys());
    for (const role of LEAF_ROLES) {
      const reason = this.renewalReason(role, revoked);
      if (reason) await this.reissue(role, reason);
    }
    const now = this.clock.nowMs();
    const caEnd = new Date(this.caCert.validTo).getTime();
    const ends = LEAF_ROLES.map((r) => new Date(this.leafOrThrow(r).validTo).getTime());
    // Next look: 30 days before the first leaf ends (but not while the CA caps the leaves' ends), and at
    // least hourly, so a revocation or re-issue made by another process on a shared volume is seen.
    const due = ends.map((e) => (e >= caEnd ? caEnd : e - RENEW_BEFORE_MS));
    this.nextCheckMs = Math.min(now + CHECK_EVERY_MS, Math.max(now + 60_000, Math.min(...due)));
  }

  private renewalReason(role: LeafRole, revoked: Set<string>): string | null {
    const { key, cert } = this.leaves[role];
    if (!cert) return 'missing';
    if (revoked.has(normaliseSerialHex(cert.serialNumber))) return 'revoked';
    if (!keyMatchesSpki(key, new Uint8Array(cert.publicKey.export({ format: 'der', type: 'spki' })))) return 'key and certificate differ';
    if (!cert.checkIssued(this.caCert) || !cert.verify(this.caCert.publicKey)) return 'not issued by the current CA';
    if (role !== 'ocsp' && crlUrlOf(new Uint8Array(cert.raw)) !== this.currentUrls.crl) return 'public URL changed';
    const now = this.clock.nowMs();
    const from = new Date(cert.validFrom).getTime();
    const to = new Date(cert.validTo).getTime();
    const caEnd = new Date(this.caCert.validTo).getTime();
    if (from > now) return 'not yet valid at the current time';
    if (to - now < RENEW_BEFORE_MS && caEnd > to) return 'expires soon';
    return null;
  }

  private async reissue(role: LeafRole, reason: string): Promise<void> {
    if (reason === 'revoked') {
      // The key may be what was compromised: a revoked certificate is replaced with a new key.
      const key = newEcKey();
      writeAtomic(path.join(this.dir, keyFile(role)), privateKeyPem(key), SECRET_MODE);
      this.leaves[role].key = key;
    }
    const issued = await issueLeafCertificate({
      role,
      key: this.leaves[role].key,
      installation: installationOf(this.caPrivateKey),
      urls: this.currentUrls,
      nowMs: this.clock.nowMs(),
      ca: { der: new Uint8Array(this.caCert.raw), signingKey: this.caSigningKey },
    });
    // Record first: a certificate in use is always one OCSP knows.
    recordIssued(this.dir, issued.serialHex, issued.der);
    writeAtomic(path.join(this.dir, certFile(role)), toPem(issued.der, 'CERTIFICATE'), PUBLIC_MODE);
    this.leaves[role].cert = certOf(issued.der);
    this.log?.info({ role, serial: issued.serialHex, reason }, 'pki: certificate issued');
  }

  private leafOrThrow(role: LeafRole): X509Certificate {
    const cert = this.leaves[role].cert;
    if (!cert) throw new Error(`pki: the ${role} certificate has not been issued (call maintain())`);
    return cert;
  }
}

/** A short id of this installation's CA (first 8 hex of the SHA-256 of its public key), shown in names. */
function installationOf(caKey: KeyObject): string {
  return sha256Hex(spkiDer(caKey)).slice(0, 8);
}

/**
 * Load DATA_DIR/pki, creating it on first start; then bring the leaf certificates up to date for
 * `publicUrl` (their AIA and CRL URLs are `${publicUrl}/pki/...`).
 */
export async function loadOrCreatePki(dataDir: string, clock: Clock, publicUrl: string, options: PkiOptions = {}): Promise<Pki> {
  const dir = path.join(dataDir, 'pki');
  if (!hasCa(dir)) await createPkiDir(dataDir, dir, clock);
  ensureDir(dir);

  const caKey = loadPrivateKeyPem(readRequired(dir, keyFile('ca')));
  const caCert = certOf(fromPem(readRequired(dir, certFile('ca')), 'CERTIFICATE'));
  if (!keyMatchesSpki(caKey, new Uint8Array(caCert.publicKey.export({ format: 'der', type: 'spki' })))) {
    throw new Error(`pki: ${path.join(dir, keyFile('ca'))} is not the key of ${path.join(dir, certFile('ca'))}`);
  }
  const evidencePrivate = loadPrivateKeyPem(readRequired(dir, EVIDENCE_KEY_FILE));
  if (!existsSync(path.join(dir, EVIDENCE_PUB_FILE)))
    writeAtomic(path.join(dir, EVIDENCE_PUB_FILE), publicKeyPem(evidencePrivate), PUBLIC_MODE);

  const leaves = {} as Record<LeafRole, Leaf>;
  for (const role of LEAF_ROLES) {
    const kf = path.join(dir, keyFile(role));
    if (!existsSync(kf)) {
      writeAtomic(kf, privateKeyPem(newEcKey()), SECRET_MODE);
      options.log?.warn({ role }, 'pki: key file was missing, made a new key');
    }
    const cf = path.join(dir, certFile(role));
    leaves[role] = { key: loadPrivateKeyPem(readText(kf)), cert: existsSync(cf) ? certOf(fromPem(readText(cf), 'CERTIFICATE')) : null };
  }

  const operatorSeal = options.sealP12 ? await operatorSealFrom(options.sealP12, clock) : null;
  const pki = new Pki(
    dir,
    clock,
    publicUrl,
    {
      caKey,
      caCert,
      caSigningKey: await toCryptoKey(caKey),
      leaves,
      evidence: evidenceKey(evidencePrivate),
      operatorSeal,
      externalTsaUrl: options.tsaUrl ?? null,
    },
    options.log,
  );
  await pki.maintain();
  return pki;
}

async function operatorSealFrom(p12: { file: string; password: string }, clock: Clock): Promise<SealSigner> {
  const loaded = await loadPkcs12(p12.file, p12.password, clock.nowMs());
  return sealSigner(loaded.certificate, loaded.chain, loaded.privateKey, false);
}

function hasCa(dir: string): boolean {
  return existsSync(path.join(dir, keyFile('ca'))) || existsSync(path.join(dir, certFile('ca')));
}

function readRequired(dir: string, name: string): string {
  const file = path.join(dir, name);
  if (!existsSync(file)) {
    throw new Error(
      `pki: ${file} is missing. Restore DATA_DIR/pki from a backup, or move the whole folder away to start a new PKI ` +
        '(documents sealed before will then no longer chain to the new CA).',
    );
  }
  return readText(file);
}

/**
 * First start: build the whole folder under a temporary name and rename it into place, so a crash
 * leaves nothing half-made and a second process starting at the same moment keeps the first one's.
 */
async function createPkiDir(dataDir: string, dir: string, clock: Clock): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const tmp = path.join(dataDir, `.pki-${randomBytes(6).toString('hex')}.tmp`);
  ensureDir(tmp);
  try {
    const caKey = newEcKey();
    const ca = await issueCaCertificate(caKey, await toCryptoKey(caKey), installationOf(caKey), clock.nowMs());
    writeAtomic(path.join(tmp, keyFile('ca')), privateKeyPem(caKey), SECRET_MODE);
    writeAtomic(path.join(tmp, certFile('ca')), toPem(ca.der, 'CERTIFICATE'), PUBLIC_MODE);
    for (const role of LEAF_ROLES) writeAtomic(path.join(tmp, keyFile(role)), privateKeyPem(newEcKey()), SECRET_MODE);
    const evidence = newEd25519Key();
    writeAtomic(path.join(tmp, EVIDENCE_KEY_FILE), privateKeyPem(evidence), SECRET_MODE);
    writeAtomic(path.join(tmp, EVIDENCE_PUB_FILE), publicKeyPem(evidence), PUBLIC_MODE);
    ensureDir(path.join(tmp, 'issued'));
    ensureDir(path.join(tmp, 'revoked'));
    // An empty DATA_DIR/pki (made by hand) is replaced; a non-empty one means another process won.
    if (existsSync(dir) && readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    const code = (err as NodeJS.ErrnoException).code;
    if ((code === 'ENOTEMPTY' || code === 'EEXIST') && hasCa(dir)) return;
    throw err;
  }
}
