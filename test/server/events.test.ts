/**
 * The event log (spec 6.2–6.4 and GET /events): each move emits exactly the events its row names,
 * in the 6.2 envelope, with a snapshot of the object at that moment, written in the transaction of
 * the state change; the list filters, the cursor, and the mode, account and key rules.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SignerTrigger } from '../../server/src/domain/requestStates.js';
import { issueKey } from '../../server/src/services/accounts.js';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ORIGIN = 'https://shop.example.com';
const TEAM = ['amira@example.com', 'bassem@example.com'];
const WHERE = { ip: '198.51.100.23', user_agent: 'events-test/1.0' };

interface Event {
  id: string;
  object: string;
  type: string;
  created_at: number;
  livemode: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: { object: any };
  request: { ip: string | null; user_agent: string | null } | null;
}
interface Acct {
  id: string;
  keys: TestServer['keys'];
  template: string;
}

describe('events (spec 6.2–6.4, GET /events)', () => {
  let s: TestServer;
  let n = 0;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const now = () => Math.floor(s.clock.nowMs() / 1000);

  async function account(overrides: Parameters<TestServer['account']>[0] = {}): Promise<Acct> {
    const acct = await s.account({ ownerEmail: TEAM[0], ...overrides });
    await s.ctx.store.tx((trx) => updateAccount(trx, acct.id, { team_emails: TEAM }));
    const tpl = await s.call('POST', '/templates', {
      key: acct.keys.secret_live,
      body: {
        title: `Events ${++n}`,
        language: 'en',
        body: 'Agreed by {{party}}.',
        fields: [{ key: 'party', label: 'Party', required: false }],
      },
    });
    assert.equal(tpl.status, 201, tpl.text);
    return { ...acct, template: tpl.body.id };
  }

  async function create(key: string, a: Acct, extra: Record<string, unknown> = {}, signers = 2) {
    const r = await s.call('POST', '/signature_requests', {
      key,
      body: {
        title: 'Supply',
        source: { type: 'template', template_id: a.template },
        signers: TEAM.slice(0, signers).map((email, i) => ({ name: `Signer ${i + 1}`, email })),
        ...extra,
      },
    });
    assert.equal(r.status, 201, r.text);
    return r.body;
  }

  const move = (signerId: string, trigger: Exclude<SignerTrigger, 'invite'>, details: { reason?: string } = {}) =>
    s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signerId, trigger, WHERE, details));

  async function events(key: string, query = ''): Promise<Event[]> {
    const r = await s.call('GET', `/events?limit=100${query ? `&${query}` : ''}`, { key });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.object, 'list');
    assert.equal(r.body.has_more, false);
    assert.equal(r.body.next_cursor, null);
    return r.body.data;
  }
  const types = (list: Event[]) => list.map((e) => e.type);

  function assertEnvelope(e: Event, livemode: boolean): void {
    assert.match(e.id, /^evt_[0-9A-Za-z]+$/);
    assert.equal(e.object, 'event');
    assert.equal(typeof e.type, 'string');
    assert.ok(Number.isInteger(e.created_at));
    assert.equal(e.livemode, livemode);
    assert.equal(typeof e.data.object, 'object');
    assert.ok(e.data.object !== null);
  }

  /** No event carries a signing link (bearer credentials do not go to the log or to webhooks). */
  function assertNoLinks(e: Event): void {
    const o = e.data.object;
    if (o.object === 'signer') assert.equal(o.signing_url, null, `${e.type} carries a signing_url`);
    if (o.object === 'signature_request')
      for (const signer of o.signers) assert.equal(signer.signing_url, null, `${e.type} carries a signing_url`);
    assert.doesNotMatch(JSON.stringify(e), /\/sign\/sgr_/);
  }

  test('a request from sending to completion: exact events, envelope, and snapshots as at each moment', async () => {
    const a = await account();
    const k = a.keys.secret_test;
    const t0 = now();
    const sr = await create(k, a);
    const [first, second] = sr.signers;
    s.clock.advanceSeconds(10);
    await move(first.id, 'view');
    s.clock.advanceSeconds(10);
    await move(first.id, 'otp_verified');
    await move(first.id, 'sign');
    s.clock.advanceSeconds(10);
    await move(second.id, 'view');
    await move(second.id, 'otp_verified');
    await move(second.id, 'sign');

    const list = await events(k, `signature_request=${sr.id}`);
    assert.deepEqual(types(list), [
      'signature_request.completed',
      'signer.signed',
      'signer.otp_verified',
      'signer.viewed',
      'signature_request.partially_signed',
      'signer.signed',
      'signer.otp_verified',
      'signer.viewed',
      'signature_request.viewed',
      'signer.sent',
      'signer.sent',
      'signature_request.sent',
    ]);
    for (const e of list) {
      assertEnvelope(e, false);
      assertNoLinks(e);
    }
    assert.equal(new Set(list.map((e) => e.id)).size, list.length, 'ids are unique');
    const oldestFirst = [...list].reverse();
    assert.deepEqual(
      oldestFirst.map((e) => e.created_at),
      [t0, t0, t0, t0 + 10, t0 + 10, t0 + 20, t0 + 20, t0 + 20, t0 + 30, t0 + 30, t0 + 30, t0 + 30],
    );

    // signature_request.* carry the request with its status at that moment.
    const requestSnapshots = oldestFirst.filter((e) => e.type.startsWith('signature_request.')).map((e) => e.data.object);
    assert.deepEqual(
      requestSnapshots.map((o) => [o.object, o.id, o.status, o.signers.map((x: { status: string }) => x.status)]),
      [
        ['signature_request', sr.id, 'sent', ['sent', 'sent']],
        ['signature_request', sr.id, 'viewed', ['viewed', 'sent']],
        ['signature_request', sr.id, 'partially_signed', ['signed', 'sent']],
        ['signature_request', sr.id, 'completed', ['signed', 'signed']],
      ],
    );
    const [sent, , , completed] = requestSnapshots;
    assert.equal(sent.reference, null);
    assert.equal(sent.download_url, null);
    assert.equal(sent.completed_at, null);
    assert.equal(sent.livemode, false);
    assert.deepEqual(
      sent.signers.map((x: { email: string }) => x.email),
      TEAM,
      'snapshots keep full contacts',
    );
    assert.match(completed.reference, /^REF-[2-9A-HJ-NP-Z]{5}-[2-9A-HJ-NP-Z]{5}$/);
    assert.equal(completed.completed_at, t0 + 30);
    assert.equal(completed.download_url, `${s.url}/api/v1/signature_requests/${sr.id}/download`);
    const current = (await s.call('GET', `/signature_requests/${sr.id}`, { key: k })).body;
    assert.equal(current.status, 'completed');
    assert.equal(completed.reference, current.reference);
    // The snapshot of a request event is the object as GET returned it then, minus the links.
    const { signers: currentSigners, ...currentRest } = current;
    const { signers: completedSigners, ...completedRest } = completed;
    assert.deepEqual(completedRest, currentRest);
    assert.deepEqual(
      completedSigners,
      currentSigners.map((x: Record<string, unknown>) => ({ ...x, signing_url: null })),
    );

    // signer.* carry the signer (id, object, status) plus the request id, as at that moment.
    const signerSnapshots = oldestFirst.filter((e) => e.type.startsWith('signer.'));
    assert.deepEqual(
      signerSnapshots.map((e) => [e.type, e.data.object.object, e.data.object.id, e.data.object.status, e.data.object.signature_request]),
      [
        ['signer.sent', 'signer', first.id, 'sent', sr.id],
        ['signer.sent', 'signer', second.id, 'sent', sr.id],
        ['signer.viewed', 'signer', first.id, 'viewed', sr.id],
        ['signer.otp_verified', 'signer', first.id, 'otp_verified', sr.id],
        ['signer.signed', 'signer', first.id, 'signed', sr.id],
        ['signer.viewed', 'signer', second.id, 'viewed', sr.id],
        ['signer.otp_verified', 'signer', second.id, 'otp_verified', sr.id],
        ['signer.signed', 'signer', second.id, 'signed', sr.id],
      ],
    );
    const signedEvent = signerSnapshots[4]!;
    assert.equal(signedEvent.data.object.signed_at, t0 + 20);
    assert.equal(signedEvent.data.object.email, TEAM[0]);
    // Signer actions record where they came from; sending does not.
    assert.deepEqual(signedEvent.request, WHERE);
    assert.equal(signerSnapshots[0]!.request, null);

    // GET /events/{id} returns the same envelope.
    for (const e of list) {
      const one = await s.call('GET', `/events/${e.id}`, { key: k });
      assert.equal(one.status, 200, one.text);
      assert.deepEqual(one.body, e);
    }
  });

  test('draft, send and cancel; decline; expiry: each row emits exactly its events with its snapshot', async () => {
    const a = await account();
    const k = a.keys.secret_test;

    const draft = await create(k, a, { send: false });
    const created = await events(k, `signature_request=${draft.id}`);
    assert.deepEqual(types(created), ['signature_request.created']);
    assert.equal(created[0]!.data.object.status, 'draft');
    assert.deepEqual(
      created[0]!.data.object.signers.map((x: { status: string }) => x.status),
      ['pending', 'pending'],
    );
    await s.call('POST', `/signature_requests/${draft.id}/send`, { key: k });
    await s.call('POST', `/signature_requests/${draft.id}/cancel`, { key: k });
    const drafted = (await events(k, `signature_request=${draft.id}`)).reverse();
    assert.deepEqual(types(drafted), [
      'signature_request.created',
      'signature_request.sent',
      'signer.sent',
      'signer.sent',
      'signature_request.canceled',
    ]);
    assert.deepEqual(
      drafted.map((e) => e.data.object.status),
      ['draft', 'sent', 'sent', 'sent', 'canceled'],
    );
    for (const e of drafted) assertNoLinks(e);

    const declined = await create(k, a);
    await move(declined.signers[1].id, 'decline', { reason: 'Price too high' });
    const declinedEvents = (await events(k, `signature_request=${declined.id}`)).reverse();
    assert.deepEqual(types(declinedEvents), [
      'signature_request.sent',
      'signer.sent',
      'signer.sent',
      'signer.declined',
      'signature_request.declined',
    ]);
    const signerDeclined = declinedEvents[3]!.data.object;
    assert.equal(signerDeclined.id, declined.signers[1].id);
    assert.equal(signerDeclined.status, 'declined');
    assert.equal(signerDeclined.decline_reason, 'Price too high');
    assert.equal(declinedEvents[4]!.data.object.status, 'declined');

    const expiring = await create(k, a, { expires_at: now() + 120 });
    s.clock.advanceSeconds(121);
    await s.jobs.runDue();
    const expiredEvents = (await events(k, `signature_request=${expiring.id}`)).reverse();
    assert.deepEqual(types(expiredEvents), ['signature_request.sent', 'signer.sent', 'signer.sent', 'signature_request.expired']);
    assert.equal(expiredEvents[3]!.data.object.status, 'expired');
    assert.equal(expiredEvents[3]!.created_at, now());
    assert.equal(expiredEvents[0]!.data.object.status, 'sent', 'the earlier snapshot keeps its status');
  });

  test('events are written in the transaction of the state change: a rolled-back move leaves neither', async () => {
    const a = await account();
    const k = a.keys.secret_test;
    const sr = await create(k, a);
    const before = await events(k, `signature_request=${sr.id}`);
    await assert.rejects(
      s.ctx.store.tx(async (trx) => {
        await applySignerMove(s.ctx, trx, sr.signers[0].id, 'view', WHERE);
        throw new Error('abort after the move');
      }),
      /abort after the move/,
    );
    assert.deepEqual(await events(k, `signature_request=${sr.id}`), before);
    const got = (await s.call('GET', `/signature_requests/${sr.id}`, { key: k })).body;
    assert.equal(got.status, 'sent');
    assert.equal(got.signers[0].status, 'sent');
    assert.equal(got.signers[0].viewed_at, null);

    // A refused create (402 insufficient_balance in live mode) records no request and no event.
    const broke = await account({ balanceSends: 0, walletMinor: 0 });
    const r = await s.call('POST', '/signature_requests', {
      key: broke.keys.secret_live,
      body: { source: { type: 'template', template_id: broke.template }, signers: [{ name: 'A', email: TEAM[0] }] },
    });
    assertError(r, 'insufficient_balance');
    assert.deepEqual(await events(broke.keys.secret_live), []);
    assert.deepEqual((await s.call('GET', '/signature_requests', { key: broke.keys.secret_live })).body.data, []);
  });

  test('filters: type (exact or prefix), signature_request, created_after / created_before (unix or ISO), cursor and limit', async () => {
    const a = await account();
    const k = a.keys.secret_test;
    const t0 = now();
    const one = await create(k, a, {}, 1);
    await move(one.signers[0].id, 'view');
    // A day later: a second request.
    s.clock.advanceSeconds(86400);
    const t1 = now();
    const two = await create(k, a);
    await move(two.signers[0].id, 'decline', { reason: 'no' });

    const all = await events(k);
    assert.deepEqual(types(all), [
      'signature_request.declined',
      'signer.declined',
      'signer.sent',
      'signer.sent',
      'signature_request.sent',
      'signer.viewed',
      'signature_request.viewed',
      'signer.sent',
      'signature_request.sent',
    ]);
    const ids = (list: Event[]) => list.map((e) => e.id);

    // type: exact, or a prefix ending in .*
    assert.deepEqual(types(await events(k, 'type=signer.sent')), ['signer.sent', 'signer.sent', 'signer.sent']);
    assert.deepEqual(ids(await events(k, 'type=signer.*')), ids(all.filter((e) => e.type.startsWith('signer.'))));
    assert.deepEqual(ids(await events(k, 'type=signature_request.*')), ids(all.filter((e) => e.type.startsWith('signature_request.'))));
    assert.deepEqual(await events(k, 'type=document.*'), []);
    assert.deepEqual(await events(k, 'type=signature_request.completed'), []);
    for (const bad of ['signer', 'signer.', '*', 'signer.*.x', 'Signer.sent']) {
      const r = await s.call('GET', `/events?type=${encodeURIComponent(bad)}`, { key: k });
      assertError(r, 'parameter_invalid');
      assert.equal(r.body.error.param, 'type');
    }

    // signature_request, alone and with type.
    assert.deepEqual(ids(await events(k, `signature_request=${one.id}`)), ids(all.slice(5)));
    assert.deepEqual(types(await events(k, `signature_request=${two.id}&type=signer.*`)), [
      'signer.declined',
      'signer.sent',
      'signer.sent',
    ]);
    assert.deepEqual(await events(k, 'signature_request=sr_unknown'), []);
    assertError(await s.call('GET', '/events?signature_request=sgr_x', { key: k }), 'parameter_invalid');

    // created_after / created_before as unix seconds or ISO dates.
    assert.deepEqual(ids(await events(k, `created_after=${t0 + 1}`)), ids(all.slice(0, 5)));
    assert.deepEqual(ids(await events(k, `created_before=${t1 - 1}`)), ids(all.slice(5)));
    const day0 = new Date(t0 * 1000).toISOString().slice(0, 10);
    const day1 = new Date(t1 * 1000).toISOString().slice(0, 10);
    assert.notEqual(day0, day1);
    assert.deepEqual(ids(await events(k, `created_after=${day1}`)), ids(all.slice(0, 5)));
    assert.deepEqual(ids(await events(k, `created_before=${day1}`)), ids(all.slice(5)));
    assert.deepEqual(ids(await events(k, `created_after=${day0}&created_before=${day1}`)), ids(all.slice(5)));
    assert.deepEqual(
      ids(await events(k, `created_after=${encodeURIComponent(new Date((t1 - 60) * 1000).toISOString())}`)),
      ids(all.slice(0, 5)),
    );
    assert.deepEqual(await events(k, `created_after=${t1 + 1}`), []);
    const badTime = await s.call('GET', '/events?created_after=soon', { key: k });
    assertError(badTime, 'parameter_invalid');
    assert.equal(badTime.body.error.param, 'created_after');

    // starting_after and limit.
    const page1 = await s.call('GET', '/events?limit=4', { key: k });
    assert.deepEqual(
      page1.body.data.map((e: Event) => e.id),
      ids(all.slice(0, 4)),
    );
    assert.equal(page1.body.has_more, true);
    assert.equal(page1.body.next_cursor, all[3]!.id);
    const page2 = await s.call('GET', `/events?limit=4&starting_after=${page1.body.next_cursor}`, { key: k });
    assert.deepEqual(
      page2.body.data.map((e: Event) => e.id),
      ids(all.slice(4, 8)),
    );
    assert.equal(page2.body.has_more, true);
    const page3 = await s.call('GET', `/events?limit=4&starting_after=${page2.body.next_cursor}`, { key: k });
    assert.deepEqual(page3.body, { object: 'list', data: [all[8]], has_more: false, next_cursor: null });
    const filteredPage = await s.call('GET', '/events?type=signer.*&limit=2', { key: k });
    assert.equal(filteredPage.body.has_more, true);
    const filteredRest = await s.call('GET', `/events?type=signer.*&starting_after=${filteredPage.body.next_cursor}`, { key: k });
    assert.deepEqual(
      [...filteredPage.body.data, ...filteredRest.body.data].map((e: Event) => e.id),
      ids(all.filter((e) => e.type.startsWith('signer.'))),
    );
    const defaultPage = await s.call('GET', '/events', { key: k });
    assert.equal(defaultPage.body.data.length, 9, 'default limit 20 covers all nine');
    for (const bad of ['0', '101', 'ten']) {
      const r = await s.call('GET', `/events?limit=${bad}`, { key: k });
      assertError(r, 'parameter_invalid');
      assert.equal(r.body.error.param, 'limit');
    }
  });

  test('test keys see only test events, live keys only live ones; another account or mode gets 404 on GET /events/{id}', async () => {
    const a = await account();
    const b = await account();
    const testReq = await create(a.keys.secret_test, a, {}, 1);
    const liveReq = await create(a.keys.secret_live, a, {}, 1);
    const testEvents = await events(a.keys.secret_test);
    const liveEvents = await events(a.keys.secret_live);
    assert.deepEqual(types(testEvents), ['signer.sent', 'signature_request.sent']);
    assert.deepEqual(types(liveEvents), ['signer.sent', 'signature_request.sent']);
    for (const e of testEvents) {
      assertEnvelope(e, false);
      assert.ok([testReq.id].includes(e.data.object.id) || e.data.object.signature_request === testReq.id);
    }
    for (const e of liveEvents) {
      assertEnvelope(e, true);
      assertNoLinks(e);
      assert.ok([liveReq.id].includes(e.data.object.id) || e.data.object.signature_request === liveReq.id);
    }
    assert.equal(liveEvents[1]!.data.object.livemode, true);
    assert.deepEqual(await events(a.keys.secret_live, `signature_request=${testReq.id}`), []);
    assert.deepEqual(await events(b.keys.secret_test), []);
    assert.deepEqual(await events(b.keys.secret_test, `signature_request=${testReq.id}`), []);

    const testEvent = testEvents[0]!.id;
    const liveEvent = liveEvents[0]!.id;
    assert.equal((await s.call('GET', `/events/${testEvent}`, { key: a.keys.secret_test })).status, 200);
    assert.equal((await s.call('GET', `/events/${liveEvent}`, { key: a.keys.secret_live })).status, 200);
    await assertErrorBothLanguages((prefix) => s.call('GET', `/events/${testEvent}`, { key: a.keys.secret_live, prefix }), 'not_found');
    await assertErrorBothLanguages((prefix) => s.call('GET', `/events/${liveEvent}`, { key: a.keys.secret_test, prefix }), 'not_found');
    await assertErrorBothLanguages((prefix) => s.call('GET', `/events/${testEvent}`, { key: b.keys.secret_test, prefix }), 'not_found');
    assertError(await s.call('GET', `/events/${liveEvent}`, { key: b.keys.secret_live }), 'not_found');
    assertError(await s.call('GET', '/events/evt_doesnotexist', { key: a.keys.secret_test }), 'not_found');
  });

  test('publishable keys get 403 forbidden on /events and /events/{id}', async () => {
    const a = await account();
    await create(a.keys.secret_test, a, {}, 1);
    const [e] = await events(a.keys.secret_test);
    for (const mode of ['test', 'live'] as const) {
      const pk = (await s.ctx.store.tx((trx) => issueKey(trx, s.clock, a.id, 'publishable', mode, { allowedOrigins: [ORIGIN] }))).secret;
      await assertErrorBothLanguages((prefix) => s.call('GET', '/events', { key: pk, prefix, headers: { origin: ORIGIN } }), 'forbidden');
      await assertErrorBothLanguages(
        (prefix) => s.call('GET', `/events/${e!.id}`, { key: pk, prefix, headers: { origin: ORIGIN } }),
        'forbidden',
      );
    }
  });
});
