/**
 * @tawqi/node against a real server (issue 14, point 3): every operation of the served OpenAPI
 * document has a client method that sends exactly that operation; typed resources round-trip real
 * objects; POSTs carry an Idempotency-Key (a given one is replayed by the server); lists
 * auto-paginate with `for await`; errors are typed classes with code, param and request_id.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CLIENT_METHODS,
  OPERATIONS,
  Tawqi,
  TawqiAuthenticationError,
  TawqiError,
  TawqiInvalidRequestError,
  TawqiPermissionError,
  type OperationId,
  type SignatureRequest,
} from '@tawqi/node';
import { updateAccount } from '../../server/src/store/accounts.js';
import { findOperation } from '../support/openapiCheck.js';
import { startTestServer, type TestServer } from '../support/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const TEAM = ['owner@example.com', 'second@example.com'];

/** The global fetch, recording each request's method, URL and headers on its way to the server. */
function recordingFetch() {
  const sent: { method: string; url: URL; headers: Headers }[] = [];
  const f: typeof fetch = (input, init) => {
    sent.push({ method: init?.method ?? 'GET', url: new URL(String(input)), headers: new Headers(init?.headers) });
    return fetch(input, init);
  };
  return { sent, fetch: f };
}

describe('@tawqi/node against a real server', () => {
  let s: TestServer;
  let key: string;
  let template: string;
  before(async () => {
    s = await startTestServer({ TAWQI_RATE_LIMIT: '100000' });
    const acct = await s.account({ ownerEmail: TEAM[0], plan: 'enterprise', balanceSends: 100 });
    await s.ctx.store.tx((trx) => updateAccount(trx, acct.id, { team_emails: TEAM }));
    key = acct.keys.secret_test;
    const tpl = await s.call('POST', '/templates', {
      key: acct.keys.secret_live,
      body: { title: 'SDK lease', language: 'en', body: 'Agreed, {{party}}.', fields: [{ key: 'party', label: 'Party', required: false }] },
    });
    template = tpl.body.id;
  });
  after(() => s.close());

  const request = (title: string) => ({
    title,
    source: { type: 'template' as const, template_id: template },
    signers: [{ name: 'Amira Saleh', email: TEAM[0] }],
  });

  test('every operation of the served document has a client method, and the method sends that operation', async () => {
    const served = (await s.call('GET', '/openapi.json')).body;
    const documented: string[] = [];
    for (const [path, item] of Object.entries<Json>(served.paths))
      for (const [method, op] of Object.entries<Json>(item)) {
        documented.push(op.operationId);
        assert.deepEqual(OPERATIONS[op.operationId as OperationId], {
          method: method.toUpperCase(),
          path,
          status: Number(Object.keys(op.responses)[0]),
          contentType: Object.keys(op.responses[Object.keys(op.responses)[0]!].content)[0],
          summary: op.summary,
        });
      }
    assert.deepEqual(Object.keys(CLIENT_METHODS).sort(), documented.sort(), 'CLIENT_METHODS names exactly the operations of the document');

    const rec = recordingFetch();
    const tawqi = new Tawqi(key, { baseUrl: s.url, fetch: rec.fetch, maxNetworkRetries: 0 });
    for (const [operationId, methodPath] of Object.entries(CLIENT_METHODS)) {
      // A method path may be nested (testHelpers.signers.sign): walk it from the client.
      const parts = methodPath.split('.');
      const method = parts.pop()!;
      const owner = parts.reduce<Record<string, unknown>>(
        (o, p) => o[p] as Record<string, unknown>,
        tawqi as unknown as Record<string, unknown>,
      );
      const fn = owner[method] as ((...a: unknown[]) => unknown) | undefined;
      assert.equal(typeof fn, 'function', `${operationId}: tawqi.${methodPath} is not a method`);
      const before = rec.sent.length;
      const args = fn!.length === 0 ? [] : ['x_1', {}];
      // The ids are made up: what matters is the request the method sends (an error answer is fine).
      await Promise.resolve(fn!(...args)).catch((e: unknown) => assert.ok(e instanceof TawqiError, String(e)));
      assert.equal(rec.sent.length, before + 1, `${operationId}: one request`);
      const r = rec.sent.at(-1)!;
      const op = findOperation(served, r.method, r.url.pathname);
      assert.ok(op, `${operationId}: ${r.method} ${r.url.pathname} is no operation of the document`);
      assert.equal(op.op.operationId, operationId, `tawqi.${methodPath} sent ${r.method} ${r.url.pathname}`);
      assert.equal(r.headers.get('svc-version'), '2026-07-01');
      assert.equal(r.headers.get('authorization'), `Bearer ${key}`);
      if (r.method === 'POST') assert.match(r.headers.get('idempotency-key') ?? '', /^[0-9a-f-]{36}$/, 'every POST has an Idempotency-Key');
      else assert.equal(r.headers.get('idempotency-key'), null);
    }
  });

  test('apiVersion null sends no Svc-Version: the account’s pinned version answers, as its webhook deliveries do', async () => {
    const pinned = await s.account({ ownerEmail: TEAM[0] });
    await s.ctx.store.tx((trx) => updateAccount(trx, pinned.id, { version_pin: '2026-01-01' }));
    const rec = recordingFetch();
    const accountDefault = new Tawqi(pinned.keys.secret_test, { baseUrl: s.url, fetch: rec.fetch, apiVersion: null });
    const page = await accountDefault.events.list({ limit: 1 });
    assert.equal(rec.sent.at(-1)!.headers.get('svc-version'), null, 'no header sent');
    assert.equal(page.lastResponse.headers.get('svc-version'), '2026-01-01', 'the pin answered');
    const pinnedByClient = await new Tawqi(pinned.keys.secret_test, { baseUrl: s.url }).events.list({ limit: 1 });
    assert.equal(pinnedByClient.lastResponse.headers.get('svc-version'), '2026-07-01', 'by default the client’s own version');
  });

  test('create, retrieve, send, cancel: typed objects; a given Idempotency-Key is replayed, not applied twice', async () => {
    const tawqi = new Tawqi(key, { baseUrl: s.url });
    const draft = await tawqi.signatureRequests.create({ ...request('Typed'), send: false }, { idempotencyKey: 'sdk-typed-1' });
    assert.equal(draft.object, 'signature_request');
    assert.equal(draft.status, 'draft');
    assert.equal(draft.lastResponse.statusCode, 201);
    assert.equal(draft.lastResponse.idempotencyKey, 'sdk-typed-1');
    assert.equal(draft.lastResponse.idempotentReplayed, false);
    assert.match(draft.lastResponse.requestId ?? '', /^req_/);
    const again = await tawqi.signatureRequests.create({ ...request('Typed'), send: false }, { idempotencyKey: 'sdk-typed-1' });
    assert.equal(again.id, draft.id, 'the same key: the same request');
    assert.equal(again.lastResponse.idempotentReplayed, true);

    const got: SignatureRequest = await tawqi.signatureRequests.retrieve(draft.id);
    assert.deepEqual(JSON.parse(JSON.stringify(got)), JSON.parse(JSON.stringify({ ...draft, signers: got.signers })));
    const sent = await tawqi.signatureRequests.send(draft.id);
    assert.equal(sent.status, 'sent');
    const signers = await tawqi.signers.list({ signature_request: draft.id });
    assert.deepEqual(
      signers.data.map((x) => x.id),
      sent.signers.map((x) => x.id),
    );
    const canceled = await tawqi.signatureRequests.cancel(draft.id);
    assert.equal(canceled.status, 'canceled');
    const events = await tawqi.events.list({ signature_request: draft.id }).toArray({ limit: 100 });
    assert.ok(events.some((e) => e.type === 'signature_request.canceled'));
  });

  test('lists auto-paginate: for await walks every page with starting_after; awaiting gives the first page', async () => {
    const tawqi = new Tawqi(key, { baseUrl: s.url, fetch: recordingFetch().fetch });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await tawqi.signatureRequests.create({ ...request(`Page ${i}`), send: false })).id);
    const rec = recordingFetch();
    const paged = new Tawqi(key, { baseUrl: s.url, fetch: rec.fetch });
    const first = await paged.signatureRequests.list({ status: 'draft', limit: 2 });
    assert.equal(first.data.length, 2);
    assert.equal(first.has_more, true);
    const seen: string[] = [];
    for await (const r of paged.signatureRequests.list({ status: 'draft', limit: 2 })) seen.push(r.id);
    assert.deepEqual(seen.slice(0, 5), [...ids].reverse(), 'newest first, across pages');
    assert.equal(new Set(seen).size, seen.length, 'no item twice');
    const cursors = rec.sent.slice(1).map((r) => r.url.searchParams.get('starting_after'));
    assert.deepEqual(cursors.slice(0, 3), [null, seen[1], seen[3]], 'each page starts after the last item of the one before');
    // Breaking out stops fetching.
    const before = rec.sent.length;
    for await (const r of paged.signatureRequests.list({ status: 'draft', limit: 2 })) if (r) break;
    assert.equal(rec.sent.length, before + 1);
  });

  test('errors are typed: class by error.type, with code, param, request_id; messages in the client’s locale', async () => {
    const en = new Tawqi(key, { baseUrl: s.url, locale: 'en' });
    const bad = await en.signatureRequests.create({ ...request('Bad'), signers: [{ name: 'X', email: 'not-an-email' }] }).catch((e) => e);
    assert.ok(bad instanceof TawqiInvalidRequestError);
    assert.equal(bad.code, 'parameter_invalid');
    assert.equal(bad.param, 'signers[0].email');
    assert.match(bad.request_id ?? '', /^req_/);
    assert.equal(bad.statusCode, 400);
    assert.match(bad.message, /Invalid value/);

    const ar = new Tawqi(key, { baseUrl: s.url });
    const arabic = await ar.signatureRequests.retrieve('sr_missing').catch((e) => e);
    assert.ok(arabic instanceof TawqiError);
    assert.equal(arabic.code, 'not_found');
    assert.match(arabic.message, /[\u0600-\u06FF]/, 'Arabic by default');

    const unknown = await new Tawqi('sk_test_' + '0'.repeat(40), { baseUrl: s.url }).usage.retrieve().catch((e) => e);
    assert.ok(unknown instanceof TawqiAuthenticationError);
    assert.equal(unknown.code, 'invalid_api_key');

    const pk = await s.account({ ownerEmail: TEAM[0] });
    const publishable = await new Tawqi(pk.keys.publishable_test, { baseUrl: s.url }).signatureRequests.list().catch((e) => e);
    assert.ok(publishable instanceof TawqiPermissionError);
    assert.equal(publishable.code, 'forbidden');
    assert.throws(() => new Tawqi(undefined), TypeError);
  });

  test('binary and HTML answers: the PDF as bytes, the document as text (or a typed 400 before completion)', async () => {
    const tawqi = new Tawqi(key, { baseUrl: s.url });
    const sr = await tawqi.signatureRequests.create(request('Binary'));
    const notYet = await tawqi.signatureRequests.retrieveDownload(sr.id).catch((e) => e);
    assert.ok(notYet instanceof TawqiError);
    assert.equal(notYet.statusCode, 400);
    const info = await tawqi.service.retrieve();
    assert.equal(info.object, 'service');
    assert.equal(info.api_version, '2026-07-01');
  });
});
