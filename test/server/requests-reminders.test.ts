/**
 * After creation (spec 3.1, 4, 7, 8): POST …/cancel (409 request_not_cancelable), POST …/reminders
 * (400 reminder_not_allowed, 429 reminder_too_soon within an hour per signer, 429
 * reminder_limit_reached past 10), automatic reminders from `reminders` run by the job runner, and
 * expiry at expires_at. Time moves with the ManualClock; jobs run with s.jobs.runDue().
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type CallResult, type TestServer } from '../support/server.js';
import { teamAccount, type TeamAccount } from '../support/teamAccount.js';

const HOUR = 3600;
const DAY = 86400;
const TEMPLATE = {
  title: 'Plain agreement',
  language: 'en',
  body: 'The parties agree. {{note}}',
  fields: [{ key: 'note', label: 'Note' }],
};
const ORIGIN = { ip: '203.0.113.9', user_agent: 'test' };

type Setup = TeamAccount;

const setup = (s: TestServer, overrides: Parameters<TestServer['account']>[0] = {}): Promise<Setup> =>
  teamAccount(s, TEMPLATE, { members: 4, overrides });

function body(a: Setup, n: number, extra: Record<string, unknown> = {}, test = false) {
  const signers = Array.from({ length: n }, (_, i) => ({
    name: `Signer ${i + 1}`,
    email: test ? a.team[i]! : `signer${i + 1}@client.example`,
  }));
  return { title: 'Agreement', source: { type: 'template', template_id: a.templateId }, signers, ...extra };
}

async function create(s: TestServer, key: string, b: unknown): Promise<CallResult> {
  const r = await s.call('POST', '/signature_requests', { key, body: b });
  assert.equal(r.status, 201, r.text);
  return r;
}

const remind = (s: TestServer, key: string, id: string, b: unknown = undefined, prefix = '/api/v1') =>
  s.call('POST', `/signature_requests/${id}/reminders`, { key, body: b, prefix });
const cancel = (s: TestServer, key: string, id: string, prefix = '/api/v1') =>
  s.call('POST', `/signature_requests/${id}/cancel`, { key, prefix });
const get = async (s: TestServer, key: string, id: string) => (await s.call('GET', `/signature_requests/${id}`, { key })).body;

/** Reminder messages queued for a request: recipients in queue order. */
async function reminders(s: TestServer, requestId: string): Promise<string[]> {
  const rows = await s.ctx.store.db
    .selectFrom('messages')
    .select(['recipient', 'kind'])
    .where('signature_request_id', '=', requestId)
    .where('kind', '=', 'reminder')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.recipient);
}

async function eventTypes(s: TestServer, key: string, requestId: string): Promise<string[]> {
  const r = await s.call('GET', `/events?signature_request=${requestId}&limit=100`, { key });
  return (r.body.data as { type: string }[]).map((e) => e.type);
}

/** A signer signs through the real signer moves: view, one-time code, signature. */
async function sign(s: TestServer, signerId: string): Promise<void> {
  for (const move of ['view', 'otp_verified', 'sign'] as const) {
    await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signerId, move, ORIGIN));
  }
}

describe('POST /signature_requests/{id}/cancel', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('a sent request is canceled (links withdrawn, event); canceling again: 409 request_not_cancelable', async () => {
    const a = await setup(s);
    const k = a.keys.secret_live;
    const sr = (await create(s, k, body(a, 2))).body;
    const r = await cancel(s, k, sr.id);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'canceled');
    assert.ok(r.body.signers.every((x: { signing_url: string | null }) => x.signing_url === null));
    assert.equal((await get(s, k, sr.id)).status, 'canceled');
    assert.ok((await eventTypes(s, k, sr.id)).includes('signature_request.canceled'));
    const again = await assertErrorBothLanguages((prefix) => cancel(s, k, sr.id, prefix), 'request_not_cancelable');
    assert.equal(again.body.error.param, 'id');
    assert.equal((await eventTypes(s, k, sr.id)).filter((t) => t === 'signature_request.canceled').length, 1);
  });

  test('a completed request: 409 request_not_cancelable and it stays completed; drafts and partially signed requests can be canceled', async () => {
    const a = await setup(s);
    const k = a.keys.secret_live;
    const done = (await create(s, k, body(a, 2))).body;
    await sign(s, done.signers[0].id);
    assert.equal((await get(s, k, done.id)).status, 'partially_signed');
    await sign(s, done.signers[1].id);
    assert.equal((await get(s, k, done.id)).status, 'completed');
    await assertErrorBothLanguages((prefix) => cancel(s, k, done.id, prefix), 'request_not_cancelable');
    const after = await get(s, k, done.id);
    assert.equal(after.status, 'completed');
    assert.match(after.reference, /^REF-/);

    const draft = (await create(s, k, body(a, 1, { send: false }))).body;
    assert.equal((await cancel(s, k, draft.id)).body.status, 'canceled');
    const partial = (await create(s, k, body(a, 2))).body;
    await sign(s, partial.signers[0].id);
    assert.equal((await cancel(s, k, partial.id)).body.status, 'canceled');
  });

  test("unknown id, another account's request or the other mode's key: 404 not_found", async () => {
    const a = await setup(s);
    const sr = (await create(s, a.keys.secret_live, body(a, 1))).body;
    const other = await setup(s);
    assertError(await cancel(s, other.keys.secret_live, sr.id), 'not_found');
    assertError(await cancel(s, a.keys.secret_test, sr.id), 'not_found');
    assertError(await cancel(s, a.keys.secret_live, 'sr_doesnotexist'), 'not_found');
    assert.equal((await get(s, a.keys.secret_live, sr.id)).status, 'sent');
  });
});

describe('POST /signature_requests/{id}/reminders', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ TAWQI_RATE_LIMIT: '100000' });
  });
  after(() => s.close());

  test('400 reminder_not_allowed on a draft, a canceled or a completed request', async () => {
    const a = await setup(s);
    const k = a.keys.secret_live;
    const draft = (await create(s, k, body(a, 1, { send: false }))).body;
    const r = await assertErrorBothLanguages((prefix) => remind(s, k, draft.id, undefined, prefix), 'reminder_not_allowed');
    assert.equal(r.status, 400);
    const canceled = (await create(s, k, body(a, 1))).body;
    await cancel(s, k, canceled.id);
    await assertErrorBothLanguages((prefix) => remind(s, k, canceled.id, undefined, prefix), 'reminder_not_allowed');
    const done = (await create(s, k, body(a, 1))).body;
    await sign(s, done.signers[0].id);
    assertError(await remind(s, k, done.id), 'reminder_not_allowed');
    for (const id of [draft.id, canceled.id, done.id]) assert.deepEqual(await reminders(s, id), []);
  });

  test('one reminder per signer per hour: 3599 s later still 429 reminder_too_soon, 3600 s later accepted', async () => {
    const a = await setup(s);
    const k = a.keys.secret_live;
    const sr = (await create(s, k, body(a, 2))).body;
    const first = await remind(s, k, sr.id);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.status, 'sent', 'a reminder is not a state change');
    assert.deepEqual(await reminders(s, sr.id), ['signer1@client.example', 'signer2@client.example']);
    const soon = await assertErrorBothLanguages((prefix) => remind(s, k, sr.id, undefined, prefix), 'reminder_too_soon');
    assert.equal(soon.headers.get('retry-after'), String(HOUR));
    assert.equal(soon.body.error.param, 'signer');
    s.clock.advanceSeconds(3599);
    const still = await assertErrorBothLanguages((prefix) => remind(s, k, sr.id, undefined, prefix), 'reminder_too_soon');
    assert.equal(still.headers.get('retry-after'), '1');
    assert.equal((await reminders(s, sr.id)).length, 2);
    s.clock.advanceSeconds(1);
    assert.equal((await remind(s, k, sr.id)).status, 200);
    assert.equal((await reminders(s, sr.id)).length, 4);
  });

  test('the hour is per signer: a named signer can be reminded while another was just reminded', async () => {
    const a = await setup(s);
    const k = a.keys.secret_live;
    const sr = (await create(s, k, body(a, 2))).body;
    const [one, two] = sr.signers as { id: string; email: string }[];
    assert.equal((await remind(s, k, sr.id, { signer: one!.id })).status, 200);
    assert.deepEqual(await reminders(s, sr.id), [one!.email]);
    const again = await remind(s, k, sr.id, { signer: one!.id });
    assertError(again, 'reminder_too_soon');
    assert.equal(again.body.error.signer, one!.id);
    assert.equal((await remind(s, k, sr.id, { signer: two!.id })).status, 200);
    assert.deepEqual(await reminders(s, sr.id), [one!.email, two!.email]);
    assertError(await remind(s, k, sr.id), 'reminder_too_soon');
    // A signer who has signed has nothing to be reminded of.
    s.clock.advanceSeconds(HOUR);
    await sign(s, one!.id);
    const signed = await remind(s, k, sr.id, { signer: one!.id });
    assertError(signed, 'parameter_invalid');
    assert.equal(signed.body.error.param, 'signer');
    assert.equal((await remind(s, k, sr.id)).status, 200);
    assert.deepEqual(await reminders(s, sr.id), [one!.email, two!.email, two!.email], 'only the pending signer');
    assertError(await remind(s, k, sr.id, { colour: 'red' }), 'parameter_unknown');
  });

  test('ordered requests remind only the signer whose turn it is', async () => {
    const a = await setup(s);
    const k = a.keys.secret_live;
    const sr = (await create(s, k, body(a, 3, { ordered: true }))).body;
    assert.equal((await remind(s, k, sr.id)).status, 200);
    assert.deepEqual(await reminders(s, sr.id), ['signer1@client.example']);
    await sign(s, sr.signers[0].id);
    assert.equal((await remind(s, k, sr.id)).status, 200, 'the next signer was never reminded');
    assert.deepEqual(await reminders(s, sr.id), ['signer1@client.example', 'signer2@client.example']);
  });

  test('10 reminders per request; the 11th gets 429 reminder_limit_reached even an hour later', async () => {
    const a = await setup(s);
    const k = a.keys.secret_live;
    const sr = (await create(s, k, body(a, 1))).body;
    for (let i = 0; i < 10; i++) {
      const r = await remind(s, k, sr.id);
      assert.equal(r.status, 200, `reminder ${i + 1}: ${r.text}`);
      s.clock.advanceSeconds(HOUR);
    }
    const over = await assertErrorBothLanguages((prefix) => remind(s, k, sr.id, undefined, prefix), 'reminder_limit_reached');
    assert.equal(over.status, 429);
    s.clock.advanceSeconds(DAY);
    assertError(await remind(s, k, sr.id), 'reminder_limit_reached');
    assert.equal((await reminders(s, sr.id)).length, 10);
  });

  test('test-mode reminders carry [TEST] and the notice', async () => {
    const a = await setup(s);
    const sr = (await create(s, a.keys.secret_test, body(a, 1, {}, true))).body;
    assert.equal((await remind(s, a.keys.secret_test, sr.id)).status, 200);
    const [m] = await s.ctx.store.db
      .selectFrom('messages')
      .selectAll()
      .where('signature_request_id', '=', sr.id)
      .where('kind', '=', 'reminder')
      .execute();
    assert.equal(m!.livemode, 0);
    assert.equal(m!.recipient, a.team[0]);
    assert.ok(m!.subject.startsWith('[TEST] '), m!.subject);
    assert.match(m!.body, /This is a test message/);
  });
});

describe('automatic reminders and expiry (jobs)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ TAWQI_RATE_LIMIT: '100000' });
  });
  after(() => s.close());

  test('reminders {enabled, interval_hours, max}: one per pending signer every interval_hours, up to max', async () => {
    const a = await setup(s);
    const k = a.keys.secret_live;
    const sr = (await create(s, k, body(a, 3, { reminders: { enabled: true, interval_hours: 2, max: 2 } }))).body;
    assert.deepEqual(sr.reminders, { enabled: true, interval_hours: 2, max: 2 });
    s.clock.advanceSeconds(2 * HOUR - 1);
    await s.jobs.runDue();
    assert.deepEqual(await reminders(s, sr.id), [], 'not before interval_hours');
    s.clock.advanceSeconds(1);
    await s.jobs.runDue();
    assert.deepEqual(await reminders(s, sr.id), ['signer1@client.example', 'signer2@client.example', 'signer3@client.example']);
    await sign(s, sr.signers[0].id);
    s.clock.advanceSeconds(2 * HOUR);
    await s.jobs.runDue();
    assert.deepEqual(
      (await reminders(s, sr.id)).slice(3),
      ['signer2@client.example', 'signer3@client.example'],
      'a signer who signed is not reminded',
    );
    for (let i = 0; i < 3; i++) {
      s.clock.advanceSeconds(2 * HOUR);
      await s.jobs.runDue();
    }
    assert.equal((await reminders(s, sr.id)).length, 5, 'none after max');
    // Automatic reminders do not use up the manual ones.
    assert.equal((await remind(s, k, sr.id)).status, 200);
    assert.equal((await get(s, k, sr.id)).status, 'partially_signed');
  });

  test('none once the request is final, none when disabled or max is 0', async () => {
    const a = await setup(s);
    const k = a.keys.secret_live;
    const on = { reminders: { enabled: true, interval_hours: 1, max: 3 } };
    const canceled = (await create(s, k, body(a, 1, on))).body;
    const completed = (await create(s, k, body(a, 1, on))).body;
    const declined = (await create(s, k, body(a, 2, on))).body;
    const disabled = (await create(s, k, body(a, 1, { reminders: { enabled: false, interval_hours: 1, max: 3 } }))).body;
    const zero = (await create(s, k, body(a, 1, { reminders: { enabled: true, interval_hours: 1, max: 0 } }))).body;
    const byDefault = (await create(s, k, body(a, 1))).body;
    const running = (await create(s, k, body(a, 1, on))).body;
    await cancel(s, k, canceled.id);
    await sign(s, completed.signers[0].id);
    for (const move of ['view', 'decline'] as const)
      await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, declined.signers[0].id, move, ORIGIN));
    assert.equal((await get(s, k, declined.id)).status, 'declined');
    for (let i = 0; i < 60; i++) {
      s.clock.advanceSeconds(HOUR);
      await s.jobs.runDue();
    }
    for (const sr of [canceled, completed, declined, disabled, zero, byDefault]) assert.deepEqual(await reminders(s, sr.id), [], sr.id);
    assert.equal((await reminders(s, running.id)).length, 3, 'the open request got its three');
  });

  test('automatic reminders skip a signer reminded by hand within the hour', async () => {
    const a = await setup(s);
    const k = a.keys.secret_live;
    const sr = (await create(s, k, body(a, 2, { reminders: { enabled: true, interval_hours: 2, max: 1 } }))).body;
    s.clock.advanceSeconds(90 * 60);
    assert.equal((await remind(s, k, sr.id, { signer: sr.signers[0].id })).status, 200);
    s.clock.advanceSeconds(30 * 60);
    await s.jobs.runDue();
    assert.deepEqual(await reminders(s, sr.id), ['signer1@client.example', 'signer2@client.example']);
    // Every signer reminded within the hour is skipped, not only the first one.
    const both = (await create(s, k, body(a, 3, { reminders: { enabled: true, interval_hours: 2, max: 1 } }))).body;
    s.clock.advanceSeconds(90 * 60);
    assert.equal((await remind(s, k, both.id, { signer: both.signers[0].id })).status, 200);
    assert.equal((await remind(s, k, both.id, { signer: both.signers[2].id })).status, 200);
    s.clock.advanceSeconds(30 * 60);
    await s.jobs.runDue();
    assert.deepEqual(await reminders(s, both.id), ['signer1@client.example', 'signer3@client.example', 'signer2@client.example']);
  });

  test('expires_at: the request expires when the time comes (event, links withdrawn), not a second before; then no reminders or cancel', async () => {
    const a = await setup(s);
    const k = a.keys.secret_live;
    const t = Math.floor(s.clock.nowMs() / 1000);
    const sr = (await create(s, k, body(a, 1, { expires_at: t + 2 * HOUR, reminders: { enabled: true, interval_hours: 3, max: 2 } }))).body;
    assert.equal(sr.expires_at, t + 2 * HOUR);
    s.clock.advanceSeconds(2 * HOUR - 1);
    await s.jobs.runDue();
    assert.equal((await get(s, k, sr.id)).status, 'sent');
    s.clock.advanceSeconds(1);
    await s.jobs.runDue();
    const expired = await get(s, k, sr.id);
    assert.equal(expired.status, 'expired');
    assert.equal(expired.signers[0].signing_url, null);
    assert.ok((await eventTypes(s, k, sr.id)).includes('signature_request.expired'));
    await assertErrorBothLanguages((prefix) => remind(s, k, sr.id, undefined, prefix), 'reminder_not_allowed');
    assertError(await cancel(s, k, sr.id), 'request_not_cancelable');
    s.clock.advanceSeconds(10 * HOUR);
    await s.jobs.runDue();
    assert.deepEqual(await reminders(s, sr.id), [], 'an expired request gets no automatic reminder');
    assert.equal((await eventTypes(s, k, sr.id)).filter((e) => e === 'signature_request.expired').length, 1);
  });

  test('default life of 30 days, for sent requests and drafts; a completed request does not expire', async () => {
    const a = await setup(s);
    const k = a.keys.secret_live;
    const t = Math.floor(s.clock.nowMs() / 1000);
    const sent = (await create(s, k, body(a, 1))).body;
    const draft = (await create(s, k, body(a, 1, { send: false }))).body;
    const done = (await create(s, k, body(a, 1))).body;
    for (const sr of [sent, draft, done]) assert.equal(sr.expires_at, t + 30 * DAY);
    await sign(s, done.signers[0].id);
    s.clock.advanceSeconds(30 * DAY - 1);
    await s.jobs.runDue();
    assert.equal((await get(s, k, sent.id)).status, 'sent');
    assert.equal((await get(s, k, draft.id)).status, 'draft');
    s.clock.advanceSeconds(1);
    await s.jobs.runDue();
    assert.equal((await get(s, k, sent.id)).status, 'expired');
    assert.equal((await get(s, k, draft.id)).status, 'expired');
    assert.equal((await get(s, k, done.id)).status, 'completed');
    assert.equal((await eventTypes(s, k, done.id)).includes('signature_request.expired'), false);
  });
});

describe('the test email limit after creation', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const setCounter = (accountId: string, value: number) => {
    const now = Math.floor(s.clock.nowMs() / 1000);
    return s.ctx.store.db
      .insertInto('counters')
      .values({ scope: `test_emails:${accountId}`, window_start: now - (now % DAY), count: value })
      .onConflict((oc) => oc.columns(['scope', 'window_start']).doUpdateSet({ count: value }))
      .execute();
  };

  test('the next signer of an ordered request is invited even past the limit: the signature is kept, the email is held', async () => {
    const a = await setup(s);
    const sr = (await create(s, a.keys.secret_test, body(a, 2, { ordered: true }, true))).body;
    await setCounter(a.id, 50);
    const first = sr.signers[0].id;
    await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, first, 'otp_verified', ORIGIN));
    await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, first, 'sign', ORIGIN));
    const after1 = await get(s, a.keys.secret_test, sr.id);
    assert.equal(after1.status, 'partially_signed');
    assert.equal(after1.signers[1].status, 'sent');
    const msgs = await s.ctx.store.db
      .selectFrom('messages')
      .select(['recipient', 'state'])
      .where('signature_request_id', '=', sr.id)
      .where('kind', '=', 'invitation')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      msgs.map((m) => m.state),
      ['queued', 'held'],
      'the follow-up invitation is not sent past the limit',
    );
    const counter = await s.ctx.store.db
      .selectFrom('counters')
      .select('count')
      .where('scope', '=', `test_emails:${a.id}`)
      .executeTakeFirstOrThrow();
    assert.equal(counter.count, 50, 'never counted past the limit');
  });

  test('an automatic reminder past the limit waits for the next UTC day instead of failing', async () => {
    const a = await setup(s);
    const sr = (await create(s, a.keys.secret_test, body(a, 1, { reminders: { enabled: true, interval_hours: 1, max: 2 } }, true))).body;
    await setCounter(a.id, 50);
    s.clock.advanceSeconds(HOUR);
    await s.jobs.runDue();
    assert.deepEqual(await reminders(s, sr.id), []);
    const failed = await s.ctx.store.db
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', 'auto_reminder')
      .where('state', '=', 'failed')
      .execute();
    assert.equal(failed.length, 0);
    const now = Math.floor(s.clock.nowMs() / 1000);
    s.clock.set((now - (now % DAY) + DAY) * 1000);
    await s.jobs.runDue();
    assert.deepEqual(await reminders(s, sr.id), [a.team[0]]);
  });
});
