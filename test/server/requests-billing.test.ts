/**
 * The cost of a send (spec 4.1 rule 2, part 8 "Cost", 3.1): each live signer is one send from the
 * yearly balance, then a wallet charge at the plan's overage rate; identity verification always from
 * the wallet; 402 insufficient_balance creates nothing; drafts are charged once, when sent; cancel
 * refunds nothing; test keys charge nothing. Every charge is a ledger row committed with the send.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getAccount } from '../../server/src/store/accounts.js';
import { listLedger } from '../../server/src/store/ledger.js';
import { assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type CallResult, type TestServer } from '../support/server.js';
import { teamAccount, type TeamAccount } from '../support/teamAccount.js';

const TEMPLATE = {
  title: 'Plain agreement',
  language: 'en',
  body: 'The parties agree. {{note}}',
  fields: [{ key: 'note', label: 'Note' }],
};

type Setup = TeamAccount;

const setup = (s: TestServer, overrides: Parameters<TestServer['account']>[0] = {}): Promise<Setup> =>
  teamAccount(s, TEMPLATE, { members: 4, overrides });

/** A body with `n` signers; test requests use the team's addresses. */
function body(a: Setup, n: number, extra: Record<string, unknown> = {}, test = false, signerExtra: Record<string, unknown>[] = []) {
  const signers = Array.from({ length: n }, (_, i) => ({
    name: `Signer ${i + 1}`,
    email: test ? a.team[i]! : `signer${i + 1}@client.example`,
    ...signerExtra[i],
  }));
  return { title: 'Agreement', source: { type: 'template', template_id: a.templateId }, signers, ...extra };
}

const create = (s: TestServer, key: string, b: unknown, prefix = '/api/v1') =>
  s.call('POST', '/signature_requests', { key, body: b, prefix });

async function count(s: TestServer, table: 'signature_requests' | 'ledger' | 'messages' | 'events', accountId: string): Promise<number> {
  const row = await s.ctx.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function money(s: TestServer, accountId: string): Promise<{ balance: number; wallet: number }> {
  const account = (await getAccount(s.ctx.store.db, accountId))!;
  return { balance: account.balance_sends, wallet: account.wallet_minor };
}

async function snapshot(s: TestServer, accountId: string) {
  return {
    ...(await money(s, accountId)),
    requests: await count(s, 'signature_requests', accountId),
    ledger: await count(s, 'ledger', accountId),
    messages: await count(s, 'messages', accountId),
    events: await count(s, 'events', accountId),
  };
}

/** The ledger rows of one request's sends. */
async function sendRows(s: TestServer, accountId: string, requestId?: string) {
  return (await listLedger(s.ctx.store.db, accountId)).filter(
    (r) => r.kind === 'send' && (requestId === undefined || r.signature_request_id === requestId),
  );
}

async function insufficient(s: TestServer, a: Setup, provoke: (prefix: string) => Promise<CallResult>): Promise<CallResult> {
  const before = await snapshot(s, a.id);
  const r = await assertErrorBothLanguages(provoke, 'insufficient_balance');
  assert.deepEqual(await snapshot(s, a.id), before, 'nothing created, sent or charged');
  return r;
}

describe('the cost of live sends', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ TAWQI_RATE_LIMIT: '100000', TAWQI_IP_RATE_LIMIT: '100000' });
  });
  after(() => s.close());

  test('balance first, then the wallet at the overage rate (business: 9.00); identity 1.50 per signer from the wallet; 402 when not covered', async () => {
    const a = await setup(s, { plan: 'business', balanceSends: 3, walletMinor: 2000 });
    const k = a.keys.secret_live;

    const two = await create(s, k, body(a, 2));
    assert.equal(two.status, 201, two.text);
    assert.deepEqual(two.body.cost, { amount: 0, sends: 2, currency: 'EGP', source: 'plan' });
    assert.deepEqual(await money(s, a.id), { balance: 1, wallet: 2000 });
    const [row1, ...more1] = await sendRows(s, a.id, two.body.id);
    assert.equal(more1.length, 0);
    assert.equal(row1!.sends_delta, -2);
    assert.equal(row1!.wallet_delta_minor, 0);
    assert.equal(row1!.created_at, two.body.created_at);

    const next = await create(s, k, body(a, 2));
    assert.equal(next.status, 201, next.text);
    assert.deepEqual(next.body.cost, { amount: 9, sends: 1, currency: 'EGP', source: 'overage' });
    assert.deepEqual(await money(s, a.id), { balance: 0, wallet: 1100 });
    const rows2 = await sendRows(s, a.id, next.body.id);
    assert.deepEqual(
      rows2.map((r) => [r.sends_delta, r.wallet_delta_minor]),
      [[-1, -900]],
    );

    const aes = await create(s, k, body(a, 1, { legal_level: 'aes' }));
    assert.equal(aes.status, 201, aes.text);
    assert.deepEqual(aes.body.cost, { amount: 10.5, sends: 0, currency: 'EGP', source: 'overage' });
    assert.deepEqual(await money(s, a.id), { balance: 0, wallet: 50 });
    assert.deepEqual(
      (await sendRows(s, a.id, aes.body.id)).map((r) => [r.sends_delta, r.wallet_delta_minor]),
      [[0, -1050]],
    );

    await insufficient(s, a, (prefix) => create(s, k, body(a, 1), prefix));
    const usage = await s.call('GET', '/usage', { key: k });
    assert.deepEqual(usage.body.balance, { sends: 0, wallet: { amount: 0.5, currency: 'EGP' } });
    // The ledger audits the balance: opening row plus every send row gives what is left.
    const all = await listLedger(s.ctx.store.db, a.id);
    assert.deepEqual(
      all.map((r) => r.kind),
      ['opening_balance', 'send', 'send', 'send'],
    );
    assert.equal(
      all.reduce((n, r) => n + r.sends_delta, 0),
      0,
    );
    assert.equal(
      all.reduce((n, r) => n + r.wallet_delta_minor, 0),
      50,
    );
  });

  test('identity is a wallet charge even while the balance covers the sends; a request-level or signer-level require_identity counts per signer', async () => {
    const a = await setup(s, { plan: 'starter', balanceSends: 10, walletMinor: 750 });
    const k = a.keys.secret_live;
    const one = await create(s, k, body(a, 2, {}, false, [{}, { require_identity: true }]));
    assert.equal(one.status, 201, one.text);
    assert.deepEqual(
      one.body.signers.map((x: { require_identity: boolean }) => x.require_identity),
      [false, true],
    );
    assert.deepEqual(one.body.cost, { amount: 1.5, sends: 2, currency: 'EGP', source: 'plan' });
    assert.deepEqual(await money(s, a.id), { balance: 8, wallet: 600 });
    const both = await create(s, k, body(a, 2, { require_identity: true }));
    assert.deepEqual(both.body.cost, { amount: 3, sends: 2, currency: 'EGP', source: 'plan' });
    const aes = await create(s, k, body(a, 2, { legal_level: 'aes' }));
    assert.deepEqual(aes.body.cost, { amount: 3, sends: 2, currency: 'EGP', source: 'plan' });
    assert.deepEqual(await money(s, a.id), { balance: 4, wallet: 0 });
    // Sends are still in the balance, but identity needs the wallet.
    await insufficient(s, a, (prefix) => create(s, k, body(a, 1, { legal_level: 'aes' }), prefix));
    assert.equal((await create(s, k, body(a, 1))).status, 201, 'a send without identity still uses the balance');
    assert.deepEqual(await money(s, a.id), { balance: 3, wallet: 0 });
    // Overage at the starter rate (12.00) once the balance is gone.
    const b = await setup(s, { plan: 'starter', balanceSends: 0, walletMinor: 2400 });
    const over = await create(s, b.keys.secret_live, body(b, 2));
    assert.deepEqual(over.body.cost, { amount: 24, sends: 0, currency: 'EGP', source: 'overage' });
    assert.deepEqual(await money(s, b.id), { balance: 0, wallet: 0 });
  });

  test('a draft (send: false) costs nothing until POST …/send, which charges once; a second send is a reminder', async () => {
    const a = await setup(s, { balanceSends: 1, walletMinor: 900 });
    const k = a.keys.secret_live;
    const draft = await create(s, k, body(a, 2, { send: false }));
    assert.equal(draft.status, 201, draft.text);
    assert.equal(draft.body.status, 'draft');
    assert.equal(draft.body.cost, null);
    assert.deepEqual(
      draft.body.signers.map((x: { status: string; signing_url: string | null }) => [x.status, x.signing_url]),
      [
        ['pending', null],
        ['pending', null],
      ],
    );
    assert.deepEqual(await money(s, a.id), { balance: 1, wallet: 900 });
    assert.equal((await sendRows(s, a.id)).length, 0);
    assert.equal(await count(s, 'messages', a.id), 0, 'a draft invites nobody');
    const created = await s.call('GET', `/events?signature_request=${draft.body.id}`, { key: k });
    assert.deepEqual(
      created.body.data.map((e: { type: string }) => e.type),
      ['signature_request.created'],
    );

    s.clock.advanceSeconds(60);
    const sent = await s.call('POST', `/signature_requests/${draft.body.id}/send`, { key: k });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.status, 'sent');
    assert.deepEqual(sent.body.cost, { amount: 9, sends: 1, currency: 'EGP', source: 'overage' });
    assert.ok(sent.body.signers.every((x: { status: string; signing_url: string | null }) => x.status === 'sent' && x.signing_url));
    assert.deepEqual(await money(s, a.id), { balance: 0, wallet: 0 });
    const rows = await sendRows(s, a.id, draft.body.id);
    assert.deepEqual(
      rows.map((r) => [r.sends_delta, r.wallet_delta_minor, r.created_at]),
      [[-1, -900, draft.body.created_at + 60]],
    );
    const invitations = await s.ctx.store.db
      .selectFrom('messages')
      .select('kind')
      .where('signature_request_id', '=', draft.body.id)
      .execute();
    assert.deepEqual(
      invitations.map((m) => m.kind),
      ['invitation', 'invitation'],
    );

    s.clock.advanceSeconds(60);
    const again = await s.call('POST', `/signature_requests/${draft.body.id}/send`, { key: k });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.status, 'sent', 'a repeat send is not a state change');
    assert.deepEqual(again.body.cost, sent.body.cost);
    assert.equal((await sendRows(s, a.id, draft.body.id)).length, 1, 'charged once');
    assert.deepEqual(await money(s, a.id), { balance: 0, wallet: 0 });
    const after = await s.ctx.store.db
      .selectFrom('messages')
      .select('kind')
      .where('signature_request_id', '=', draft.body.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      after.map((m) => m.kind),
      ['invitation', 'invitation', 'reminder', 'reminder'],
    );
    const events = await s.call('GET', `/events?signature_request=${draft.body.id}&type=signature_request.*`, { key: k });
    assert.deepEqual(events.body.data.map((e: { type: string }) => e.type).sort(), ['signature_request.created', 'signature_request.sent']);
  });

  test('a draft whose send is not covered: 402 insufficient_balance, it stays a draft and nothing is charged', async () => {
    const a = await setup(s, { balanceSends: 0, walletMinor: 899 });
    const draft = await create(s, a.keys.secret_live, body(a, 1, { send: false }));
    assert.equal(draft.status, 201, draft.text);
    await insufficient(s, a, (prefix) => s.call('POST', `/signature_requests/${draft.body.id}/send`, { key: a.keys.secret_live, prefix }));
    const got = await s.call('GET', `/signature_requests/${draft.body.id}`, { key: a.keys.secret_live });
    assert.equal(got.body.status, 'draft');
    assert.equal(got.body.cost, null);
    assert.equal(got.body.signers[0].status, 'pending');
  });

  test('cancel refunds nothing once sent; a canceled draft was never charged', async () => {
    const a = await setup(s, { balanceSends: 2, walletMinor: 1000 });
    const k = a.keys.secret_live;
    const sent = await create(s, k, body(a, 3));
    assert.deepEqual(await money(s, a.id), { balance: 0, wallet: 100 });
    const ledgerBefore = await listLedger(s.ctx.store.db, a.id);
    const canceled = await s.call('POST', `/signature_requests/${sent.body.id}/cancel`, { key: k });
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.body.status, 'canceled');
    assert.deepEqual(canceled.body.cost, sent.body.cost, 'the cost stays on the request');
    assert.deepEqual(await money(s, a.id), { balance: 0, wallet: 100 });
    assert.deepEqual(await listLedger(s.ctx.store.db, a.id), ledgerBefore, 'no refund row');
    const draft = await create(s, k, body(a, 1, { send: false }));
    assert.equal((await s.call('POST', `/signature_requests/${draft.body.id}/cancel`, { key: k })).body.status, 'canceled');
    assert.deepEqual(await money(s, a.id), { balance: 0, wallet: 100 });
    assert.deepEqual(await listLedger(s.ctx.store.db, a.id), ledgerBefore);
    // A canceled draft cannot be sent (and so is never charged).
    const send = await s.call('POST', `/signature_requests/${draft.body.id}/send`, { key: k });
    assert.equal(send.status, 409, send.text);
    assert.deepEqual(await money(s, a.id), { balance: 0, wallet: 100 });
  });

  test('concurrency: 20 creations at once against a wallet that covers some; successes and 402s add up and the ledger audits the balance', async () => {
    const a = await setup(s, { balanceSends: 3, walletMinor: 7 * 900 + 400 });
    const opening = await money(s, a.id);
    const results = await Promise.all(Array.from({ length: 20 }, () => create(s, a.keys.secret_live, body(a, 1))));
    const ok = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 402);
    assert.equal(ok.length + refused.length, 20, results.map((r) => r.status).join(','));
    assert.equal(ok.length, 3 + 7, '3 from the balance, 7 at the overage rate');
    for (const r of refused) assert.equal(r.body.error.code, 'insufficient_balance');
    assert.equal(ok.filter((r) => r.body.cost.source === 'plan').length, 3);
    assert.equal(ok.filter((r) => r.body.cost.source === 'overage').length, 7);
    const final = await money(s, a.id);
    assert.deepEqual(final, { balance: 0, wallet: 400 });
    assert.ok(final.wallet >= 0 && final.balance >= 0);
    assert.equal(await count(s, 'signature_requests', a.id), ok.length);
    const rows = await sendRows(s, a.id);
    assert.equal(rows.length, ok.length, 'one ledger row per charged request');
    assert.deepEqual(new Set(rows.map((r) => r.signature_request_id)), new Set(ok.map((r) => r.body.id)));
    assert.equal(-rows.reduce((n, r) => n + r.sends_delta, 0), opening.balance - final.balance);
    assert.equal(-rows.reduce((n, r) => n + r.wallet_delta_minor, 0), opening.wallet - final.wallet);
    const all = await listLedger(s.ctx.store.db, a.id);
    assert.equal(
      all.reduce((n, r) => n + r.sends_delta, 0),
      final.balance,
    );
    assert.equal(
      all.reduce((n, r) => n + r.wallet_delta_minor, 0),
      final.wallet,
    );
  });

  test('concurrent sends of one draft charge it once', async () => {
    const a = await setup(s, { balanceSends: 5, walletMinor: 0 });
    const draft = await create(s, a.keys.secret_live, body(a, 2, { send: false }));
    const results = await Promise.all(
      Array.from({ length: 5 }, () => s.call('POST', `/signature_requests/${draft.body.id}/send`, { key: a.keys.secret_live })),
    );
    assert.ok(
      results.every((r) => r.status === 200 || r.status === 429),
      results.map((r) => `${r.status} ${r.text}`).join('\n'),
    );
    assert.equal((await sendRows(s, a.id, draft.body.id)).length, 1);
    assert.deepEqual(await money(s, a.id), { balance: 3, wallet: 0 });
  });
});

describe('test keys charge nothing', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('no ledger row, balance unchanged, cost null — sent, drafts sent later, identity and every plan', async () => {
    for (const overrides of [
      { balanceSends: 0, walletMinor: 0 },
      { plan: 'none' as const, planExpiresAt: null },
      { balanceSends: 2, walletMinor: 500, plan: 'starter' as const },
    ]) {
      const a = await setup(s, overrides);
      const before = await money(s, a.id);
      const ledger = await count(s, 'ledger', a.id);
      const k = a.keys.secret_test;
      const sent = await create(s, k, body(a, 5, {}, true));
      assert.equal(sent.status, 201, sent.text);
      assert.equal(sent.body.cost, null);
      const aes = await create(s, k, body(a, 2, { legal_level: 'aes' }, true));
      assert.equal(aes.status, 201, aes.text);
      assert.equal(aes.body.cost, null);
      const draft = await create(s, k, body(a, 1, { send: false }, true));
      const later = await s.call('POST', `/signature_requests/${draft.body.id}/send`, { key: k });
      assert.equal(later.status, 200, later.text);
      assert.equal(later.body.status, 'sent');
      assert.equal(later.body.cost, null);
      assert.deepEqual(await money(s, a.id), before);
      assert.equal(await count(s, 'ledger', a.id), ledger);
      const usage = await s.call('GET', '/usage', { key: k });
      assert.equal(usage.body.balance.sends, before.balance);
    }
  });

  test('a repeat send of a sent test request is a reminder too, not a state change', async () => {
    const a = await setup(s);
    const sent = await create(s, a.keys.secret_test, body(a, 1, {}, true));
    const again = await s.call('POST', `/signature_requests/${sent.body.id}/send`, { key: a.keys.secret_test });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.status, 'sent');
    const kinds = await s.ctx.store.db
      .selectFrom('messages')
      .select('kind')
      .where('signature_request_id', '=', sent.body.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      kinds.map((m) => m.kind),
      ['invitation', 'reminder'],
    );
  });
});
