/**
 * Concurrent writes to one account and one request. On PostgreSQL a create runs READ COMMITTED
 * (store.lockingTx): what keeps these exact is the row locks the create takes — the balance read
 * FOR UPDATE before it is priced and charged, the day's counters bumped by atomic upserts — not
 * serializable isolation. Many creates of one account at once must still give one charge each,
 * priced on the balance the previous one left, and counters that stop exactly at their limit. A
 * send and a cancel of one draft at once end in one state, charged once or not at all. On SQLite
 * (one writer at a time) the same assertions hold and guard against regressions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getAccount } from '../../server/src/store/accounts.js';
import { listLedger } from '../../server/src/store/ledger.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { teamAccount, type TeamAccount } from '../support/teamAccount.js';

const TEMPLATE = { title: 'Agreement', language: 'en', body: 'The parties agree.', fields: [] };

function body(a: TeamAccount, signers: string[], extra: Record<string, unknown> = {}) {
  return {
    title: 'Agreement',
    source: { type: 'template', template_id: a.templateId },
    signers: signers.map((email, i) => ({ name: `Signer ${i + 1}`, email })),
    ...extra,
  };
}

async function requestsOf(s: TestServer, accountId: string): Promise<number> {
  const row = await s.ctx.store.db
    .selectFrom('signature_requests')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('concurrent writes to one account', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({
      TAWQI_RATE_LIMIT: '100000',
      TAWQI_IP_RATE_LIMIT: '100000',
      TAWQI_TEST_DAILY_REQUESTS: '12',
      TAWQI_TEST_DAILY_EMAILS: '1000',
    });
  });
  after(() => s.close());

  test('live creates at once: each charged once, priced on the balance the one before left (5 from the balance, then the wallet)', async () => {
    const a = await teamAccount(s, TEMPLATE, { overrides: { plan: 'business', balanceSends: 5, walletMinor: 12 * 900 } });
    const n = 15;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        s.call('POST', '/signature_requests', { key: a.keys.secret_live, body: body(a, [`client${i}@client.example`]) }),
      ),
    );
    for (const r of answers) assert.equal(r.status, 201, r.text);
    const sources = answers.map((r) => (r.body as { cost: { source: string } }).cost.source).sort();
    assert.equal(sources.filter((x) => x === 'plan').length, 5, 'the balance covered exactly five sends');
    assert.equal(sources.filter((x) => x === 'overage').length, 10, 'the wallet paid for the other ten');
    const account = (await getAccount(s.ctx.store.db, a.id))!;
    assert.equal(account.balance_sends, 0);
    assert.equal(account.wallet_minor, 12 * 900 - 10 * 900);
    const sends = (await listLedger(s.ctx.store.db, a.id)).filter((r) => r.kind === 'send');
    assert.equal(sends.length, n, 'one ledger row per create');
    assert.equal(new Set(sends.map((r) => r.signature_request_id)).size, n);
    assert.equal(
      sends.reduce((t, r) => t + r.sends_delta, 0),
      -5,
    );
    assert.equal(
      sends.reduce((t, r) => t + r.wallet_delta_minor, 0),
      -10 * 900,
    );
  });

  test('test creates at once past the daily limit: exactly the limit created and counted, the rest refused with test_daily_limit', async () => {
    const a = await teamAccount(s, TEMPLATE, { members: 2 });
    const n = 20;
    const answers = await Promise.all(
      Array.from({ length: n }, () =>
        s.call('POST', '/signature_requests', { key: a.keys.secret_test, body: body(a, a.team.slice(0, 3)) }),
      ),
    );
    const created = answers.filter((r) => r.status === 201);
    const refused = answers.filter((r) => r.status !== 201);
    assert.equal(created.length, 12, answers.map((r) => r.status).join(','));
    for (const r of refused) assert.equal((r.body as { error: { code: string } }).error.code, 'test_daily_limit', r.text);
    assert.equal(await requestsOf(s, a.id), 12);
    const counters = await s.ctx.store.db.selectFrom('counters').select(['scope', 'count']).where('scope', 'like', `%${a.id}%`).execute();
    const byScope = Object.fromEntries(counters.map((c) => [c.scope.split(':')[0], Number(c.count)]));
    assert.deepEqual(byScope, { test_requests: 12, test_emails: 12 * 3 }, 'the refused creates counted nothing');
  });

  test('a send and a cancel of one draft at once: one state, charged once or not at all', async () => {
    const a = await teamAccount(s, TEMPLATE, { overrides: { plan: 'business', balanceSends: 100, walletMinor: 0 } });
    const k = a.keys.secret_live;
    const drafts = 8;
    let charged = 0;
    for (let i = 0; i < drafts; i++) {
      const draft = await s.call('POST', '/signature_requests', { key: k, body: body(a, ['one@client.example'], { send: false }) });
      assert.equal(draft.status, 201, draft.text);
      const id = (draft.body as { id: string }).id;
      const [sent, canceled] = await Promise.all([
        s.call('POST', `/signature_requests/${id}/send`, { key: k }),
        s.call('POST', `/signature_requests/${id}/cancel`, { key: k }),
      ]);
      assert.equal(canceled.status, 200, canceled.text);
      assert.ok(sent.status === 200 || sent.status === 409, sent.text);
      const now = await s.call('GET', `/signature_requests/${id}`, { key: k });
      assert.equal((now.body as { status: string }).status, 'canceled', 'the cancel is never undone by the send');
      const rowsOfRequest = (await listLedger(s.ctx.store.db, a.id)).filter((r) => r.signature_request_id === id);
      assert.equal(rowsOfRequest.length, sent.status === 200 ? 1 : 0, 'charged exactly when the send went through');
      if (sent.status === 200) charged++;
    }
    assert.equal((await getAccount(s.ctx.store.db, a.id))!.balance_sends, 100 - charged);
  });
});
