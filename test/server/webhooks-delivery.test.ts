/**
 * Webhook delivery (spec 3.3, 5 "Webhook authentication", 6.1–6.4, 8) against real HTTPS receivers
 * on 127.0.0.1 (test/support/webhookReceiver.ts; their CA reaches the in-process server through
 * StartOptions.webhookCa). Time is the server's ManualClock: retries are followed by moving it and
 * calling `webhooks.runDue()`, never by sleeping; the only real waits are network round trips and
 * the (shortened) answer deadline.
 */
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { emitEvent } from '../../server/src/events/emit.js';
import { createWorkflow } from '../../server/src/services/workflows.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import { getEndpoint } from '../../server/src/store/webhooks.js';
import { rotateEndpointSecret } from '../../server/src/webhooks/endpoints.js';
import { MAX_ATTEMPTS, RETRY_SCHEDULE_SECONDS } from '../../server/src/webhooks/schedule.js';
import { assertError } from '../support/envelope.js';
import type { TestServer } from '../support/server.js';
import { makeTestCa, startWebhookTestServer, WebhookReceiver, type Received, type TestCa } from '../support/webhookReceiver.js';

const TEAM = ['amira@example.com', 'bassem@example.com'];
const WHERE = { ip: '198.51.100.23', user_agent: 'webhooks-test/1.0' };
/** The answer deadline of this server: short, so the hang and timeout tests wait little real time. */
const TIMEOUT_MS = 1000;
const TOLERANCE_SECONDS = 300;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * An independent verifier, written from the five steps of spec part 5 (it shares no code with the
 * server): split t and v1, signed payload = t + '.' + raw body, HMAC-SHA256 hex with the endpoint
 * secret, constant-time compare, reject when |now − t| > 300 s.
 */
function verify(
  header: string | undefined,
  rawBody: string,
  secret: string,
  nowSeconds: number,
): 'ok' | 'malformed' | 'signature' | 'timestamp' {
  if (!header) return 'malformed';
  const pairs = header.split(',').map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)] as const);
  const t = pairs.find(([k]) => k === 't')?.[1];
  const v1s = pairs.filter(([k]) => k === 'v1').map(([, v]) => v);
  if (!t || !/^\d+$/.test(t) || v1s.length === 0) return 'malformed';
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${rawBody}`, 'utf8').digest('hex'), 'utf8');
  const match = v1s.some((v) => {
    const given = Buffer.from(v, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!match) return 'signature';
  if (Math.abs(nowSeconds - Number(t)) > TOLERANCE_SECONDS) return 'timestamp';
  return 'ok';
}

const v1Count = (r: Received) =>
  String(r.headers['svc-signature'])
    .split(',')
    .filter((p) => p.startsWith('v1=')).length;
const eventOf = (r: Received): Json => JSON.parse(r.rawBody);

describe('webhook delivery', () => {
  let ca: TestCa;
  let s: TestServer;
  const receivers: WebhookReceiver[] = [];
  /** Endpoints made by the running test; deleted after it, so its pending retries never reach the next test. */
  let made: { key: string; id: string }[] = [];
  let n = 0;

  before(async () => {
    ca = makeTestCa();
    s = await startWebhookTestServer(ca, { TAWQI_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), TAWQI_WEBHOOK_ENDPOINT_CONCURRENCY: '2' });
  });
  after(async () => {
    await s.close();
    for (const r of receivers) await r.close();
    ca.cleanup();
  });

  afterEach(async () => {
    for (const e of made) await s.call('DELETE', `/webhook_endpoints/${e.id}`, { key: e.key });
    made = [];
  });

  const now = () => Math.floor(s.clock.nowMs() / 1000);

  async function receiver(): Promise<WebhookReceiver> {
    const r = await WebhookReceiver.start(ca);
    receivers.push(r);
    return r;
  }

  /** An account whose team may sign test requests, with a template of its own. */
  async function account() {
    const acct = await s.account({ ownerEmail: TEAM[0] });
    await s.ctx.store.tx((trx) => updateAccount(trx, acct.id, { team_emails: TEAM }));
    const tpl = await s.call('POST', '/templates', {
      key: acct.keys.secret_live,
      body: {
        title: `Hooks ${++n}`,
        language: 'en',
        body: 'Agreed by {{party}}.',
        fields: [{ key: 'party', label: 'Party', required: false }],
      },
    });
    assert.equal(tpl.status, 201, tpl.text);
    return { ...acct, template: tpl.body.id as string };
  }
  type Acct = Awaited<ReturnType<typeof account>>;

  async function endpoint(key: string, url: string, events: string[] = ['*']): Promise<{ id: string; secret: string }> {
    const r = await s.call('POST', '/webhook_endpoints', { key, body: { url, enabled_events: events } });
    assert.equal(r.status, 201, r.text);
    made.push({ key, id: r.body.id });
    return { id: r.body.id, secret: r.body.secret };
  }

  /** A sent request with `signers` team signers: events signature_request.sent and one signer.sent each. */
  async function sendRequest(key: string, a: Acct, signers = 1): Promise<Json> {
    const r = await s.call('POST', '/signature_requests', {
      key,
      body: {
        title: 'Supply',
        source: { type: 'template', template_id: a.template },
        signers: TEAM.slice(0, signers).map((email, i) => ({ name: `Signer ${i + 1}`, email })),
      },
    });
    assert.equal(r.status, 201, r.text);
    return r.body;
  }

  /** One event of the given type through the same path services use (emitEvent in a transaction). */
  async function emit(
    a: { id: string },
    livemode: boolean,
    object: Record<string, unknown> = { object: 'signature_request', id: 'sr_x' },
    type = 'signature_request.sent',
  ) {
    return s.ctx.store.tx((trx) => emitEvent(trx, s.clock, { accountId: a.id, livemode, type, object }));
  }

  async function deliveries(key: string, eventId: string): Promise<Json[]> {
    const r = await s.call('GET', `/events/${eventId}/deliveries`, { key });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.object, 'list');
    return r.body.data;
  }

  test('after a commit the dispatcher is woken only when deliveries were written (the poll tick finds the rest)', async () => {
    const quiet = await account();
    const busy = await account();
    const rx = await receiver();
    await endpoint(busy.keys.secret_test, rx.url());
    const original = s.webhooks.wake;
    let wakes = 0;
    s.webhooks.wake = () => void wakes++;
    try {
      s.webhooks.wakeAfterCommit(); // catch up with what earlier tests wrote
      wakes = 0;
      await sendRequest(quiet.keys.secret_test, quiet);
      s.webhooks.wakeAfterCommit();
      assert.equal(wakes, 0, 'a create for an account without endpoints writes no delivery: no claim');
      await emit(busy, false);
      s.webhooks.wakeAfterCommit();
      assert.equal(wakes, 1, 'an event with a subscribed endpoint wakes the dispatcher');
      s.webhooks.wakeAfterCommit();
      assert.equal(wakes, 1, 'once');
    } finally {
      s.webhooks.wake = original;
    }
    assert.equal(await s.webhooks.runDue(), 1, 'and the delivery is sent');
  });

  test('each subscribed event arrives signed, versioned, as exactly the bytes GET /events/{id} returns', async () => {
    const a = await account();
    const k = a.keys.secret_test;
    const rx = await receiver();
    const ep = await endpoint(k, rx.url());
    const sr = await sendRequest(k, a, 2);
    await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, sr.signers[0].id, 'view', WHERE));

    assert.equal(rx.received.length, 0, 'nothing is sent before the dispatcher runs');
    assert.equal(await s.webhooks.runDue(), 5);
    assert.equal(rx.received.length, 5);
    const list = (await s.call('GET', `/events?signature_request=${sr.id}&limit=100`, { key: k })).body.data as Json[];
    assert.deepEqual(new Set(rx.eventIds()), new Set(list.map((e) => e.id)), 'every event of the request, once each');
    assert.deepEqual(
      new Set(list.map((e) => e.type)),
      new Set(['signature_request.sent', 'signer.sent', 'signature_request.viewed', 'signer.viewed']),
    );

    for (const r of rx.received) {
      assert.equal(r.path, '/hook');
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers['svc-version'], '2026-07-01', 'the default version when the account pins none');
      assert.equal(verify(r.headers['svc-signature'] as string, r.rawBody, ep.secret, now()), 'ok');
      assert.equal(v1Count(r), 1);
      assert.match(String(r.headers['svc-signature']), new RegExp(`^t=${now()},v1=[0-9a-f]{64}$`));
      const id = eventOf(r).id as string;
      const one = await s.call('GET', `/events/${id}`, { key: k });
      assert.equal(one.status, 200);
      assert.equal(r.rawBody, one.text, `${id}: the webhook body is byte for byte GET /events/{id}`);
    }
    const viewed = rx.received.map(eventOf).find((e) => e.type === 'signer.viewed');
    assert.deepEqual(viewed.request, WHERE, 'signer actions carry where they came from, unmasked, as for a secret key');
    assert.equal(viewed.livemode, false);

    // Each delivery is recorded: succeeded after one attempt with the receiver's status.
    const d = await deliveries(k, viewed.id);
    assert.equal(d.length, 1);
    assert.equal(d[0].object, 'webhook_delivery');
    assert.match(d[0].id, /^whd_[0-9A-Za-z]{24}$/);
    assert.equal(d[0].endpoint, ep.id);
    assert.equal(d[0].event, viewed.id);
    assert.equal(d[0].status, 'succeeded');
    assert.equal(d[0].next_attempt_at, null);
    assert.equal(d[0].attempts.length, 1);
    assert.deepEqual(
      { ...d[0].attempts[0], duration_ms: 0 },
      { attempt: 1, created_at: now(), response_status: 200, duration_ms: 0, error: null, response_excerpt: 'ok', next_retry_at: null },
    );
    assert.ok(Number.isInteger(d[0].attempts[0].duration_ms) && d[0].attempts[0].duration_ms >= 0);
    assert.equal(await s.webhooks.runDue(), 0, 'a succeeded delivery is not sent again');

    // A replayed delivery fails the receiver's timestamp check once more than 300 s have passed.
    const old = rx.received[0]!;
    s.clock.advanceSeconds(TOLERANCE_SECONDS);
    assert.equal(
      verify(old.headers['svc-signature'] as string, old.rawBody, ep.secret, now()),
      'ok',
      'exactly 300 s is within the tolerance',
    );
    s.clock.advanceSeconds(1);
    assert.equal(
      verify(old.headers['svc-signature'] as string, old.rawBody, ep.secret, now()),
      'timestamp',
      'a replay after 301 s is refused',
    );
    assert.equal(
      verify(old.headers['svc-signature'] as string, old.rawBody.replace('"livemode":false', '"livemode":true'), ep.secret, now()),
      'signature',
      'a changed body is refused',
    );
    assert.equal(
      verify(old.headers['svc-signature'] as string, old.rawBody, `${ep.secret}x`, now() - 301),
      'signature',
      'another secret is refused',
    );

    // The account's pinned version is sent instead of the default.
    await s.ctx.store.tx((trx) => updateAccount(trx, a.id, { version_pin: '2026-01-01' }));
    const pinned = await emit(a, false);
    await s.webhooks.runDue();
    const last = rx.received.at(-1)!;
    assert.equal(eventOf(last).id, pinned.id);
    assert.equal(last.headers['svc-version'], '2026-01-01');
  });

  test('deliveries are written in the event’s own transaction: they commit or roll back with it', async () => {
    const a = await account();
    const k = a.keys.secret_test;
    const rx = await receiver();
    const ep = await endpoint(k, rx.url(), ['signature_request.sent']);
    await endpoint(a.keys.secret_live, rx.url('/live'));
    const rows = (trx: Parameters<Parameters<typeof s.ctx.store.tx>[0]>[0], eventId: string) =>
      trx.selectFrom('webhook_deliveries').select(['endpoint_id', 'status', 'next_attempt_at']).where('event_id', '=', eventId).execute();

    let seen: unknown[] = [];
    let eventId = '';
    await assert.rejects(
      s.ctx.store.tx(async (trx) => {
        const e = await emitEvent(trx, s.clock, {
          accountId: a.id,
          livemode: false,
          type: 'signature_request.sent',
          object: { id: 'sr_rollback' },
        });
        eventId = e.id;
        seen = await rows(trx, e.id);
        throw new Error('the state change fails after its event');
      }),
      /state change fails/,
    );
    assert.deepEqual(
      seen,
      [{ endpoint_id: ep.id, status: 'pending', next_attempt_at: now() }],
      'inside the transaction: one pending delivery, due now',
    );
    assert.deepEqual(await rows(s.ctx.store.db, eventId), [], 'rolled back with the event');
    assert.equal(await s.webhooks.runDue(), 0);
    assert.equal(rx.received.length, 0);

    const kept = await emit(a, false);
    assert.deepEqual(
      await rows(s.ctx.store.db, kept.id),
      [{ endpoint_id: ep.id, status: 'pending', next_attempt_at: now() }],
      'committed with the event, before any attempt',
    );
    // A type the endpoint does not subscribe to makes no delivery.
    const other = await emit(a, false, { object: 'signer', id: 'sgr_x' }, 'signer.sent');
    assert.deepEqual(await rows(s.ctx.store.db, other.id), []);
  });

  test('workflow fields in a payload (spec 6.4) reach the receiver exactly as GET /events shows them', async () => {
    const a = await account();
    const k = a.keys.secret_test;
    const rx = await receiver();
    await endpoint(k, rx.url(), ['signer.signed']);
    // A signer snapshot as the presenter writes it (GET /events answers it as the OpenAPI document says).
    const object = {
      id: 'sgr_w',
      object: 'signer',
      signature_request: 'sr_w',
      name: 'Amira',
      email: 'amira@example.com',
      phone: null,
      type: 'individual',
      method: 'draw',
      require_identity: false,
      order: 1,
      status: 'signed',
      signing_url: null,
      sent_at: 1782896000,
      viewed_at: 1782896100,
      signed_at: 1782896200,
      declined_at: null,
      decline_reason: null,
      identity: { status: 'not_required', provider: null, level: null, verification_id: null, name_match: null },
      fields: {},
      workflow_id: 'wf_x',
      workflow_version: 3,
      vendor_data: 'order-77 «ط»',
    };
    const e = await emit(a, false, object, 'signer.signed');
    await emit(a, false, { object: 'signature_request', id: 'sr_w' }, 'signature_request.sent');
    assert.equal(await s.webhooks.runDue(), 1, 'only the subscribed type is delivered');
    const got = rx.received[0]!;
    assert.equal(got.rawBody, (await s.call('GET', `/events/${e.id}`, { key: k })).text);
    const listed = (await s.call('GET', '/events?type=signer.signed', { key: k })).body.data[0];
    assert.deepEqual(eventOf(got), listed, 'GET /events carries the same payload');
    assert.deepEqual(eventOf(got).data.object, object);

    // A real request from a published workflow (POST /sessions): its events carry workflow_id,
    // workflow_version, vendor_data (and channel on the request), byte for byte as GET /events/{id}.
    const { workflow } = await createWorkflow(
      s.ctx.store,
      s.clock,
      a.id,
      `Flow ${++n}`,
      { document_mode: 'fixed', template_id: a.template },
      true,
    );
    const wfRx = await receiver();
    await endpoint(k, wfRx.url('/wf'), ['signature_request.sent', 'signer.sent']);
    const session = await s.call('POST', '/sessions', {
      key: k,
      body: { workflow_id: workflow.id, vendor_data: 'order-88', signers: [{ name: 'Amira', email: TEAM[0] }] },
    });
    assert.equal(session.status, 201, session.text);
    await s.webhooks.runDue();
    assert.equal(wfRx.received.length, 2);
    for (const r of wfRx.received) {
      const body = eventOf(r);
      assert.equal(r.rawBody, (await s.call('GET', `/events/${body.id}`, { key: k })).text, body.type);
      assert.equal(body.data.object.workflow_id, workflow.id, body.type);
      assert.equal(body.data.object.workflow_version, 1);
      assert.equal(body.data.object.vendor_data, 'order-88');
    }
    assert.equal(wfRx.received.map(eventOf).find((e) => e.type === 'signature_request.sent').data.object.channel, 'email');
  });

  test('a failure (500) is retried on the schedule: not before its time, then succeeds', async () => {
    const a = await account();
    const k = a.keys.secret_test;
    const rx = await receiver();
    rx.answer = (i) => (i === 0 ? { status: 500, body: '{"error":"database down"}' } : { status: 200, body: '' });
    const ep = await endpoint(k, rx.url());
    const e = await emit(a, false);
    const t0 = now();

    assert.equal(await s.webhooks.runDue(), 1);
    let [d] = await deliveries(k, e.id);
    assert.equal(d.status, 'pending');
    assert.equal(d.attempt_count, 1);
    assert.equal(d.next_attempt_at, t0 + RETRY_SCHEDULE_SECONDS[0]!);
    assert.equal(d.attempts[0].response_status, 500);
    assert.equal(d.attempts[0].error, 'answered 500');
    assert.equal(d.attempts[0].response_excerpt, '{"error":"database down"}', "the failure's answer is kept for the delivery log");
    assert.equal(d.attempts[0].next_retry_at, t0 + 60);

    s.clock.advanceSeconds(59);
    assert.equal(await s.webhooks.runDue(), 0, 'not re-sent before its time');
    assert.equal(rx.received.length, 1);
    s.clock.advanceSeconds(1);
    assert.equal(await s.webhooks.runDue(), 1);
    assert.equal(rx.received.length, 2);
    [d] = await deliveries(k, e.id);
    assert.equal(d.status, 'succeeded');
    assert.deepEqual(
      d.attempts.map((x: Json) => [x.attempt, x.created_at, x.response_status, x.response_excerpt, x.next_retry_at]),
      [
        [1, t0, 500, '{"error":"database down"}', t0 + 60],
        [2, t0 + 60, 200, '', null],
      ],
    );
    // Both carried the same event, each signed at its own time.
    assert.equal(rx.received[0]!.rawBody, rx.received[1]!.rawBody);
    assert.equal(verify(rx.received[1]!.headers['svc-signature'] as string, rx.received[1]!.rawBody, ep.secret, now()), 'ok');
    assert.notEqual(rx.received[0]!.headers['svc-signature'], rx.received[1]!.headers['svc-signature']);
  });

  test('no answer within the deadline is a failure with no status code', async () => {
    const a = await account();
    const k = a.keys.secret_test;
    const rx = await receiver();
    rx.answer = (i) => (i === 0 ? { hang: true } : { status: 204 });
    await endpoint(k, rx.url());
    const e = await emit(a, false);
    const started = performance.now();
    assert.equal(await s.webhooks.runDue(), 1);
    const waited = performance.now() - started;
    assert.ok(waited >= TIMEOUT_MS - 20 && waited < TIMEOUT_MS + 3000, `the attempt ended at the deadline (${Math.round(waited)} ms)`);
    let [d] = await deliveries(k, e.id);
    assert.equal(d.status, 'pending');
    assert.equal(d.attempts[0].response_status, null);
    assert.equal(d.attempts[0].response_excerpt, null, 'no answer: no excerpt');
    assert.match(d.attempts[0].error, new RegExp(`timed out: no answer within ${TIMEOUT_MS} ms`));
    assert.ok(d.attempts[0].duration_ms >= TIMEOUT_MS - 20);
    s.clock.advanceSeconds(60);
    assert.equal(await s.webhooks.runDue(), 1);
    [d] = await deliveries(k, e.id);
    assert.equal(d.status, 'succeeded', 'any 2xx is success');
    assert.equal(d.attempts[1].response_status, 204);
    assert.equal(d.attempts[1].response_excerpt, '', 'a 204 has no body: an empty excerpt');
  });

  test('each attempt keeps the first 500 bytes of the answer, cut on a UTF-8 boundary, controls replaced; nothing past them is read', async () => {
    const a = await account();
    const k = a.keys.secret_test;
    const rx = await receiver();
    // 4 bytes (x, BEL, CRLF), then 3-byte characters: byte 499 starts the 166th €, which the cap would cut in two.
    const head = Buffer.from('x\u0007\r\n', 'utf8');
    const huge = Buffer.concat([head, Buffer.alloc(32 * 1024 * 1024, '€')]);
    const short = 'مرحبا\tبك\n';
    rx.answer = (i) =>
      i === 0 ? { status: 200, body: huge } : { status: 422, body: Buffer.concat([Buffer.from(short), Buffer.from([0xc3])]) };
    await endpoint(k, rx.url());
    const e = await emit(a, false);
    assert.equal(await s.webhooks.runDue(), 1);
    let [d] = await deliveries(k, e.id);
    const excerpt: string = d.attempts[0].response_excerpt;
    assert.equal(excerpt, `x\uFFFD\n${'€'.repeat(165)}`);
    assert.equal(Buffer.byteLength(excerpt.replace('\uFFFD', '\u0007').replace('\n', '\r\n')), 499, 'the cap less the cut character');
    assert.equal(d.status, 'succeeded');
    const taken = await rx.received[0]!.bodyWritten!;
    assert.ok(taken < huge.length / 2, `the sender stopped reading at the cap: the socket took ${taken} of ${huge.length} bytes`);

    // A short body is kept whole; a broken byte at its very end is shown as U+FFFD (the body ended there: not a cut).
    await s.call('POST', `/events/${e.id}/redeliver`, { key: k, body: {} });
    assert.equal(await s.webhooks.runDue(), 1);
    [d] = await deliveries(k, e.id);
    assert.equal(d.attempts[0].response_status, 422);
    assert.equal(d.attempts[0].response_excerpt, `${short}\uFFFD`);
    assert.equal(await rx.received[1]!.bodyWritten, Buffer.byteLength(short) + 1);
  });

  test('nine retries over about 46 hours, then failed; a 3xx or a refused connection is a failure too', async () => {
    assert.equal(RETRY_SCHEDULE_SECONDS.length, 9);
    assert.equal(MAX_ATTEMPTS, 10);
    const total = RETRY_SCHEDULE_SECONDS.reduce((x, y) => x + y, 0);
    assert.ok(total >= 45 * 3600 && total <= 47 * 3600, `${total / 3600} h`);
    for (let i = 1; i < RETRY_SCHEDULE_SECONDS.length; i++)
      assert.ok(RETRY_SCHEDULE_SECONDS[i]! > RETRY_SCHEDULE_SECONDS[i - 1]!, 'backoff grows');

    const a = await account();
    const k = a.keys.secret_test;
    const rx = await receiver();
    rx.answer = (i) => ({ status: i % 2 === 0 ? 500 : 302 });
    await endpoint(k, rx.url());
    const e = await emit(a, false);
    const t0 = now();
    let at = t0;
    for (const delay of RETRY_SCHEDULE_SECONDS) {
      assert.equal(await s.webhooks.runDue(), 1);
      s.clock.advanceSeconds(delay - 1);
      assert.equal(await s.webhooks.runDue(), 0, 'not before its time');
      s.clock.advanceSeconds(1);
      at += delay;
    }
    assert.equal(await s.webhooks.runDue(), 1, 'the ninth retry');
    assert.equal(rx.received.length, 10);
    const [d] = await deliveries(k, e.id);
    assert.equal(d.status, 'failed');
    assert.equal(d.attempt_count, 10);
    assert.equal(d.next_attempt_at, null);
    assert.deepEqual(
      d.attempts.map((x: Json) => x.created_at),
      [t0, ...RETRY_SCHEDULE_SECONDS.map((_, i) => t0 + RETRY_SCHEDULE_SECONDS.slice(0, i + 1).reduce((x, y) => x + y, 0))],
    );
    assert.equal(d.attempts.at(-1).created_at, at);
    assert.deepEqual(
      d.attempts.map((x: Json) => x.response_status),
      [500, 302, 500, 302, 500, 302, 500, 302, 500, 302],
    );
    assert.equal(d.attempts.at(-1).next_retry_at, null);
    s.clock.advanceSeconds(30 * 86400);
    assert.equal(await s.webhooks.runDue(), 0, 'a failed delivery is not tried again');

    // Nobody listening: the connection is refused, recorded with no status.
    const gone = await receiver();
    const url = gone.url();
    await gone.close();
    const dead = await account();
    await endpoint(dead.keys.secret_test, url);
    const e2 = await emit(dead, false);
    assert.equal(await s.webhooks.runDue(), 1);
    const [d2] = await deliveries(dead.keys.secret_test, e2.id);
    assert.equal(d2.attempts[0].response_status, null);
    assert.match(d2.attempts[0].error, /ECONNREFUSED/);
  });

  test('disabling an endpoint cancels its pending deliveries, also one in flight; they are never sent', async () => {
    const a = await account();
    const k = a.keys.secret_test;
    const rx = await receiver();
    rx.answer = () => ({ status: 503 });
    const ep = await endpoint(k, rx.url());
    const failed = await emit(a, false);
    assert.equal(await s.webhooks.runDue(), 1);

    // One attempt in flight when the endpoint is disabled.
    rx.answer = () => ({ hang: true });
    const inFlight = await emit(a, false);
    const running = s.webhooks.runDue();
    await rx.waitFor(2);
    const off = await s.call('POST', `/webhook_endpoints/${ep.id}`, { key: k, body: { disabled: true } });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.body.status, 'disabled');
    // Events after the disable make no delivery at all.
    const later = await emit(a, false);
    await running;

    for (const id of [failed.id, inFlight.id]) {
      const [d] = await deliveries(k, id);
      assert.equal(d.status, 'canceled', id);
      assert.equal(d.next_attempt_at, null);
      assert.equal(d.attempts.length, 1);
    }
    assert.equal((await deliveries(k, failed.id))[0].attempts[0].response_status, 503, 'its attempt before the disable stays in the log');
    const [flown] = await deliveries(k, inFlight.id);
    assert.equal(flown.attempts[0].response_status, null, 'the in-flight attempt timed out and was still recorded');
    assert.equal(flown.attempts[0].next_retry_at, null, 'with no retry planned: the delivery was canceled meanwhile');
    assert.deepEqual(await deliveries(k, later.id), []);
    rx.answer = () => ({ status: 200 });
    s.clock.advanceSeconds(2 * 86400);
    assert.equal(await s.webhooks.runDue(), 0);
    assert.equal(rx.received.length, 2, 'nothing more was sent');

    // Enabled again: new events go out; canceled ones stay canceled until redelivered.
    const on = await s.call('POST', `/webhook_endpoints/${ep.id}`, { key: k, body: { disabled: false } });
    assert.equal(on.body.status, 'enabled');
    const fresh = await emit(a, false);
    assert.equal(await s.webhooks.runDue(), 1);
    assert.equal(eventOf(rx.received.at(-1)!).id, fresh.id);
    assert.equal((await deliveries(k, failed.id))[0].status, 'canceled');
  });

  test('test events reach only test-key endpoints; live events only live-key and operator endpoints', async () => {
    const a = await account();
    const testRx = await receiver();
    const liveRx = await receiver();
    const testEp = await endpoint(a.keys.secret_test, testRx.url('/test'));
    const liveEp = await endpoint(a.keys.secret_live, liveRx.url('/live'));
    const created = (await s.call('GET', `/webhook_endpoints/${testEp.id}`, { key: a.keys.secret_test })).body;
    assert.equal(created.livemode, false);
    assert.equal((await s.call('GET', `/webhook_endpoints/${liveEp.id}`, { key: a.keys.secret_live })).body.livemode, true);
    // Another account's endpoints hear nothing of this one.
    const other = await account();
    const otherRx = await receiver();
    await endpoint(other.keys.secret_test, otherRx.url());
    await endpoint(other.keys.secret_live, otherRx.url());

    const testSr = await sendRequest(a.keys.secret_test, a);
    const liveSr = await sendRequest(a.keys.secret_live, a);
    assert.equal(await s.webhooks.runDue(), 4);
    assert.deepEqual(
      testRx.received
        .map((r) => [r.path, eventOf(r).livemode, eventOf(r).data.object.id ?? eventOf(r).data.object.signature_request])
        .sort(),
      [
        ['/test', false, testSr.id],
        ['/test', false, testSr.signers[0].id],
      ].sort(),
    );
    assert.deepEqual(
      liveRx.received.map((r) => eventOf(r).livemode),
      [true, true],
    );
    assert.ok(liveRx.received.every((r) => JSON.stringify(eventOf(r)).includes(liveSr.id)));
    assert.equal(otherRx.received.length, 0);
    assert.equal(verify(liveRx.received[0]!.headers['svc-signature'] as string, liveRx.received[0]!.rawBody, liveEp.secret, now()), 'ok');
    assert.equal(
      verify(testRx.received[0]!.headers['svc-signature'] as string, testRx.received[0]!.rawBody, liveEp.secret, now()),
      'signature',
      'each endpoint has its own secret',
    );
  });

  test('secret rotation: both secrets sign during the overlap (two v1 values), then only the new one', async () => {
    const a = await account();
    const k = a.keys.secret_test;
    const rx = await receiver();
    const ep = await endpoint(k, rx.url());
    const rotated = await s.ctx.store.tx(async (trx) => rotateEndpointSecret(trx, s.clock, (await getEndpoint(trx, ep.id))!, 24 * 3600));
    assert.match(rotated.secret, /^whsec_[0-9A-Za-z]{43}$/);
    assert.notEqual(rotated.secret, ep.secret);

    await emit(a, false);
    await s.webhooks.runDue();
    const during = rx.received.at(-1)!;
    assert.equal(v1Count(during), 2, 'two signatures during the overlap');
    assert.equal(
      verify(during.headers['svc-signature'] as string, during.rawBody, ep.secret, now()),
      'ok',
      'a receiver still on the old secret verifies',
    );
    assert.equal(
      verify(during.headers['svc-signature'] as string, during.rawBody, rotated.secret, now()),
      'ok',
      'a receiver on the new secret verifies',
    );

    s.clock.advanceSeconds(24 * 3600 - 1);
    await emit(a, false);
    await s.webhooks.runDue();
    assert.equal(v1Count(rx.received.at(-1)!), 2, 'still two at the last second of the overlap');

    s.clock.advanceSeconds(1);
    await emit(a, false);
    await s.webhooks.runDue();
    const afterOverlap = rx.received.at(-1)!;
    assert.equal(v1Count(afterOverlap), 1);
    assert.equal(verify(afterOverlap.headers['svc-signature'] as string, afterOverlap.rawBody, rotated.secret, now()), 'ok');
    assert.equal(
      verify(afterOverlap.headers['svc-signature'] as string, afterOverlap.rawBody, ep.secret, now()),
      'signature',
      'the old secret no longer signs',
    );
    // The secret is never shown again by the API.
    const shown = await s.call('GET', `/webhook_endpoints/${ep.id}`, { key: k });
    assert.ok(!shown.text.includes(rotated.secret) && !shown.text.includes(ep.secret) && !('secret' in shown.body));
  });

  test('POST /events/{id}/redeliver sends the event again, to all subscribed endpoints or the one named', async () => {
    const a = await account();
    const k = a.keys.secret_test;
    const rx1 = await receiver();
    const rx2 = await receiver();
    const ep1 = await endpoint(k, rx1.url(), ['signature_request.sent']);
    const ep2 = await endpoint(k, rx2.url(), ['signer.signed']);
    const e = await emit(a, false);
    assert.equal(await s.webhooks.runDue(), 1);
    assert.equal(rx1.received.length, 1);
    assert.equal(rx2.received.length, 0);

    s.clock.advanceSeconds(3600);
    const again = await s.call('POST', `/events/${e.id}/redeliver`, { key: k });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.object, 'list');
    assert.equal(again.body.data.length, 1);
    assert.deepEqual(
      { ...again.body.data[0], id: 'x' },
      {
        id: 'x',
        object: 'webhook_delivery',
        event: e.id,
        endpoint: ep1.id,
        trigger: 'redeliver',
        status: 'pending',
        attempt_count: 0,
        next_attempt_at: now(),
        attempts: [],
        created_at: now(),
      },
    );
    assert.equal(await s.webhooks.runDue(), 1);
    assert.equal(rx1.received.length, 2);
    assert.equal(rx1.received[1]!.rawBody, rx1.received[0]!.rawBody, 'the same event');
    assert.equal(
      verify(rx1.received[1]!.headers['svc-signature'] as string, rx1.received[1]!.rawBody, ep1.secret, now()),
      'ok',
      'signed anew, at the time of sending',
    );

    // Named endpoint: delivered even though it does not subscribe to the type.
    const named = await s.call('POST', `/events/${e.id}/redeliver`, { key: k, body: { endpoint: ep2.id } });
    assert.equal(named.status, 200, named.text);
    assert.deepEqual(
      named.body.data.map((d: Json) => d.endpoint),
      [ep2.id],
    );
    assert.equal(await s.webhooks.runDue(), 1);
    assert.equal(eventOf(rx2.received[0]!).id, e.id);
    assert.equal(verify(rx2.received[0]!.headers['svc-signature'] as string, rx2.received[0]!.rawBody, ep2.secret, now()), 'ok');

    const all = await deliveries(k, e.id);
    assert.deepEqual(
      all.map((d) => [d.endpoint, d.trigger, d.status]),
      [
        [ep2.id, 'redeliver', 'succeeded'],
        [ep1.id, 'redeliver', 'succeeded'],
        [ep1.id, 'event', 'succeeded'],
      ],
    );
    const page = await s.call('GET', `/events/${e.id}/deliveries?limit=2`, { key: k });
    assert.equal(page.body.has_more, true);
    const rest = await s.call('GET', `/events/${e.id}/deliveries?limit=2&starting_after=${page.body.next_cursor}`, { key: k });
    assert.deepEqual(
      rest.body.data.map((d: Json) => d.id),
      [all[2].id],
    );

    // Refusals.
    assertError(await s.call('POST', '/events/evt_nope/redeliver', { key: k }), 'not_found');
    assertError(await s.call('GET', '/events/evt_nope/deliveries', { key: k }), 'not_found');
    assertError(await s.call('POST', `/events/${e.id}/redeliver`, { key: a.keys.secret_live }), 'not_found');
    const unknown = await s.call('POST', `/events/${e.id}/redeliver`, { key: k, body: { endpoint: 'we_nope' } });
    assertError(unknown, 'not_found');
    assert.equal(unknown.body.error.param, 'endpoint');
    await s.call('POST', `/webhook_endpoints/${ep2.id}`, { key: k, body: { disabled: true } });
    const disabled = await s.call('POST', `/events/${e.id}/redeliver`, { key: k, body: { endpoint: ep2.id } });
    assertError(disabled, 'parameter_invalid');
    assert.equal(disabled.body.error.param, 'endpoint');
    assertError(await s.call('POST', `/events/${e.id}/redeliver`, { key: k, body: { endpoints: [] } }), 'parameter_unknown');
    assertError(
      await s.call('POST', `/events/${e.id}/redeliver`, { key: a.keys.publishable_test, headers: { origin: 'https://x.example' } }),
      'forbidden',
    );
  });

  test('a slow endpoint does not delay a fast one', async () => {
    const a = await account();
    const k = a.keys.secret_test;
    const slow = await receiver();
    const fast = await receiver();
    slow.answer = () => ({ hang: true });
    await endpoint(k, slow.url('/slow'));
    await endpoint(k, fast.url('/fast'));
    const events = [];
    for (let i = 0; i < 6; i++) events.push(await emit(a, false));

    const started = Date.now();
    const running = s.webhooks.runDue();
    await fast.waitFor(6, 5000);
    const fastDone = Date.now();
    // The fast receiver had every delivery while the slow one still held its first ones (its
    // concurrency is 2 here, so 4 more wait behind them) and before any of them could time out.
    // (The second slow request may still be on its way over loopback: wait for it, bounded.)
    for (let i = 0; i < 100 && slow.hangingCount < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(slow.hangingCount, 2, 'the slow endpoint is still hanging on its first two deliveries');
    assert.equal(slow.received.length, 2);
    assert.ok(fastDone - started < TIMEOUT_MS, `fast receiver done after ${fastDone - started} ms, before the slow one's first timeout`);
    assert.ok(fast.received.every((r) => r.answered === 200));
    assert.deepEqual(new Set(fast.eventIds()), new Set(events.map((e) => e.id)));
    assert.equal(await running, 12);
    assert.equal(slow.received.length, 6, 'the slow endpoint got its deliveries too, two at a time');
  });

  test('the address rule is checked again at delivery: a target that is no longer allowed is not contacted', async () => {
    const rx = await receiver();
    const strict = await startWebhookTestServer(ca, { TAWQI_WEBHOOK_ALLOW_PRIVATE: 'false' });
    try {
      const acct = await strict.account();
      // Registered while the address was allowed (as if DNS pointed elsewhere then): written directly.
      const { createEndpoint } = await import('../../server/src/webhooks/endpoints.js');
      const { endpoint: ep } = await strict.ctx.store.tx((trx) =>
        createEndpoint(trx, strict.clock, {
          accountId: acct.id,
          livemode: false,
          url: rx.url(),
          enabledEvents: ['*'],
          description: null,
          via: 'api',
        }),
      );
      const literal = await strict.ctx.store.tx((trx) =>
        createEndpoint(trx, strict.clock, {
          accountId: acct.id,
          livemode: false,
          url: rx.url('/ip', '127.0.0.1'),
          enabledEvents: ['*'],
          description: null,
          via: 'api',
        }),
      );
      const e = await strict.ctx.store.tx((trx) =>
        emitEvent(trx, strict.clock, { accountId: acct.id, livemode: false, type: 'signature_request.sent', object: { id: 'sr_y' } }),
      );
      assert.equal(await strict.webhooks.runDue(), 2);
      assert.equal(rx.received.length, 0, 'no connection was made');
      const d = (await strict.call('GET', `/events/${e.id}/deliveries`, { key: acct.keys.secret_test })).body.data as Json[];
      const byEndpoint = new Map(d.map((x) => [x.endpoint, x]));
      assert.match(
        byEndpoint.get(ep.id).attempts[0].error,
        /^localhost resolves to (127\.0\.0\.1|::1), which is not a public address \(loopback\)$/,
      );
      assert.match(byEndpoint.get(literal.endpoint.id).attempts[0].error, /^127\.0\.0\.1 is not a public address \(loopback\)$/);
      assert.ok(d.every((x) => x.status === 'pending' && x.attempts[0].response_status === null));
    } finally {
      await strict.close();
    }
  });
});
