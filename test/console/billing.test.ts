/**
 * Billing from the console (issue 16 point 4): after real live creates and a wallet top-up through
 * the CLI, the plan and its year end, the balances as GET /usage gives them, the ledger (every
 * charge with its request; cursor pages; its sum equals the balance), usage per calendar month
 * (sends, identity checks, wallet spend) as the injected clock moves, the price list and the
 * publishable-key daily-cap notices. Real HTTP, the configured engine.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { issueKey } from '../../server/src/services/accounts.js';
import { runCli } from '../support/cli.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { NDA_FIELDS } from '../support/ndaFields.js';
import { startTestServer, type TestServer } from '../support/server.js';

const DAY = 86_400;
let s: TestServer;
let acct: { id: string; keys: TestServer['keys'] };
let owner: ConsoleClient;
let firstMonth: string;
let secondMonth: string;
const requests: string[] = [];

async function signedIn(email: string): Promise<ConsoleClient> {
  const c = new ConsoleClient(s.url, 'en');
  const r = await c.signIn(email, TEST_PASSWORD);
  assert.equal(r.status, 200, r.text);
  return c;
}

async function createLive(signers: { name: string; email: string; require_identity?: boolean }[]): Promise<string> {
  const r = await s.call('POST', '/signature_requests', {
    key: acct.keys.secret_live,
    body: {
      title: 'Billing',
      legal_level: 'ses',
      source: { type: 'template', template_id: 'tpl_nda_ar' },
      signers: signers.map((x) => ({ ...x, fields: NDA_FIELDS })),
    },
  });
  assert.equal(r.status, 201, r.text);
  return r.body.id;
}

/** The first day of the next UTC month plus `days`, as ms. */
function nextMonth(fromMs: number, days: number): number {
  const d = new Date(fromMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) + days * DAY * 1000;
}

before(async () => {
  s = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000' });
  s.clock.set(nextMonth(s.clock.nowMs(), 9));
  firstMonth = new Date(s.clock.nowMs()).toISOString().slice(0, 7);
  // One send left in the balance, 50.00 in the wallet (business: 9.00 a send beyond the balance).
  acct = await s.account({ name: 'Pay Co', ownerEmail: 'owner@pay.example.com', balanceSends: 1, walletMinor: 5000 });
  await consoleUser(s, acct.id, 'owner@pay.example.com', 'owner');
  // Two signers (one from the balance, one at 9.00), one with an identity check (1.50).
  requests.push(
    await createLive([
      { name: 'Mona', email: 'mona@pay.example.com', require_identity: true },
      { name: 'Omar', email: 'omar@pay.example.com' },
    ]),
  );
  const topup = await runCli({ ...process.env, DATA_DIR: s.dataDir, ...s.databaseEnv }, 'account', 'set', acct.id, '--wallet-topup', '250');
  assert.equal(topup.code, 0, topup.stderr);
  s.clock.set(nextMonth(s.clock.nowMs(), 2));
  secondMonth = new Date(s.clock.nowMs()).toISOString().slice(0, 7);
  requests.push(await createLive([{ name: 'Laila', email: 'laila@pay.example.com' }]));
  owner = await signedIn('owner@pay.example.com');
});
after(() => s.close());

describe('console billing', () => {
  test('overview: the plan and its year end, balances and prices as GET /usage, the ledger totals equal to the balance', async () => {
    const r = await owner.call('GET', '/billing');
    assert.equal(r.status, 200, r.text);
    const usage = await s.call('GET', '/usage', { key: acct.keys.secret_live });
    assert.deepEqual(r.body.usage, usage.body, 'the same object GET /usage answers');
    assert.equal(r.body.usage.plan.name, 'business');
    assert.equal(r.body.usage.balance.sends, 0);
    // 50.00 − 9.00 − 1.50 + 250.00 − 9.00
    assert.deepEqual(r.body.usage.balance.wallet, { amount: 280.5, currency: 'EGP' });
    assert.equal(typeof r.body.usage.plan.expires_at, 'number');
    assert.equal(r.body.plan_days_left, Math.floor((r.body.usage.plan.expires_at - Math.floor(s.clock.nowMs() / 1000)) / DAY));
    assert.deepEqual(r.body.ledger_totals, { sends: 0, wallet: { amount: 280.5, currency: 'EGP' }, matches_balance: true });
  });

  test('ledger: every charge with its request, newest first, in cursor pages; its sum is the balance', async () => {
    const first = await owner.call('GET', '/billing/ledger?limit=2');
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.has_more, true);
    const second = await owner.call('GET', `/billing/ledger?limit=2&starting_after=${first.body.next_cursor}`);
    assert.equal(second.body.has_more, false);
    const all = [...first.body.data, ...second.body.data];
    assert.deepEqual(all.map((e: { kind: string }) => e.kind).sort(), ['opening_balance', 'send', 'send', 'wallet_topup']);
    const sends = all.filter((e: { kind: string }) => e.kind === 'send');
    assert.deepEqual(sends.map((e: { signature_request: string }) => e.signature_request).sort(), [...requests].sort());
    assert.deepEqual(sends.map((e: { wallet: { amount: number } }) => e.wallet.amount).sort(), [-10.5, -9]);
    const sum = all.reduce((t: number, e: { wallet: { amount: number } }) => t + Math.round(e.wallet.amount * 100), 0);
    assert.equal(sum, 28050);
    assert.equal(all.find((e: { kind: string }) => e.kind === 'wallet_topup').wallet.amount, 250);
    const bad = await owner.call('GET', '/billing/ledger?starting_after=led_nope');
    assert.equal(bad.body.error.code, 'parameter_invalid');
    assert.equal(bad.body.error.param, 'starting_after');
  });

  test('usage per month: sends, identity checks and wallet spend, empty months included', async () => {
    const r = await owner.call('GET', '/billing/usage?months=3');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.length, 3);
    const byMonth = new Map(r.body.data.map((m: { month: string }) => [m.month, m]));
    assert.deepEqual(byMonth.get(firstMonth), {
      month: firstMonth,
      sends: 2,
      identity_checks: 1,
      wallet_spend: { amount: 10.5, currency: 'EGP' },
    });
    assert.deepEqual(byMonth.get(secondMonth), {
      month: secondMonth,
      sends: 1,
      identity_checks: 0,
      wallet_spend: { amount: 9, currency: 'EGP' },
    });
    assert.equal(r.body.data[2].month, secondMonth, 'oldest first, ending with this month');
    assert.equal(r.body.data[0].sends, 0);
    assert.equal((await owner.call('GET', '/billing/usage?months=0')).body.error.param, 'months');
  });

  test('price list: the plan table as data, in the wallet currency', async () => {
    const r = await owner.call('GET', '/billing/prices');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.current_plan, 'business');
    assert.deepEqual(
      r.body.plans.map((p: { name: string; sends_per_year: number; send_overage: { amount: number } }) => [
        p.name,
        p.sends_per_year,
        p.send_overage.amount,
      ]),
      [
        ['starter', 100, 12],
        ['business', 1000, 9],
        ['enterprise', 10000, 6],
      ],
    );
    assert.deepEqual(r.body.identity_verification, { amount: 1.5, currency: 'EGP' });
  });

  test('publishable-key daily cap notices at 80% and at the cap', async () => {
    const origin = 'https://shop.pay.example.com';
    const pk = await s.ctx.store.tx((trx) =>
      issueKey(trx, s.clock, acct.id, 'publishable', 'live', { allowedOrigins: [origin], dailyCap: 5 }),
    );
    assert.deepEqual((await owner.call('GET', '/billing/notices')).body.data, []);
    for (let i = 0; i < 5; i++) await s.call('POST', '/signature_requests', { key: pk.secret, headers: { origin }, body: {} });
    const r = await owner.call('GET', '/billing/notices');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.data.map((n: { kind: string; level: number; count: number; cap: number; key: string }) => [
        n.kind,
        n.level,
        n.count,
        n.cap,
        n.key,
      ]),
      [
        ['publishable_daily_cap_reached', 100, 5, 5, pk.key.id],
        ['publishable_daily_cap_80', 80, 4, 5, pk.key.id],
      ],
    );
  });
});
