import { X509Certificate, type KeyObject, type webcrypto } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import { crlUrlOf, issueCaCertificate, issueLeafCertificate, pkiUrls, type LeafRole, type PkiUrls } from './certificates.js';
import { normaliseSerialHex, sha256Hex, toPem } from './encoding.js';
import { keyMatchesSpki, loadPrivateKeyDer, newEcKey, newEd25519Key, pkcs8Der, spkiDer, toCryptoKey } from './keys.js';
import { TSA_POLICY_OID } from '@tawqi/shared/cms';
import { loadPkcs12 } from './pkcs12.js';
import { TimeStampSerials } from './serials.js';
import { evidenceKey, sealSigner, type EvidenceKey, type SealSigner } from './signers.js';
import type { PkiMaterial, PkiStorage, StoredLeaf } from './storage.js';

/**
 * The server's own trust material, made on first start and kept by a PkiStorage (storage.ts: files
 * under DATA_DIR/pki, or the database with the private keys encrypted):
 *
 *   ca            local root CA, ECDSA P-256, 10 years
 *   seal          seal certificate for aes PAdES, 3 years
 *   tsa           RFC 3161 TSA certificate (EKU timeStamping, critical), 3 years
 *   ocsp          OCSP responder certificate (EKU OCSPSigning, ocsp-nocheck), 3 years
 *   evidence      Ed25519 evidence key
 *   issued and revoked certificates (revocation.ts)
 *
 * Later starts load them. Leaf certificates (seal, TSA, OCSP) are re-issued for the same key when the
 * public URL their AIA and CRL distribution point name changes, when they expire within 30 days (the
 * TSA's within 400 days: see RENEW_BEFORE_MS), or when they are missing; the superseded ones stay recorded as issued and keep answering "good". A
 * revoked leaf is replaced with a new key and certificate (revocation may mean the key was
 * compromised). Before re-issuing, the PKI looks at the stored leaf: when another process already
 * renewed or replaced it, that one is taken. The CA and the evidence key are never replaced
 * automatically: losing them is an error that names where they were.
 */

const LEAF_ROLES: readonly LeafRole[] = ['seal', 'tsa', 'ocsp'];
const DAY_MS = 86400_000;
/**
 * How long before its end a leaf is re-issued. The TSA's sooner (ETSI EN 319 421: a TSU key's usage
 * period ends well before its certificate): every token it issues stays checkable for a year at
 * least, so a B-LTA renewal due within TAWQI_ARCHIVE_RENEW_DAYS (≤ a year) gets a later one.
 */
const RENEW_BEFORE_MS: Record<LeafRole, number> = { seal: 30 * DAY_MS, ocsp: 30 * DAY_MS, tsa: 400 * DAY_MS };
const CHECK_EVERY_MS = 3600_000;

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
  /** A key made at load because the stored one was missing: stored with its first certificate. */
  unsaved?: boolean;
}

function leafFrom(stored: StoredLeaf | null): Leaf | null {
  if (!stored?.certificate) return null;
  return { key: loadPrivateKeyDer(stored.privateKey), cert: certOf(stored.certificate) };
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
    /** Where the keys, certificates and revocations are kept. Internal to this folder. */
    readonly storage: PkiStorage,
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
    const revoked = new Set((await this.storage.revocations()).keys());
    let stored: Record<LeafRole, StoredLeaf | null> | null = null;
    for (const role of LEAF_ROLES) {
      if (!this.renewalReason(this.leaves[role], role, revoked)) continue;
      // Another process (sharing the database or the volume) may have renewed or replaced it already.
      stored ??= await this.storage.loadLeaves();
      const theirs = leafFrom(stored[role]);
      if (theirs && !this.renewalReason(theirs, role, revoked)) {
        this.leaves[role] = theirs;
        continue;
      }
      await this.reissue(role, this.renewalReason(this.leaves[role], role, revoked)!);
    }
    const now = this.clock.nowMs();
    const caEnd = new Date(this.caCert.validTo).getTime();
    const ends = LEAF_ROLES.map((r) => [r, new Date(this.leafOrThrow(r).validTo).getTime()] as const);
    // Next look: when the first leaf is due (but not while the CA caps the leaves' ends), and at least
    // hourly, so a revocation or re-issue made by another process on a shared volume is seen.
    const due = ends.map(([role, end]) => (end >= caEnd ? caEnd : end - RENEW_BEFORE_MS[role]));
    this.nextCheckMs = Math.min(now + CHECK_EVERY_MS, Math.max(now + 60_000, Math.min(...due)));
  }

  private renewalReason(leaf: Leaf, role: LeafRole, revoked: Set<string>): string | null {
    const { key, cert } = leaf;
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
    if (to - now < RENEW_BEFORE_MS[role] && caEnd > to) return 'expires soon';
    return null;
  }

  private async reissue(role: LeafRole, reason: string): Promise<void> {
    // The key may be what was compromised: a revoked certificate is replaced with a new key. A key
    // made at load (its file was lost) is stored with its first certificate.
    const key = reason === 'revoked' ? newEcKey() : this.leaves[role].key;
    const keyIsNew = key !== this.leaves[role].key || this.leaves[role].unsaved === true;
    const issued = await issueLeafCertificate({
      role,
      key,
      installation: installationOf(this.caPrivateKey),
      urls: this.currentUrls,
      nowMs: this.clock.nowMs(),
      ca: { der: new Uint8Array(this.caCert.raw), signingKey: this.caSigningKey },
    });
    await this.storage.saveLeaf(role, issued, keyIsNew ? pkcs8Der(key) : null);
    this.leaves[role] = { key, cert: certOf(issued.der) };
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
 * Load the PKI from `storage`, creating it on first start (the first process to store one wins);
 * then bring the leaf certificates up to date for `publicUrl` (their AIA and CRL URLs are
 * `${publicUrl}/pki/...`).
 */
export async function loadOrCreatePki(storage: PkiStorage, clock: Clock, publicUrl: string, options: PkiOptions = {}): Promise<Pki> {
  const material = await storage.loadOrCreate(() => freshMaterial(clock, publicUrl));
  const caKey = loadPrivateKeyDer(material.ca.privateKey);
  const caCert = certOf(material.ca.certificate);
  if (!keyMatchesSpki(caKey, new Uint8Array(caCert.publicKey.export({ format: 'der', type: 'spki' })))) {
    throw new Error(`pki: the CA key in ${storage.location} is not the key of the CA certificate`);
  }
  const leaves = {} as Record<LeafRole, Leaf>;
  for (const role of LEAF_ROLES) {
    const stored = material.leaves[role];
    if (stored) {
      leaves[role] = { key: loadPrivateKeyDer(stored.privateKey), cert: stored.certificate ? certOf(stored.certificate) : null };
    } else {
      leaves[role] = { key: newEcKey(), cert: null, unsaved: true };
      options.log?.warn({ role }, 'pki: the key was missing, made a new key');
    }
  }
  const operatorSeal = options.sealP12 ? await operatorSealFrom(options.sealP12, clock) : null;
  const pki = new Pki(
    storage,
    clock,
    publicUrl,
    {
      caKey,
      caCert,
      caSigningKey: await toCryptoKey(caKey),
      leaves,
      evidence: evidenceKey(loadPrivateKeyDer(material.evidence.privateKey)),
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

/** A whole new PKI: the CA, its three leaves with their certificates for `publicUrl`, the evidence key. */
async function freshMaterial(clock: Clock, publicUrl: string): Promise<PkiMaterial> {
  const caKey = newEcKey();
  const signingKey = await toCryptoKey(caKey);
  const installation = installationOf(caKey);
  const ca = await issueCaCertificate(caKey, signingKey, installation, clock.nowMs());
  const leaves = {} as PkiMaterial['leaves'];
  for (const role of LEAF_ROLES) {
    const key = newEcKey();
    const issued = await issueLeafCertificate({
      role,
      key,
      installation,
      urls: pkiUrls(publicUrl),
      nowMs: clock.nowMs(),
      ca: { der: ca.der, signingKey },
    });
    leaves[role] = { privateKey: pkcs8Der(key), certificate: issued.der };
  }
  return { ca: { privateKey: pkcs8Der(caKey), certificate: ca.der }, evidence: { privateKey: pkcs8Der(newEd25519Key()) }, leaves };
}
