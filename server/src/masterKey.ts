import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { ConfigError, MASTER_KEY_HINT, parseMasterKey, type Config } from './config.js';

/**
 * TAWQI_MASTER_KEY: 32 random bytes (64 hex digits or base64) that encrypt what a PostgreSQL
 * installation keeps in its database and must not show in the clear: the server secrets (link and
 * document keys) and every private key of the built-in PKI. SQLite installations keep those as files
 * under DATA_DIR (mode 0600) and do not use the master key.
 *
 * A sealed value (version 1) is
 *
 *   0x01 | key id (8 bytes) | nonce (12 random bytes) | AES-256-GCM ciphertext | tag (16 bytes)
 *
 * The AES key is derived from the master key with HKDF-SHA256 (the master key itself encrypts
 * nothing). The additional authenticated data is the header (version and key id) followed by the
 * row's name, so a ciphertext copied into another row, or relabelled, does not open. The key id
 * (HKDF too, one-way) names the master key that sealed a value: a later rotation can keep the old
 * key beside the new one and pick by id; today a value under another id means the wrong key.
 */

const VERSION = 0x01;
const KEY_ID_BYTES = 8;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + KEY_ID_BYTES;

/** A fresh master key as 64 hex digits (`tawqi secrets new-master-key`). */
export function newMasterKeyHex(): string {
  return randomBytes(32).toString('hex');
}

/** A stored value that this master key cannot open: the wrong key, or a damaged value. Stops the start like a bad setting. */
export class MasterKeyError extends ConfigError {}

const derive = (master: Buffer, info: string, length: number): Buffer =>
  Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), info, length));

export class MasterKey {
  /** Names this master key in sealed values (one-way: it tells nothing about the key). */
  readonly id: Buffer;
  readonly #key: Buffer;

  constructor(master: Buffer) {
    if (master.length !== 32) throw new Error('a master key is 32 bytes');
    this.#key = derive(master, 'tawqi key material: AES-256-GCM v1', 32);
    this.id = derive(master, 'tawqi key material: key id v1', KEY_ID_BYTES);
  }

  /** Encrypt `plain` for the row named `name`. */
  seal(plain: Uint8Array, name: string): Buffer {
    const header = Buffer.concat([Buffer.from([VERSION]), this.id]);
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.concat([header, Buffer.from(name, 'utf8')]));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([header, nonce, body, cipher.getAuthTag()]);
  }

  /** Decrypt the value sealed for the row named `name`; throws MasterKeyError when this key cannot. */
  open(sealed: Uint8Array, name: string): Buffer {
    const box = Buffer.from(sealed);
    if (box.length < HEADER_BYTES + NONCE_BYTES + TAG_BYTES || box[0] !== VERSION) {
      throw new MasterKeyError(`Invalid setting:\n  TAWQI_MASTER_KEY cannot read the stored value "${name}" (unknown format)`);
    }
    const header = box.subarray(0, HEADER_BYTES);
    if (!header.subarray(1).equals(this.id)) {
      throw new MasterKeyError(
        'Invalid setting:\n  TAWQI_MASTER_KEY does not decrypt the stored keys: they were encrypted with another master key ' +
          `(key id ${header.subarray(1).toString('hex')}, this key's id ${this.id.toString('hex')}). Set the key this installation was created with.`,
      );
    }
    const nonce = box.subarray(HEADER_BYTES, HEADER_BYTES + NONCE_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.concat([header, Buffer.from(name, 'utf8')]));
    decipher.setAuthTag(box.subarray(box.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(box.subarray(HEADER_BYTES + NONCE_BYTES, box.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new MasterKeyError(
        `Invalid setting:\n  TAWQI_MASTER_KEY does not decrypt the stored keys: the stored value "${name}" was altered or belongs to another row`,
      );
    }
  }
}

/**
 * The master key of this installation: null on SQLite (keys stay files under DATA_DIR); with
 * DATABASE_URL it is required, and its absence stops the start naming the setting.
 */
export function masterKeyFor(config: Pick<Config, 'DATABASE_URL' | 'TAWQI_MASTER_KEY'>): MasterKey | null {
  if (!config.DATABASE_URL) return null;
  const bytes = config.TAWQI_MASTER_KEY ? parseMasterKey(config.TAWQI_MASTER_KEY) : null;
  if (!bytes) {
    throw new ConfigError(
      `Invalid setting:\n  TAWQI_MASTER_KEY: required with DATABASE_URL, ${MASTER_KEY_HINT}. It encrypts the server secrets and ` +
        'PKI private keys kept in the database; keep it apart from the database backups.',
    );
  }
  return new MasterKey(bytes);
}
