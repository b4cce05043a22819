import { X509Certificate, createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { LeafRole } from './certificates.js';
import { fromPem, normaliseSerialHex, toPem } from './encoding.js';
import { ensureDir, PUBLIC_MODE, readText, SECRET_MODE, writeAtomic } from './files.js';
import { revocationRecord, type Revocation } from './revocation.js';
import type { PkiMaterial, PkiStorage, StoredLeaf } from './storage.js';

/**
 * The PKI kept as files under DATA_DIR/pki (mode 0700): SQLite installations, the layout of every
 * earlier version.
 *
 *   ca.key.pem / ca.pem           the CA's key and certificate
 *   seal|tsa|ocsp.key.pem / .pem  the leaves' keys and certificates
 *   evidence.key.pem / .pub.pem   the Ed25519 evidence key and its public half
 *   issued/<serial>.pem           every certificate the CA issued
 *   revoked/<serial>.json         { serial, revoked_at, reason }, one file per revocation
 *
 * Private keys are unencrypted PKCS#8 PEM files of mode 0600 (DATA_DIR is the boundary); certificates
 * PEM, 0644. Every write is temp-file-and-rename, one small file per record, so several processes on
 * one shared volume never see half a file nor overwrite each other's records.
 */

const LEAF_ROLES: readonly LeafRole[] = ['seal', 'tsa', 'ocsp'];
const EVIDENCE_KEY_FILE = 'evidence.key.pem';
const EVIDENCE_PUB_FILE = 'evidence.pub.pem';
const keyFile = (role: 'ca' | LeafRole) => `${role}.key.pem`;
const certFile = (role: 'ca' | LeafRole) => `${role}.pem`;

const keyPem = (pkcs8: Uint8Array): string => toPem(pkcs8, 'PRIVATE KEY');
/** Any private key PEM openssl or Node writes, as PKCS#8 DER. */
const keyDer = (pem: string): Uint8Array =>
  new Uint8Array(createPrivateKey({ key: pem, format: 'pem' }).export({ format: 'der', type: 'pkcs8' }));
const serialOf = (der: Uint8Array): string => normaliseSerialHex(new X509Certificate(Buffer.from(der)).serialNumber);

export function filePkiStorage(dataDir: string): PkiStorage {
  const dir = path.join(dataDir, 'pki');
  const issuedDir = path.join(dir, 'issued');
  const revokedDir = path.join(dir, 'revoked');

  const loadLeaves = async (): Promise<Record<LeafRole, StoredLeaf | null>> => {
    const leaves = {} as Record<LeafRole, StoredLeaf | null>;
    for (const role of LEAF_ROLES) {
      const kf = path.join(dir, keyFile(role));
      const cf = path.join(dir, certFile(role));
      leaves[role] = existsSync(kf)
        ? { privateKey: keyDer(readText(kf)), certificate: existsSync(cf) ? fromPem(readText(cf), 'CERTIFICATE') : null }
        : null;
    }
    return leaves;
  };

  const recordIssued = async (serialHex: string, der: Uint8Array): Promise<void> => {
    ensureDir(issuedDir);
    writeAtomic(path.join(issuedDir, `${normaliseSerialHex(serialHex)}.pem`), toPem(der, 'CERTIFICATE'), PUBLIC_MODE);
  };

  const revocations = async (): Promise<Map<string, Revocation>> => {
    const out = new Map<string, Revocation>();
    if (!existsSync(revokedDir)) return out;
    for (const name of readdirSync(revokedDir).sort()) {
      if (!name.endsWith('.json')) continue;
      const file = path.join(revokedDir, name);
      const parsed = revocationRecord.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      if (!parsed.success) throw new Error(`unreadable revocation record ${file}`);
      out.set(parsed.data.serial, parsed.data);
    }
    return out;
  };

  return {
    location: dir,
    loadOrCreate: async (fresh) => {
      if (!hasCa(dir)) await createPkiDir(dataDir, dir, await fresh());
      ensureDir(dir);
      const evidenceKey = keyDer(readRequired(dir, EVIDENCE_KEY_FILE));
      if (!existsSync(path.join(dir, EVIDENCE_PUB_FILE))) {
        const pub = createPublicKey(createPrivateKey({ key: Buffer.from(evidenceKey), format: 'der', type: 'pkcs8' }));
        writeAtomic(path.join(dir, EVIDENCE_PUB_FILE), pub.export({ format: 'pem', type: 'spki' }).toString(), PUBLIC_MODE);
      }
      return {
        ca: {
          privateKey: keyDer(readRequired(dir, keyFile('ca'))),
          certificate: fromPem(readRequired(dir, certFile('ca')), 'CERTIFICATE'),
        },
        evidence: { privateKey: evidenceKey },
        leaves: await loadLeaves(),
      };
    },
    loadLeaves,
    saveLeaf: async (role, certificate, newKey) => {
      if (newKey) writeAtomic(path.join(dir, keyFile(role)), keyPem(newKey), SECRET_MODE);
      await recordIssued(certificate.serialHex, certificate.der);
      writeAtomic(path.join(dir, certFile(role)), toPem(certificate.der, 'CERTIFICATE'), PUBLIC_MODE);
    },
    recordIssued,
    isIssued: async (serialHex) => existsSync(path.join(issuedDir, `${normaliseSerialHex(serialHex)}.pem`)),
    revocations,
    revoke: async (revocation) => {
      const existing = (await revocations()).get(revocation.serial);
      if (existing) return existing;
      ensureDir(revokedDir);
      writeAtomic(path.join(revokedDir, `${revocation.serial}.json`), `${JSON.stringify(revocation)}\n`, PUBLIC_MODE);
      return revocation;
    },
  };
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
 * First start: write the whole folder under a temporary name and rename it into place, so a crash
 * leaves nothing half-made and a second process starting at the same moment keeps the first one's.
 */
async function createPkiDir(dataDir: string, dir: string, material: PkiMaterial): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const tmp = path.join(dataDir, `.pki-${randomBytes(6).toString('hex')}.tmp`);
  ensureDir(tmp);
  try {
    writeAtomic(path.join(tmp, keyFile('ca')), keyPem(material.ca.privateKey), SECRET_MODE);
    writeAtomic(path.join(tmp, certFile('ca')), toPem(material.ca.certificate, 'CERTIFICATE'), PUBLIC_MODE);
    ensureDir(path.join(tmp, 'issued'));
    ensureDir(path.join(tmp, 'revoked'));
    for (const role of LEAF_ROLES) {
      const leaf = material.leaves[role];
      if (!leaf) continue;
      writeAtomic(path.join(tmp, keyFile(role)), keyPem(leaf.privateKey), SECRET_MODE);
      if (!leaf.certificate) continue;
      writeAtomic(path.join(tmp, 'issued', `${serialOf(leaf.certificate)}.pem`), toPem(leaf.certificate, 'CERTIFICATE'), PUBLIC_MODE);
      writeAtomic(path.join(tmp, certFile(role)), toPem(leaf.certificate, 'CERTIFICATE'), PUBLIC_MODE);
    }
    const evidence = createPrivateKey({ key: Buffer.from(material.evidence.privateKey), format: 'der', type: 'pkcs8' });
    writeAtomic(path.join(tmp, EVIDENCE_KEY_FILE), keyPem(material.evidence.privateKey), SECRET_MODE);
    writeAtomic(
      path.join(tmp, EVIDENCE_PUB_FILE),
      createPublicKey(evidence).export({ format: 'pem', type: 'spki' }).toString(),
      PUBLIC_MODE,
    );
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

/** Everything DATA_DIR/pki holds: the keys and certificates, every certificate issued, every revocation. */
export interface FolderPki {
  material: PkiMaterial;
  issued: { serialHex: string; der: Uint8Array }[];
  revocations: Revocation[];
}

/**
 * Read DATA_DIR/pki as it is, changing nothing (`tawqi db copy` moves it into the database); null
 * when there is no CA there (no PKI was ever made: the target makes its own at its first start).
 */
export async function readFolderPki(dataDir: string): Promise<FolderPki | null> {
  const dir = path.join(dataDir, 'pki');
  if (!hasCa(dir)) return null;
  const storage = filePkiStorage(dataDir);
  const issuedDir = path.join(dir, 'issued');
  const issued = existsSync(issuedDir)
    ? readdirSync(issuedDir)
        .filter((name) => name.endsWith('.pem') && !name.startsWith('.'))
        .sort()
        .map((name) => {
          const der = fromPem(readText(path.join(issuedDir, name)), 'CERTIFICATE');
          return { serialHex: serialOf(der), der };
        })
    : [];
  return {
    material: {
      ca: {
        privateKey: keyDer(readRequired(dir, keyFile('ca'))),
        certificate: fromPem(readRequired(dir, certFile('ca')), 'CERTIFICATE'),
      },
      evidence: { privateKey: keyDer(readRequired(dir, EVIDENCE_KEY_FILE)) },
      leaves: await storage.loadLeaves(),
    },
    issued,
    revocations: [...(await storage.revocations()).values()],
  };
}
