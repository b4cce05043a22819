/**
 * openssl as the independent verifier of what the evidence key signs and the TSA stamps: each
 * returns openssl's own output, for the test to read ("Signature Verified Successfully",
 * "Verification: OK"). Files go to a temporary folder of their own, removed afterwards.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function withFiles(
  files: Record<string, Uint8Array | string>,
  use: (at: (name: string) => string) => Promise<string>,
): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-openssl-'));
  const at = (name: string) => path.join(dir, name);
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(at(name), content);
    return await use(at);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const output = (result: Promise<{ stdout: string; stderr: string }>) =>
  result.then(
    (r) => r.stdout + r.stderr,
    (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
  );

/** `openssl pkeyutl -verify -rawin`: an Ed25519 signature over data, with a PEM public key. */
export function opensslEd25519Verify(publicKeyPem: string, data: Uint8Array, signature: Uint8Array): Promise<string> {
  return withFiles({ 'key.pem': publicKeyPem, data, sig: signature }, (at) =>
    output(run('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', at('key.pem'), '-rawin', '-in', at('data'), '-sigfile', at('sig')])),
  );
}

/** `openssl ts -verify`: an RFC 3161 token (DER) over a SHA-256 digest (hex), trusting chainPem. */
export function opensslTimestampVerify(token: Uint8Array, sha256Hex: string, chainPem: string): Promise<string> {
  return withFiles({ 'token.der': token, 'chain.pem': chainPem }, (at) =>
    output(
      run('openssl', [
        'ts',
        '-verify',
        '-token_in',
        '-in',
        at('token.der'),
        '-digest',
        sha256Hex,
        '-CAfile',
        at('chain.pem'),
        '-partial_chain',
      ]),
    ),
  );
}
