/**
 * POST /sessions delivers its invitations before answering (spec 7, delivery_failed): with a real
 * SMTP peer the invitation has arrived when the 201 comes back; with the relay down no invitation
 * arrives, the answer is 502 delivery_failed with the cost returned, and the request stays a draft
 * (refund in the ledger, signers pending, no send event), replayed as such for the same
 * Idempotency-Key; the draft can be sent later.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createWorkflow } from '../../server/src/services/workflows.js';
import { getAccount, updateAccount } from '../../server/src/store/accounts.js';
import { assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startSmtpPeer, type SmtpPeer } from '../support/smtpPeer.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('POST /sessions: delivery at creation', () => {
  let s: TestServer;
  let peer: SmtpPeer;
  before(async () => {
    peer = await startSmtpPeer();
    s = await startTestServer({
      TAWQI_SMTP_URL: `smtp://127.0.0.1:${peer.port}`,
      TAWQI_SMTP_FROM: 'Tawqi <no-reply@tawqi.test>',
      TAWQI_RATE_LIMIT: '100000',
    });
  });
  after(async () => {
    await s.close();
    await peer.close();
  });

  async function setup() {
    const acct = await s.account({ ownerEmail: 'owner@acme.test', plan: 'enterprise', balanceSends: 1, walletMinor: 10_000 });
    await updateAccount(s.ctx.store.db, acct.id, { team_emails: ['owner@acme.test', 'amira@acme.test'] });
    const tpl = await s.call('POST', '/templates', {
      key: acct.keys.secret_test,
      body: { title: `Deal ${Math.random()}`, language: 'en', body: 'Deal with {{party}}.', fields: [{ key: 'party', label: 'Party' }] },
    });
    const wf = await createWorkflow(s.ctx.store, s.clock, acct.id, 'Deals', { document_mode: 'fixed', template_id: tpl.body.id }, true);
    return { ...acct, wf: wf.workflow.id };
  }
  const ledger = (accountId: string) =>
    s.ctx.store.db.selectFrom('ledger').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  const eventTypes = async (key: string, id: string) =>
    (await s.call('GET', `/events?signature_request=${id}&limit=100`, { key })).body.data.map((e: Json) => e.type).reverse();

  test('the invitation has reached the relay when the 201 comes back (no job run)', async () => {
    const a = await setup();
    const before = peer.mails.length;
    const r = await s.call('POST', '/sessions', {
      key: a.keys.secret_live,
      body: { workflow_id: a.wf, title: 'Arrived first', signers: [{ name: 'Layla', email: 'layla@client.example' }] },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(peer.mails.length, before + 1, 'delivered synchronously');
    assert.deepEqual(peer.mails.at(-1)!.envelopeTo, ['layla@client.example']);
    assert.match(peer.mails.at(-1)!.text ?? '', new RegExp(r.body.signers[0].sign_url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    const msg = await s.ctx.store.db
      .selectFrom('messages')
      .selectAll()
      .where('signature_request_id', '=', r.body.id)
      .executeTakeFirstOrThrow();
    assert.equal(msg.state, 'sent');
    assert.deepEqual(await eventTypes(a.keys.secret_live, r.body.id), ['signature_request.sent', 'signer.sent']);
    s.clock.advanceSeconds(301);
    await s.jobs.runDue();
    assert.equal(peer.mails.length, before + 1, 'the safety-net job does not send it again');
  });

  test('the relay refuses: 502 delivery_failed with the cost returned; the request stays a draft; the same key replays the 502; the draft is sent later', async () => {
    const a = await setup();
    const body = {
      workflow_id: a.wf,
      vendor_data: 'crm-9',
      signers: [
        { name: 'Layla', email: 'layla@client.example' },
        { name: 'Omar', email: 'omar@client.example' },
      ],
    };
    const start = (await getAccount(s.ctx.store.db, a.id))!;
    await peer.stop();
    let failed: Json;
    try {
      failed = await assertErrorBothLanguages(
        (prefix) => s.call('POST', '/sessions', { key: a.keys.secret_live, body, prefix }),
        'delivery_failed',
      );
      const replay = await s.call('POST', '/sessions', { key: a.keys.secret_live, body, headers: { 'idempotency-key': 'undelivered-1' } });
      assert.equal(replay.status, 502);
      const again = await s.call('POST', '/sessions', { key: a.keys.secret_live, body, headers: { 'idempotency-key': 'undelivered-1' } });
      assert.equal(again.status, 502);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.body, replay.body);
    } finally {
      await peer.start();
    }
    const e = failed.body.error;
    assert.equal(e.param, null);
    // One send from the balance and one overage send (6.00) were charged, then returned.
    assert.deepEqual(e.cost, { amount: 6, sends: 1, currency: 'EGP', source: 'overage', returned: true });
    const after = (await getAccount(s.ctx.store.db, a.id))!;
    assert.equal(after.balance_sends, start.balance_sends, 'balance returned');
    assert.equal(after.wallet_minor, start.wallet_minor, 'wallet returned');
    const rows = (await ledger(a.id)).filter((l) => l.signature_request_id === e.session_id);
    assert.deepEqual(
      rows.map((l) => [l.kind, l.sends_delta, l.wallet_delta_minor]),
      [
        ['send', -1, -600],
        ['refund', 1, 600],
      ],
    );

    const draft = await s.call('GET', `/sessions/${e.session_id}`, { key: a.keys.secret_live });
    assert.equal(draft.status, 200);
    assert.equal(draft.body.status, 'draft');
    assert.equal(draft.body.vendor_data, 'crm-9');
    assert.deepEqual(draft.body.cost, { amount: 0, sends: 0, currency: 'EGP', source: 'plan' });
    assert.deepEqual(
      draft.body.signers.map((x: Json) => [x.status, x.sign_url]),
      [
        ['pending', null],
        ['pending', null],
      ],
    );
    const sr = (await s.call('GET', `/signature_requests/${e.session_id}`, { key: a.keys.secret_live })).body;
    assert.equal(sr.status, 'draft');
    assert.equal(sr.cost, null, 'not charged');
    assert.deepEqual(
      await eventTypes(a.keys.secret_live, e.session_id),
      ['signature_request.created'],
      'the send was never announced; the draft was',
    );
    const msgs = await s.ctx.store.db.selectFrom('messages').selectAll().where('signature_request_id', '=', e.session_id).execute();
    assert.deepEqual(
      msgs.map((m) => m.state),
      ['failed', 'failed'],
    );

    // The relay is back: the jobs do not send the failed invitations; sending the draft does.
    const before = peer.mails.length;
    s.clock.advanceSeconds(301);
    await s.jobs.runDue();
    assert.equal(peer.mails.length, before);
    const sent = await s.call('POST', `/signature_requests/${e.session_id}/send`, { key: a.keys.secret_live });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.status, 'sent');
    await s.jobs.runDue();
    await peer.waitFor(before + 2);
    assert.deepEqual(
      peer.mails
        .slice(before)
        .map((m) => m.envelopeTo[0])
        .sort(),
      ['layla@client.example', 'omar@client.example'],
    );
  });

  test('test mode: the relay refuses a test invitation too (nothing to return)', async () => {
    const a = await setup();
    await peer.stop();
    try {
      const r = await s.call('POST', '/sessions', {
        key: a.keys.secret_test,
        body: { workflow_id: a.wf, signers: [{ name: 'Amira', email: 'amira@acme.test' }] },
      });
      assert.equal(r.status, 502, r.text);
      assert.equal(r.body.error.code, 'delivery_failed');
      assert.deepEqual(r.body.error.cost, { amount: 0, sends: 0, currency: 'EGP', source: 'plan', returned: true });
      assert.equal((await s.call('GET', `/sessions/${r.body.error.session_id}`, { key: a.keys.secret_test })).body.status, 'draft');
    } finally {
      await peer.start();
    }
  });
});
