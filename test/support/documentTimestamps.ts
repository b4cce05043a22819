/**
 * PAdES B-LTA document timestamps in a PDF, read from the bytes (not through server code) and
 * checked by `openssl ts -verify -data` over the bytes their ByteRange covers.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as asn1js from 'asn1js';

export interface DocumentTimestamp {
  byteRange: [number, number, number, number];
  /** The DER TimeStampToken, its zero padding cut off. */
  token: Buffer;
  /** The bytes the ByteRange covers. */
  covered: Buffer;
}

/** Every /Type /DocTimeStamp dictionary's ByteRange and token, in file order. */
export function documentTimestampsOf(pdf: Uint8Array): DocumentTimestamp[] {
  const text = Buffer.from(pdf).toString('latin1');
  const out: DocumentTimestamp[] = [];
  for (const match of text.matchAll(/\/Type \/DocTimeStamp[^]*?\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)) {
    const byteRange = [1, 2, 3, 4].map((i) => Number(match[i])) as [number, number, number, number];
    const [a, b, c, d] = byteRange;
    const padded = Buffer.from(text.slice(b + 1, c - 1), 'hex');
    const token = padded.subarray(0, asn1js.fromBER(padded).offset);
    out.push({ byteRange, token, covered: Buffer.concat([Buffer.from(pdf.subarray(a, a + b)), Buffer.from(pdf.subarray(c, c + d))]) });
  }
  return out;
}

/**
 * `openssl ts -verify -data <covered bytes> -in <token> -token_in -CAfile …`: what it printed and
 * whether it said "Verification: OK". `attime` (Unix seconds) checks the certificates at that time.
 */
export function verifyDocumentTimestamp(
  stamp: DocumentTimestamp,
  trust: { caFile: string; untrustedFile?: string; attime?: number },
): { ok: boolean; output: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-docts-'));
  try {
    writeFileSync(path.join(dir, 'data.bin'), stamp.covered);
    writeFileSync(path.join(dir, 'token.tst'), stamp.token);
    const args = ['ts', '-verify', '-data', path.join(dir, 'data.bin'), '-in', path.join(dir, 'token.tst'), '-token_in'];
    args.push('-CAfile', trust.caFile);
    if (trust.untrustedFile) args.push('-untrusted', trust.untrustedFile);
    if (trust.attime !== undefined) args.push('-attime', String(trust.attime));
    const result = spawnSync('openssl', args, { encoding: 'utf8' });
    const output = `${result.stdout}${result.stderr}`;
    return { ok: result.status === 0 && /Verification: OK/.test(output), output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
