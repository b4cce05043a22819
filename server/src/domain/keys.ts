import * as nodeCrypto from 'node:crypto';
import { createHash, randomBytes } from 'node:crypto';
import { BlockList, isIP } from 'node:net';

export type KeyKind = 'secret' | 'publishable';
export type KeyMode = 'live' | 'test';

/** At most this many allowlist entries per secret key (spec part 8). */
export const MAX_ALLOWED_IPS = 50;
/** A rotated key stays valid this long unless stopped earlier. */
export const ROTATION_GRACE_SECONDS = 24 * 3600;

/** sk_ / pk_ / sk_test_ / pk_test_ followed by 40 hexadecimal characters (160 random bits). */
export function generateKey(kind: KeyKind, mode: KeyMode): string {
  const prefix = (kind === 'secret' ? 'sk_' : 'pk_') + (mode === 'test' ? 'test_' : '');
  return prefix + randomBytes(20).toString('hex');
}

/** How a key is named where its secret may not be shown (the key lists, the request log): sk_test_…1a2b. */
export function keyHint(k: { kind: KeyKind; mode: KeyMode; last4: string }): string {
  return `${k.kind === 'secret' ? 'sk' : 'pk'}_${k.mode === 'test' ? 'test_' : ''}…${k.last4}`;
}

const KEY_PATTERN = /^(sk|pk)_(test_)?[0-9a-f]{40}$/;

export function looksLikeKey(text: string): boolean {
  return KEY_PATTERN.test(text);
}

/**
 * Keys are stored only as SHA-256 digests. Keys carry 160 random bits, so a fast hash is enough;
 * the lookup is by digest, which leaks nothing about the key through timing.
 */
export function hashSecret(secret: string): string {
  return oneShotHash ? oneShotHash('sha256', secret, 'hex') : createHash('sha256').update(secret).digest('hex');
}

/**
 * crypto.hash (Node 20.12 and later; the engines field allows 20.9): the same digest without a Hash
 * object, 0.4 µs instead of 1.2 µs — every API request hashes its key once.
 */
const oneShotHash = (nodeCrypto as Partial<Pick<typeof nodeCrypto, 'hash'>>).hash;

/** Validate an allowlist entry: an IPv4/IPv6 address or a CIDR range. Returns the normalised entry or null. */
export function normaliseIpEntry(entry: string): string | null {
  const [address, prefix, ...rest] = entry.trim().split('/');
  if (rest.length > 0 || !address) return null;
  const family = isIP(address);
  if (family === 0) return null;
  if (prefix === undefined) return address;
  if (!/^\d{1,3}$/.test(prefix)) return null;
  const bits = Number(prefix);
  if (bits > (family === 4 ? 32 : 128)) return null;
  return `${address}/${bits}`;
}

/** Strip the IPv4-mapped IPv6 form (::ffff:1.2.3.4) that Node reports for IPv4 clients on dual-stack sockets. */
export function canonicalIp(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1]! : ip;
}

export function ipAllowed(ip: string, entries: readonly string[]): boolean {
  if (entries.length === 0) return true;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  const client = canonicalIp(ip);
  return list.check(client, isIP(client) === 4 ? 'ipv4' : 'ipv6');
}

/** Mask an email for publishable-key responses: first letter, stars, then the domain. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

export function maskPhone(phone: string): string {
  return phone.length <= 4 ? '****' : `${'*'.repeat(phone.length - 4)}${phone.slice(-4)}`;
}

/** A party name for the public: each word's first letter, the rest hidden ("S*** A***"). */
export function maskName(name: string): string {
  return name
    .trim()
    .split(/\s+/)
    .map((w) => `${[...w][0] ?? ''}***`)
    .join(' ');
}
