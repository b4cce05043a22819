/**
 * WhatsApp through the WhatsApp Business Cloud API (spec 1, 4.2, part 5), against a local peer that
 * checks each request's shape (POST {base}/{version}/{phone_number_id}/messages, Bearer token, a
 * template message as Meta documents it): invitations, reminders and one-time codes; the code's
 * channel and fallbacks; channel_unavailable in live mode while not enabled; test mode (nothing
 * sent, audit.whatsapp_simulated with a masked number); numbers in international format;
 * delivery_failed when the Cloud API refuses every invitation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../server/src/config.js';
import { SCRUBBED_NOTE } from '../../server/src/delivery/deliverMessage.js';
import { createWorkflow, type WorkflowPatch } from '../../server/src/services/workflows.js';
import { getAccount, updateAccount } from '../../server/src/store/accounts.js';
import { assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { lastOtp, PageClient, pngDataUrl } from '../support/signing.js';
import { startWhatsAppPeer, templateProblems, type WhatsAppPeer } from '../support/whatsappPeer.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const OMAR = '+201001234567';
const NOUR = '+971501234567';

describe('WhatsApp Cloud API', () => {
  let peer: WhatsAppPeer;
  let s: TestServer;
  let n = 0;
  before(async () => {
    peer = await startWhatsAppPeer();
    s = await startTestServer({ ...peer.env(), TAWQI_RATE_LIMIT: '100000' });
  });
  after(async () => {
    await s.close();
    await peer.close();
  });

  async function account(server: TestServer = s, whatsapp = true) {
    const k = ++n;
    const team = [`owner${k}@acme.test`, `amira${k}@acme.test`];
    const acct = await server.account({ ownerEmail: team[0], plan: 'enterprise', balanceSends: 100, walletMinor: 100_000 });
    await updateAccount(server.ctx.store.db, acct.id, { team_emails: team, team_phones: [OMAR], whatsapp_enabled: whatsapp });
    const tpl = await server.call('POST', '/templates', {
      key: acct.keys.secret_test,
      body: { title: `Rental ${k}`, language: 'en', body: 'Rental for {{tenant}}.', fields: [{ key: 'tenant', label: 'Tenant' }] },
    });
    assert.equal(tpl.status, 201, tpl.text);
    return { ...acct, team, template: tpl.body.id as string };
  }
  type Acct = Awaited<ReturnType<typeof account>>;
  const workflow = async (a: Acct, patch: WorkflowPatch = {}, server: TestServer = s) =>
    (
      await createWorkflow(
        server.ctx.store,
        server.clock,
        a.id,
        `WA ${++n}`,
        { document_mode: 'fixed', template_id: a.template, channel: 'whatsapp', language: 'en', ...patch },
        true,
      )
    ).workflow.id;
  async function session(key: string, body: Record<string, unknown>, server: TestServer = s): Promise<Json> {
    const r = await server.call('POST', '/sessions', { key, body });
    assert.equal(r.status, 201, r.text);
    return r.body;
  }
  const since = (count: number) => peer.messages.slice(count);

  test('the peer is not vacuous: it refuses a body that is not a template message', () => {
    assert.deepEqual(
      templateProblems({
        messaging_product: 'whatsapp',
        to: '201001234567',
        type: 'template',
        template: { name: 'x', language: { code: 'en' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'a' }] }] },
      }),
      [],
    );
    assert.ok(templateProblems({ messaging_product: 'whatsapp', to: '201001234567', type: 'text', text: { body: 'hi' } }).length > 0);
    assert.ok(
      templateProblems({
        messaging_product: 'sms',
        to: '0100',
        type: 'template',
        template: { name: 'X Y', language: {}, components: [{ type: 'body', parameters: [{ type: 'text' }] }] },
      }).length >= 5,
    );
  });

  test('live: the invitation is a template message (name, title, link) sent before the 201; its link opens the signer’s page', async () => {
    const a = await account();
    const wf = await workflow(a);
    const before = peer.messages.length;
    const sess = await session(a.keys.secret_live, { workflow_id: wf, title: 'Flat 4B', signers: [{ name: 'Omar Said', phone: OMAR }] });
    assert.equal(sess.channel, 'whatsapp');
    const [m] = since(before);
    assert.ok(m, 'delivered synchronously');
    assert.deepEqual(peer.problems, []);
    assert.equal(m.to, '201001234567');
    assert.deepEqual(m.template, {
      name: 'tawqi_signing_invitation',
      language: 'en',
      body: ['Omar Said', 'Flat 4B', sess.sign_url],
      button: null,
    });
    assert.equal(m.raw.messaging_product, 'whatsapp');
    assert.equal(m.raw.recipient_type, 'individual');
    assert.equal(m.raw.type, 'template');
    const page = await PageClient.open(m.template.body[2]!);
    assert.equal((await page.call('GET', '/state')).body.request.id, sess.id);
    const stored = await s.ctx.store.db
      .selectFrom('messages')
      .selectAll()
      .where('signature_request_id', '=', sess.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.channel, 'whatsapp');
    assert.equal(stored.state, 'sent');
    assert.ok(!(stored.template ?? '').includes('/sign/'), 'the stored template holds the link token, not the link');

    // A reminder uses the reminder template.
    const r = await s.call('POST', `/signature_requests/${sess.id}/reminders`, { key: a.keys.secret_live, body: {} });
    assert.equal(r.status, 200, r.text);
    await s.jobs.runDue();
    const reminder = since(before + 1)[0]!;
    assert.equal(reminder.template.name, 'tawqi_signing_reminder');
    assert.deepEqual(reminder.template.body, ['Omar Said', 'Flat 4B', sess.sign_url]);
  });

  test('the code goes by WhatsApp (authentication template, copy-code button), is accepted, and is not kept', async () => {
    const a = await account();
    const wf = await workflow(a, { language: 'ar' });
    const sess = await session(a.keys.secret_live, {
      workflow_id: wf,
      signers: [{ name: 'Omar', phone: OMAR, email: 'omar@client.example' }],
    });
    const page = await PageClient.open(sess.sign_url);
    assert.equal((await page.call('GET', '/state')).body.otp.destination, '*********4567', 'the page names the number');
    const before = peer.messages.length;
    assert.equal((await page.call('POST', '/otp/send')).status, 200);
    await s.jobs.runDue();
    const [m] = since(before);
    assert.ok(m);
    assert.deepEqual(peer.problems, []);
    assert.equal(m.template.name, 'tawqi_code');
    assert.equal(m.template.language, 'ar');
    assert.match(m.template.body[0]!, /^\d{6}$/);
    assert.equal(m.template.button, m.template.body[0], 'the copy-code button carries the code');
    const verified = await page.call('POST', '/otp/verify', { code: m.template.body[0] });
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    const stored = await s.ctx.store.db
      .selectFrom('messages')
      .selectAll()
      .where('signer_id', '=', sess.signers[0].id)
      .where('kind', '=', 'otp')
      .executeTakeFirstOrThrow();
    assert.equal(stored.channel, 'whatsapp');
    assert.equal(stored.body, SCRUBBED_NOTE);
    assert.equal(stored.template, null, 'no code at rest');
    const emails = await s.ctx.store.db
      .selectFrom('messages')
      .select('id')
      .where('signer_id', '=', sess.signers[0].id)
      .where('channel', '=', 'email')
      .execute();
    assert.deepEqual(emails, [], 'nothing by email');
    assert.equal((await page.call('POST', '/sign', { signature: pngDataUrl(), consent: true })).status, 200);
  });

  test('link channel: the code goes to the email when there is one, else to the number; no invitation either way', async () => {
    const a = await account();
    const wf = await workflow(a, { channel: 'link' });
    const sess = await session(a.keys.secret_live, {
      workflow_id: wf,
      signers: [
        { name: 'Email Too', phone: NOUR, email: 'both@client.example' },
        { name: 'Number Only', phone: OMAR },
      ],
    });
    const before = peer.messages.length;
    assert.equal(since(before).length, 0);
    const p1 = await PageClient.open(sess.signers[0].sign_url);
    await p1.call('POST', '/otp/send');
    const p2 = await PageClient.open(sess.signers[1].sign_url);
    await p2.call('POST', '/otp/send');
    await s.jobs.runDue();
    const msgs = await s.ctx.store.db
      .selectFrom('messages')
      .select(['kind', 'channel', 'recipient'])
      .where('signature_request_id', '=', sess.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(msgs, [
      { kind: 'otp', channel: 'email', recipient: 'both@client.example' },
      { kind: 'otp', channel: 'whatsapp', recipient: OMAR },
    ]);
    assert.deepEqual(
      since(before).map((m) => [m.to, m.template.name]),
      [['201001234567', 'tawqi_code']],
    );
  });

  test('channel_unavailable: live WhatsApp while the account has it off', async () => {
    const a = await account(s, false);
    const wf = await workflow(a);
    const before = peer.messages.length;
    const r = await assertErrorBothLanguages(
      (prefix) =>
        s.call('POST', '/sessions', {
          key: a.keys.secret_live,
          body: { workflow_id: wf, signers: [{ name: 'Omar', phone: OMAR }] },
          prefix,
        }),
      'channel_unavailable',
    );
    assert.equal(r.body.error.param, 'channel');
    assert.equal(peer.messages.length, before);
    assert.equal((await s.ctx.store.db.selectFrom('signature_requests').select('id').where('account_id', '=', a.id).execute()).length, 0);
  });

  test('numbers in international format only (invalid_signer)', async () => {
    const a = await account();
    const wf = await workflow(a);
    for (const phone of ['01001234567', '+0201001234567', '+20-100-123-4567', '+2010012345678901']) {
      const r = await assertErrorBothLanguages(
        (prefix) =>
          s.call('POST', '/sessions', { key: a.keys.secret_live, body: { workflow_id: wf, signers: [{ name: 'Omar', phone }] }, prefix }),
        'invalid_signer',
      );
      assert.equal(r.body.error.param, 'signers[0].phone');
    }
  });

  test('test mode: nothing reaches the Cloud API; audit.whatsapp_simulated records a masked number; the code goes by email', async () => {
    const a = await account();
    const wf = await workflow(a);
    const before = peer.messages.length;
    const sess = await session(a.keys.secret_test, { workflow_id: wf, signers: [{ name: 'Omar', phone: OMAR, email: a.team[1] }] });
    const page = await PageClient.open(sess.sign_url);
    await page.call('POST', '/otp/send');
    await s.jobs.runDue();
    assert.equal(peer.messages.length, before, 'nothing sent');
    const ev = await s.call('GET', `/events?type=audit.whatsapp_simulated&signature_request=${sess.id}`, { key: a.keys.secret_test });
    assert.equal(ev.body.data.length, 1);
    const o = ev.body.data[0].data.object;
    assert.equal(ev.body.data[0].livemode, false);
    assert.equal(o.to, '*********4567');
    assert.equal(o.kind, 'invitation');
    assert.equal(o.signer, sess.signers[0].id);
    assert.doesNotMatch(JSON.stringify(ev.body), /1001234567/, 'the full number is nowhere in the event');
    const otp = await s.ctx.store.db
      .selectFrom('messages')
      .select(['channel', 'recipient'])
      .where('signer_id', '=', sess.signers[0].id)
      .where('kind', '=', 'otp')
      .executeTakeFirstOrThrow();
    assert.deepEqual(otp, { channel: 'email', recipient: a.team[1] });
    assert.match(await lastOtp(s, sess.signers[0].id), /^\d{6}$/);
  });

  test('delivery_failed when the Cloud API refuses every invitation (cost returned, draft); one refused of two still sends, and the job retries it', async () => {
    const a = await account();
    const wf = await workflow(a);
    const start = (await getAccount(s.ctx.store.db, a.id))!;
    peer.refuse = true;
    let failed: Json;
    try {
      failed = await assertErrorBothLanguages(
        (prefix) =>
          s.call('POST', '/sessions', {
            key: a.keys.secret_live,
            body: { workflow_id: wf, signers: [{ name: 'Omar', phone: OMAR }] },
            prefix,
          }),
        'delivery_failed',
      );
    } finally {
      peer.refuse = false;
    }
    assert.deepEqual(failed.body.error.cost, { amount: 0, sends: 1, currency: 'EGP', source: 'plan', returned: true });
    const after = (await getAccount(s.ctx.store.db, a.id))!;
    assert.equal(after.balance_sends, start.balance_sends);
    assert.equal((await s.call('GET', `/sessions/${failed.body.error.session_id}`, { key: a.keys.secret_live })).body.status, 'draft');

    peer.refuseTo.add('971501234567');
    let sess: Json;
    try {
      sess = await session(a.keys.secret_live, {
        workflow_id: wf,
        signers: [
          { name: 'Omar', phone: OMAR },
          { name: 'Nour', phone: NOUR },
        ],
      });
    } finally {
      peer.refuseTo.clear();
    }
    assert.equal(sess.status, 'sent');
    const states = async () =>
      (
        await s.ctx.store.db
          .selectFrom('messages')
          .select(['recipient', 'state'])
          .where('signature_request_id', '=', sess.id)
          .orderBy('id')
          .execute()
      ).map((m) => [m.recipient, m.state]);
    assert.deepEqual(await states(), [
      [OMAR, 'sent'],
      [NOUR, 'queued'],
    ]);
    const before = peer.messages.length;
    s.clock.advanceSeconds(301);
    await s.jobs.runDue();
    assert.deepEqual(await states(), [
      [OMAR, 'sent'],
      [NOUR, 'sent'],
    ]);
    assert.deepEqual(
      since(before).map((m) => m.to),
      ['971501234567'],
    );
  });

  test('a live WhatsApp message waits (held) while the account has WhatsApp switched off', async () => {
    const a = await account();
    const wf = await workflow(a);
    const sess = await session(a.keys.secret_live, { workflow_id: wf, signers: [{ name: 'Omar', phone: OMAR }] });
    await updateAccount(s.ctx.store.db, a.id, { whatsapp_enabled: false });
    const before = peer.messages.length;
    s.clock.advanceSeconds(3601);
    assert.equal((await s.call('POST', `/signature_requests/${sess.id}/reminders`, { key: a.keys.secret_live, body: {} })).status, 200);
    await s.jobs.runDue();
    assert.equal(peer.messages.length, before);
    const reminder = await s.ctx.store.db
      .selectFrom('messages')
      .select('state')
      .where('signature_request_id', '=', sess.id)
      .where('kind', '=', 'reminder')
      .executeTakeFirstOrThrow();
    assert.equal(reminder.state, 'held');
  });

  test('without an authentication template, codes fall back to email; a number-only signer is then refused in live mode', async () => {
    const other = await startTestServer({ ...peer.env({ TAWQI_WHATSAPP_TEMPLATE_OTP: '' }), TAWQI_RATE_LIMIT: '100000' });
    try {
      const a = await account(other);
      const wf = await workflow(a, {}, other);
      const sess = await session(
        a.keys.secret_live,
        { workflow_id: wf, signers: [{ name: 'Omar', phone: OMAR, email: 'omar@client.example' }] },
        other,
      );
      const page = await PageClient.open(sess.sign_url);
      assert.equal((await page.call('GET', '/state')).body.otp.destination, 'o***@client.example');
      const before = peer.messages.length;
      await page.call('POST', '/otp/send');
      await other.jobs.runDue();
      assert.equal(peer.messages.length, before, 'no code by WhatsApp');
      const otp = await other.ctx.store.db
        .selectFrom('messages')
        .select(['channel', 'recipient'])
        .where('signer_id', '=', sess.signers[0].id)
        .where('kind', '=', 'otp')
        .executeTakeFirstOrThrow();
      assert.deepEqual(otp, { channel: 'email', recipient: 'omar@client.example' });
      const r = await assertErrorBothLanguages(
        (prefix) =>
          other.call('POST', '/sessions', {
            key: a.keys.secret_live,
            body: { workflow_id: wf, signers: [{ name: 'Omar', phone: OMAR }] },
            prefix,
          }),
        'invalid_signer',
      );
      assert.equal(r.body.error.param, 'signers[0].email');
    } finally {
      await other.close();
    }
  });

  test('settings: token and phone-number id together; the API address https (plain http on loopback only)', () => {
    const base = { DATA_DIR: '/tmp/unused' };
    assert.throws(() => loadConfig({ ...base, TAWQI_WHATSAPP_TOKEN: 'abc' }), ConfigError);
    assert.throws(() => loadConfig({ ...base, TAWQI_WHATSAPP_PHONE_NUMBER_ID: '123' }), ConfigError);
    assert.throws(() => loadConfig({ ...base, TAWQI_WHATSAPP_PHONE_NUMBER_ID: '12a', TAWQI_WHATSAPP_TOKEN: 'abc' }), ConfigError);
    assert.throws(() => loadConfig({ ...base, TAWQI_WHATSAPP_API_URL: 'http://graph.example.com' }), ConfigError);
    const c = loadConfig({ ...base, TAWQI_WHATSAPP_PHONE_NUMBER_ID: '123', TAWQI_WHATSAPP_TOKEN: 'abc' });
    assert.equal(c.TAWQI_WHATSAPP_API_URL, 'https://graph.facebook.com');
    assert.equal(c.TAWQI_WHATSAPP_API_VERSION, 'v21.0');
    assert.equal(c.TAWQI_WHATSAPP_TEMPLATE_INVITATION, 'tawqi_signing_invitation');
    assert.equal(c.TAWQI_WHATSAPP_TEMPLATE_OTP, undefined);
  });
});
