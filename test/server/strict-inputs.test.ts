/**
 * Strict inputs: a body must be declared as JSON (415 unsupported_media_type otherwise, nothing
 * created); no string in a body or query may hold a control character (400 parameter_invalid naming
 * the field); and `starting_after` must be an id from the same list — the same account and mode —
 * on every list endpoint (400 parameter_invalid on starting_after, never a silent restart).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { forbiddenCharacterAt } from '../../server/src/domain/inputText.js';
import { createWorkflow } from '../../server/src/services/workflows.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type CallResult, type TestServer } from '../support/server.js';
import { PageClient } from '../support/signing.js';
import { teamAccount, type TeamAccount } from '../support/teamAccount.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const TEMPLATE = {
  title: 'Consulting',
  language: 'en',
  body: 'Consulting for {{client_name}}.',
  fields: [{ key: 'client_name', label: 'Client', type: 'text', required: true }],
};
/** A public address (never contacted: nothing is delivered in this file). */
const HOOK_URL = 'https://93.184.215.14/hooks/tawqi';

describe('strict inputs', () => {
  let s: TestServer;
  let a: TeamAccount;
  before(async () => {
    s = await startTestServer({ TAWQI_RATE_LIMIT: '100000', TAWQI_IP_RATE_LIMIT: '100000' });
    a = await teamAccount(s, TEMPLATE);
  });
  after(() => s.close());

  const requestBody = (acct: TeamAccount, extra: Record<string, unknown> = {}, signer: Record<string, unknown> = {}) => ({
    title: 'Consulting agreement',
    source: { type: 'template', template_id: acct.templateId },
    signers: [{ name: 'Layla Hassan', email: acct.team[1], fields: { client_name: 'Acme' }, ...signer }],
    ...extra,
  });
  const create = (acct: TeamAccount, key: string, extra: Record<string, unknown> = {}) =>
    s.call('POST', '/signature_requests', { key, body: requestBody(acct, extra) });
  const requestCount = async (accountId: string): Promise<number> =>
    Number(
      (
        await s.ctx.store.db
          .selectFrom('signature_requests')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** A POST with exactly these headers and body bytes (fetch adds no Content-Type to bytes). */
  async function rawPost(p: string, body: string, headers: Record<string, string>, prefix = '/api/v1'): Promise<CallResult> {
    const res = await fetch(`${s.url}${prefix}${p}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.keys.secret_test}`, ...headers },
      body: new TextEncoder().encode(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
  }

  describe('a body must be application/json', () => {
    test('text/plain, no Content-Type and form-encoded bodies get 415 unsupported_media_type and create nothing', async () => {
      const json = JSON.stringify(requestBody(a));
      const before = await requestCount(a.id);
      const cases: [string, Record<string, string>][] = [
        [json, { 'content-type': 'text/plain' }],
        [json, { 'content-type': 'text/plain;charset=UTF-8' }],
        [json, {}],
        [new URLSearchParams({ title: 'Consulting agreement' }).toString(), { 'content-type': 'application/x-www-form-urlencoded' }],
        [json, { 'content-type': 'application/json; charset=latin1' }],
        [json, { 'content-type': 'application/jsonx' }],
        [json, { 'content-type': 'application/merge-patch+json' }],
      ];
      for (const [body, headers] of cases) {
        const r = await assertErrorBothLanguages(
          (prefix) => rawPost('/signature_requests', body, headers, prefix),
          'unsupported_media_type',
        );
        assert.equal(r.body.error.param, 'Content-Type', JSON.stringify(headers));
        assert.match(
          (await rawPost('/signature_requests', body, { ...headers, 'accept-language': 'en' })).body.error.message,
          /application\/json/,
        );
      }
      assert.equal(await requestCount(a.id), before, 'nothing was created');
    });

    test('application/json, with or without charset=utf-8 (any case), is accepted', async () => {
      const json = JSON.stringify(requestBody(a));
      for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"']) {
        const r = await rawPost('/signature_requests', json, { 'content-type': type });
        assert.equal(r.status, 201, `${type}: ${r.text}`);
      }
    });

    test('a refused body does not use up its Idempotency-Key; a request without a body passes whatever its type', async () => {
      const json = JSON.stringify(requestBody(a));
      const key = { 'idempotency-key': 'strict-type-1' };
      assertError(await rawPost('/signature_requests', json, { 'content-type': 'text/plain', ...key }), 'unsupported_media_type');
      const ok = await rawPost('/signature_requests', json, { 'content-type': 'application/json', ...key });
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.headers.get('idempotent-replayed'), null, 'the first real run, not a replay');

      const draft = await create(a, a.keys.secret_test, { send: false });
      const canceled = await s.call('POST', `/signature_requests/${draft.body.id}/cancel`, {
        key: a.keys.secret_test,
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(canceled.status, 200, canceled.text);
    });

    test("the signing page's API refuses a body that is not JSON the same way", async () => {
      const sr = await create(a, a.keys.secret_test);
      assert.equal(sr.status, 201, sr.text);
      const page = await PageClient.open(sr.body.signers[0].signing_url);
      const res = await fetch(`${s.url}/sign/api/decline`, {
        method: 'POST',
        headers: { 'x-tawqi-page-token': page.token, 'content-type': 'text/plain' },
        body: '{}',
      });
      const body = (await res.json()) as Json;
      assert.equal(res.status, 415);
      assert.equal(body.error.code, 'unsupported_media_type');
      assert.equal(
        (await s.call('GET', `/signature_requests/${sr.body.id}`, { key: a.keys.secret_test })).body.status,
        'sent',
        'not declined',
      );
    });
  });

  describe('no control characters in text', () => {
    /** Refused in both languages with `param`, and nothing created. */
    async function refused(body: unknown, param: string | null, raw?: string): Promise<void> {
      const before = await requestCount(a.id);
      const r = await assertErrorBothLanguages(
        (prefix) =>
          s.call('POST', '/signature_requests', { key: a.keys.secret_test, prefix, ...(raw === undefined ? { body } : { rawBody: raw }) }),
        'parameter_invalid',
      );
      assert.equal(r.body.error.param, param, r.text);
      assert.equal(await requestCount(a.id), before, `nothing created (${param})`);
    }

    test('NUL, other C0 and C1 controls, a lone CR and a lone surrogate are refused with param naming the field', async () => {
      await refused(requestBody(a, { title: 'Consulting\u0000agreement' }), 'title');
      await refused(requestBody(a, {}, { name: 'Layla\u0007' }), 'signers[0].name');
      await refused(requestBody(a, {}, { fields: { client_name: 'Acme\u001b[31m' } }), 'signers[0].fields.client_name');
      await refused(requestBody(a, { metadata: { note: 'a\u007fb' } }), 'metadata.note');
      await refused(requestBody(a, { title: 'Next\u0085line' }), 'title');
      await refused(requestBody(a, { title: 'carriage\rreturn' }), 'title');
      await refused(requestBody(a, { metadata: { 'order\u0000id': '1' } }), 'metadata');
      // JSON can spell half of a surrogate pair; it is not text.
      await refused(undefined, 'title', JSON.stringify(requestBody(a)).replace('"Consulting agreement"', '"Consulting \\ud800"'));
      // Before the schema: a control character in an unknown field is still named.
      await refused(requestBody(a, { nonsense: '\u0000' }), 'nonsense');
    });

    test('tab, line feed and CR LF are text; Arabic, bidi marks and emoji too', async () => {
      const tpl = await s.call('POST', '/templates', {
        key: a.keys.secret_test,
        body: { ...TEMPLATE, title: 'Lines', body: 'Line one\n\tindented {{client_name}}\r\nLine three' },
      });
      assert.equal(tpl.status, 201, tpl.text);
      assert.equal(tpl.body.body, 'Line one\n\tindented {{client_name}}\r\nLine three');
      const r = await create(a, a.keys.secret_test, { title: 'عقد\u200f استشارة 🖋️', metadata: { note: 'a\tb\nc' } });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.title, 'عقد\u200f استشارة 🖋️');
    });

    test('the same rule holds for query strings, session bodies and the signing page', async () => {
      const q = await assertErrorBothLanguages(
        (prefix) => s.call('GET', '/templates?search=a%00b', { key: a.keys.secret_test, prefix }),
        'parameter_invalid',
      );
      assert.equal(q.body.error.param, 'search');

      const session = await s.call('POST', '/sessions', {
        key: a.keys.secret_test,
        body: {
          workflow_id: 'wf_default',
          template_id: a.templateId,
          vendor_data: 'order\u00001',
          signers: [{ name: 'Layla', email: a.team[1] }],
        },
      });
      assertError(session, 'parameter_invalid');
      assert.equal(session.body.error.param, 'vendor_data');

      const sr = await create(a, a.keys.secret_test);
      const page = await PageClient.open(sr.body.signers[0].signing_url);
      const declined = await page.call('POST', '/decline', { reason: 'no\u0000' });
      assert.equal(declined.status, 400);
      assert.equal(declined.body.error.code, 'parameter_invalid');
      assert.equal(declined.body.error.param, 'reason');
      assert.equal(
        (await s.call('GET', `/signature_requests/${sr.body.id}`, { key: a.keys.secret_test })).body.status,
        'sent',
        'not declined',
      );
    });

    test('a deeply nested body is checked without running out of stack', async () => {
      const deep = (inner: string) => '['.repeat(100_000) + inner + ']'.repeat(100_000);
      const r = await s.call('POST', '/signature_requests', { key: a.keys.secret_test, rawBody: `{"metadata": ${deep('')}}` });
      assertError(r, 'parameter_missing');
      // The rule itself, on the same depth with a NUL at the bottom:
      const found = forbiddenCharacterAt({ metadata: JSON.parse(deep('"\\u0000"')) });
      assert.equal(found?.path.length, 100_001);
      assert.equal(found?.path[0], 'metadata');
      assert.equal(forbiddenCharacterAt(JSON.parse(deep('"ok"'))), undefined);
    });

    test('the rule reports the first offending string in document order', () => {
      assert.deepEqual(forbiddenCharacterAt({ a: 'ok', b: ['x', 'y\u0001', 'z\u0002'], c: '\u0003' }), { path: ['b', 1], inKey: false });
      assert.deepEqual(forbiddenCharacterAt({ a: { 'k\u0000': 1 } }), { path: ['a'], inKey: true });
      assert.deepEqual(forbiddenCharacterAt('\u0000'), { path: [], inKey: false });
      assert.equal(forbiddenCharacterAt({ n: 1, b: true, z: null, s: 'tab\there\r\nnext\nline 😀' }), undefined);
    });
  });

  describe('starting_after names an object of the same list', () => {
    interface ListCase {
      path: string;
      key: string;
      /** Two ids of the list (a valid cursor, and the item that follows it). */
      valid: [string, string];
      /** Unknown, another account's and another mode's ids. */
      refused: string[];
    }
    const cases: ListCase[] = [];

    before(async () => {
      const b = await teamAccount(s, { ...TEMPLATE, title: 'Other account' });
      const ids = async (key: string, p: string): Promise<string[]> => {
        const r = await s.call('GET', p, { key });
        assert.equal(r.status, 200, r.text);
        return r.body.data.map((o: Json) => o.id);
      };
      const hook = async (key: string) => {
        const r = await s.call('POST', '/webhook_endpoints', { key, body: { url: HOOK_URL, enabled_events: ['*'] } });
        assert.equal(r.status, 201, r.text);
        return r.body.id as string;
      };
      const session = async (acct: TeamAccount, key: string, email: string) => {
        const r = await s.call('POST', '/sessions', {
          key,
          body: {
            workflow_id: 'wf_default',
            template_id: acct.templateId,
            signers: [{ name: 'Layla', email, fields: { client_name: 'X' } }],
          },
        });
        assert.equal(r.status, 201, r.text);
        return r.body.id as string;
      };
      // Webhook endpoints first, so the requests below write deliveries.
      await hook(a.keys.secret_test);
      await hook(a.keys.secret_test);
      const liveHook = await hook(a.keys.secret_live);
      const foreignHook = await hook(b.keys.secret_test);
      for (let i = 0; i < 2; i++) assert.equal((await create(a, a.keys.secret_test)).status, 201);
      const live = await s.call('POST', '/signature_requests', {
        key: a.keys.secret_live,
        body: requestBody(a, {}, { email: 'layla@client.example' }),
      });
      assert.equal(live.status, 201, live.text);
      const foreign = await create(b, b.keys.secret_test);
      assert.equal(foreign.status, 201, foreign.text);
      await session(a, a.keys.secret_test, a.team[1]!);
      await session(a, a.keys.secret_test, a.team[2]!);
      const liveSession = await session(a, a.keys.secret_live, 'omar@client.example');
      const foreignSession = await session(b, b.keys.secret_test, b.team[1]!);
      await createWorkflow(s.ctx.store, s.clock, a.id, 'Flow A', { document_mode: 'fixed', template_id: a.templateId }, true);
      const foreignFlow = (
        await createWorkflow(s.ctx.store, s.clock, b.id, 'Flow B', { document_mode: 'fixed', template_id: b.templateId }, true)
      ).workflow.id;

      const first2 = async (key: string, p: string): Promise<[string, string]> => {
        const got = await ids(key, p);
        assert.ok(got.length >= 2, `${p} has two items`);
        return [got[0]!, got[1]!];
      };
      const testEvents = await first2(a.keys.secret_test, '/events');
      const deliveries = await first2(a.keys.secret_test, `/events/${testEvents[0]}/deliveries`);
      const otherEventDelivery = (await ids(a.keys.secret_test, `/events/${testEvents[1]}/deliveries`))[0]!;
      cases.push(
        {
          path: '/signature_requests',
          key: a.keys.secret_test,
          valid: await first2(a.keys.secret_test, '/signature_requests'),
          refused: ['sr_nope', 'sr_zzzzzzzzzzzzzzzzzzzzzzzz', foreign.body.id, live.body.id],
        },
        {
          path: '/events',
          key: a.keys.secret_test,
          valid: testEvents,
          refused: ['evt_nope', (await ids(b.keys.secret_test, '/events'))[0]!, (await ids(a.keys.secret_live, '/events'))[0]!],
        },
        {
          path: '/webhook_endpoints',
          key: a.keys.secret_test,
          valid: await first2(a.keys.secret_test, '/webhook_endpoints'),
          refused: ['we_nope', 'we_0', foreignHook, liveHook],
        },
        {
          path: '/templates',
          key: a.keys.secret_test,
          valid: await first2(a.keys.secret_test, '/templates'),
          refused: ['tpl_nope', b.templateId],
        },
        {
          path: '/signers',
          key: a.keys.secret_test,
          valid: await first2(a.keys.secret_test, '/signers'),
          refused: ['sgr_nope', foreign.body.signers[0].id, live.body.signers[0].id],
        },
        {
          path: '/sessions',
          key: a.keys.secret_test,
          valid: await first2(a.keys.secret_test, '/sessions'),
          refused: ['sr_nope', foreignSession, liveSession, foreign.body.id],
        },
        {
          path: '/flows',
          key: a.keys.secret_test,
          valid: await first2(a.keys.secret_test, '/flows'),
          refused: ['wf_nope', foreignFlow],
        },
        {
          path: `/events/${testEvents[0]}/deliveries`,
          key: a.keys.secret_test,
          valid: deliveries,
          refused: ['wd_nope', otherEventDelivery],
        },
      );
    });

    test('every list refuses an unknown, another account’s or another mode’s cursor with 400 on starting_after', async () => {
      assert.equal(cases.length, 8);
      for (const c of cases) {
        for (const cursor of c.refused) {
          const r = await assertErrorBothLanguages(
            (prefix) => s.call('GET', `${c.path}?starting_after=${encodeURIComponent(cursor)}`, { key: c.key, prefix }),
            'parameter_invalid',
          );
          assert.equal(r.body.error.param, 'starting_after', `${c.path} ${cursor}`);
        }
      }
    });

    test('a cursor from the list itself still pages on', async () => {
      for (const c of cases) {
        const first = await s.call('GET', `${c.path}?limit=1`, { key: c.key });
        assert.equal(first.status, 200, first.text);
        assert.deepEqual(
          first.body.data.map((o: Json) => o.id),
          [c.valid[0]],
          c.path,
        );
        assert.equal(first.body.next_cursor, c.valid[0]);
        const next = await s.call('GET', `${c.path}?limit=1&starting_after=${first.body.next_cursor}`, { key: c.key });
        assert.equal(next.status, 200, next.text);
        assert.deepEqual(
          next.body.data.map((o: Json) => o.id),
          [c.valid[1]],
          c.path,
        );
      }
    });
  });
});
