/**
 * The representative's identity check with an identity provider configured (company verification,
 * spec part 5): the same adapter and signed callback as a signer's check, against a local provider
 * speaking the generic protocol over real HTTP (test/support/identityProvider.ts). The configured
 * engine (SQLite or PostgreSQL).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertError } from '../support/envelope.js';
import { CONSOLE_TEST_ENV, consoleUser, signedInClient } from '../support/consoleClient.js';
import { startIdentityProvider, type IdentityProviderPeer } from '../support/identityProvider.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let peer: IdentityProviderPeer;

before(async () => {
  peer = await startIdentityProvider();
  s = await startTestServer({
    ...CONSOLE_TEST_ENV,
    TAWQI_IDENTITY_PROVIDER_URL: peer.url,
    TAWQI_IDENTITY_PROVIDER_KEY: peer.apiKey,
    TAWQI_IDENTITY_CALLBACK_SECRET: peer.callbackSecret,
  });
  peer.now = () => Math.floor(s.clock.nowMs() / 1000);
});
after(async () => {
  await s.close();
  await peer.close();
});

test('the provider opens the check (resumed, not duplicated), its signed results are recorded with the name match; no simulation', async () => {
  const a = await s.account({ name: 'Sphinx Co', kyb: 'none' });
  await consoleUser(s, a.id, 'owner@sphinx.example', 'owner');
  const owner = await signedInClient(s, 'owner@sphinx.example');

  const started = await owner.call('POST', '/company_verification/representative', { body: { name: 'Omar Farouk' } });
  assert.equal(started.status, 201, started.text);
  assert.equal(started.body.simulated, false);
  assert.equal(started.body.provider, 'generic');
  const session = peer.sessionFor(started.body.verification_id)!;
  assert.equal(started.body.url, `${peer.url}/verify/${session.id}`);
  assert.equal(session.expected_name, 'Omar Farouk');
  assert.equal(session.return_url, `${s.url}/console/verification`);
  assert.equal(session.callback_url, `${s.url}/identity/callbacks/generic`);

  const again = await owner.call('POST', '/company_verification/representative', { body: { name: 'Omar Farouk' } });
  assert.equal(again.body.verification_id, started.body.verification_id, 'an open check is resumed');
  assert.equal(session.opened, 2);

  const review = await peer.callback(session.id, 'in_review');
  assert.equal(review.status, 200, review.text);
  assertError(await owner.call('POST', '/company_verification/representative', { body: { name: 'Omar Farouk' } }), 'invalid_state');
  const approved = await peer.callback(session.id, 'approved', {
    document: { name: 'OMAR  FAROUK', type: 'national_id', number_last4: '4321' },
  });
  assert.deepEqual(approved.body, { received: true, outcome: 'applied', status: 'approved' });
  assert.equal((await peer.callback(session.id, 'approved')).body.outcome, 'duplicate');
  const forged = await peer.callback(session.id, 'declined', { secret: 'not-the-shared-secret-0000' });
  assertError(forged as never, 'parameter_invalid');

  const view = await owner.call('GET', '/company_verification');
  assert.equal(view.body.representative.status, 'approved');
  assert.equal(view.body.representative.simulated, false);
  assert.deepEqual(view.body.representative.name_match, { state: 'match', document_name: 'OMAR  FAROUK' });
  assert.equal(view.body.representative.document_last4, '4321');
  // The simulation page does not open a provider's check.
  const simulated = await fetch(`${s.url}/identity/simulate/${started.body.verification_id}?token=1.x`, {
    headers: { accept: 'application/json' },
  });
  assert.equal(simulated.status, 404);
});
