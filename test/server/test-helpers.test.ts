/**
 * The test helpers (POST /api/v1/test_helpers/signers/{id}/…) over real HTTP: a secret test key acts
 * as a test signer and gets exactly what the signer's page gives (the same events in the same order,
 * the same completion and seal job); Idempotency-Key replays; live keys, publishable keys, live
 * objects, other accounts' signers and bad ids are refused, and nothing is touched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { updateAccount } from '../../server/src/store/accounts.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { lastOtp, PageClient, pngDataUrl } from '../support/signing.js';

const TEAM = ['amira@helpers.example', 'bassem@helpers.example'];

describe('test helpers', () => {
  let s: TestServer;
  let a: { id: string; keys: TestServer['keys'] };
  let template: string;

  before(async () => {
    s = await startTestServer();
    a = await s.account({ ownerEmail: TEAM[0] });
    await s.ctx.store.tx((trx) => updateAccount(trx, a.id, { team_emails: TEAM }));
    const tpl = await s.call('POST', '/templates', {
      key: a.keys.secret_test,
      body: { title: 'Helpers', language: 'en', body: 'Agreed.', fields: [] },
    });
    assert.equal(tpl.status, 201, tpl.text);
    template = tpl.body.id;
  });
  after(() => s.close());

  async function create(key: string, signers = 1, extra: Record<string, unknown> = {}) {
    const body = {
      title: 'Lease',
      source: { type: 'template', template_id: template },
      signers: TEAM.slice(0, signers).map((email, i) => ({ name: `Signer ${i + 1}`, email, ...extra })),
    };
    const r = await s.call('POST', '/signature_requests', { key, body });
    assert.equal(r.status, 201, r.text);
    return r.body as { id: string; signers: { id: string; signing_url: string }[] };
  }
  const helper = (signer: string, action: string, opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    s.call('POST', `/test_helpers/signers/${signer}/${action}`, { key: a.keys.secret_test, ...opts });

  /** The request's events, oldest first: type and the object's status. */
  async function events(id: string, key = a.keys.secret_test) {
    const r = await s.call('GET', `/events?signature_request=${id}&limit=100`, { key });
    assert.equal(r.status, 200, r.text);
    return (r.body.data as { type: string; data: { object: { status: string } } }[])
      .map((e) => ({ type: e.type, status: e.data.object.status }))
      .reverse();
  }
  const jobsOf = async (id: string) =>
    (await s.ctx.store.db.selectFrom('jobs').select('kind').where('payload', 'like', `%${id}%`).execute()).map((j) => j.kind).sort();

  test('sign: the events, completion and seal job of a signing on the real page; an Idempotency-Key replays it', async () => {
    // The reference: a signer on the real page, with the emailed code.
    const real = await create(a.keys.secret_test);
    const page = await PageClient.open(real.signers[0]!.signing_url);
    await page.call('POST', '/view');
    await page.call('POST', '/otp/send');
    assert.equal((await page.call('POST', '/otp/verify', { code: await lastOtp(s, real.signers[0]!.id) })).status, 200);
    assert.equal((await page.call('POST', '/sign', { signature: pngDataUrl(), consent: true })).status, 200);

    const r = await create(a.keys.secret_test);
    const signed = await helper(r.signers[0]!.id, 'sign', { headers: { 'Idempotency-Key': 'helper-sign-1' } });
    assert.equal(signed.status, 200, signed.text);
    assert.equal(signed.body.object, 'signature_request');
    assert.equal(signed.body.id, r.id);
    assert.equal(signed.body.status, 'completed');
    assert.equal(signed.body.signers[0].status, 'signed');
    const got = await events(r.id);
    assert.deepEqual(got, await events(real.id), 'the same events, in the same order, with the same states');
    assert.deepEqual(
      got.map((e) => e.type),
      [
        'signature_request.sent',
        'signer.sent',
        'signature_request.viewed',
        'signer.viewed',
        'signer.otp_verified',
        'signer.signed',
        'signature_request.completed',
      ],
    );
    assert.deepEqual(await jobsOf(r.id), await jobsOf(real.id), 'the same jobs (the seal job among them)');
    assert.ok((await jobsOf(r.id)).includes('seal_request'));
    await s.jobs.runDue();
    for (const id of [real.id, r.id]) {
      const d = await s.call('GET', `/signature_requests/${id}/download`, { key: a.keys.secret_test });
      assert.equal(d.body.pdf_status, 'ready', `${id}: ${d.text}`);
    }

    const again = await helper(r.signers[0]!.id, 'sign', { headers: { 'Idempotency-Key': 'helper-sign-1' } });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.text, signed.text);
    assert.equal((await events(r.id)).length, got.length, 'nothing applied twice');
    const late = await helper(r.signers[0]!.id, 'sign');
    assertError(late, 'invalid_state');
    assert.equal(late.body.error.reason, 'signed');
  });

  test('verify_otp, then sign on a two-signer request: otp_verified, then partially_signed', async () => {
    const r = await create(a.keys.secret_test, 2);
    const v = await helper(r.signers[0]!.id, 'verify_otp');
    assert.equal(v.status, 200, v.text);
    assert.equal(v.body.signers[0].status, 'otp_verified');
    assertError(await helper(r.signers[0]!.id, 'verify_otp'), 'invalid_state');
    const signed = await helper(r.signers[0]!.id, 'sign');
    assert.equal(signed.body.status, 'partially_signed');
    assert.deepEqual((await events(r.id)).map((e) => e.type).slice(-3), [
      'signer.otp_verified',
      'signer.signed',
      'signature_request.partially_signed',
    ]);
  });

  test('identity: approved or declined in the simulation; a declined signer cannot be signed for; sign approves a pending one', async () => {
    const declined = await create(a.keys.secret_test, 1, { require_identity: true });
    assertError(await helper(declined.signers[0]!.id, 'identity', { body: { decision: 'maybe' } }), 'parameter_invalid');
    const d = await helper(declined.signers[0]!.id, 'identity', { body: { decision: 'decline' } });
    assert.equal(d.status, 200, d.text);
    assert.equal(d.body.signers[0].identity.status, 'declined');
    assert.deepEqual((await events(declined.id)).map((e) => e.type).slice(-2), ['signer.otp_verified', 'signer.identity_declined']);
    assertError(await helper(declined.signers[0]!.id, 'sign'), 'invalid_state');

    const plain = await create(a.keys.secret_test);
    const notRequired = await helper(plain.signers[0]!.id, 'identity', { body: { decision: 'approve' } });
    assertError(notRequired, 'invalid_state');
    assert.equal(notRequired.body.error.reason, 'identity_not_required');
    assert.deepEqual(
      (await events(plain.id)).map((e) => e.type),
      ['signature_request.sent', 'signer.sent'],
      'refused before the code step',
    );

    const approved = await create(a.keys.secret_test, 1, { require_identity: true });
    const ok = await helper(approved.signers[0]!.id, 'sign');
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.status, 'completed');
    assert.deepEqual((await events(approved.id)).map((e) => e.type).slice(-4), [
      'signer.otp_verified',
      'signer.identity_verified',
      'signer.signed',
      'signature_request.completed',
    ]);
  });

  test('refused: a live key (test_mode_only, both languages), a publishable key, a live object, another account, bad ids', async () => {
    const r = await create(a.keys.secret_test);
    const signer = r.signers[0]!.id;
    await assertErrorBothLanguages(
      (prefix) => s.call('POST', `/test_helpers/signers/${signer}/sign`, { key: a.keys.secret_live, prefix }),
      'test_mode_only',
    );
    assertError(await helper(signer, 'sign', { key: a.keys.publishable_test }), 'forbidden');

    const live = await create(a.keys.secret_live);
    const liveSigner = live.signers[0]!.id;
    const before = await events(live.id, a.keys.secret_live);
    for (const action of ['verify_otp', 'sign']) assertError(await helper(liveSigner, action), 'not_found');
    assertError(await helper(liveSigner, 'identity', { body: { decision: 'approve' } }), 'not_found');
    assertError(await helper(liveSigner, 'sign', { key: a.keys.secret_live }), 'test_mode_only');
    assert.deepEqual(await events(live.id, a.keys.secret_live), before, 'the live request is untouched');

    const other = await s.account({ ownerEmail: 'other@helpers.example' });
    assertError(await helper(signer, 'sign', { key: other.keys.secret_test }), 'not_found');
    for (const id of ['sgr_nope', 'sr_x', 'x'.repeat(300)]) assertError(await helper(id, 'sign'), 'not_found');
    assertError(await s.call('POST', `/test_helpers/signers/${signer}/nope`, { key: a.keys.secret_test }), 'not_found');
    assert.deepEqual(
      (await events(r.id)).map((e) => e.type),
      ['signature_request.sent', 'signer.sent'],
      'the refused calls changed nothing',
    );
  });
});
