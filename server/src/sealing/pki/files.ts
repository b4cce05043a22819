import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * File plumbing of DATA_DIR/pki. Every write goes to a temporary file in the same folder and is renamed
 * into place, so a crash or a second server process on a shared volume never sees half a file.
 */

export const DIR_MODE = 0o700;
export const SECRET_MODE = 0o600;
export const PUBLIC_MODE = 0o644;

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  chmodSync(dir, DIR_MODE);
}

export function writeAtomic(file: string, data: string | Uint8Array, mode: number): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, data, { mode, flag: 'wx' });
    chmodSync(tmp, mode);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

export const readText = (file: string): string => readFileSync(file, 'utf8');
