import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Server secrets kept under DATA_DIR (mode 0600), created on first start. */
export interface ServerSecrets {
  /** HMAC key for signing-link tokens: links are derived, so no token is stored at all. */
  linkKey: Buffer;
}

export function loadSecrets(dataDir: string): ServerSecrets {
  const file = path.join(dataDir, 'secrets.json');
  if (!existsSync(file)) {
    writeFileSync(file, JSON.stringify({ link_key: randomBytes(32).toString('hex') }), { mode: 0o600, flag: 'wx' });
  }
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { link_key: string };
  return { linkKey: Buffer.from(raw.link_key, 'hex') };
}
