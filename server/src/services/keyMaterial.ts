/**
 * Where the server secrets and the built-in PKI's keys live. They follow the database:
 *
 *   SQLite (the default)   files under DATA_DIR, as in every earlier version: secrets.json and pki/
 *                          (secrets.ts, sealing/pki/fileStorage.ts); TAWQI_MASTER_KEY is not used.
 *   PostgreSQL             rows of server_keys and pki_certificates, shared by every server process
 *                          and the CLI: each secret and private key sealed with TAWQI_MASTER_KEY
 *                          (AES-256-GCM, bound to its row name; masterKey.ts), certificates in the clear.
 *
 * On PostgreSQL the first process to start creates them. Processes starting at the same moment each
 * make a candidate; the first transaction to commit stores its own, the others find it (in their
 * snapshot, or after the serialization failure store.tx retries) and take it.
 */
import { randomBytes, X509Certificate } from 'node:crypto';
import { nowSeconds, type Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { MasterKey } from '../masterKey.js';
import { loadSecrets, type ServerSecrets } from '../secrets.js';
import {
  filePkiStorage,
  normaliseSerialHex,
  type FolderPki,
  revocationRecord,
  type LeafRole,
  type PkiMaterial,
  type PkiStorage,
  type Revocation,
  type StoredLeaf,
} from '../sealing/pki/index.js';
import {
  getServerKeys,
  insertServerKeysIfAbsent,
  isCertificateIssued,
  listRevokedCertificates,
  recordIssuedCertificate,
  revokeCertificateRow,
  updateServerKey,
  type ServerKeyRow,
} from '../store/serverKeys.js';
import type { Db, Store } from '../store/types.js';

const LEAF_ROLES: readonly LeafRole[] = ['seal', 'tsa', 'ocsp'];
const PKI_NAMES = ['ca', 'evidence', ...LEAF_ROLES] as const;
const SECRET_NAMES = ['link_key', 'document_key', 'console_key'] as const;

export interface KeyMaterial {
  /** Where the PKI keeps its keys, certificates and revocations. */
  pki: PkiStorage;
  /** The server secrets, made on first use. */
  secrets(): Promise<ServerSecrets>;
}

/** The key material of this installation: `masterKey` is masterKeyFor(config), null on SQLite. */
export function keyMaterialFor(config: Config, masterKey: MasterKey | null, store: Store, clock: Clock): KeyMaterial {
  if (!masterKey) return { pki: filePkiStorage(config.DATA_DIR), secrets: async () => loadSecrets(config.DATA_DIR) };
  return { pki: databasePkiStorage(store, masterKey, clock), secrets: () => loadDatabaseSecrets(store, masterKey, clock) };
}

/** The link and document keys from server_keys, each made (and stored sealed) the first time it is asked for. */
export async function loadDatabaseSecrets(store: Store, master: MasterKey, clock: Clock): Promise<ServerSecrets> {
  const now = nowSeconds(clock);
  const rows = await store.tx(async (trx) => {
    const have = await getServerKeys(trx, SECRET_NAMES);
    // Secrets added by later versions are made when first missing, keeping the existing ones.
    const missing = SECRET_NAMES.filter((name) => !have.some((r) => r.name === name));
    if (missing.length === 0) return have;
    await insertServerKeysIfAbsent(
      trx,
      missing.map((name) => ({
        name,
        encrypted_secret: master.seal(randomBytes(32), name),
        certificate: null,
        created_at: now,
        updated_at: now,
      })),
    );
    return getServerKeys(trx, SECRET_NAMES);
  });
  const open = (name: (typeof SECRET_NAMES)[number]) => master.open(rows.find((r) => r.name === name)!.encrypted_secret, name);
  return { linkKey: open('link_key'), documentKey: open('document_key'), consoleKey: open('console_key') };
}

/** What a SQLite installation keeps as files under DATA_DIR (secrets.json, pki/): readSecretsFile and readFolderPki. */
export interface FolderKeyMaterial {
  secrets: Partial<ServerSecrets> | null;
  pki: FolderPki | null;
}

/**
 * Store a SQLite installation's secrets and PKI in the server_keys and pki_certificates rows of a
 * PostgreSQL database (`tawqi db copy`), on the caller's transaction: sealed with the master key
 * exactly as a first PostgreSQL start stores its own, so the servers on that database use the same
 * CA, seal, TSA, OCSP and evidence keys and the same link and document keys — documents sealed and
 * links sent before the move still verify. Every issued certificate and revocation comes along (OCSP
 * answers as before). A secret or key the folder lacks is made by the first start, as on SQLite.
 */
export async function storeFolderKeyMaterial(trx: Db, master: MasterKey, folder: FolderKeyMaterial, now: number): Promise<void> {
  const secretOf = {
    link_key: folder.secrets?.linkKey,
    document_key: folder.secrets?.documentKey,
    console_key: folder.secrets?.consoleKey,
  };
  const secrets = SECRET_NAMES.flatMap((name) => {
    const secret = secretOf[name];
    return secret ? [{ name, encrypted_secret: master.seal(secret, name), certificate: null, created_at: now, updated_at: now }] : [];
  });
  await insertServerKeysIfAbsent(trx, secrets);
  if (!folder.pki) return;
  await insertMaterial(trx, master, folder.pki.material, now);
  for (const cert of folder.pki.issued) await recordIssuedCertificate(trx, normaliseSerialHex(cert.serialHex), cert.der, now);
  for (const r of folder.pki.revocations) {
    if (!(await revokeCertificateRow(trx, r.serial, r.revoked_at, r.reason))) {
      throw new Error(`pki: serial ${r.serial} is revoked in pki/revoked but has no certificate in pki/issued`);
    }
  }
}

const serialOf = (der: Uint8Array): string => normaliseSerialHex(new X509Certificate(Buffer.from(der)).serialNumber);

/** The PKI's storage port on the database (see the top of this file). */
export function databasePkiStorage(store: Store, master: MasterKey, clock: Clock): PkiStorage {
  const leafOf = (row: ServerKeyRow | undefined): StoredLeaf | null =>
    row ? { privateKey: master.open(row.encrypted_secret, row.name), certificate: row.certificate } : null;
  const leavesOf = (rows: ServerKeyRow[]): Record<LeafRole, StoredLeaf | null> =>
    Object.fromEntries(LEAF_ROLES.map((role) => [role, leafOf(rows.find((r) => r.name === role))])) as Record<LeafRole, StoredLeaf | null>;

  return {
    location: 'the database (table server_keys)',
    loadOrCreate: async (fresh) => {
      let rows = await getServerKeys(store.db, PKI_NAMES);
      if (!rows.some((r) => r.name === 'ca')) {
        const candidate = await fresh();
        rows = await store.tx(async (trx) => {
          if ((await getServerKeys(trx, ['ca'])).length === 0) await insertMaterial(trx, master, candidate, nowSeconds(clock));
          return getServerKeys(trx, PKI_NAMES);
        });
      }
      return materialOf(rows, master, leavesOf(rows));
    },
    loadLeaves: async () => leavesOf(await getServerKeys(store.db, LEAF_ROLES)),
    saveLeaf: async (role, certificate, newKey) => {
      const now = nowSeconds(clock);
      const sealed = newKey ? master.seal(newKey, role) : null;
      await store.tx(async (trx) => {
        // Recorded first: a certificate in use is always one OCSP knows.
        await recordIssuedCertificate(trx, certificate.serialHex, certificate.der, now);
        if (sealed) {
          const row = { name: role, encrypted_secret: sealed, certificate: certificate.der, created_at: now, updated_at: now };
          await insertServerKeysIfAbsent(trx, [row]);
        }
        await updateServerKey(trx, role, { certificate: certificate.der, encrypted_secret: sealed }, now);
      });
    },
    recordIssued: (serialHex, der) => store.tx((trx) => recordIssuedCertificate(trx, serialHex, der, nowSeconds(clock))),
    isIssued: (serialHex) => isCertificateIssued(store.db, serialHex),
    revocations: async () => {
      const rows = await listRevokedCertificates(store.db);
      return new Map(rows.map((r) => [r.serial, revocationFrom(r.serial, r.revoked_at, r.revocation_reason)]));
    },
    revoke: async (revocation) => {
      const standing = await store.tx((trx) => revokeCertificateRow(trx, revocation.serial, revocation.revoked_at, revocation.reason));
      if (!standing) throw new Error(`pki: serial ${revocation.serial} is not recorded as issued`);
      return revocationFrom(revocation.serial, standing.revoked_at, standing.revocation_reason);
    },
  };
}

/** A row's revocation, checked like a revocation file: a bad one stops with its serial, never ignored. */
function revocationFrom(serial: string, revokedAt: number, reason: string | null): Revocation {
  const parsed = revocationRecord.safeParse({ serial, revoked_at: revokedAt, reason });
  if (!parsed.success) throw new Error(`pki: unreadable revocation of serial ${serial} in pki_certificates`);
  return parsed.data;
}

/** A new PKI's rows: every key sealed under its own name, the leaves' certificates recorded as issued. */
async function insertMaterial(trx: Db, master: MasterKey, m: PkiMaterial, now: number): Promise<void> {
  const row = (name: string, secret: Uint8Array, certificate: Uint8Array | null): ServerKeyRow => ({
    name,
    encrypted_secret: master.seal(secret, name),
    certificate,
    created_at: now,
    updated_at: now,
  });
  const rows = [row('ca', m.ca.privateKey, m.ca.certificate), row('evidence', m.evidence.privateKey, null)];
  for (const role of LEAF_ROLES) {
    const leaf = m.leaves[role];
    if (!leaf) continue;
    rows.push(row(role, leaf.privateKey, leaf.certificate));
    if (leaf.certificate) await recordIssuedCertificate(trx, serialOf(leaf.certificate), leaf.certificate, now);
  }
  // DO NOTHING on a name already stored: with SERIALIZABLE, a row another process committed meanwhile
  // fails this transaction instead (retried, it then finds that process's PKI).
  await insertServerKeysIfAbsent(trx, rows);
}

function materialOf(rows: ServerKeyRow[], master: MasterKey, leaves: Record<LeafRole, StoredLeaf | null>): PkiMaterial {
  const need = (name: 'ca' | 'evidence'): ServerKeyRow => {
    const row = rows.find((r) => r.name === name);
    if (!row) {
      throw new Error(
        `pki: the ${name} key is missing from the database (table server_keys). Restore the database from a backup; ` +
          'a new PKI is never made over a partial one (documents sealed before would no longer chain to it).',
      );
    }
    return row;
  };
  const ca = need('ca');
  if (!ca.certificate) throw new Error('pki: the CA certificate is missing from the database (table server_keys, row ca)');
  return {
    ca: { privateKey: master.open(ca.encrypted_secret, 'ca'), certificate: ca.certificate },
    evidence: { privateKey: master.open(need('evidence').encrypted_secret, 'evidence') },
    leaves,
  };
}
