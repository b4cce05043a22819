/**
 * POST /signature_requests/bulk (spec 4, 7, 8): one contract to many recipients, one request each;
 * all-or-nothing validation and charge; the batch summary; test_bulk_limit past 10 in test mode; the
 * Enterprise gate in live mode; idempotent like every POST.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ErrorCode } from '../../shared/src/errors.js';
import { issueKey } from '../../server/src/services/accounts.js';
import { getAccount, updateAccount } from '../../server/src/store/accounts.js';
import { assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type CallResult, type TestServer } from '../support/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('POST /signature_requests/bulk', () => {
  let s: TestServer;
  let n = 0;
  before(async () => {
    s = await startTestServer({ TAWQI_RATE_LIMIT: '100000', TAWQI_IP_RATE_LIMIT: '100000' });
  });
  after(() => s.close());

  async function account(overrides: Parameters<TestServer['account']>[0] = {}) {
    const k = ++n;
    const team = [`owner${k}@acme.test`, ...Array.from({ length: 12 }, (_, i) => `m${i}.${k}@acme.test`)];
    const acct = await s.account({ ownerEmail: team[0], plan: 'enterprise', balanceSends: 2, walletMinor: 100_000, ...overrides });
    await updateAccount(s.ctx.store.db, acct.id, { team_emails: team });
    const tpl = await s.call('POST', '/templates', {
      key: acct.keys.secret_test,
      body: {
        title: `Policy ${k}`,
        language: 'en',
        body: 'Policy {{policy}} for {{employee}} from {{start_date}}.',
        fields: [
          { key: 'policy', label: 'Policy', required: true },
          { key: 'employee', label: 'Employee', required: true },
          { key: 'start_date', label: 'Start', type: 'date' },
        ],
      },
    });
    assert.equal(tpl.status, 201, tpl.text);
    return { ...acct, team, template: tpl.body.id as string };
  }
  type Acct = Awaited<ReturnType<typeof account>>;
  const recipient = (name: string, email: string, extra: Record<string, unknown> = {}) => ({
    name,
    email,
    fields: { employee: name },
    ...extra,
  });
  const batch = (a: Acct, recipients: unknown[], extra: Record<string, unknown> = {}) => ({
    title: 'Code of conduct',
    source: { type: 'template', template_id: a.template },
    fields: { policy: 'HR-7' },
    recipients,
    ...extra,
  });
  const post = (key: string, body: unknown, prefix = '/api/v1', headers: Record<string, string> = {}) =>
    s.call('POST', '/signature_requests/bulk', { key, body, prefix, headers });

  async function count(table: 'signature_requests' | 'ledger' | 'messages' | 'events', accountId: string): Promise<number> {
    const row = await s.ctx.store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
  async function snapshot(accountId: string) {
    const acct = (await getAccount(s.ctx.store.db, accountId))!;
    return {
      requests: await count('signature_requests', accountId),
      ledger: await count('ledger', accountId),
      messages: await count('messages', accountId),
      events: await count('events', accountId),
      balance: acct.balance_sends,
      wallet: acct.wallet_minor,
    };
  }
  async function refused(
    a: Acct,
    key: string,
    body: unknown,
    code: ErrorCode,
    param: string | null,
    headers: Record<string, string> = {},
  ): Promise<CallResult> {
    const before = await snapshot(a.id);
    const r = await assertErrorBothLanguages((prefix) => post(key, body, prefix, headers), code);
    assert.equal(r.body.error.param, param, `param of ${code}: ${r.text}`);
    assert.deepEqual(await snapshot(a.id), before, `${code}: nothing created or charged`);
    return r;
  }

  test('one request per recipient, sent and charged; the batch summary (id, counts, requests, cost)', async () => {
    const a = await account();
    const r = await post(
      a.keys.secret_live,
      batch(a, [
        recipient('Amira', 'amira@client.example'),
        recipient('Bassem', 'bassem@client.example', { fields: { employee: 'Bassem', policy: 'HR-8' } }),
        recipient('Carla', 'carla@client.example', { phone: '+201001234567' }),
      ]),
    );
    assert.equal(r.status, 201, r.text);
    const b = r.body;
    assert.match(b.id, /^bat_[0-9A-Za-z]{24}$/);
    assert.equal(b.object, 'bulk_send');
    assert.equal(b.livemode, true);
    assert.equal(b.status, 'sent');
    assert.equal(b.template_id, a.template);
    assert.equal(b.title, 'Code of conduct');
    assert.deepEqual(b.counts, { recipients: 3, signature_requests: 3, sent: 3 });
    assert.equal(b.signature_requests.length, 3);
    // Two sends from the yearly balance, one from the wallet at the Enterprise overage rate (6.00).
    assert.deepEqual(b.cost, { amount: 6, sends: 2, currency: 'EGP', source: 'overage' });
    const acct = (await getAccount(s.ctx.store.db, a.id))!;
    assert.equal(acct.balance_sends, 0);
    assert.equal(acct.wallet_minor, 100_000 - 600);
    assert.equal(b.created_at, Math.floor(s.clock.nowMs() / 1000));
    for (const [i, item] of (b.signature_requests as Json[]).entries()) {
      assert.match(item.id, /^sr_/);
      assert.equal(item.status, 'sent');
      assert.match(item.signer.id, /^sgr_/);
      assert.match(item.signer.signing_url, /\/sign\/sgr_/);
      const sr = (await s.call('GET', `/signature_requests/${item.id}`, { key: a.keys.secret_live })).body;
      assert.equal(sr.signers.length, 1, 'the recipient is the request’s only signer');
      assert.equal(sr.signers[0].name, ['Amira', 'Bassem', 'Carla'][i]);
      assert.equal(sr.metadata.bulk_batch, b.id);
      assert.equal(sr.title, 'Code of conduct');
      assert.equal(sr.source.template_id, a.template);
    }
    const second = (await s.call('GET', `/signature_requests/${b.signature_requests[1].id}`, { key: a.keys.secret_live })).body;
    assert.deepEqual(second.signers[0].fields, { policy: 'HR-8', employee: 'Bassem' }, 'a recipient’s own fields win over the shared ones');
    assert.equal(b.signature_requests[2].signer.phone, '+201001234567');
    const invitations = await s.ctx.store.db
      .selectFrom('messages')
      .select('recipient')
      .where('account_id', '=', a.id)
      .where('kind', '=', 'invitation')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      invitations.map((m) => m.recipient),
      ['amira@client.example', 'bassem@client.example', 'carla@client.example'],
    );
    const ledger = await s.ctx.store.db
      .selectFrom('ledger')
      .selectAll()
      .where('account_id', '=', a.id)
      .where('kind', '=', 'send')
      .execute();
    assert.equal(ledger.length, 3);
  });

  test('all-or-nothing validation: one refused recipient refuses the batch, naming that recipient', async () => {
    const a = await account();
    const ok = (i: number) => recipient(`R${i}`, `r${i}@client.example`);
    await refused(
      a,
      a.keys.secret_live,
      batch(a, [ok(0), { ...ok(1), email: 'not-an-email' }, ok(2)]),
      'parameter_invalid',
      'recipients[1].email',
    );
    await refused(
      a,
      a.keys.secret_live,
      batch(a, [ok(0), ok(1), { name: 'No contact', fields: { employee: 'x' } }]),
      'parameter_missing',
      'recipients[2].email',
    );
    await refused(
      a,
      a.keys.secret_live,
      batch(a, [ok(0), { ...ok(1), fields: { employee: 'y', start_date: '2026-13-01' } }]),
      'parameter_invalid',
      'recipients[1].fields.start_date',
    );
    await refused(a, a.keys.secret_live, batch(a, [ok(0), ok(1)], { fields: {} }), 'parameter_missing', 'recipients[0].fields.policy');
    await refused(a, a.keys.secret_live, batch(a, []), 'parameter_invalid', 'recipients');
    await refused(a, a.keys.secret_live, batch(a, [ok(0)], { signers: [ok(1)] }), 'parameter_unknown', 'signers');
    await refused(
      a,
      a.keys.secret_live,
      batch(a, [ok(0)], { source: { type: 'template', template_id: 'tpl_nope' } }),
      'invalid_request',
      'source.template_id',
    );
    await refused(
      a,
      a.keys.secret_test,
      batch(a, [recipient('Team', a.team[1]!), recipient('Stranger', 'stranger@client.example')]),
      'test_recipient_not_allowed',
      'recipients[1].email',
    );
  });

  test('all-or-nothing charge: the batch’s price is checked first; 402 insufficient_balance creates nothing', async () => {
    const a = await account({ balanceSends: 1, walletMinor: 1000 });
    const r = await refused(
      a,
      a.keys.secret_live,
      batch(a, [recipient('A', 'a@client.example'), recipient('B', 'b@client.example'), recipient('C', 'c@client.example')]),
      'insufficient_balance',
      null,
    );
    assert.deepEqual(r.body.error.required, { amount: 12, currency: 'EGP' });
    assert.deepEqual(r.body.error.available, { amount: 10, currency: 'EGP' });
    assert.equal(r.body.error.recipients, 3);
    const fits = await post(a.keys.secret_live, batch(a, [recipient('A', 'a@client.example'), recipient('B', 'b@client.example')]));
    assert.equal(fits.status, 201, fits.text);
  });

  test('test mode: up to 10 recipients; 11 → 400 test_bulk_limit; the daily test limit undoes a whole batch', async () => {
    const a = await account();
    const team = (count: number) => a.team.slice(1, 1 + count).map((e, i) => recipient(`T${i}`, e));
    const r = await refused(a, a.keys.secret_test, batch(a, team(11)), 'test_bulk_limit', 'recipients');
    assert.equal(r.body.error.max_recipients, 10);
    const ten = await post(a.keys.secret_test, batch(a, team(10)));
    assert.equal(ten.status, 201, ten.text);
    assert.equal(ten.body.livemode, false);
    assert.deepEqual(ten.body.cost, { amount: 0, sends: 0, currency: 'EGP', source: 'plan' });
    // 10 of today's 20 test requests are used; a batch of 10 fits, then one more batch of 10 does not (and creates none).
    assert.equal((await post(a.keys.secret_test, batch(a, team(10)))).status, 201);
    await refused(a, a.keys.secret_test, batch(a, team(2)), 'test_daily_limit', null);
  });

  test('Enterprise in live mode: 403 plan_feature_unavailable below it; test keys unlock it', async () => {
    const a = await account({ plan: 'business' });
    const r = await refused(
      a,
      a.keys.secret_live,
      batch(a, [recipient('A', 'a@client.example')]),
      'plan_feature_unavailable',
      'recipients',
    );
    assert.equal(r.body.error.feature, 'bulk_send');
    assert.equal(r.body.error.required_plan, 'enterprise');
    assert.equal((await post(a.keys.secret_test, batch(a, [recipient('T', a.team[1]!)]))).status, 201);
  });

  test('secret keys only: publishable and read-only keys get 403 forbidden', async () => {
    const a = await account();
    const body = batch(a, [recipient('A', 'a@client.example')]);
    // A publishable key that passes its origin lock is still refused: bulk sends are for secret keys.
    const origin = 'https://shop.example.com';
    const publishable = await issueKey(s.ctx.store.db, s.clock, a.id, 'publishable', 'live', { allowedOrigins: [origin] });
    await refused(a, publishable.secret, body, 'forbidden', null, { origin });
    const readOnly = await issueKey(s.ctx.store.db, s.clock, a.id, 'secret', 'live', { readOnly: true });
    await refused(a, readOnly.secret, body, 'forbidden', null);
  });

  test('idempotent: the same Idempotency-Key replays the summary; nothing is created or charged twice', async () => {
    const a = await account();
    const body = batch(a, [recipient('A', 'a@client.example'), recipient('B', 'b@client.example')]);
    const first = await post(a.keys.secret_live, body, '/api/v1', { 'idempotency-key': 'bulk-1' });
    assert.equal(first.status, 201, first.text);
    const snap = await snapshot(a.id);
    const again = await post(a.keys.secret_live, body, '/api/v1', { 'idempotency-key': 'bulk-1' });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.deepEqual(await snapshot(a.id), snap);
  });

  test('workflow_id default: each request of the batch comes from the default workflow', async () => {
    const a = await account();
    const r = await post(a.keys.secret_live, batch(a, [recipient('A', 'a@client.example')], { workflow_id: 'default' }));
    assert.equal(r.status, 201, r.text);
    const sr = (await s.call('GET', `/signature_requests/${r.body.signature_requests[0].id}`, { key: a.keys.secret_live })).body;
    assert.equal(sr.workflow_id, 'wf_default');
    assert.equal(sr.channel, 'email');
    assert.equal(sr.language, 'ar');
  });
});
