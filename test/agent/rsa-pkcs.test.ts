/**
 * A token that offers CKM_RSA_PKCS but not CKM_SHA256_RSA_PKCS (SoftHSM2 with an allow-list of mechanisms
 * in its config — its own process, as SOFTHSM2_CONF is read once per process): the agent signs a
 * DigestInfo it builds, and the CMS still verifies with openssl.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { discoverModules } from '../../agent/src/core/pkcs11/modules.js';
import { TokenService } from '../../agent/src/core/pkcs11/tokens.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { assembleSignedData, buildSignedAttributes, opensslVerify } from './helpers.js';

let hsm: SoftHsm;
let tokens: TokenService;

before(async () => {
  hsm = createSoftHsm({ mechanisms: 'CKM_RSA_PKCS,CKM_ECDSA,CKM_RSA_PKCS_KEY_PAIR_GEN,CKM_EC_KEY_PAIR_GEN' });
  tokens = await TokenService.start({ modules: discoverModules({ configured: [hsm.module], known: false }).modules, pollIntervalMs: 0 });
});
after(async () => {
  await tokens?.close();
  hsm?.cleanup();
});

test('RSA falls back to CKM_RSA_PKCS over our DigestInfo; the CMS verifies', async () => {
  const content = Buffer.from('content signed through CKM_RSA_PKCS');
  const { entries } = await tokens.certificates();
  const entry = entries.find((e) => e.info.cert_sha256 === hsm.certs.rsa.sha256);
  assert.ok(entry?.offered);
  const signedAttributes = buildSignedAttributes(entry.der, createHash('sha256').update(content).digest());
  const outcome = await tokens.sign({
    slot: entry.slot,
    keyId: entry.keyId,
    keyType: 'rsa',
    data: signedAttributes,
    pin: new TextEncoder().encode(hsm.pin),
  });
  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.equal(outcome.mechanism, 'CKM_RSA_PKCS');
  const cms = assembleSignedData({
    certificate: entry.der,
    chain: entry.chain,
    signedAttributes,
    keyType: 'rsa',
    signature: outcome.signature,
  });
  const verdict = opensslVerify(cms, content, hsm.rootPemFile);
  assert.ok(verdict.ok, verdict.output);
});
