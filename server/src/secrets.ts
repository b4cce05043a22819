import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The server secrets, created on first start. SQLite installations keep them in DATA_DIR/secrets.json
 * (mode 0600, `loadSecrets`); PostgreSQL ones in the database, encrypted (services/keyMaterial.ts).
 */
export interface ServerSecrets {
  /** HMAC key for signing-link tokens: links are derived, so no token is stored at all. */
  linkKey: Buffer;
  /** HMAC key for document hashes (verification compares the stored text against it). */
  documentKey: Buffer;
  /**
   * The console's key: seals TOTP secrets at rest (AES-256-GCM), keys the CSRF tokens and the
   * recovery-code hashes (services/consoleCrypto.ts derives one key per use with HKDF).
   */
  consoleKey: Buffer;
}

/**
 * DATA_DIR/secrets.json as it is, created or completed by nothing (`tawqi db copy` moves it into the
 * database): null without the file, and a secret the file lacks is missing here too.
 */
export function readSecretsFile(dataDir: string): Partial<ServerSecrets> | null {
  const file = path.join(dataDir, 'secrets.json');
  if (!existsSync(file)) return null;
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { link_key?: string; document_key?: string; console_key?: string };
  return {
    ...(raw.link_key ? { linkKey: Buffer.from(raw.link_key, 'hex') } : {}),
    ...(raw.document_key ? { documentKey: Buffer.from(raw.document_key, 'hex') } : {}),
    ...(raw.console_key ? { consoleKey: Buffer.from(raw.console_key, 'hex') } : {}),
  };
}

export function loadSecrets(dataDir: string): ServerSecrets {
  const file = path.join(dataDir, 'secrets.json');
  if (!existsSync(file)) {
    writeFileSync(file, JSON.stringify({ link_key: randomBytes(32).toString('hex'), document_key: randomBytes(32).toString('hex') }), {
      mode: 0o600,
      flag: 'wx',
    });
  }
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { link_key: string; document_key?: string; console_key?: string };
  if (!raw.document_key || !raw.console_key) {
    // Secrets added by later versions are created on the next start, keeping the existing ones.
    raw.document_key ??= randomBytes(32).toString('hex');
    raw.console_key ??= randomBytes(32).toString('hex');
    writeFileSync(file, JSON.stringify(raw), { mode: 0o600 });
  }
  return {
    linkKey: Buffer.from(raw.link_key, 'hex'),
    documentKey: Buffer.from(raw.document_key, 'hex'),
    consoleKey: Buffer.from(raw.console_key, 'hex'),
  };
}
