/**
 * The life of a signature request through the API and the signer service functions: one test per
 * row of the spec 3.1 table, ordered requests and the identity rules of 3.2, and the read
 * endpoints (GET /signature_requests, /signature_requests/{id}, /signers, /signers/{id}) with
 * their mode, account and publishable-key rules.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SignerTrigger } from '../../server/src/domain/requestStates.js';
import { ApiError } from '../../server/src/errors.js';
import { issueKey } from '../../server/src/services/accounts.js';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { getAccount, updateAccount } from '../../server/src/store/accounts.js';
import type { IdentityState } from '../../server/src/store/signatureRequests.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ORIGIN = 'https://shop.example.com';
const TEAM = ['amira@example.com', 'bassem@example.com', 'carla@example.com'];
const REF = /^REF-[2-9A-HJ-NP-Z]{5}-[2-9A-HJ-NP-Z]{5}$/;
const WHERE = { ip: '203.0.113.9', user_agent: 'lifecycle-test' };

type Keys = TestServer['keys'];
interface Acct {
  id: string;
  keys: Keys;
  template: string;
}
type Details = { reason?: string; identity?: Partial<IdentityState>; eventExtra?: Record<string, unknown> };

describe('signature request lifecycle (spec 3.1, 3.2)', () => {
  let s: TestServer;
  let n = 0;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const now = () => Math.floor(s.clock.nowMs() / 1000);

  /** A fresh account (business plan, verified, 1000 sends) whose team holds the three TEAM emails, and a small custom template. */
  async function account(): Promise<Acct> {
    const acct = await s.account({ ownerEmail: TEAM[0] });
    await s.ctx.store.tx((trx) => updateAccount(trx, acct.id, { team_emails: TEAM }));
    const tpl = await s.call('POST', '/templates', {
      key: acct.keys.secret_live,
      body: {
        title: `Lifecycle ${++n}`,
        language: 'en',
        body: 'Agreed between the parties, {{party}}.',
        fields: [{ key: 'party', label: 'Party', required: false }],
      },
    });
    assert.equal(tpl.status, 201, tpl.text);
    return { ...acct, template: tpl.body.id };
  }

  const requestBody = (a: Acct, extra: Record<string, unknown> = {}, signers = 2) => ({
    title: 'Lease',
    source: { type: 'template', template_id: a.template },
    signers: TEAM.slice(0, signers).map((email, i) => ({ name: ['Amira', 'Bassem', 'Carla'][i], email })),
    ...extra,
  });

  async function create(key: string, body: unknown, headers: Record<string, string> = {}) {
    const r = await s.call('POST', '/signature_requests', { key, body, headers });
    assert.equal(r.status, 201, r.text);
    return r.body;
  }

  const get = async (key: string, id: string) => {
    const r = await s.call('GET', `/signature_requests/${id}`, { key });
    assert.equal(r.status, 200, r.text);
    return r.body;
  };

  const move = (signerId: string, trigger: Exclude<SignerTrigger, 'invite'>, details: Details = {}) =>
    s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signerId, trigger, WHERE, details));

  /** The signer move must be refused with this reason (invalid_state, extra.reason). */
  async function refused(signerId: string, trigger: Exclude<SignerTrigger, 'invite'>, reason: string): Promise<void> {
    await assert.rejects(move(signerId, trigger), (err: unknown) => {
      assert.ok(err instanceof ApiError, String(err));
      assert.equal(err.code, 'invalid_state');
      assert.equal(err.extra.reason, reason);
      assert.ok(err.detail?.en && err.detail.ar, 'the refusal has a message in both languages');
      return true;
    });
  }

  async function signFully(signerId: string): Promise<void> {
    await move(signerId, 'view');
    await move(signerId, 'otp_verified');
    await move(signerId, 'sign');
  }

  /** Event types of a request, oldest first (GET /events lists newest first). */
  async function eventTypes(key: string, requestId: string): Promise<string[]> {
    const r = await s.call('GET', `/events?signature_request=${requestId}&limit=100`, { key });
    assert.equal(r.status, 200, r.text);
    return r.body.data.map((e: { type: string }) => e.type).reverse();
  }

  const messagesOf = (requestId: string) =>
    s.ctx.store.db.selectFrom('messages').selectAll().where('signature_request_id', '=', requestId).execute();
  const balance = async (accountId: string) => (await s.ctx.store.tx((trx) => getAccount(trx, accountId)))!.balance_sends;

  describe('creation and sending', () => {
    test('created and sent at once: status sent, signing links for every signer, signer.sent per signer, invitations queued', async () => {
      const a = await account();
      const before = await balance(a.id);
      const sr = await create(a.keys.secret_live, requestBody(a));
      assert.match(sr.id, /^sr_/);
      assert.equal(sr.object, 'signature_request');
      assert.equal(sr.status, 'sent');
      assert.equal(sr.livemode, true);
      assert.equal(sr.reference, null);
      assert.equal(sr.completed_at, null);
      assert.equal(sr.download_url, null);
      assert.equal(sr.signers.length, 2);
      for (const signer of sr.signers) {
        assert.match(signer.id, /^sgr_/);
        assert.equal(signer.status, 'sent');
        assert.equal(signer.signing_url, `${s.url}/sign/${signer.id}.${signer.signing_url.split('.').pop()}`);
        assert.match(signer.signing_url, /\/sign\/sgr_\w+\.[\w-]{20,}$/);
      }
      assert.notEqual(sr.signers[0].signing_url, sr.signers[1].signing_url);
      assert.equal(sr.cost.sends, 2, 'charged at creation');
      assert.equal(await balance(a.id), before - 2);
      assert.deepEqual(await eventTypes(a.keys.secret_live, sr.id), ['signature_request.sent', 'signer.sent', 'signer.sent']);
      const messages = await messagesOf(sr.id);
      assert.deepEqual(messages.map((m) => [m.recipient, m.kind]).sort(), [
        [TEAM[0], 'invitation'],
        [TEAM[1], 'invitation'],
      ]);
      // The same request fetched later still shows the links and the sent status.
      const again = await get(a.keys.secret_live, sr.id);
      assert.deepEqual(again, sr);
    });

    test('test key: the same at no cost, livemode false', async () => {
      const a = await account();
      const before = await balance(a.id);
      const sr = await create(a.keys.secret_test, requestBody(a));
      assert.equal(sr.status, 'sent');
      assert.equal(sr.livemode, false);
      assert.equal(sr.cost, null);
      assert.equal(await balance(a.id), before);
      for (const signer of sr.signers) assert.match(signer.signing_url, /\/sign\/sgr_/);
      assert.deepEqual(await eventTypes(a.keys.secret_test, sr.id), ['signature_request.sent', 'signer.sent', 'signer.sent']);
    });

    test('send: false creates a draft (signature_request.created, no cost, no links); POST …/send sends it once', async () => {
      const a = await account();
      const before = await balance(a.id);
      const draft = await create(a.keys.secret_live, requestBody(a, { send: false }));
      assert.equal(draft.status, 'draft');
      assert.equal(draft.cost, null);
      for (const signer of draft.signers) {
        assert.equal(signer.status, 'pending');
        assert.equal(signer.signing_url, null);
        assert.equal(signer.sent_at, null);
      }
      assert.equal(await balance(a.id), before, 'a draft costs nothing');
      assert.deepEqual(await messagesOf(draft.id), [], 'a draft sends no link');
      assert.deepEqual(await eventTypes(a.keys.secret_live, draft.id), ['signature_request.created']);

      s.clock.advanceSeconds(5);
      const sent = await s.call('POST', `/signature_requests/${draft.id}/send`, { key: a.keys.secret_live });
      assert.equal(sent.status, 200, sent.text);
      assert.equal(sent.body.status, 'sent');
      assert.equal(sent.body.cost.sends, 2);
      for (const signer of sent.body.signers) {
        assert.equal(signer.status, 'sent');
        assert.equal(signer.sent_at, now());
        assert.match(signer.signing_url, /\/sign\/sgr_/);
      }
      assert.equal(await balance(a.id), before - 2);
      assert.equal((await messagesOf(draft.id)).length, 2);
      assert.deepEqual(await eventTypes(a.keys.secret_live, draft.id), [
        'signature_request.created',
        'signature_request.sent',
        'signer.sent',
        'signer.sent',
      ]);

      // A repeat send of a charged request is a reminder: no state change, no second charge, no event.
      s.clock.advanceSeconds(3600);
      const again = await s.call('POST', `/signature_requests/${draft.id}/send`, { key: a.keys.secret_live });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.status, 'sent');
      assert.equal(await balance(a.id), before - 2);
      assert.deepEqual(await eventTypes(a.keys.secret_live, draft.id), [
        'signature_request.created',
        'signature_request.sent',
        'signer.sent',
        'signer.sent',
      ]);
      assert.deepEqual((await messagesOf(draft.id)).map((m) => m.kind).sort(), ['invitation', 'invitation', 'reminder', 'reminder']);
    });

    test('a test-mode draft is sent the same way; signers cannot act on a draft', async () => {
      const a = await account();
      const draft = await create(a.keys.secret_test, requestBody(a, { send: false }));
      await refused(draft.signers[0].id, 'view', 'request_not_open');
      const sent = await s.call('POST', `/signature_requests/${draft.id}/send`, { key: a.keys.secret_test });
      assert.equal(sent.status, 200, sent.text);
      assert.equal(sent.body.status, 'sent');
      assert.deepEqual(await eventTypes(a.keys.secret_test, draft.id), [
        'signature_request.created',
        'signature_request.sent',
        'signer.sent',
        'signer.sent',
      ]);
      // Test requests are never charged, yet a repeat send is still a reminder, not a state change.
      s.clock.advanceSeconds(3600);
      const again = await s.call('POST', `/signature_requests/${draft.id}/send`, { key: a.keys.secret_test });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.status, 'sent');
      assert.deepEqual(await eventTypes(a.keys.secret_test, draft.id), [
        'signature_request.created',
        'signature_request.sent',
        'signer.sent',
        'signer.sent',
      ]);
      assert.deepEqual((await messagesOf(draft.id)).map((m) => m.kind).sort(), ['invitation', 'invitation', 'reminder', 'reminder']);
    });

    test('a canceled draft cannot be sent', async () => {
      const a = await account();
      const draft = await create(a.keys.secret_test, requestBody(a, { send: false }));
      assert.equal((await s.call('POST', `/signature_requests/${draft.id}/cancel`, { key: a.keys.secret_test })).body.status, 'canceled');
      const r = await s.call('POST', `/signature_requests/${draft.id}/send`, { key: a.keys.secret_test });
      assert.equal(r.status, 409, r.text);
      assert.equal((await get(a.keys.secret_test, draft.id)).status, 'canceled');
      assert.deepEqual(await eventTypes(a.keys.secret_test, draft.id), ['signature_request.created', 'signature_request.canceled']);
    });
  });

  describe('one test per row of the 3.1 table', () => {
    test('first view → viewed (signature_request.viewed + signer.viewed, first view only; a second view emits nothing)', async () => {
      const a = await account();
      const sr = await create(a.keys.secret_test, requestBody(a));
      const [first, second] = sr.signers;
      s.clock.advanceSeconds(10);
      const viewed = await move(first.id, 'view');
      assert.equal(viewed.request.status, 'viewed');
      const got = await get(a.keys.secret_test, sr.id);
      assert.equal(got.status, 'viewed');
      assert.equal(got.signers[0].status, 'viewed');
      assert.equal(got.signers[0].viewed_at, now());
      assert.deepEqual(await eventTypes(a.keys.secret_test, sr.id), [
        'signature_request.sent',
        'signer.sent',
        'signer.sent',
        'signature_request.viewed',
        'signer.viewed',
      ]);

      s.clock.advanceSeconds(10);
      await move(first.id, 'view');
      const later = await get(a.keys.secret_test, sr.id);
      assert.equal(later.signers[0].viewed_at, got.signers[0].viewed_at, 'a later view changes nothing');
      assert.deepEqual(await eventTypes(a.keys.secret_test, sr.id), [
        'signature_request.sent',
        'signer.sent',
        'signer.sent',
        'signature_request.viewed',
        'signer.viewed',
      ]);

      // Another signer's first view: a signer event only; the request was viewed already.
      await move(second.id, 'view');
      assert.equal((await get(a.keys.secret_test, sr.id)).status, 'viewed');
      assert.deepEqual((await eventTypes(a.keys.secret_test, sr.id)).slice(3), [
        'signature_request.viewed',
        'signer.viewed',
        'signer.viewed',
      ]);
    });

    test('one signer of several signs → partially_signed (signer.signed + signature_request.partially_signed)', async () => {
      const a = await account();
      const sr = await create(a.keys.secret_test, requestBody(a));
      s.clock.advanceSeconds(30);
      await signFully(sr.signers[0].id);
      const got = await get(a.keys.secret_test, sr.id);
      assert.equal(got.status, 'partially_signed');
      assert.equal(got.signers[0].status, 'signed');
      assert.equal(got.signers[0].signed_at, now());
      assert.equal(got.signers[1].status, 'sent');
      assert.equal(got.reference, null);
      assert.equal(got.download_url, null);
      assert.deepEqual((await eventTypes(a.keys.secret_test, sr.id)).slice(3), [
        'signature_request.viewed',
        'signer.viewed',
        'signer.otp_verified',
        'signer.signed',
        'signature_request.partially_signed',
      ]);
      // A signer may reach the code without opening the page first; signing still needs it.
      await refused(sr.signers[1].id, 'sign', 'otp_required');
      await move(sr.signers[1].id, 'otp_verified');
      assert.equal((await get(a.keys.secret_test, sr.id)).signers[1].status, 'otp_verified');
    });

    test('all signers signed → completed (reference, completed_at, download_url; signature_request.completed)', async () => {
      const a = await account();
      const sr = await create(a.keys.secret_test, requestBody(a));
      await signFully(sr.signers[0].id);
      s.clock.advanceSeconds(60);
      await signFully(sr.signers[1].id);
      const done = await get(a.keys.secret_test, sr.id);
      assert.equal(done.status, 'completed');
      assert.match(done.reference, REF);
      assert.equal(done.completed_at, now());
      assert.equal(done.download_url, `${s.url}/api/v1/signature_requests/${sr.id}/download`);
      assert.deepEqual(
        done.signers.map((x: { status: string }) => x.status),
        ['signed', 'signed'],
      );
      assert.deepEqual((await eventTypes(a.keys.secret_test, sr.id)).slice(-4), [
        'signer.viewed',
        'signer.otp_verified',
        'signer.signed',
        'signature_request.completed',
      ]);
      const types = await eventTypes(a.keys.secret_test, sr.id);
      assert.equal(types.filter((t) => t === 'signature_request.completed').length, 1);
      assert.equal(types.includes('signature_request.partially_signed'), true);
      assert.equal(types.includes('document.sealed'), false, 'test requests are not sealed');
      assert.equal(types.includes('verification.created'), false);
      // Nobody can act on a completed request.
      await refused(sr.signers[0].id, 'decline', 'request_not_open');
    });

    test('a single-signer request completes on its one signature, without partially_signed', async () => {
      const a = await account();
      const sr = await create(a.keys.secret_test, requestBody(a, {}, 1));
      await signFully(sr.signers[0].id);
      assert.equal((await get(a.keys.secret_test, sr.id)).status, 'completed');
      assert.deepEqual(await eventTypes(a.keys.secret_test, sr.id), [
        'signature_request.sent',
        'signer.sent',
        'signature_request.viewed',
        'signer.viewed',
        'signer.otp_verified',
        'signer.signed',
        'signature_request.completed',
      ]);
    });

    test('a signer declines → declined (signer.declined with reason, signature_request.declined); the others can no longer sign', async () => {
      const a = await account();
      const sr = await create(a.keys.secret_test, requestBody(a));
      const [first, second] = sr.signers;
      await move(second.id, 'view');
      await move(second.id, 'otp_verified');
      s.clock.advanceSeconds(20);
      await move(first.id, 'view');
      await move(first.id, 'decline', { reason: 'Wrong rent amount' });
      const got = await get(a.keys.secret_test, sr.id);
      assert.equal(got.status, 'declined');
      assert.equal(got.signers[0].status, 'declined');
      assert.equal(got.signers[0].decline_reason, 'Wrong rent amount');
      assert.equal(got.signers[0].declined_at, now());
      assert.equal(got.reference, null);
      assert.deepEqual((await eventTypes(a.keys.secret_test, sr.id)).slice(-3), [
        'signer.viewed',
        'signer.declined',
        'signature_request.declined',
      ]);
      const declined = await s.call('GET', `/events?signature_request=${sr.id}&type=signer.declined`, { key: a.keys.secret_test });
      assert.equal(declined.body.data.length, 1);
      assert.equal(declined.body.data[0].data.object.decline_reason, 'Wrong rent amount');
      assert.equal(declined.body.data[0].data.object.id, first.id);
      // The request stops: the other signer can neither sign nor decline, and the first cannot act again.
      await refused(second.id, 'sign', 'request_not_open');
      await refused(second.id, 'decline', 'request_not_open');
      await refused(first.id, 'view', 'request_not_open');
      assert.equal((await get(a.keys.secret_test, sr.id)).signers[1].status, 'otp_verified');
    });

    test('expires_at reached → expired (signature_request.expired); a completed request does not expire', async () => {
      const a = await account();
      const expiresAt = now() + 3600;
      const open = await create(a.keys.secret_test, requestBody(a, { expires_at: expiresAt }));
      const done = await create(a.keys.secret_test, requestBody(a, { expires_at: expiresAt }, 1));
      assert.equal(open.expires_at, expiresAt);
      await move(open.signers[0].id, 'view');
      await signFully(done.signers[0].id);

      s.clock.advanceSeconds(3599);
      await s.jobs.runDue();
      assert.equal((await get(a.keys.secret_test, open.id)).status, 'viewed', 'not before expires_at');

      s.clock.advanceSeconds(2);
      await s.jobs.runDue();
      const expired = await get(a.keys.secret_test, open.id);
      assert.equal(expired.status, 'expired');
      assert.deepEqual((await eventTypes(a.keys.secret_test, open.id)).slice(-1), ['signature_request.expired']);
      await refused(open.signers[1].id, 'view', 'request_not_open');

      const completed = await get(a.keys.secret_test, done.id);
      assert.equal(completed.status, 'completed');
      assert.equal((await eventTypes(a.keys.secret_test, done.id)).includes('signature_request.expired'), false);
      // Both expiry jobs finished cleanly: the job skips a final request rather than failing on it.
      for (const id of [open.id, done.id]) {
        const jobs = await s.ctx.store.db
          .selectFrom('jobs')
          .selectAll()
          .where('kind', '=', 'expire_request')
          .where('payload', 'like', `%${id}%`)
          .execute();
        assert.deepEqual(
          jobs.map((j) => [j.state, j.last_error, j.attempts]),
          [['done', null, 0]],
        );
      }

      // Running the jobs again changes nothing: one expiry event.
      s.clock.advanceSeconds(86400);
      await s.jobs.runDue();
      assert.equal((await eventTypes(a.keys.secret_test, open.id)).filter((t) => t === 'signature_request.expired').length, 1);
    });

    test('a draft expires too', async () => {
      const a = await account();
      const draft = await create(a.keys.secret_test, requestBody(a, { send: false, expires_at: now() + 60 }));
      s.clock.advanceSeconds(61);
      await s.jobs.runDue();
      assert.equal((await get(a.keys.secret_test, draft.id)).status, 'expired');
      assert.deepEqual(await eventTypes(a.keys.secret_test, draft.id), ['signature_request.created', 'signature_request.expired']);
    });

    test('cancel → canceled (signature_request.canceled), cost not refunded; signers can no longer act', async () => {
      const a = await account();
      const before = await balance(a.id);
      const sr = await create(a.keys.secret_live, requestBody(a));
      await move(sr.signers[0].id, 'view');
      const r = await s.call('POST', `/signature_requests/${sr.id}/cancel`, { key: a.keys.secret_live });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.status, 'canceled');
      assert.equal(r.body.id, sr.id);
      for (const signer of r.body.signers) assert.equal(signer.signing_url, null, 'links of a canceled request are not shown');
      assert.equal(await balance(a.id), before - 2, 'no refund once sent');
      assert.deepEqual((await eventTypes(a.keys.secret_live, sr.id)).slice(-1), ['signature_request.canceled']);
      await refused(sr.signers[1].id, 'view', 'request_not_open');
      await refused(sr.signers[0].id, 'otp_verified', 'request_not_open');
    });

    test('cancel of a completed or canceled request → 409 request_not_cancelable (both languages), nothing changes', async () => {
      const a = await account();
      const k = a.keys.secret_test;
      const done = await create(k, requestBody(a, {}, 1));
      await signFully(done.signers[0].id);
      const canceled = await create(k, requestBody(a));
      assert.equal((await s.call('POST', `/signature_requests/${canceled.id}/cancel`, { key: k })).status, 200);
      for (const [sr, status] of [
        [done, 'completed'],
        [canceled, 'canceled'],
      ] as const) {
        const eventsBefore = await eventTypes(k, sr.id);
        const r = await assertErrorBothLanguages(
          (prefix) => s.call('POST', `/signature_requests/${sr.id}/cancel`, { key: k, prefix }),
          'request_not_cancelable',
        );
        assert.equal(r.status, 409);
        assert.equal((await get(k, sr.id)).status, status);
        assert.deepEqual(await eventTypes(k, sr.id), eventsBefore);
      }
    });

    test('declined and expired requests are final too: cancel is refused with 409', async () => {
      const a = await account();
      const k = a.keys.secret_test;
      const declined = await create(k, requestBody(a));
      await move(declined.signers[0].id, 'decline');
      const expired = await create(k, requestBody(a, { expires_at: now() + 10 }));
      s.clock.advanceSeconds(11);
      await s.jobs.runDue();
      for (const [sr, status] of [
        [declined, 'declined'],
        [expired, 'expired'],
      ] as const) {
        const r = await s.call('POST', `/signature_requests/${sr.id}/cancel`, { key: k });
        assert.equal(r.status, 409, r.text);
        assert.equal((await get(k, sr.id)).status, status);
      }
    });

    test('cancel of another account’s or another mode’s request → 404 not_found', async () => {
      const a = await account();
      const b = await account();
      const sr = await create(a.keys.secret_test, requestBody(a));
      assertError(await s.call('POST', `/signature_requests/${sr.id}/cancel`, { key: b.keys.secret_test }), 'not_found');
      assertError(await s.call('POST', `/signature_requests/${sr.id}/cancel`, { key: a.keys.secret_live }), 'not_found');
      assert.equal((await get(a.keys.secret_test, sr.id)).status, 'sent');
    });
  });

  describe('ordered requests', () => {
    test('only the first signer is invited at creation; the next is invited when the one ahead signs', async () => {
      const a = await account();
      const k = a.keys.secret_test;
      const sr = await create(k, requestBody(a, { ordered: true }, 3));
      assert.equal(sr.ordered, true);
      assert.deepEqual(
        sr.signers.map((x: { status: string }) => x.status),
        ['sent', 'pending', 'pending'],
      );
      assert.match(sr.signers[0].signing_url, /\/sign\/sgr_/);
      assert.equal(sr.signers[1].signing_url, null);
      assert.equal(sr.signers[2].signing_url, null);
      assert.deepEqual(
        sr.signers.map((x: { order: number }) => x.order),
        [1, 2, 3],
      );
      assert.deepEqual(await eventTypes(k, sr.id), ['signature_request.sent', 'signer.sent']);
      assert.deepEqual(
        (await messagesOf(sr.id)).map((m) => m.recipient),
        [TEAM[0]],
      );
      const sentEvent = await s.call('GET', `/events?signature_request=${sr.id}&type=signer.sent`, { key: k });
      assert.equal(sentEvent.body.data[0].data.object.id, sr.signers[0].id);

      // The second and third cannot act before the ones ahead sign.
      for (const trigger of ['view', 'otp_verified', 'sign', 'decline'] as const) await refused(sr.signers[1].id, trigger, 'not_your_turn');
      await refused(sr.signers[2].id, 'view', 'not_your_turn');

      await signFully(sr.signers[0].id);
      const afterFirst = await get(k, sr.id);
      assert.equal(afterFirst.status, 'partially_signed');
      assert.deepEqual(
        afterFirst.signers.map((x: { status: string }) => x.status),
        ['signed', 'sent', 'pending'],
      );
      assert.match(afterFirst.signers[1].signing_url, /\/sign\/sgr_/);
      assert.equal(afterFirst.signers[2].signing_url, null);
      assert.deepEqual((await eventTypes(k, sr.id)).slice(-3), ['signer.signed', 'signature_request.partially_signed', 'signer.sent']);
      const invited = await s.call('GET', `/events?signature_request=${sr.id}&type=signer.sent&limit=1`, { key: k });
      assert.equal(invited.body.data[0].data.object.id, sr.signers[1].id);
      assert.equal(invited.body.data[0].data.object.status, 'sent');
      assert.deepEqual(
        (await messagesOf(sr.id)).map((m) => m.recipient),
        [TEAM[0], TEAM[1]],
      );
      await refused(sr.signers[2].id, 'view', 'not_your_turn');

      await signFully(sr.signers[1].id);
      assert.deepEqual(
        (await get(k, sr.id)).signers.map((x: { status: string }) => x.status),
        ['signed', 'signed', 'sent'],
      );
      await signFully(sr.signers[2].id);
      const done = await get(k, sr.id);
      assert.equal(done.status, 'completed');
      assert.match(done.reference, REF);
      const types = await eventTypes(k, sr.id);
      assert.equal(types.filter((t) => t === 'signer.sent').length, 3, 'each signer invited once, in turn');
      assert.equal(types.filter((t) => t === 'signature_request.viewed').length, 1);
      assert.deepEqual(types.slice(-2), ['signer.signed', 'signature_request.completed']);
    });

    test('a draft ordered request invites only the first signer when sent', async () => {
      const a = await account();
      const draft = await create(a.keys.secret_test, requestBody(a, { ordered: true, send: false }));
      const sent = await s.call('POST', `/signature_requests/${draft.id}/send`, { key: a.keys.secret_test });
      assert.deepEqual(
        sent.body.signers.map((x: { status: string }) => x.status),
        ['sent', 'pending'],
      );
      assert.deepEqual(await eventTypes(a.keys.secret_test, draft.id), [
        'signature_request.created',
        'signature_request.sent',
        'signer.sent',
      ]);
    });

    test('a decline by the first signer stops the order: nobody else is invited', async () => {
      const a = await account();
      const sr = await create(a.keys.secret_test, requestBody(a, { ordered: true }));
      await move(sr.signers[0].id, 'decline', { reason: 'no' });
      const got = await get(a.keys.secret_test, sr.id);
      assert.equal(got.status, 'declined');
      assert.equal(got.signers[1].status, 'pending');
      assert.deepEqual(await eventTypes(a.keys.secret_test, sr.id), [
        'signature_request.sent',
        'signer.sent',
        'signer.declined',
        'signature_request.declined',
      ]);
    });
  });

  describe('identity rules (spec 3.2)', () => {
    async function identityRequest(extra: Record<string, unknown>) {
      const a = await account();
      const sr = await create(a.keys.secret_test, requestBody(a, extra));
      return { a, sr, k: a.keys.secret_test };
    }
    const signerEvents = async (k: string, id: string) => (await eventTypes(k, id)).filter((t) => t.startsWith('signer.identity'));

    test('aes: no signature before approval; in review blocks; declined blocks until a later verification is approved', async () => {
      const { sr, k } = await identityRequest({ legal_level: 'aes' });
      assert.equal(sr.legal_level, 'aes');
      assert.equal(sr.require_identity, true);
      const id = sr.signers[0].id;
      assert.equal(sr.signers[0].require_identity, true);
      assert.equal(sr.signers[0].identity.status, 'required');
      await refused(id, 'identity_in_review', 'otp_required');
      await move(id, 'view');
      await move(id, 'otp_verified');
      await refused(id, 'sign', 'identity_required');

      await move(id, 'identity_in_review');
      await refused(id, 'sign', 'identity_in_review');
      await refused(id, 'identity_in_review', 'move_not_allowed'); // once per state change
      await move(id, 'identity_resubmission_requested');
      await refused(id, 'sign', 'identity_required');
      await refused(id, 'identity_resubmission_requested', 'move_not_allowed');
      await move(id, 'identity_in_review');
      await move(id, 'identity_declined');
      await refused(id, 'sign', 'identity_declined');
      await refused(id, 'identity_declined', 'move_not_allowed');
      assert.equal((await get(k, sr.id)).signers[0].identity.status, 'declined');

      // "declined: unless a later verification is approved"
      await move(id, 'identity_verified', {
        identity: { provider: 'simulation', level: 'document_and_face', verification_id: 'idv_test_1' },
      });
      const verified = (await get(k, sr.id)).signers[0];
      assert.equal(verified.status, 'identity_verified');
      assert.deepEqual(
        { status: verified.identity.status, provider: verified.identity.provider, verification_id: verified.identity.verification_id },
        { status: 'approved', provider: 'simulation', verification_id: 'idv_test_1' },
      );
      await refused(id, 'identity_verified', 'move_not_allowed'); // once per state change
      await move(id, 'sign');
      assert.equal((await get(k, sr.id)).signers[0].status, 'signed');
      assert.deepEqual(await signerEvents(k, sr.id), [
        'signer.identity_in_review',
        'signer.identity_resubmission_requested',
        'signer.identity_in_review',
        'signer.identity_declined',
        'signer.identity_verified',
      ]);
      const identityEvents = await s.call('GET', `/events?signature_request=${sr.id}&type=signer.*&limit=100`, { key: k });
      const statuses = identityEvents.body.data
        .filter((e: { type: string }) => e.type.startsWith('signer.identity'))
        .reverse()
        .map((e: { data: { object: { identity: { status: string } } } }) => e.data.object.identity.status);
      assert.deepEqual(statuses, ['in_review', 'resubmission_requested', 'in_review', 'declined', 'approved']);
    });

    test('require_identity on one signer: only that signer needs approval; the other has no identity moves', async () => {
      const a = await account();
      const body = requestBody(a);
      body.signers[1] = { ...body.signers[1]!, require_identity: true } as (typeof body.signers)[number];
      const sr = await create(a.keys.secret_test, body);
      assert.equal(sr.signers[0].require_identity, false);
      assert.equal(sr.signers[0].identity.status, 'not_required');
      assert.equal(sr.signers[1].require_identity, true);
      await move(sr.signers[0].id, 'otp_verified');
      await refused(sr.signers[0].id, 'identity_verified', 'move_not_allowed');
      await move(sr.signers[0].id, 'sign');
      await move(sr.signers[1].id, 'otp_verified');
      await refused(sr.signers[1].id, 'sign', 'identity_required');
      await move(sr.signers[1].id, 'identity_verified');
      await move(sr.signers[1].id, 'sign');
      assert.equal((await get(a.keys.secret_test, sr.id)).status, 'completed');
    });

    test('name mismatch: match hold blocks (identity_match extra in the event); approved resumes signing', async () => {
      const { sr, k } = await identityRequest({ require_identity: true });
      const id = sr.signers[0].id;
      await move(id, 'otp_verified');
      const identityMatch = { sent_name: 'Amira', document_name: 'Amira Hassan', document_type: 'national_id', document_last4: '4821' };
      await move(id, 'identity_match_hold', { eventExtra: { identity_match: identityMatch } });
      await refused(id, 'sign', 'identity_match_hold');
      await refused(id, 'identity_match_hold', 'move_not_allowed');
      await refused(id, 'identity_verified', 'move_not_allowed');
      const hold = await s.call('GET', `/events?signature_request=${sr.id}&type=signer.identity_match_hold`, { key: k });
      assert.equal(hold.body.data.length, 1);
      assert.deepEqual(hold.body.data[0].data.object.identity_match, identityMatch);
      assert.equal(hold.body.data[0].data.object.identity.status, 'match_hold');
      assert.equal(hold.body.data[0].data.object.signature_request, sr.id);

      await move(id, 'identity_match_approved');
      await refused(id, 'identity_match_approved', 'move_not_allowed');
      await refused(id, 'identity_match_rejected', 'move_not_allowed');
      const signer = (await get(k, sr.id)).signers[0];
      assert.equal(signer.status, 'identity_verified');
      assert.equal(signer.identity.status, 'approved');
      await move(id, 'sign');
      assert.equal((await get(k, sr.id)).signers[0].status, 'signed');
      const decided = await s.call('GET', `/events?signature_request=${sr.id}&type=signer.identity_match_decided`, { key: k });
      assert.equal(decided.body.data.length, 1);
      assert.equal(decided.body.data[0].data.object.identity.status, 'approved');
      assert.deepEqual(await signerEvents(k, sr.id), ['signer.identity_match_hold', 'signer.identity_match_decided']);
    });

    test('name mismatch rejected: signing stops for that signer (declining stays possible)', async () => {
      const { sr, k } = await identityRequest({ require_identity: true });
      const id = sr.signers[0].id;
      await move(id, 'otp_verified');
      // The event details the identity service writes (services/identity.ts), as the document declares them.
      const identityMatch = { sent_name: 'Amira', document_name: 'Amina', document_type: null, document_last4: null };
      await move(id, 'identity_match_hold', { eventExtra: { identity_match: identityMatch } });
      await move(id, 'identity_match_rejected');
      await refused(id, 'sign', 'identity_match_rejected');
      await refused(id, 'identity_verified', 'move_not_allowed');
      await refused(id, 'identity_match_approved', 'move_not_allowed');
      const decided = await s.call('GET', `/events?signature_request=${sr.id}&type=signer.identity_match_decided`, { key: k });
      assert.equal(decided.body.data.length, 1);
      assert.equal(decided.body.data[0].data.object.identity.status, 'match_rejected');
      assert.deepEqual(await signerEvents(k, sr.id), ['signer.identity_match_hold', 'signer.identity_match_decided']);
      await move(id, 'decline', { reason: 'name' });
      assert.equal((await get(k, sr.id)).status, 'declined');
    });
  });

  describe('reading requests and signers', () => {
    test('GET /signature_requests/{id}: 404 not_found for another account’s id, another mode’s id, or an unknown id', async () => {
      const a = await account();
      const b = await account();
      const testReq = await create(a.keys.secret_test, requestBody(a));
      const liveReq = await create(a.keys.secret_live, requestBody(a));
      assert.equal((await get(a.keys.secret_test, testReq.id)).id, testReq.id);
      await assertErrorBothLanguages(
        (prefix) => s.call('GET', `/signature_requests/${testReq.id}`, { key: b.keys.secret_test, prefix }),
        'not_found',
      );
      await assertErrorBothLanguages(
        (prefix) => s.call('GET', `/signature_requests/${testReq.id}`, { key: a.keys.secret_live, prefix }),
        'not_found',
      );
      assertError(await s.call('GET', `/signature_requests/${liveReq.id}`, { key: a.keys.secret_test }), 'not_found');
      assertError(await s.call('GET', '/signature_requests/sr_doesnotexist', { key: a.keys.secret_test }), 'not_found');
      assertError(await s.call('POST', `/signature_requests/${liveReq.id}/send`, { key: b.keys.secret_live }), 'not_found');
    });

    test('GET /signature_requests: newest first, list envelope, status and time filters, cursor, limit default 20 max 100, only the key’s mode', async () => {
      const a = await account();
      const k = a.keys.secret_live;
      const t0 = now();
      const ids: string[] = [];
      for (let i = 0; i < 21; i++) {
        ids.push((await create(k, requestBody(a, { send: false }, 1))).id);
        s.clock.advanceSeconds(2);
      }
      const testOnly = await create(a.keys.secret_test, requestBody(a, {}, 1));
      await s.call('POST', `/signature_requests/${ids[3]}/cancel`, { key: k });
      await s.call('POST', `/signature_requests/${ids[7]}/send`, { key: k });
      s.clock.advanceSeconds(20);

      const page1 = await s.call('GET', '/signature_requests', { key: k });
      assert.equal(page1.status, 200, page1.text);
      assert.equal(page1.body.object, 'list');
      assert.equal(page1.body.data.length, 20, 'default limit 20');
      assert.equal(page1.body.has_more, true);
      assert.deepEqual(
        page1.body.data.map((r: { id: string }) => r.id),
        [...ids].reverse().slice(0, 20),
      );
      assert.equal(page1.body.next_cursor, ids[1]);
      assert.ok(page1.body.data.every((r: { livemode: boolean }) => r.livemode === true));
      const page2 = await s.call('GET', `/signature_requests?starting_after=${page1.body.next_cursor}`, { key: k });
      assert.deepEqual(page2.body, { object: 'list', data: [page2.body.data[0]], has_more: false, next_cursor: null });
      assert.equal(page2.body.data[0].id, ids[0]);
      // Links are shown as on GET by id: the sent request has them, drafts do not.
      const sentOne = page1.body.data.find((r: { id: string }) => r.id === ids[7]);
      assert.equal(sentOne.status, 'sent');
      assert.match(sentOne.signers[0].signing_url, /\/sign\/sgr_/);

      const byStatus = async (status: string) =>
        (await s.call('GET', `/signature_requests?status=${status}`, { key: k })).body.data.map((r: { id: string }) => r.id);
      assert.deepEqual(await byStatus('canceled'), [ids[3]]);
      assert.deepEqual(await byStatus('sent'), [ids[7]]);
      assert.equal((await byStatus('draft')).length, 19);
      assertError(await s.call('GET', '/signature_requests?status=nope', { key: k }), 'parameter_invalid');

      const list = async (q: string) => {
        const r = await s.call('GET', `/signature_requests?limit=100&${q}`, { key: k });
        assert.equal(r.status, 200, r.text);
        return r.body.data.map((x: { id: string }) => x.id);
      };
      // Unix seconds: request i was created at t0 + 2i.
      assert.deepEqual(await list(`created_after=${t0 + 35}`), [ids[20], ids[19], ids[18]]);
      assert.deepEqual(await list(`created_before=${t0 + 3}`), [ids[1], ids[0]]);
      assert.deepEqual(await list(`created_after=${t0 + 9}&created_before=${t0 + 13}`), [ids[6], ids[5]]);
      // ISO dates and date-times.
      const iso = (t: number) => new Date(t * 1000).toISOString();
      assert.deepEqual(await list(`created_after=${encodeURIComponent(iso(t0 + 35))}`), [ids[20], ids[19], ids[18]]);
      assert.deepEqual(await list(`created_before=${encodeURIComponent(iso(t0 + 3))}`), [ids[1], ids[0]]);
      const day = iso(t0).slice(0, 10);
      const nextDay = new Date(Date.parse(day) + 86400_000).toISOString().slice(0, 10);
      assert.equal((await list(`created_after=${day}`)).length, 21);
      assert.equal((await list(`created_after=${nextDay}`)).length, 0);
      assert.equal((await list(`created_before=${day}`)).length, 0);
      assertError(await s.call('GET', '/signature_requests?created_after=yesterday', { key: k }), 'parameter_invalid');

      assert.equal((await s.call('GET', '/signature_requests?limit=100', { key: k })).body.data.length, 21);
      for (const bad of ['101', '0', 'x']) {
        const r = await s.call('GET', `/signature_requests?limit=${bad}`, { key: k });
        assertError(r, 'parameter_invalid');
        assert.equal(r.body.error.param, 'limit');
      }
      const three = await s.call('GET', '/signature_requests?limit=3', { key: k });
      assert.equal(three.body.next_cursor, ids[18]);

      // Only the key's mode.
      const testList = await s.call('GET', '/signature_requests', { key: a.keys.secret_test });
      assert.deepEqual(
        testList.body.data.map((r: { id: string }) => r.id),
        [testOnly.id],
      );
      assert.equal(testList.body.has_more, false);
      // Publishable keys cannot list.
      const pk = (await s.ctx.store.tx((trx) => issueKey(trx, s.clock, a.id, 'publishable', 'live', { allowedOrigins: [ORIGIN] }))).secret;
      await assertErrorBothLanguages(
        (prefix) => s.call('GET', '/signature_requests', { key: pk, prefix, headers: { origin: ORIGIN } }),
        'forbidden',
      );
    });

    test('GET /signature_requests?search=: text in the title or a signer’s name, email or phone, case-insensitive, LIKE wildcards literal, with the other filters and the cursor', async () => {
      const a = await account();
      const k = a.keys.secret_live;
      const lease = await create(k, requestBody(a, { title: 'Office Lease 100%' }, 1));
      const nda = await create(k, {
        ...requestBody(a, { title: 'عقد سرية' }, 0),
        signers: [{ name: 'Zainab Haddad', email: 'zainab@example.com' }],
      });
      const other = await create(k, requestBody(a, { title: 'Invoice_7', send: false }, 2));
      await create(a.keys.secret_test, requestBody(a, { title: 'Office Lease test' }, 1));
      const search = async (text: string, extra = '') => {
        const r = await s.call('GET', `/signature_requests?search=${encodeURIComponent(text)}${extra}`, { key: k });
        assert.equal(r.status, 200, r.text);
        return r.body.data.map((x: { id: string }) => x.id);
      };
      assert.deepEqual(await search('office lease'), [lease.id], 'title, any case, only the key’s mode');
      assert.deepEqual(await search('سرية'), [nda.id], 'Arabic title');
      assert.deepEqual(await search('HADDAD'), [nda.id], 'signer name');
      assert.deepEqual(await search('zainab@'), [nda.id], 'signer email');
      assert.deepEqual(await search('bassem'), [other.id], 'a second signer');
      assert.deepEqual(await search('100%'), [lease.id]);
      assert.deepEqual(await search('%'), [lease.id], '% is literal');
      assert.deepEqual(await search('e_7'), [other.id], '_ is literal');
      assert.deepEqual(await search('ice_'), [other.id]);
      assert.deepEqual(await search('nothing like it'), []);
      assert.deepEqual(await search('amira', '&status=draft'), [other.id], 'with the status filter');
      const first = await s.call('GET', '/signature_requests?search=amira&limit=1', { key: k });
      assert.deepEqual([first.body.data[0].id, first.body.has_more], [other.id, true]);
      assert.deepEqual(await search('amira', `&starting_after=${other.id}`), [lease.id]);
      const bad = await s.call('GET', `/signature_requests?search=${'x'.repeat(201)}`, { key: k });
      assertError(bad, 'parameter_invalid');
      assert.equal(bad.body.error.param, 'search');
    });

    test('publishable key: creation response keeps the emails without links; later reads are masked and link-free', async () => {
      const a = await account();
      const pk = (await s.ctx.store.tx((trx) => issueKey(trx, s.clock, a.id, 'publishable', 'test', { allowedOrigins: [ORIGIN] }))).secret;
      const headers = { origin: ORIGIN };
      const sr = await create(pk, requestBody(a), headers);
      assert.equal(sr.status, 'sent');
      assert.equal(sr.livemode, false);
      assert.deepEqual(
        sr.signers.map((x: { email: string }) => x.email),
        [TEAM[0], TEAM[1]],
      );
      for (const signer of sr.signers) assert.equal(signer.signing_url, null);
      // The links exist: the secret key sees them.
      const full = await get(a.keys.secret_test, sr.id);
      for (const signer of full.signers) assert.match(signer.signing_url, /\/sign\/sgr_/);
      assert.deepEqual(
        full.signers.map((x: { email: string }) => x.email),
        [TEAM[0], TEAM[1]],
      );

      const masked = await s.call('GET', `/signature_requests/${sr.id}`, { key: pk, headers });
      assert.equal(masked.status, 200, masked.text);
      assert.deepEqual(
        masked.body.signers.map((x: { email: string }) => x.email),
        ['a***@example.com', 'b***@example.com'],
      );
      for (const signer of masked.body.signers) assert.equal(signer.signing_url, null);
      assert.doesNotMatch(masked.text, /amira@|bassem@|\/sign\//);

      const one = await s.call('GET', `/signers/${sr.signers[0].id}`, { key: pk, headers });
      assert.equal(one.status, 200, one.text);
      assert.equal(one.body.object, 'signer');
      assert.equal(one.body.id, sr.signers[0].id);
      assert.equal(one.body.signature_request, sr.id);
      assert.equal(one.body.email, 'a***@example.com');
      assert.equal(one.body.signing_url, null);

      await assertErrorBothLanguages((prefix) => s.call('GET', '/signers', { key: pk, headers, prefix }), 'parameter_missing');
      const missing = await s.call('GET', '/signers', { key: pk, headers });
      assert.equal(missing.body.error.param, 'signature_request');
      const listed = await s.call('GET', `/signers?signature_request=${sr.id}`, { key: pk, headers });
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.body.object, 'list');
      assert.deepEqual(listed.body.data.map((x: { email: string }) => x.email).sort(), ['a***@example.com', 'b***@example.com']);
      for (const signer of listed.body.data) assert.equal(signer.signing_url, null);
      const tooMany = await s.call('GET', `/signers?signature_request=${sr.id}&limit=101`, { key: pk, headers });
      assertError(tooMany, 'parameter_invalid');
      assert.equal(tooMany.body.error.param, 'limit');

      // Read-only, and not across modes.
      assertError(await s.call('POST', `/signers`, { key: pk, headers, body: {} }), 'forbidden');
      const livePk = (await s.ctx.store.tx((trx) => issueKey(trx, s.clock, a.id, 'publishable', 'live', { allowedOrigins: [ORIGIN] })))
        .secret;
      assertError(await s.call('GET', `/signature_requests/${sr.id}`, { key: livePk, headers }), 'not_found');
      assertError(await s.call('GET', `/signers/${sr.signers[0].id}`, { key: livePk, headers }), 'not_found');
    });

    test('GET /signers and GET /signers/{id} with a secret key: full contacts and links, filters, cursor, account and mode scoped', async () => {
      const a = await account();
      const b = await account();
      const k = a.keys.secret_test;
      const first = await create(k, requestBody(a, { ordered: true }, 3));
      s.clock.advanceSeconds(1);
      const second = await create(k, requestBody(a, {}, 1));
      await create(a.keys.secret_live, requestBody(a, {}, 1));

      const one = await s.call('GET', `/signers/${first.signers[0].id}`, { key: k });
      assert.equal(one.status, 200, one.text);
      assert.deepEqual(one.body, first.signers[0]);
      assert.equal(one.body.email, TEAM[0]);
      assert.match(one.body.signing_url, /\/sign\/sgr_/);

      const all = await s.call('GET', '/signers', { key: k });
      assert.equal(all.status, 200, all.text);
      assert.equal(all.body.object, 'list');
      assert.equal(all.body.data.length, 4, 'test signers only');
      assert.deepEqual(all.body.data[0].id, second.signers[0].id, 'newest first');
      const ofFirst = await s.call('GET', `/signers?signature_request=${first.id}`, { key: k });
      assert.deepEqual(ofFirst.body.data.map((x: { id: string }) => x.id).sort(), first.signers.map((x: { id: string }) => x.id).sort());
      const pending = await s.call('GET', `/signers?signature_request=${first.id}&status=pending`, { key: k });
      assert.deepEqual(pending.body.data.map((x: { order: number }) => x.order).sort(), [2, 3]);
      for (const signer of pending.body.data) assert.equal(signer.signing_url, null, 'not invited yet');
      const paged = await s.call('GET', '/signers?limit=3', { key: k });
      assert.equal(paged.body.has_more, true);
      assert.equal(paged.body.next_cursor, paged.body.data[2].id);
      const rest = await s.call('GET', `/signers?limit=3&starting_after=${paged.body.next_cursor}`, { key: k });
      assert.equal(rest.body.data.length, 1);
      assert.equal(rest.body.has_more, false);
      const bad = await s.call('GET', '/signers?limit=101', { key: k });
      assertError(bad, 'parameter_invalid');
      assert.equal(bad.body.error.param, 'limit');

      await assertErrorBothLanguages(
        (prefix) => s.call('GET', `/signers/${first.signers[0].id}`, { key: b.keys.secret_test, prefix }),
        'not_found',
      );
      assertError(await s.call('GET', `/signers/${first.signers[0].id}`, { key: a.keys.secret_live }), 'not_found');
      assertError(await s.call('GET', '/signers/sgr_unknown', { key: k }), 'not_found');
      assert.equal((await s.call('GET', '/signers', { key: b.keys.secret_test })).body.data.length, 0);
    });
  });
});
