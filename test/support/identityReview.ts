/**
 * Items of the console's identity review queue, made as a signer and the simulation provider
 * would: a test-mode AES request whose signer passed the code step and then either got a document
 * with another name on it (held on a name mismatch) or a check the provider put in review.
 */
import assert from 'node:assert/strict';
import { applyIdentityResult, simulateIdentityDecision, startIdentityVerification } from '../../server/src/services/identity.js';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { latestVerificationOf } from '../../server/src/store/identityVerifications.js';
import { NDA_FIELDS } from './ndaFields.js';
import type { TestServer } from './server.js';

/** A sent AES request (identity required) with one signer, from the built-in NDA template, made with `key`. */
export async function aesRequest(
  s: TestServer,
  key: string,
  title: string,
  signer: { name: string; email: string },
): Promise<{ id: string; signerId: string }> {
  const r = await s.call('POST', '/signature_requests', {
    key,
    body: {
      title,
      legal_level: 'aes',
      source: { type: 'template', template_id: 'tpl_nda_ar' },
      signers: [{ ...signer, fields: NDA_FIELDS }],
    },
  });
  assert.equal(r.status, 201, r.text);
  return { id: r.body.id, signerId: r.body.signers[0].id };
}

/** The signer passes the code step and starts the identity check. */
async function startCheck(s: TestServer, signerId: string): Promise<void> {
  await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signerId, 'otp_verified', { ip: '203.0.113.1', user_agent: 'test' }));
  await startIdentityVerification(s.ctx, signerId);
}

/** Held on a name mismatch: the simulated document passes but carries `documentName`, not the name sent. */
export async function holdOnNameMatch(s: TestServer, signerId: string, documentName: string): Promise<void> {
  await startCheck(s, signerId);
  await simulateIdentityDecision(s.ctx, signerId, 'approve', { documentName });
}

/** An identity check the provider put in manual review. */
export async function putInReview(s: TestServer, signerId: string): Promise<void> {
  await startCheck(s, signerId);
  const v = (await latestVerificationOf(s.ctx.store.db, signerId))!;
  await s.ctx.store.tx((trx) => applyIdentityResult(s.ctx, trx, v, { status: 'in_review' }));
}
