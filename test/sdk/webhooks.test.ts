/**
 * `webhooks.constructEvent` of @tawqi/node (spec part 5) on real deliveries: a real server signs
 * and posts events to a real HTTPS receiver on 127.0.0.1; the client verifies each raw body and
 * Svc-Signature header with the endpoint's secret (made through the client), refuses a changed
 * body, another secret, a timestamp more than the tolerance away (the server's clock moved, never
 * slept), a malformed header and a parsed body; during a secret rotation both secrets verify.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Tawqi, TawqiSignatureVerificationError, constructEvent, generateTestHeaderString } from '@tawqi/node';
import { updateAccount } from '../../server/src/store/accounts.js';
import { getEndpoint } from '../../server/src/store/webhooks.js';
import { rotateEndpointSecret } from '../../server/src/webhooks/endpoints.js';
import type { TestServer } from '../support/server.js';
import { makeTestCa, startWebhookTestServer, WebhookReceiver, type Received, type TestCa } from '../support/webhookReceiver.js';

const TEAM = ['amira@example.com'];

describe('@tawqi/node webhooks.constructEvent on real deliveries', () => {
  let ca: TestCa;
  let s: TestServer;
  let rx: WebhookReceiver;
  let tawqi: Tawqi;
  let endpoint: { id: string; secret: string };
  let template: string;
  before(async () => {
    ca = makeTestCa();
    s = await startWebhookTestServer(ca);
    rx = await WebhookReceiver.start(ca);
    const acct = await s.account({ ownerEmail: TEAM[0] });
    await s.ctx.store.tx((trx) => updateAccount(trx, acct.id, { team_emails: TEAM }));
    tawqi = new Tawqi(acct.keys.secret_test, { baseUrl: s.url });
    const created = await tawqi.webhookEndpoints.create({ url: rx.url(), enabled_events: ['*'] });
    endpoint = { id: created.id, secret: created.secret };
    template = (
      await new Tawqi(acct.keys.secret_live, { baseUrl: s.url }).templates.create({ title: 'Hooks', language: 'en', body: 'Agreed.' })
    ).id;
  });
  after(async () => {
    await s.close();
    await rx.close();
    ca.cleanup();
  });

  const now = () => Math.floor(s.clock.nowMs() / 1000);
  const header = (r: Received) => r.headers['svc-signature'] as string;

  async function deliveries(title: string): Promise<Received[]> {
    const from = rx.received.length;
    await tawqi.signatureRequests.create({
      title,
      source: { type: 'template', template_id: template },
      signers: [{ name: 'Amira', email: TEAM[0] }],
    });
    await s.webhooks.runDue();
    assert.ok(rx.received.length > from, 'the server delivered');
    return rx.received.slice(from);
  }

  test('each real delivery verifies and gives its event; a changed body, another secret or a parsed body do not', async () => {
    const got = await deliveries('Verified');
    for (const r of got) {
      const event = constructEvent(r.rawBody, header(r), endpoint.secret, 300, { now: now() });
      assert.equal(event.object, 'event');
      assert.deepEqual(event, JSON.parse(r.rawBody));
      assert.deepEqual(
        constructEvent(Buffer.from(r.rawBody, 'utf8'), header(r), endpoint.secret, 300, { now: now() }),
        event,
        'a Buffer too',
      );
      assert.deepEqual(Tawqi.webhooks.constructEvent(r.rawBody, header(r), endpoint.secret, 300, { now: now() }), event);
      assert.equal((await tawqi.events.retrieve(event.id)).type, event.type, 'the event the API has');
    }
    const r = got[0]!;
    const refused = (f: () => unknown, why: RegExp) =>
      assert.throws(f, (e: unknown) => e instanceof TawqiSignatureVerificationError && why.test(e.message));
    refused(
      () => constructEvent(r.rawBody.replace('"livemode":false', '"livemode":true'), header(r), endpoint.secret, 300, { now: now() }),
      /No v1/,
    );
    refused(() => constructEvent(`${r.rawBody} `, header(r), endpoint.secret, 300, { now: now() }), /No v1/);
    refused(() => constructEvent(r.rawBody, header(r), 'whsec_other', 300, { now: now() }), /No v1/);
    refused(() => constructEvent(JSON.parse(r.rawBody), header(r), endpoint.secret, 300, { now: now() }), /raw request body/);
    refused(() => constructEvent(r.rawBody, undefined, endpoint.secret, 300, { now: now() }), /no Svc-Signature/);
    refused(() => constructEvent(r.rawBody, header(r).replace(/^t=\d+,/, ''), endpoint.secret, 300, { now: now() }), /no timestamp/);
    refused(() => constructEvent(r.rawBody, header(r).replace(/v1=/g, 'v0='), endpoint.secret, 300, { now: now() }), /no v1/);
    refused(() => constructEvent(r.rawBody, `t=1,${header(r)}`, endpoint.secret, 300, { now: now() }), /more than one timestamp/);
  });

  test('the tolerance: |now − t| up to 300 s passes, beyond it is refused (either side); a narrower tolerance is honoured', async () => {
    const r = (await deliveries('Tolerance'))[0]!;
    const t = Number(/^t=(\d+)/.exec(header(r))![1]);
    assert.equal(t, now(), 'signed at the server’s time');
    s.clock.advanceSeconds(300);
    assert.ok(constructEvent(r.rawBody, header(r), endpoint.secret, 300, { now: now() }));
    assert.ok(constructEvent(r.rawBody, header(r), endpoint.secret, undefined, { now: t - 300 }), '300 is the default');
    s.clock.advanceSeconds(1);
    assert.throws(() => constructEvent(r.rawBody, header(r), endpoint.secret, 300, { now: now() }), /more than 300 seconds/);
    assert.throws(() => constructEvent(r.rawBody, header(r), endpoint.secret, 300, { now: t - 301 }), TawqiSignatureVerificationError);
    assert.throws(() => constructEvent(r.rawBody, header(r), endpoint.secret, 10, { now: t + 11 }), /more than 10 seconds/);
  });

  test('during a secret rotation the header carries both signatures: the old and the new secret verify', async () => {
    const rotated = await s.ctx.store.tx(async (trx) => rotateEndpointSecret(trx, s.clock, (await getEndpoint(trx, endpoint.id))!, 3600));
    const r = (await deliveries('Rotation'))[0]!;
    assert.equal(
      header(r)
        .split(',')
        .filter((p) => p.startsWith('v1=')).length,
      2,
    );
    assert.ok(constructEvent(r.rawBody, header(r), rotated.secret, 300, { now: now() }));
    assert.ok(constructEvent(r.rawBody, header(r), endpoint.secret, 300, { now: now() }));
    endpoint.secret = rotated.secret;
  });

  test('generateTestHeaderString signs as the server does', () => {
    const payload = JSON.stringify({ id: 'evt_1', object: 'event' });
    const h = generateTestHeaderString({ payload, secret: 'whsec_x', timestamp: 1_700_000_000 });
    assert.match(h, /^t=1700000000,v1=[0-9a-f]{64}$/);
    assert.equal(constructEvent(payload, h, 'whsec_x', 300, { now: 1_700_000_000 }).id, 'evt_1');
  });
});
