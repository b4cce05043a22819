import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

/**
 * A signing link is `<public>/sign/<signer id>.<token>`, the token an HMAC of the signer id and its
 * link version under the server's link key. Nothing is stored, so the database holds no usable link;
 * bumping link_version revokes every earlier link of that signer.
 */
export function linkToken(linkKey: Buffer, signerId: string, version: number): string {
  const key = preparedKey(linkKey);
  const message = `${signerId}:${version}`;
  let token = key.recent.get(message) ?? key.older.get(message);
  if (token === undefined) {
    token = createHmac('sha256', key.object).update(message).digest('base64url');
    if (key.recent.size >= RECENT_TOKENS) {
      key.older = key.recent;
      key.recent = new Map();
    }
    key.recent.set(message, token);
  }
  return token;
}

/**
 * A link key as a KeyObject (an HMAC under it costs 1.9 µs instead of 2.7 µs with the raw bytes)
 * and the tokens it made last, in two generations of up to RECENT_TOKENS each (the older one is
 * dropped whole when the recent one is full: no per-entry eviction). A create computes each
 * signer's link for its answer and the outbox again moments later for the invitation. A token is
 * a pure function of its inputs, so remembering it changes nothing but the cost.
 */
const RECENT_TOKENS = 4096;
interface PreparedKey {
  object: KeyObject;
  recent: Map<string, string>;
  older: Map<string, string>;
}
const prepared = new WeakMap<Buffer, PreparedKey>();

function preparedKey(linkKey: Buffer): PreparedKey {
  let key = prepared.get(linkKey);
  if (!key) prepared.set(linkKey, (key = { object: createSecretKey(linkKey), recent: new Map(), older: new Map() }));
  return key;
}

export function signingUrl(publicUrl: string, linkKey: Buffer, signerId: string, version: number): string {
  return `${publicUrl}/sign/${signerId}.${linkToken(linkKey, signerId, version)}`;
}

/** Parse and check a link credential in constant time; returns the signer id when valid. */
export function verifyLink(linkKey: Buffer, credential: string, versionOf: (signerId: string) => number | undefined): string | null {
  const dot = credential.indexOf('.');
  if (dot <= 0) return null;
  const signerId = credential.slice(0, dot);
  const version = versionOf(signerId);
  if (version === undefined) return null;
  const expected = Buffer.from(linkToken(linkKey, signerId, version));
  const given = Buffer.from(credential.slice(dot + 1));
  return given.length === expected.length && timingSafeEqual(given, expected) ? signerId : null;
}
