/**
 * The token service against a real SoftHSM2 token (test/support/softhsm.ts): enumeration, which
 * certificates are offered, signing RSA / P-256 / P-384 in the worker thread into a CMS that
 * openssl verifies, wrong-PIN state, and tokens plugged in and removed while the agent runs.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import type { TokenInfo } from '@tawqi/shared';
import { CKF_USER_PIN_COUNT_LOW } from '../../agent/src/core/pkcs11/constants.js';
import { discoverModules } from '../../agent/src/core/pkcs11/modules.js';
import { TokenService } from '../../agent/src/core/pkcs11/tokens.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { assembleSignedData, buildSignedAttributes, opensslVerify } from './helpers.js';

let hsm: SoftHsm;
let tokens: TokenService;

before(async () => {
  hsm = createSoftHsm();
  const { modules } = discoverModules({ configured: [hsm.module], known: false });
  tokens = await TokenService.start({ modules, pollIntervalMs: 100 });
});
after(async () => {
  await tokens?.close();
  hsm?.cleanup();
});

const content = Buffer.from('document bytes covered by the ByteRange');
const digest = createHash('sha256').update(content).digest();
const pin = () => new TextEncoder().encode(hsm.pin);

describe('SoftHSM2 token', () => {
  test('the module is loaded and the token enumerated with its PIN state', () => {
    assert.deepEqual(
      tokens.modules().map((m) => [m.id, m.loaded]),
      [['softhsm2', true]],
    );
    const list = tokens.tokens();
    assert.equal(list.length, 1);
    assert.equal(list[0]?.label, hsm.tokenLabel);
    assert.equal(list[0]?.manufacturer, 'SoftHSM project');
    assert.deepEqual(list[0]?.pin, { count_low: false, final_try: false, locked: false, pin_pad: false, retries: 'ok' });
  });

  test('offered: signing key usage, valid today, key on the token; the others never', async () => {
    const { entries } = await tokens.certificates();
    const byHash = new Map(entries.map((e) => [e.info.cert_sha256, e]));
    const offered = entries
      .filter((e) => e.offered)
      .map((e) => e.info.cert_sha256)
      .sort();
    assert.deepEqual(offered, [hsm.certs.rsa.sha256, hsm.certs.ec.sha256, hsm.certs.ec384.sha256].sort());
    assert.deepEqual(byHash.get(hsm.certs.noUsage.sha256)?.reasons, ['no_signing_key_usage']);
    assert.deepEqual(byHash.get(hsm.certs.expired.sha256)?.reasons, ['expired']);
    assert.ok(byHash.get(hsm.certs.issuingCa.sha256)?.reasons.includes('ca_certificate'));

    const rsa = byHash.get(hsm.certs.rsa.sha256);
    assert.equal(rsa?.info.key_type, 'rsa');
    assert.equal(rsa?.info.key_bits, 2048);
    assert.deepEqual(rsa?.info.key_usage, ['nonRepudiation']);
    assert.equal(rsa?.info.name, 'Test Signer RSA');
    assert.deepEqual(
      rsa?.chain.map((d) => Buffer.from(d)),
      [hsm.certs.issuingCa.der],
      'the chain certificate found on the token',
    );
    assert.equal(byHash.get(hsm.certs.ec.sha256)?.info.curve, 'P-256');
    assert.equal(byHash.get(hsm.certs.ec384.sha256)?.info.curve, 'P-384');
  });

  test('a certificate becomes offered only inside its validity period', async () => {
    const { entries } = await tokens.certificates(new Date('2020-06-01T00:00:00Z'));
    const expired = entries.find((e) => e.info.cert_sha256 === hsm.certs.expired.sha256);
    assert.equal(expired?.offered, true, 'valid in 2020');
    assert.equal(entries.find((e) => e.info.cert_sha256 === hsm.certs.rsa.sha256)?.reasons.includes('not_yet_valid'), true);
  });

  for (const name of ['rsa', 'ec', 'ec384'] as const) {
    test(`signs with ${name} in the worker; the CMS verifies with openssl`, async () => {
      const { entries } = await tokens.certificates();
      const entry = entries.find((e) => e.info.cert_sha256 === hsm.certs[name].sha256);
      assert.ok(entry?.offered);
      const signedAttributes = buildSignedAttributes(entry.der, digest);
      const outcome = await tokens.sign({
        slot: entry.slot,
        keyId: entry.keyId,
        keyType: entry.keyType,
        data: signedAttributes,
        pin: pin(),
      });
      assert.ok(outcome.ok, JSON.stringify(outcome));
      assert.equal(outcome.mechanism, name === 'rsa' ? 'CKM_SHA256_RSA_PKCS' : 'CKM_ECDSA');
      const cms = assembleSignedData({
        certificate: entry.der,
        chain: entry.chain,
        signedAttributes,
        keyType: entry.keyType,
        signature: outcome.signature,
      });
      const verdict = opensslVerify(cms, content, hsm.rootPemFile);
      assert.ok(verdict.ok, verdict.output);
    });
  }

  test('the caller’s PIN buffer is wiped as soon as it is handed to the worker', async () => {
    const { entries } = await tokens.certificates();
    const entry = entries.find((e) => e.info.cert_sha256 === hsm.certs.ec.sha256);
    assert.ok(entry);
    const bytes = pin();
    const pending = tokens.sign({ slot: entry.slot, keyId: entry.keyId, keyType: 'ec', data: new Uint8Array([1]), pin: bytes });
    assert.deepEqual(bytes, new Uint8Array(bytes.byteLength));
    assert.equal((await pending).ok, true);
  });

  test('a wrong PIN: pin_incorrect and CKF_USER_PIN_COUNT_LOW, cleared by the next good login', async () => {
    const { entries } = await tokens.certificates();
    const entry = entries.find((e) => e.info.cert_sha256 === hsm.certs.ec.sha256);
    assert.ok(entry);
    const wrong = await tokens.sign({
      slot: entry.slot,
      keyId: entry.keyId,
      keyType: 'ec',
      data: new Uint8Array([1]),
      pin: new TextEncoder().encode('000000'),
    });
    assert.equal(!wrong.ok && wrong.code, 'pin_incorrect');
    assert.ok(!wrong.ok && wrong.flags !== null && (wrong.flags & CKF_USER_PIN_COUNT_LOW) !== 0);
    const flags = await tokens.tokenFlags(entry.slot);
    assert.ok(flags !== null && (flags & CKF_USER_PIN_COUNT_LOW) !== 0, 'shown before the next PIN is typed');
    const right = await tokens.sign({ slot: entry.slot, keyId: entry.keyId, keyType: 'ec', data: new Uint8Array([1]), pin: pin() });
    assert.equal(right.ok, true);
    assert.equal(((await tokens.tokenFlags(entry.slot)) ?? 0) & CKF_USER_PIN_COUNT_LOW, 0);
  });

  test('tokens plugged in and removed are noticed by polling', async () => {
    const waitFor = async (predicate: (t: TokenInfo[]) => boolean): Promise<TokenInfo[]> => {
      for (;;) {
        const [list] = (await once(tokens, 'tokens-changed', { signal: AbortSignal.timeout(10_000) })) as [TokenInfo[]];
        if (predicate(list)) return list;
      }
    };
    const keepAlive = setInterval(() => {}, 1000); // the poll timer and the worker do not hold the process open
    try {
      const added = waitFor((t) => t.some((x) => x.label === 'Second Token'));
      hsm.addToken('Second Token');
      assert.equal((await added).length, 2);
      const removed = waitFor((t) => !t.some((x) => x.label === 'Second Token'));
      hsm.removeToken('Second Token');
      assert.deepEqual(
        (await removed).map((t) => t.label),
        [hsm.tokenLabel],
      );
    } finally {
      clearInterval(keepAlive);
    }
  });
});
