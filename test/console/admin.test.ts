/**
 * The operator's admin API (issue 16 point 5) over real HTTP: an operator signs in (no account),
 * searches accounts (name, id, a user's email) in cursor pages, sets a plan and its expiry, tops up
 * a wallet (a ledger entry, seen in the public GET /usage) and adds sends; every action is in the
 * audit log with the operator as actor and the account as target. Authorization route by route:
 * no session 401, every account role 403, the operator through; the operator gets nothing of an
 * account's own routes. The configured engine (SQLite or PostgreSQL).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/envelope.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, signedInClient } from '../support/consoleClient.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let operator: ConsoleClient;
let a: { id: string; keys: TestServer['keys'] };
const roles: Record<string, ConsoleClient> = {};
const OPERATOR = 'ops@tawqi.example';
const now = () => Math.floor(s.clock.nowMs() / 1000);

const signedIn = (email: string, lang?: 'en') => signedInClient(s, email, lang);

before(async () => {
  s = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000' });
  a = await s.account({ name: 'Nile Traders', ownerEmail: 'boss@nile.example', walletMinor: 5_000, balanceSends: 10 });
  await s.account({ name: 'Delta Foods' });
  await s.account({ name: 'Nile Cargo' });
  for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) {
    await consoleUser(s, a.id, `${role}@nile.example`, role);
    roles[role] = await signedIn(`${role}@nile.example`);
  }
  await consoleUser(s, null, OPERATOR, 'operator');
  operator = await signedIn(OPERATOR);
});
after(() => s.close());

describe('the operator signs in', () => {
  test('an operator user has a session without an account or account permissions, and nothing of an account’s routes', async () => {
    const session = await operator.call('GET', '/session');
    assert.equal(session.status, 200, session.text);
    assert.equal(session.body.user.operator, true);
    assert.equal(session.body.user.account_id, null);
    assert.equal(session.body.account, null);
    assert.deepEqual(session.body.permissions, []);
    for (const [method, path] of [
      ['GET', '/keys'],
      ['GET', '/users'],
      ['GET', '/audit_log'],
      ['GET', '/request_log'],
      ['GET', '/identity_reviews?livemode=true'],
      ['GET', '/company_verification'],
      ['POST', '/credentials'],
      ['POST', '/company_verification/submit'],
    ] as const) {
      const body = method === 'POST' ? (path === '/credentials' ? { livemode: true } : {}) : undefined;
      assertError(await operator.call(method, path, { body }), 'forbidden');
    }
  });
});

describe('accounts', () => {
  test('search by name, id and a user’s email; newest first in cursor pages; an unknown cursor is refused', async () => {
    const all = await operator.call('GET', '/admin/accounts?limit=100');
    assert.equal(all.status, 200, all.text);
    assert.equal(all.body.object, 'list');
    const ids = all.body.data.map((x: { id: string }) => x.id);
    assert.deepEqual(ids, [...ids].sort().reverse(), 'newest first');
    const byName = await operator.call('GET', '/admin/accounts?query=NILE');
    assert.deepEqual(byName.body.data.map((x: { name: string }) => x.name).sort(), ['Nile Cargo', 'Nile Traders']);
    const byId = await operator.call('GET', `/admin/accounts?query=${a.id}`);
    assert.deepEqual(
      byId.body.data.map((x: { id: string }) => x.id),
      [a.id],
    );
    const byEmail = await operator.call('GET', '/admin/accounts?query=developer%40nile');
    assert.deepEqual(
      byEmail.body.data.map((x: { id: string }) => x.id),
      [a.id],
    );
    assert.deepEqual((await operator.call('GET', '/admin/accounts?query=%25')).body.data, [], 'a % is a character, not a wildcard');

    const first = await operator.call('GET', '/admin/accounts?query=nile&limit=1');
    assert.equal(first.body.has_more, true);
    assert.equal(first.body.data[0].name, 'Nile Cargo');
    const second = await operator.call('GET', `/admin/accounts?query=nile&limit=1&starting_after=${first.body.next_cursor}`);
    assert.deepEqual(
      second.body.data.map((x: { name: string }) => x.name),
      ['Nile Traders'],
    );
    assert.equal(second.body.has_more, false);
    assertError(await operator.call('GET', '/admin/accounts?starting_after=acct_nope'), 'parameter_invalid');
    const en = await signedIn(OPERATOR, 'en');
    assertError(await en.call('GET', '/admin/accounts?limit=1000'), 'parameter_invalid', 'en');
  });

  test('an account: plan, expiry, wallet, sends, users; set the plan and its expiry (audited)', async () => {
    const detail = await operator.call('GET', `/admin/accounts/${a.id}`);
    assert.equal(detail.status, 200, detail.text);
    assert.equal(detail.body.plan.name, 'business');
    assert.deepEqual(detail.body.balance, { sends: 10, wallet: { amount: 50, currency: 'EGP' } });
    assert.equal(detail.body.company_verification, 'approved');
    assert.equal(detail.body.users.length, 4);
    assertError(await operator.call('GET', '/admin/accounts/acct_missing'), 'not_found');

    const expires = now() + 30 * 86400;
    const set = await operator.call('PATCH', `/admin/accounts/${a.id}`, { body: { plan: 'enterprise', plan_expires_at: expires } });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.plan.name, 'enterprise');
    assert.equal(set.body.plan.expires_at, expires);
    const usage = await s.call('GET', '/usage', { key: a.keys.secret_live });
    assert.equal(usage.body.plan.name, 'enterprise');
    assert.equal(usage.body.plan.expires_at, expires);
    assertError(await operator.call('PATCH', `/admin/accounts/${a.id}`, { body: { plan: 'gold' } }), 'parameter_invalid');
    assertError(await operator.call('PATCH', `/admin/accounts/${a.id}`, { body: {} }), 'parameter_invalid');

    const log = await roles.owner!.call('GET', '/audit_log?limit=100');
    const entry = log.body.data.find((e: { action: string }) => e.action === 'admin.plan_changed');
    assert.equal(entry.actor, OPERATOR);
    assert.equal(entry.target, a.id);
    assert.deepEqual(entry.detail.to, { plan: 'enterprise', plan_expires_at: expires });
    assert.equal(entry.detail.from.plan, 'business');
  });

  test('a wallet top-up is a ledger entry and shows in GET /usage; sends are added; both audited; bad amounts refused', async () => {
    const topup = await operator.call('POST', `/admin/accounts/${a.id}/wallet_topups`, {
      body: { amount: '250.50', note: 'bank transfer 7781' },
    });
    assert.equal(topup.status, 201, topup.text);
    assert.equal(topup.body.kind, 'wallet_topup');
    assert.deepEqual(topup.body.wallet_delta, { amount: 250.5, currency: 'EGP' });
    const sends = await operator.call('POST', `/admin/accounts/${a.id}/sends`, { body: { sends: 40 } });
    assert.equal(sends.status, 201, sends.text);
    assert.equal(sends.body.sends_delta, 40);

    const usage = await s.call('GET', '/usage', { key: a.keys.secret_test });
    assert.deepEqual(usage.body.balance, { sends: 50, wallet: { amount: 300.5, currency: 'EGP' } });
    const ledger = await operator.call('GET', `/admin/accounts/${a.id}/ledger`);
    assert.equal(ledger.status, 200, ledger.text);
    assert.deepEqual(
      ledger.body.data.slice(0, 2).map((e: { id: string; kind: string; note: string }) => [e.id, e.kind, e.note]),
      [
        [sends.body.id, 'sends_added', 'operator added sends'],
        [topup.body.id, 'wallet_topup', 'bank transfer 7781'],
      ],
    );
    const page = await operator.call('GET', `/admin/accounts/${a.id}/ledger?limit=1&starting_after=${sends.body.id}`);
    assert.equal(page.body.data[0].id, topup.body.id);

    for (const amount of ['0', '-5', '1.234', 'abc', 12.345]) {
      const bad = await operator.call('POST', `/admin/accounts/${a.id}/wallet_topups`, { body: { amount } });
      assertError(bad, 'parameter_invalid');
      assert.equal(bad.body.error.param, 'amount');
    }
    const en = await signedIn(OPERATOR, 'en');
    assertError(await en.call('POST', `/admin/accounts/${a.id}/sends`, { body: { sends: 0 } }), 'parameter_invalid', 'en');
    assertError(await operator.call('POST', '/admin/accounts/acct_missing/sends', { body: { sends: 1 } }), 'not_found');
    assert.deepEqual((await s.call('GET', '/usage', { key: a.keys.secret_test })).body.balance.sends, 50, 'refusals change nothing');

    const log = await operator.call('GET', `/admin/audit_log?account_id=${a.id}&limit=100`);
    const mine = log.body.data.filter((e: { actor: string }) => e.actor === OPERATOR);
    const topped = mine.find((e: { action: string }) => e.action === 'admin.wallet_topped_up');
    assert.deepEqual(topped.detail, { ledger_entry: topup.body.id, amount: { amount: 250.5, currency: 'EGP' } });
    assert.equal(topped.target, a.id);
    assert.equal(topped.account_id, a.id);
    assert.ok(mine.some((e: { action: string; detail: { sends: number } }) => e.action === 'admin.sends_added' && e.detail.sends === 40));
    const wide = (await operator.call('GET', '/admin/audit_log?limit=100')).body.data as { action: string; account_id: string | null }[];
    assert.equal(wide.find((e) => e.action.startsWith('admin.'))!.action, 'admin.sends_added', 'the operator-wide view, newest first');
    assert.ok(
      wide.some((e) => e.action === 'console.signed_in' && e.account_id === null),
      "operators' own sign-ins",
    );
    assert.ok(!wide.some((e) => e.action === 'console.signed_in' && e.account_id !== null), 'not an account’s own entries');
  });
});

describe('authorization, route by route', () => {
  const ROUTES: [string, string, unknown?][] = [
    ['GET', '/admin/accounts'],
    ['GET', '/admin/accounts/ACCOUNT'],
    ['PATCH', '/admin/accounts/ACCOUNT', { plan_expires_at: null }],
    ['POST', '/admin/accounts/ACCOUNT/wallet_topups', { amount: '1' }],
    ['POST', '/admin/accounts/ACCOUNT/sends', { sends: 1 }],
    ['GET', '/admin/accounts/ACCOUNT/ledger'],
    ['GET', '/admin/company_verifications'],
    ['GET', '/admin/company_verifications/kyb_x'],
    ['GET', '/admin/company_verifications/kyb_x/documents/kybd_x'],
    ['POST', '/admin/company_verifications/kyb_x/approve', {}],
    ['POST', '/admin/company_verifications/kyb_x/reject', { reason: 'not readable' }],
    ['GET', '/admin/audit_log'],
  ];

  test('no session: 401; each account role: 403 and nothing changes; the operator passes the guard', async () => {
    const before = (await s.call('GET', '/usage', { key: a.keys.secret_test })).body.balance;
    for (const [method, template, body] of ROUTES) {
      const path = template.replace('ACCOUNT', a.id);
      assertError(await new ConsoleClient(s.url).call(method, path, { body }), 'console_session_required');
      for (const [role, c] of Object.entries(roles)) {
        const r = await c.call(method, path, { body });
        assertError(r, 'forbidden');
        assert.equal(r.body.error.reason, 'operator_only', `${role} ${method} ${path}`);
      }
      const r = await operator.call(method, path, { body });
      assert.ok(r.status !== 401 && r.status !== 403, `operator ${method} ${path}: ${r.status} ${r.text}`);
      if (path.includes('kyb_x')) assertError(r, 'not_found');
    }
    const en = await signedIn('viewer@nile.example', 'en');
    const refused = await en.call('GET', '/admin/accounts');
    assertError(refused, 'forbidden', 'en');
    assert.equal(refused.body.error.message, 'Only an operator of this installation may do this.');
    const after = (await s.call('GET', '/usage', { key: a.keys.secret_test })).body.balance;
    assert.deepEqual(
      after,
      { sends: before.sends + 1, wallet: { amount: before.wallet.amount + 1, currency: 'EGP' } },
      'only the operator’s calls',
    );
    assertError(await operator.call('POST', '/admin/accounts', { body: {} }), 'not_found');
    assertError(await operator.call('POST', `/admin/accounts/${a.id}/sends`, { body: { sends: 1 }, noCsrf: true }), 'csrf_failed');
  });
});
