/**
 * Signing link tokens: an HMAC-SHA256 of `<signer id>:<link version>` under the link key, base64url.
 * linkToken keeps a prepared key and remembers recent tokens (domain/signingLinks.ts); these tests
 * hold it to the plain HMAC whatever it remembers, across keys, versions and more tokens than it keeps.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { linkToken, signingUrl, verifyLink } from '../../server/src/domain/signingLinks.js';

const reference = (key: Buffer, signerId: string, version: number): string =>
  createHmac('sha256', key).update(`${signerId}:${version}`).digest('base64url');

describe('signing link tokens', () => {
  test('every token is the plain HMAC, first time and remembered, for more signers than are remembered', () => {
    const key = randomBytes(32);
    const ids = Array.from({ length: 10_000 }, (_, i) => `sgr_${String(i).padStart(24, '0')}`);
    for (const round of [1, 2]) for (const id of ids) assert.equal(linkToken(key, id, round), reference(key, id, round));
    for (const id of ids.slice(-100)) assert.equal(linkToken(key, id, 2), reference(key, id, 2), 'remembered ones');
  });

  test('another key or another version gives another token; a bumped version revokes the old link', () => {
    const a = randomBytes(32);
    const b = Buffer.from(a);
    b[0] = b[0]! ^ 1;
    const id = 'sgr_000000000000000000000001';
    assert.notEqual(linkToken(a, id, 1), linkToken(b, id, 1));
    assert.equal(linkToken(b, id, 1), reference(b, id, 1));
    assert.notEqual(linkToken(a, id, 1), linkToken(a, id, 2));
    const credential = signingUrl('https://x.example', a, id, 1).split('/sign/')[1]!;
    assert.equal(
      verifyLink(a, credential, () => 1),
      id,
    );
    assert.equal(
      verifyLink(a, credential, () => 2),
      null,
    );
    assert.equal(
      verifyLink(b, credential, () => 1),
      null,
    );
  });
});
