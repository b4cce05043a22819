import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A signing link is `<public>/sign/<signer id>.<token>`, the token an HMAC of the signer id and its
 * link version under the server's link key. Nothing is stored, so the database holds no usable link;
 * bumping link_version revokes every earlier link of that signer.
 */
export function linkToken(linkKey: Buffer, signerId: string, version: number): string {
  return createHmac('sha256', linkKey).update(`${signerId}:${version}`).digest('base64url');
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
