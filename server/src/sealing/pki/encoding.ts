import { createHash, randomBytes } from 'node:crypto';

/** DER ↔ PEM, fingerprints and serial numbers: byte plumbing shared by the PKI modules. */

export function toPem(der: Uint8Array, label: string): string {
  const b64 = Buffer.from(der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** The DER inside the first PEM block with this label (e.g. CERTIFICATE); throws when there is none. */
export function fromPem(pem: string, label: string): Uint8Array {
  const re = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----`);
  const m = re.exec(pem);
  if (!m) throw new Error(`no PEM block "${label}" found`);
  return new Uint8Array(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'));
}

/** Every PEM block with this label, in order. */
export function allPem(pem: string, label: string): Uint8Array[] {
  const re = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----`, 'g');
  return [...pem.matchAll(re)].map((m) => new Uint8Array(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64')));
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * A fresh certificate serial number: 16 random bytes (RFC 5280 asks for ≥ 64 bits of entropy), positive
 * and without a leading zero byte, as lowercase hex.
 */
export function randomSerialHex(): string {
  const b = randomBytes(16);
  b[0] = (b[0]! & 0x7f) | 0x10;
  return b.toString('hex');
}

/** Canonical form of a serial for file names and lookups: lowercase hex, no leading zero bytes. */
export function normaliseSerialHex(hex: string): string {
  let h = hex.toLowerCase().replace(/[^0-9a-f]/g, '');
  if (h.length % 2) h = `0${h}`;
  while (h.startsWith('00') && h.length > 2) h = h.slice(2);
  return h;
}
