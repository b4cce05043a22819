/**
 * The servers the user trusts: origin → the server's Ed25519 public key (pinned when the user
 * trusted it) and its fingerprint. Stored as JSON in the agent's data directory (mode 0600).
 * Trusting is always an explicit user step (CLI `trust add`, the Electron trust window), showing
 * the origin and the fingerprint; removing is `trust remove` or the window's Remove button.
 */
import { createHash, createPublicKey } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OriginSchema, SERVER_KEY_PATH } from '@tawqi/shared';
import { z } from 'zod';

export const TrustedServerSchema = z.object({
  origin: OriginSchema,
  key_pem: z.string(),
  /** Hex SHA-256 of the key's SPKI DER. */
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
  added_at: z.number().int(),
});
export type TrustedServer = z.infer<typeof TrustedServerSchema>;

const FileSchema = z.object({ version: z.literal(1), servers: z.array(TrustedServerSchema) });

/** Hex SHA-256 of the SPKI DER of an Ed25519 public key given as PEM; throws if it is not one. */
export function keyFingerprint(pem: string): string {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the server key is not an Ed25519 public key');
  return createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

/** 64 hex digits in groups of four, for people comparing fingerprints. */
export function formatFingerprint(hex: string): string {
  return (hex.match(/.{1,4}/g) ?? []).join(' ');
}

/** https origins only, except loopback (http://localhost, http://127.0.0.1, http://[::1]) for development. */
export function normalizeOrigin(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new Error(`not a URL: ${input}`);
  }
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new Error('a server origin must use https (http only for localhost)');
  }
  return url.origin;
}

export interface FetchedKey {
  origin: string;
  keyPem: string;
  fingerprint: string;
}

/** Fetches `${origin}/pki/evidence-key.pem` and checks it is an Ed25519 SPKI key. */
export async function fetchServerKey(originInput: string, timeoutMs = 10_000): Promise<FetchedKey> {
  const origin = normalizeOrigin(originInput);
  const response = await fetch(origin + SERVER_KEY_PATH, { redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`${origin}${SERVER_KEY_PATH} answered ${response.status}`);
  const text = (await response.text()).slice(0, 10_000);
  const match = /-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----/.exec(text);
  if (!match) throw new Error(`${origin}${SERVER_KEY_PATH} is not a PEM public key`);
  const keyPem = match[0] + '\n';
  return { origin, keyPem, fingerprint: keyFingerprint(keyPem) };
}

export class TrustStore {
  private servers: TrustedServer[] = [];
  private readonly file: string;
  /** The file's stamp when `servers` was last read from or written to it; undefined: not known. */
  private loadedStamp: string | null | undefined = undefined;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'trusted-servers.json');
    this.reload();
  }

  /** Reads the file again (another process — the CLI — may have changed it). */
  reload(): void {
    this.loadedStamp = undefined;
    const stamp = this.stamp();
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch {
      this.servers = [];
      // Missing: remembered, so polling stays cheap. Present but unreadable: retried every time.
      if (stamp === null) this.loadedStamp = null;
      return;
    }
    const parsed = FileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${this.file} is not a valid trust store`);
    this.servers = parsed.data.servers;
    // The stamp was taken before reading: a write in between only makes the next check read again.
    if (stamp !== null) this.loadedStamp = stamp;
  }

  /**
   * Like reload(), but reads the file only when it changed (mtime, size or inode) since it was last
   * read or written here. A broken file is never remembered, so it throws again on every call.
   */
  reloadIfChanged(): void {
    if (this.loadedStamp !== undefined && this.loadedStamp === this.stamp()) return;
    this.reload();
  }

  /** `${mtimeMs}:${size}:${ino}` of the file, or null when it cannot be stat'ed (missing). */
  private stamp(): string | null {
    try {
      const st = statSync(this.file);
      return `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      return null;
    }
  }

  private save(): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ version: 1, servers: this.servers }, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, this.file);
    // What is in memory is what was just written.
    this.loadedStamp = this.stamp() ?? undefined;
  }

  list(): TrustedServer[] {
    return [...this.servers];
  }

  get(origin: string | undefined): TrustedServer | null {
    if (!origin) return null;
    return this.servers.find((s) => s.origin === origin) ?? null;
  }

  /** Trusts (or re-pins) a server. Call only after the user confirmed the origin and fingerprint. */
  add(key: FetchedKey, now = new Date()): TrustedServer {
    const entry: TrustedServer = {
      origin: normalizeOrigin(key.origin),
      key_pem: key.keyPem,
      fingerprint: keyFingerprint(key.keyPem),
      added_at: Math.floor(now.getTime() / 1000),
    };
    if (entry.fingerprint !== key.fingerprint) throw new Error('fingerprint does not match the key');
    this.servers = [...this.servers.filter((s) => s.origin !== entry.origin), entry];
    this.save();
    return entry;
  }

  remove(origin: string): boolean {
    const normalized = (() => {
      try {
        return normalizeOrigin(origin);
      } catch {
        return origin;
      }
    })();
    const before = this.servers.length;
    this.servers = this.servers.filter((s) => s.origin !== normalized);
    if (this.servers.length === before) return false;
    this.save();
    return true;
  }
}
