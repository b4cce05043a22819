/**
 * The session object (spec 2.3), GET /sessions/{id} and GET /sessions (spec 4), the workflow fields
 * in objects and in every signature_request.* and signer.* webhook payload (spec 6.4, delivered to a
 * real HTTPS receiver), the link channel (spec 4.2) and cc copies.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createWorkflow, type WorkflowPatch } from '../../server/src/services/workflows.js';
import { getAccount, updateAccount } from '../../server/src/store/accounts.js';
import { assertErrorBothLanguages } from '../support/envelope.js';
import type { TestServer } from '../support/server.js';
import { lastOtp, PageClient, pngDataUrl } from '../support/signing.js';
import { makeTestCa, startWebhookTestServer, WebhookReceiver, type TestCa } from '../support/webhookReceiver.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const DAY = 86400;

describe('sessions: objects, lists, webhooks, link channel', () => {
  let ca: TestCa;
  let s: TestServer;
  let rx: WebhookReceiver;
  let n = 0;

  before(async () => {
    ca = makeTestCa();
    s = await startWebhookTestServer(ca, { TAWQI_RATE_LIMIT: '100000', TAWQI_IP_RATE_LIMIT: '100000' });
    rx = await WebhookReceiver.start(ca);
  });
  after(async () => {
    await s.close();
    await rx.close();
    ca.cleanup();
  });

  async function account(overrides: Parameters<TestServer['account']>[0] = {}) {
    const k = ++n;
    const team = [`owner${k}@acme.test`, `amira${k}@acme.test`, `bassem${k}@acme.test`];
    const acct = await s.account({ ownerEmail: team[0], plan: 'enterprise', balanceSends: 1000, walletMinor: 100_000, ...overrides });
    await updateAccount(s.ctx.store.db, acct.id, { team_emails: team, team_phones: ['+201001234567'], accepted_domains: ['example.com'] });
    const tpl = await s.call('POST', '/templates', {
      key: acct.keys.secret_test,
      body: {
        title: `Lease ${k}`,
        language: 'en',
        body: 'Lease for {{tenant}}.',
        fields: [{ key: 'tenant', label: 'Tenant', required: true }],
      },
    });
    assert.equal(tpl.status, 201, tpl.text);
    return { ...acct, team, template: tpl.body.id as string };
  }
  type Acct = Awaited<ReturnType<typeof account>>;
  const workflow = async (a: Acct, patch: WorkflowPatch = {}) =>
    (await createWorkflow(s.ctx.store, s.clock, a.id, `Flow ${++n}`, { document_mode: 'fixed', template_id: a.template, ...patch }, true))
      .workflow.id;
  const signer = (name: string, email: string, extra: Record<string, unknown> = {}) => ({
    name,
    email,
    fields: { tenant: name },
    ...extra,
  });
  async function session(key: string, body: Record<string, unknown>): Promise<Json> {
    const r = await s.call('POST', '/sessions', { key, body });
    assert.equal(r.status, 201, r.text);
    return r.body;
  }
  const now = () => Math.floor(s.clock.nowMs() / 1000);

  /** Through the signing page: view, one-time code (read from the held message), sign. */
  async function sign(url: string, signerId: string): Promise<void> {
    const page = await PageClient.open(url);
    await page.call('POST', '/view');
    assert.equal((await page.call('POST', '/otp/send')).status, 200);
    const verified = await page.call('POST', '/otp/verify', { code: await lastOtp(s, signerId) });
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    const signed = await page.call('POST', '/sign', { signature: pngDataUrl(), consent: true });
    assert.equal(signed.status, 200, JSON.stringify(signed.body));
  }

  test('the session object (2.3): fields, sign_url with exactly one signer, cost from the plan then overage, return_url only when set', async () => {
    const a = await account({ balanceSends: 1, walletMinor: 10_000 });
    const wf = await workflow(a, { return_url: 'https://app.example.com/done' });
    const one = await session(a.keys.secret_live, {
      workflow_id: wf,
      vendor_data: 'order-1',
      signers: [signer('Layla', 'layla@client.example', { phone: '+201009998877' })],
    });
    assert.match(one.id, /^sr_/);
    assert.equal(one.object, 'session');
    assert.equal(one.status, 'sent');
    assert.equal(one.workflow_id, wf);
    assert.equal(one.workflow_version, 1);
    assert.equal(one.vendor_data, 'order-1');
    assert.equal(one.channel, 'email');
    assert.equal(one.livemode, true);
    assert.equal(one.created_at, now());
    assert.equal(one.expires_at, now() + 7 * DAY);
    assert.equal(one.return_url, 'https://app.example.com/done');
    assert.deepEqual(Object.keys(one.signers[0]).sort(), ['email', 'id', 'name', 'object', 'phone', 'sign_url', 'status']);
    assert.match(one.signers[0].id, /^sgr_/);
    assert.equal(one.signers[0].phone, '+201009998877');
    assert.equal(one.signers[0].status, 'sent');
    assert.equal(one.sign_url, one.signers[0].sign_url);
    assert.match(one.sign_url, /\/sign\/sgr_/);
    const page = await PageClient.open(one.sign_url);
    assert.equal((await page.call('GET', '/state')).body.request.id, one.id, 'sign_url opens the signer’s page');
    assert.deepEqual(one.cost, { amount: 0, sends: 1, currency: 'EGP', source: 'plan' }, 'the yearly balance pays the first send');

    const two = await session(a.keys.secret_live, {
      workflow_id: wf,
      return_url: '',
      signers: [signer('A', 'a@client.example'), signer('B', 'b@client.example')],
    });
    assert.equal(two.sign_url, null, 'several signers: no top-level sign_url');
    assert.ok(two.signers.every((x: Json) => typeof x.sign_url === 'string'));
    assert.deepEqual(
      two.cost,
      { amount: 12, sends: 0, currency: 'EGP', source: 'overage' },
      'the balance is spent: the wallet at the overage rate (Enterprise: 6.00 a send)',
    );
    assert.equal('return_url' in two, false, 'return_url only when the request has one');
    assert.equal(two.vendor_data, null);
    assert.equal((await getAccount(s.ctx.store.db, a.id))!.wallet_minor, 10_000 - 1200);

    const t = await session(a.keys.secret_test, { workflow_id: wf, signers: [signer('Amira', a.team[1]!)] });
    assert.equal(t.livemode, false);
    assert.deepEqual(t.cost, { amount: 0, sends: 0, currency: 'EGP', source: 'plan' }, 'amount 0 with a test key');

    // After signing, the page's return button leads to the return URL with session_id, signer_id and status (spec 4.2).
    await sign(one.sign_url, one.signers[0].id);
    const finished = await (await PageClient.open(one.sign_url)).call('GET', '/state');
    const back = new URL(finished.body.finish.redirect_url);
    assert.equal(back.origin + back.pathname, 'https://app.example.com/done');
    assert.deepEqual(
      [back.searchParams.get('session_id'), back.searchParams.get('signer_id'), back.searchParams.get('status')],
      [one.id, one.signers[0].id, 'completed'],
    );

    // The request object carries the workflow fields too; an ordinary request does not.
    const sr = (await s.call('GET', `/signature_requests/${one.id}`, { key: a.keys.secret_live })).body;
    assert.deepEqual([sr.workflow_id, sr.workflow_version, sr.vendor_data, sr.channel], [wf, 1, 'order-1', 'email']);
    assert.deepEqual([sr.signers[0].workflow_id, sr.signers[0].workflow_version, sr.signers[0].vendor_data], [wf, 1, 'order-1']);
    const plain = await s.call('POST', '/signature_requests', {
      key: a.keys.secret_live,
      body: { source: { type: 'template', template_id: a.template }, signers: [signer('P', 'p@client.example')] },
    });
    for (const k of ['workflow_id', 'workflow_version', 'vendor_data', 'channel'])
      assert.equal(k in plain.body, false, `${k} not on an ordinary request`);
  });

  test('GET /sessions/{id}: the session; 404 for a request not from a workflow, another account’s, or the other mode', async () => {
    const a = await account();
    const wf = await workflow(a);
    const made = await session(a.keys.secret_live, { workflow_id: wf, signers: [signer('Layla', 'layla@client.example')] });
    const got = await s.call('GET', `/sessions/${made.id}`, { key: a.keys.secret_live });
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.body, made);
    const plain = await s.call('POST', '/signature_requests', {
      key: a.keys.secret_live,
      body: { source: { type: 'template', template_id: a.template }, signers: [signer('P', 'p@client.example')] },
    });
    const r = await assertErrorBothLanguages(
      (prefix) => s.call('GET', `/sessions/${plain.body.id}`, { key: a.keys.secret_live, prefix }),
      'not_found',
    );
    assert.equal(r.body.error.param, 'id');
    await assertErrorBothLanguages((prefix) => s.call('GET', `/sessions/${made.id}`, { key: a.keys.secret_test, prefix }), 'not_found');
    const b = await account();
    await assertErrorBothLanguages((prefix) => s.call('GET', `/sessions/${made.id}`, { key: b.keys.secret_live, prefix }), 'not_found');
  });

  test('GET /sessions: newest first, the key’s mode only, filters workflow_id, vendor_data and status, limit ≤ 100, starting_after', async () => {
    const a = await account();
    const wf1 = await workflow(a);
    const wf2 = await workflow(a);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (
          await session(a.keys.secret_live, {
            workflow_id: i % 2 ? wf2 : wf1,
            vendor_data: i < 3 ? 'batch-a' : 'batch-b',
            signers: [signer(`S${i}`, `s${i}@client.example`)],
          })
        ).id,
      );
    const viaDefault = await s.call('POST', '/signature_requests', {
      key: a.keys.secret_live,
      body: { workflow_id: 'default', source: { type: 'template', template_id: a.template }, signers: [signer('D', 'd@client.example')] },
    });
    ids.push(viaDefault.body.id);
    await s.call('POST', '/signature_requests', {
      key: a.keys.secret_live,
      body: { source: { type: 'template', template_id: a.template }, signers: [signer('P', 'p@client.example')] },
    });
    const testOne = await session(a.keys.secret_test, { workflow_id: wf1, signers: [signer('T', a.team[1]!)] });
    await s.call('POST', `/signature_requests/${ids[0]}/cancel`, { key: a.keys.secret_live });

    const list = async (q = '') => {
      const r = await s.call('GET', `/sessions${q}`, { key: a.keys.secret_live });
      assert.equal(r.status, 200, r.text);
      return r.body;
    };
    const all = await list();
    assert.equal(all.object, 'list');
    assert.deepEqual(
      all.data.map((x: Json) => x.id),
      [...ids].reverse(),
      'newest first; the ordinary request and the test session are not listed',
    );
    assert.ok(all.data.every((x: Json) => x.object === 'session' && x.livemode === true));
    assert.equal(all.has_more, false);
    assert.equal(all.next_cursor, null);
    assert.deepEqual(
      (await list(`?workflow_id=${wf2}`)).data.map((x: Json) => x.id),
      [ids[3], ids[1]],
    );
    assert.deepEqual(
      (await list('?workflow_id=wf_default')).data.map((x: Json) => x.id),
      [ids[5]],
    );
    assert.deepEqual(
      (await list('?vendor_data=batch-a')).data.map((x: Json) => x.id),
      [ids[2], ids[1], ids[0]],
    );
    assert.deepEqual(
      (await list('?status=canceled')).data.map((x: Json) => x.id),
      [ids[0]],
    );
    assert.equal((await list('?status=sent')).data.length, 5);
    const page1 = await list('?limit=2');
    assert.deepEqual(
      page1.data.map((x: Json) => x.id),
      [ids[5], ids[4]],
    );
    assert.equal(page1.has_more, true);
    assert.equal(page1.next_cursor, ids[4]);
    const page2 = await list(`?limit=2&starting_after=${page1.next_cursor}`);
    assert.deepEqual(
      page2.data.map((x: Json) => x.id),
      [ids[3], ids[2]],
    );
    assert.equal((await list('?limit=100')).data.length, 6);
    for (const q of ['?limit=101', '?limit=0', '?status=viewed']) {
      const r = await assertErrorBothLanguages(
        (prefix) => s.call('GET', `/sessions${q}`, { key: a.keys.secret_live, prefix }),
        'parameter_invalid',
      );
      assert.ok(r.body.error.param === 'limit' || r.body.error.param === 'status');
    }
    const testList = await s.call('GET', '/sessions', { key: a.keys.secret_test });
    assert.deepEqual(
      testList.body.data.map((x: Json) => x.id),
      [testOne.id],
      'a test key sees test sessions only',
    );
  });

  test('webhooks (6.4): every signature_request.* and signer.* payload of a session carries workflow_id, workflow_version, vendor_data (and channel on the request); an ordinary request’s do not', async () => {
    const a = await account();
    const ep = await s.call('POST', '/webhook_endpoints', { key: a.keys.secret_test, body: { url: rx.url(), enabled_events: ['*'] } });
    assert.equal(ep.status, 201, ep.text);
    const wf = await workflow(a);
    const sess = await session(a.keys.secret_test, {
      workflow_id: wf,
      vendor_data: 'crm-42',
      signers: [signer('Amira', a.team[1]!), signer('Bassem', a.team[2]!)],
    });
    await sign(sess.signers[0].sign_url, sess.signers[0].id);
    await sign(sess.signers[1].sign_url, sess.signers[1].id);
    const declined = await session(a.keys.secret_test, { workflow_id: wf, vendor_data: 'crm-43', signers: [signer('Amira', a.team[1]!)] });
    const page = await PageClient.open(declined.sign_url);
    await page.call('POST', '/otp/send');
    await page.call('POST', '/otp/verify', { code: await lastOtp(s, declined.signers[0].id) });
    assert.equal((await page.call('POST', '/decline', { reason: 'no' })).status, 200);
    const canceled = await session(a.keys.secret_test, { workflow_id: wf, signers: [signer('Amira', a.team[1]!)] });
    await s.call('POST', `/signature_requests/${canceled.id}/cancel`, { key: a.keys.secret_test });
    const plain = await s.call('POST', '/signature_requests', {
      key: a.keys.secret_test,
      body: { source: { type: 'template', template_id: a.template }, signers: [signer('P', a.team[1]!)] },
    });

    const before = rx.received.length;
    await s.webhooks.runDue();
    const events: Json[] = rx.received.slice(before).map((r) => JSON.parse(r.rawBody));
    const ofSession = (id: string) =>
      events.filter((e) => (e.data.object.object === 'signature_request' ? e.data.object.id : e.data.object.signature_request) === id);
    const types = new Set<string>();
    for (const [sr, vendor] of [
      [sess, 'crm-42'],
      [declined, 'crm-43'],
      [canceled, null],
    ] as const) {
      const evs = ofSession(sr.id).filter((e) => /^(signature_request|signer)\./.test(e.type));
      assert.ok(evs.length > 0);
      for (const e of evs) {
        types.add(e.type);
        const o = e.data.object;
        assert.equal(o.workflow_id, wf, `${e.type} workflow_id`);
        assert.equal(o.workflow_version, 1, `${e.type} workflow_version`);
        assert.equal(o.vendor_data, vendor, `${e.type} vendor_data`);
        if (e.type.startsWith('signature_request.')) assert.equal(o.channel, 'email', `${e.type} channel`);
        else assert.equal(o.signature_request, sr.id);
      }
    }
    for (const t of [
      'signature_request.sent',
      'signature_request.viewed',
      'signature_request.partially_signed',
      'signature_request.completed',
      'signature_request.declined',
      'signature_request.canceled',
      'signer.sent',
      'signer.viewed',
      'signer.otp_verified',
      'signer.signed',
      'signer.declined',
    ]) {
      assert.ok(types.has(t), `a session's ${t} was delivered`);
    }
    const plainEvents = ofSession(plain.body.id);
    assert.ok(plainEvents.length >= 2);
    for (const e of plainEvents)
      for (const k of ['workflow_id', 'workflow_version', 'vendor_data', 'channel'])
        assert.equal(k in e.data.object, false, `${e.type} of an ordinary request has no ${k}`);
  });

  test('link channel: no invitation or reminder; every link in the response (ordered: the page refuses the second signer first); the code goes to the email', async () => {
    const a = await account();
    const wf = await workflow(a, { channel: 'link', ordered: true, reminders: { enabled: true, interval_hours: 1, max: 3 } });
    const sess = await session(a.keys.secret_test, {
      workflow_id: wf,
      signers: [signer('Amira', a.team[1]!), signer('Bassem', a.team[2]!)],
    });
    assert.equal(sess.channel, 'link');
    assert.ok(
      sess.signers.every((x: Json) => /\/sign\/sgr_/.test(x.sign_url)),
      'all links at creation, the second signer’s too',
    );
    assert.deepEqual(
      sess.signers.map((x: Json) => x.status),
      ['sent', 'pending'],
    );
    const messages = () => s.ctx.store.db.selectFrom('messages').selectAll().where('signature_request_id', '=', sess.id).execute();
    assert.deepEqual(await messages(), [], 'no invitation');

    const second = await PageClient.open(sess.signers[1].sign_url);
    assert.equal((await second.call('GET', '/state')).body.step, 'not_your_turn');

    const first = await PageClient.open(sess.signers[0].sign_url);
    const st = await first.call('GET', '/state');
    assert.equal(st.body.otp.destination, `a***@acme.test`);
    await sign(sess.signers[0].sign_url, sess.signers[0].id);
    assert.equal((await second.call('GET', '/state')).body.step, 'otp', 'the second signer’s turn');
    const codes = (await messages()).map((m) => [m.kind, m.channel, m.recipient]);
    assert.deepEqual(codes, [['otp', 'email', a.team[1]]], 'only the code, by email: no invitation to the second signer either');

    s.clock.advanceSeconds(2 * 3600);
    await s.jobs.runDue();
    assert.ok(
      (await messages()).every((m) => m.kind === 'otp'),
      'no automatic reminder',
    );
    const remind = await assertErrorBothLanguages(
      (prefix) => s.call('POST', `/signature_requests/${sess.id}/reminders`, { key: a.keys.secret_test, body: {}, prefix }),
      'reminder_not_allowed',
    );
    assert.equal(remind.body.error.param, 'id');
    await sign(sess.signers[1].sign_url, sess.signers[1].id);
    const done = await s.call('GET', `/sessions/${sess.id}`, { key: a.keys.secret_test });
    assert.equal(done.body.status, 'completed');
  });

  test('cc: a live session’s cc addresses get a copy with the reference when it completes; a test session sends none', async () => {
    const a = await account();
    const wf = await workflow(a, { cc: ['legal@acme.test'] });
    const live = await session(a.keys.secret_live, {
      workflow_id: wf,
      cc: ['audit@acme.test', 'cfo@acme.test'],
      signers: [signer('Layla', 'layla@client.example')],
    });
    await sign(live.sign_url, live.signers[0].id);
    const sr = (await s.call('GET', `/signature_requests/${live.id}`, { key: a.keys.secret_live })).body;
    assert.equal(sr.status, 'completed');
    const notices = await s.ctx.store.db
      .selectFrom('messages')
      .selectAll()
      .where('signature_request_id', '=', live.id)
      .where('kind', '=', 'notice')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      notices.map((m) => m.recipient),
      ['audit@acme.test', 'cfo@acme.test'],
      'the override replaced the workflow list',
    );
    assert.ok(notices.every((m) => m.body.includes(sr.reference) && m.body.includes(`/verify/${sr.reference}`)));

    const t = await session(a.keys.secret_test, { workflow_id: wf, signers: [signer('Amira', a.team[1]!)] });
    await sign(t.sign_url, t.signers[0].id);
    const none = await s.ctx.store.db
      .selectFrom('messages')
      .select('id')
      .where('signature_request_id', '=', t.id)
      .where('kind', '=', 'notice')
      .execute();
    assert.deepEqual(none, [], 'test keys send no copy');
  });
});
