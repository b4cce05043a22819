/**
 * Every operation of the OpenAPI document, exercised once end to end through `call()`, whose
 * answers are checked against the document (support/openapiCheck.ts: status documented, body valid,
 * closed objects). The other test files check whatever they call; this one makes sure that no
 * operation goes unchecked: at the end, each one has been answered with its success status.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { simulateIdentityDecision, startIdentityVerification } from '../../server/src/services/identity.js';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import { checkedResponses, servedDocument } from '../support/openapiCheck.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { pngDataUrl } from '../support/signing.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const TEAM = ['owner@example.com', 'second@example.com', 'third@example.com'];
const WHERE = { ip: '198.51.100.7', user_agent: 'openapi-test' };

describe('every operation answers as the OpenAPI document says', () => {
  let s: TestServer;
  let live: string;
  let testKey: string;
  let template: string;
  before(async () => {
    s = await startTestServer({ TAWQI_WEBHOOK_ALLOW_PRIVATE: 'true' });
    const acct = await s.account({ ownerEmail: TEAM[0], plan: 'enterprise', balanceSends: 1000, walletMinor: 1_000_000 });
    await s.ctx.store.tx((trx) => updateAccount(trx, acct.id, { team_emails: TEAM, accepted_domains: ['shop.example.com'] }));
    live = acct.keys.secret_live;
    testKey = acct.keys.secret_test;
  });
  after(() => s.close());

  /** A call that must answer `status`; its body. */
  async function ok(status: number, method: string, path: string, opts: { key?: string; body?: unknown } = {}): Promise<Json> {
    const r = await s.call(method, path, { key: opts.key ?? testKey, body: opts.body });
    assert.equal(r.status, status, `${method} ${path}: ${r.text.slice(0, 500)}`);
    return r.body;
  }

  const request = (extra: Record<string, unknown> = {}, signers = 1) => ({
    title: 'Lease',
    source: { type: 'template', template_id: template },
    signers: TEAM.slice(0, signers).map((email, i) => ({ name: ['Amira Saleh', 'Bassem Ali', 'Carla Nour'][i], email })),
    ...extra,
  });

  test('platform and templates', async () => {
    await ok(200, 'GET', '/');
    await ok(200, 'GET', '/usage', { key: live });
    await ok(200, 'GET', '/balance');
    const created = await ok(201, 'POST', '/templates', {
      key: live,
      body: { title: 'Lease', language: 'en', body: 'Agreed, {{party}}.', fields: [{ key: 'party', label: 'Party', required: false }] },
    });
    template = created.id;
    await ok(200, 'GET', '/templates?scope=all&limit=5');
    await ok(200, 'GET', `/templates/${template}`);
  });

  test('signature requests: create (draft), send, remind, cancel, list, retrieve; bulk', async () => {
    const draft = await ok(201, 'POST', '/signature_requests', { body: request({ send: false }) });
    assert.equal(draft.status, 'draft');
    const sent = await ok(200, 'POST', `/signature_requests/${draft.id}/send`);
    assert.equal(sent.status, 'sent');
    s.clock.advanceSeconds(2 * 3600);
    await ok(200, 'POST', `/signature_requests/${draft.id}/reminders`, { body: { signer: sent.signers[0].id } });
    await ok(200, 'GET', `/signature_requests?status=sent&limit=3`);
    await ok(200, 'GET', `/signature_requests/${draft.id}`);
    await ok(200, 'POST', `/signature_requests/${draft.id}/cancel`);
    const bulk = await ok(201, 'POST', '/signature_requests/bulk', {
      body: { title: 'Notice', source: { type: 'template', template_id: template }, recipients: [{ name: 'Amira', email: TEAM[0] }] },
    });
    assert.equal(bulk.object, 'bulk_send');
  });

  test('signers: list, retrieve, signing session; identity: verification and the name-match decision', async () => {
    const sr = await ok(201, 'POST', '/signature_requests', { body: request({ legal_level: 'aes' }) });
    const signerId = sr.signers[0].id;
    await ok(200, 'GET', `/signers?signature_request=${sr.id}`);
    await ok(200, 'GET', `/signers/${signerId}`);
    await ok(200, 'POST', `/signers/${signerId}/signing_session`, {
      body: { mode: 'redirect', success_url: 'https://shop.example.com/done/{signature_request}' },
    });
    await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signerId, 'otp_verified', WHERE));
    const started = await startIdentityVerification(s.ctx, signerId);
    await simulateIdentityDecision(s.ctx, started.verificationId, 'approve', { documentName: 'Someone Else' });
    const v = await ok(200, 'GET', `/identity_verifications/${started.verificationId}`);
    assert.equal(v.name_match.state, 'mismatch');
    const signer = await ok(200, 'POST', `/signers/${signerId}/identity_match`, { body: { decision: 'approve' } });
    assert.equal(signer.identity.status, 'approved');
  });

  test('workflows and sessions', async () => {
    const flows = await ok(200, 'GET', '/flows');
    await ok(200, 'GET', `/flows/${flows.data[0].id}`);
    const session = await ok(201, 'POST', '/sessions', {
      body: { workflow_id: 'default', template_id: template, signers: [{ name: 'Amira Saleh', email: TEAM[0] }], vendor_data: 'c-1' },
    });
    await ok(200, 'GET', '/sessions?vendor_data=c-1');
    await ok(200, 'GET', `/sessions/${session.id}`);
  });

  test('webhook endpoints and events: register, list, update, redeliver, deliveries, delete', async () => {
    const endpoint = await ok(201, 'POST', '/webhook_endpoints', { body: { url: 'https://127.0.0.1:9/hook', enabled_events: ['*'] } });
    await ok(200, 'GET', '/webhook_endpoints');
    await ok(200, 'GET', `/webhook_endpoints/${endpoint.id}`);
    await ok(200, 'POST', `/webhook_endpoints/${endpoint.id}`, { body: { description: 'orders' } });
    await ok(201, 'POST', '/signature_requests', { body: request() });
    const events = await ok(200, 'GET', '/events?limit=100');
    // The log holds every kind of object the document names: requests, signers, and (test mode) WhatsApp audits.
    assert.ok(new Set(events.data.map((e: Json) => e.data.object.object)).size >= 2);
    const event = events.data[0];
    await ok(200, 'GET', `/events/${event.id}`);
    await ok(200, 'POST', `/events/${event.id}/redeliver`, { body: { endpoint: endpoint.id } });
    await ok(200, 'GET', `/events/${event.id}/deliveries`);
    await ok(200, 'DELETE', `/webhook_endpoints/${endpoint.id}`);
  });

  test('test helpers: the code, the identity simulation and the signature of a test signer', async () => {
    const body = request({}, 1);
    const sr = await ok(201, 'POST', '/signature_requests', {
      body: { ...body, signers: [{ ...body.signers[0], require_identity: true }] },
    });
    const signerId = sr.signers[0].id;
    await ok(200, 'POST', `/test_helpers/signers/${signerId}/verify_otp`);
    await ok(200, 'POST', `/test_helpers/signers/${signerId}/identity`, { body: { decision: 'approve' } });
    const done = await ok(200, 'POST', `/test_helpers/signers/${signerId}/sign`);
    assert.equal(done.status, 'completed');
  });

  test('documents of a completed live request: download, PDF, HTML, certificate, evidence; public verification', async () => {
    const sr = await ok(201, 'POST', '/signature_requests', { key: live, body: request({}, 2) });
    for (const signer of sr.signers) {
      await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signer.id, 'otp_verified', WHERE));
      await s.ctx.store.db.updateTable('signers').set({ signature_image: pngDataUrl() }).where('id', '=', signer.id).execute();
      await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signer.id, 'sign', WHERE));
    }
    const pending = await ok(200, 'GET', `/signature_requests/${sr.id}/download`, { key: live });
    assert.equal(pending.pdf_status, 'pending');
    await s.jobs.runDue();
    const ready = await ok(200, 'GET', `/signature_requests/${sr.id}/download`, { key: live });
    assert.equal(ready.pdf_status, 'ready');
    await ok(200, 'GET', `/signature_requests/${sr.id}/download/pdf`, { key: live });
    await ok(200, 'GET', `/signature_requests/${sr.id}/document`, { key: live });
    await ok(200, 'GET', `/signature_requests/${sr.id}/certificate`, { key: live });
    await ok(200, 'GET', `/signature_requests/${sr.id}/evidence`, { key: live });
    const verification = await s.call('GET', `/verifications/${ready.reference}`);
    assert.equal(verification.status, 200, verification.text);
    // verification.created carries the verification object.
    const created = await ok(200, 'GET', `/events?type=verification.created&signature_request=${sr.id}`, { key: live });
    assert.equal(created.data[0].data.object.object, 'verification');
  });

  test('errors: 401 without a key, 404, 400 for a bad version, in the envelope the document declares', async () => {
    assert.equal((await s.call('GET', '/signature_requests/sr_missing')).status, 401);
    assert.equal((await s.call('GET', '/signature_requests/sr_missing', { key: testKey })).status, 404);
    assert.equal((await s.call('GET', '/usage', { key: testKey, headers: { 'Svc-Version': '1999-01-01' } })).status, 400);
    assert.equal((await s.call('POST', '/templates', { key: live, rawBody: '{"title":' })).status, 400);
  });

  test('coverage: every operation of the document was answered with its success status and checked', () => {
    const { doc } = servedDocument();
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, op] of Object.entries(item as Record<string, Json>)) {
        const success = Object.keys(op.responses).find((st) => Number(st) < 300)!;
        const key = `${method.toUpperCase()} ${path}`;
        if (!checkedResponses.get(key)?.has(Number(success))) missing.push(`${key} ${success}`);
      }
    }
    assert.deepEqual(missing, []);
    assert.ok(checkedResponses.size >= 38, `${checkedResponses.size} operations checked`);
  });
});
