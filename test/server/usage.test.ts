/**
 * GET /usage and GET /balance (plan, balance, prices in the wallet currency), the live-mode gates
 * (402 plan_required / plan_expired, 403 kyb_required), the plan feature table of spec 4.1 rule 3
 * (403 plan_feature_unavailable) and the send pricing rule of 4.1 rule 2.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ERRORS } from '../../shared/src/errors.js';
import { hashSecret } from '../../server/src/domain/keys.js';
import {
  FEATURES,
  IDENTITY_PRICE_MINOR,
  missingPlanFor,
  PLAN_NAMES,
  PLANS,
  priceSend,
  type Feature,
  type PlanName,
} from '../../server/src/domain/plans.js';
import { ApiError } from '../../server/src/errors.js';
import type { AuthState } from '../../server/src/http/context.js';
import { checkFeature } from '../../server/src/http/gates.js';
import { issueKey } from '../../server/src/services/accounts.js';
import { getAccount } from '../../server/src/store/accounts.js';
import { findKeyWithAccount } from '../../server/src/store/apiKeys.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type CallResult, type TestServer } from '../support/server.js';

const ORIGIN = 'https://shop.example.com';
const RETIRED_FIELDS = ['amount_egp', 'month_spent_egp', 'send_egp'];

/** Every property name anywhere in a JSON value. */
function allKeys(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) allKeys(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      allKeys(v, out);
    }
  }
  return out;
}

function assertNoRetiredFields(r: CallResult): void {
  const keys = allKeys(r.body);
  for (const f of RETIRED_FIELDS) assert.equal(keys.has(f), false, `${f} must not appear: ${r.text}`);
  assert.doesNotMatch(r.text, /_egp"/);
}

const template = (title: string) => ({ title, body: 'Agreed between {{party}}.', fields: [{ key: 'party', label: 'Party' }] });

describe('GET /usage and GET /balance', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('live and test secret keys: plan, balance and prices as amount objects in the wallet currency', async () => {
    const expiresAt = Math.floor(s.clock.nowMs() / 1000) + 200 * 86400;
    const acct = await s.account({ walletMinor: 12345, balanceSends: 7, planExpiresAt: expiresAt });
    for (const path of ['/usage', '/balance']) {
      for (const [key, livemode] of [
        [acct.keys.secret_live, true],
        [acct.keys.secret_test, false],
      ] as const) {
        const r = await s.call('GET', path, { key });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.body, {
          object: 'usage',
          livemode,
          plan: { name: 'business', status: 'active', sends_per_year: 1000, expires_at: expiresAt },
          balance: { sends: 7, wallet: { amount: 123.45, currency: 'EGP' } },
          prices: {
            send_overage: { amount: 9, currency: 'EGP' },
            identity_verification: { amount: 1.5, currency: 'EGP' },
          },
          currency: 'EGP',
          company_verification: 'approved',
        });
        assertNoRetiredFields(r);
      }
    }
  });

  test('the overage price follows the plan; the identity price is 1.50 on every plan', async () => {
    const expected: Record<Exclude<PlanName, 'none'>, [number, number]> = {
      starter: [100, 12],
      business: [1000, 9],
      enterprise: [10000, 6],
    };
    for (const [plan, [sends, overage]] of Object.entries(expected)) {
      const acct = await s.account({ plan: plan as PlanName });
      const r = await s.call('GET', '/usage', { key: acct.keys.secret_live });
      assert.equal(r.body.plan.name, plan);
      assert.equal(r.body.plan.sends_per_year, sends);
      assert.equal(r.body.balance.sends, sends, "the balance defaults to the plan's yearly sends");
      assert.deepEqual(r.body.prices.send_overage, { amount: overage, currency: 'EGP' });
      assert.deepEqual(r.body.prices.identity_verification, { amount: 1.5, currency: 'EGP' });
    }
  });

  test('plan status: none without a plan, expired once the subscription year ends (usage is not gated)', async () => {
    const none = await s.account({ plan: 'none', planExpiresAt: null });
    const r = await s.call('GET', '/usage', { key: none.keys.secret_live });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.plan, { name: 'none', status: 'none', sends_per_year: 0, expires_at: null });
    assert.equal(r.body.balance.sends, 0);

    const now = Math.floor(s.clock.nowMs() / 1000);
    const lapsed = await s.account({ planExpiresAt: now - 1 });
    const e = await s.call('GET', '/balance', { key: lapsed.keys.secret_live });
    assert.equal(e.status, 200);
    assert.equal(e.body.plan.status, 'expired');
    assert.equal(e.body.plan.expires_at, now - 1);

    const pending = await s.account({ kyb: 'pending' });
    assert.equal((await s.call('GET', '/usage', { key: pending.keys.secret_live })).body.company_verification, 'pending');
  });

  test('no retired *_egp field on any version, the deprecated one included', async () => {
    for (const version of ['2026-07-01', '2026-01-01']) {
      for (const path of ['/usage', '/balance']) {
        const r = await s.call('GET', path, { key: s.keys.secret_live, headers: { 'svc-version': version } });
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('svc-version'), version);
        assertNoRetiredFields(r);
        assert.deepEqual(Object.keys(r.body.balance.wallet).sort(), ['amount', 'currency']);
      }
    }
  });

  test('publishable keys cannot read usage: 403 forbidden', async () => {
    const acct = await s.account();
    const pk = (await s.ctx.store.tx((trx) => issueKey(trx, s.clock, acct.id, 'publishable', 'live', { allowedOrigins: [ORIGIN] }))).secret;
    await assertErrorBothLanguages((prefix) => s.call('GET', '/usage', { key: pk, prefix, headers: { origin: ORIGIN } }), 'forbidden');
    assertError(await s.call('GET', '/balance', { key: acct.keys.publishable_test }), 'forbidden');
    assertError(await s.call('GET', '/usage'), 'api_key_missing');
  });
});

describe('TAWQI_CURRENCY sets the wallet currency', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ TAWQI_CURRENCY: 'SAR' });
  });
  after(() => s.close());

  test('the first-start operator account uses the configured currency', async () => {
    const r = await s.call('GET', '/usage', { key: s.keys.secret_live });
    assert.equal(r.status, 200);
    assert.equal(r.body.currency, 'SAR');
    assert.deepEqual(r.body.balance.wallet, { amount: 0, currency: 'SAR' });
    assert.deepEqual(r.body.prices.identity_verification, { amount: 1.5, currency: 'SAR' });
    assert.deepEqual(r.body.prices.send_overage, { amount: 9, currency: 'SAR' });
    assert.equal(s.operator?.account.currency, 'SAR');
  });

  test('an account created in SAR shows SAR amounts everywhere', async () => {
    const acct = await s.account({ currency: 'SAR', walletMinor: 5050, balanceSends: 3 });
    const r = await s.call('GET', '/balance', { key: acct.keys.secret_live });
    assert.equal(r.body.currency, 'SAR');
    assert.deepEqual(r.body.balance, { sends: 3, wallet: { amount: 50.5, currency: 'SAR' } });
    for (const price of Object.values(r.body.prices) as { currency: string }[]) assert.equal(price.currency, 'SAR');
    assertNoRetiredFields(r);
    assert.doesNotMatch(r.text, /EGP/);
  });
});

describe('live gates (POST /templates with a live secret key)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const countTemplates = async (accountId: string): Promise<number> => {
    const row = await s.ctx.store.db
      .selectFrom('templates')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  const cases = [
    {
      name: 'no paid plan → 402 plan_required',
      account: () => ({ plan: 'none' as const, planExpiresAt: null }),
      code: 'plan_required' as const,
      url: ['upgrade_url', '/console/billing'],
    },
    {
      name: 'subscription year ended → 402 plan_expired',
      account: (now: number) => ({ planExpiresAt: now - 60 }),
      code: 'plan_expired' as const,
      url: ['upgrade_url', '/console/billing'],
    },
    {
      name: 'company verification pending → 403 kyb_required',
      account: () => ({ kyb: 'pending' as const }),
      code: 'kyb_required' as const,
      url: ['verify_url', '/console/verification'],
    },
    {
      name: 'company never verified → 403 kyb_required',
      account: () => ({ kyb: 'none' as const }),
      code: 'kyb_required' as const,
      url: ['verify_url', '/console/verification'],
    },
  ];
  for (const c of cases) {
    test(`${c.name} (with ${c.url[0]}); the test key is not gated; nothing is created by the refusal`, async () => {
      const acct = await s.account(c.account(Math.floor(s.clock.nowMs() / 1000)));
      const refused = await assertErrorBothLanguages(
        (prefix) => s.call('POST', '/templates', { key: acct.keys.secret_live, prefix, body: template('Gated') }),
        c.code,
      );
      assert.equal(ERRORS[c.code].status, c.code === 'kyb_required' ? 403 : 402);
      const [field, url] = c.url as [string, string];
      assert.equal(refused.body.error[field], url);
      const other = field === 'upgrade_url' ? 'verify_url' : 'upgrade_url';
      assert.equal(other in refused.body.error, false, `${c.code} carries no ${other}`);
      // An Idempotency-Key does not change the refusal and nothing is stored.
      assertError(
        await s.call('POST', '/templates', {
          key: acct.keys.secret_live,
          body: template('Gated'),
          headers: { 'idempotency-key': 'gate-1' },
        }),
        c.code,
      );
      assert.equal(await countTemplates(acct.id), 0, 'the refused requests created nothing');

      const test = await s.call('POST', '/templates', { key: acct.keys.secret_test, body: template('Gated') });
      assert.equal(test.status, 201, test.text);
      assert.equal(await countTemplates(acct.id), 1);
      // Reads are not gated either.
      assert.equal((await s.call('GET', `/templates/${test.body.id}`, { key: acct.keys.secret_live })).status, 200);
    });
  }

  test('gate order: plan first, then renewal, then company verification', async () => {
    const now = Math.floor(s.clock.nowMs() / 1000);
    const noPlan = await s.account({ plan: 'none', planExpiresAt: null, kyb: 'pending' });
    assertError(await s.call('POST', '/templates', { key: noPlan.keys.secret_live, body: template('Order') }), 'plan_required');
    const lapsed = await s.account({ planExpiresAt: now - 1, kyb: 'none' });
    assertError(await s.call('POST', '/templates', { key: lapsed.keys.secret_live, body: template('Order') }), 'plan_expired');
  });

  test('a verified account on an active plan passes; when the clock passes the expiry it gets plan_expired', async () => {
    const now = Math.floor(s.clock.nowMs() / 1000);
    const acct = await s.account({ planExpiresAt: now + 3600 });
    assert.equal((await s.call('POST', '/templates', { key: acct.keys.secret_live, body: template('Before expiry') })).status, 201);
    s.clock.advanceSeconds(3599);
    assert.equal((await s.call('POST', '/templates', { key: acct.keys.secret_live, body: template('Last second') })).status, 201);
    s.clock.advanceSeconds(1);
    const expired = await assertErrorBothLanguages(
      (prefix) => s.call('POST', '/templates', { key: acct.keys.secret_live, prefix, body: template('After expiry') }),
      'plan_expired',
    );
    assert.equal(expired.body.error.upgrade_url, '/console/billing');
    assert.equal((await s.call('GET', '/usage', { key: acct.keys.secret_live })).body.plan.status, 'expired');
    assert.equal(await countTemplates(acct.id), 2);
    assert.equal((await s.call('POST', '/templates', { key: acct.keys.secret_test, body: template('After expiry') })).status, 201);
  });

  test('gates answer on the English alias and with ?lang=en, with the same code and extra fields', async () => {
    const acct = await s.account({ plan: 'none', planExpiresAt: null });
    const en = await s.call('POST', '/templates?lang=en', { key: acct.keys.secret_live, body: template('Lang') });
    assertError(en, 'plan_required', 'en');
    assert.equal(en.body.error.upgrade_url, '/console/billing');
    assert.equal(en.body.error.param, null);
  });
});

describe('plan features (spec 4.1 rule 3): checkFeature and missingPlanFor', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ TAWQI_CONSOLE_URL: 'https://console.example.com' });
  });
  after(() => s.close());

  const TABLE: Record<Exclude<Feature, 'custom_domain'>, PlanName> = {
    ordered: 'business',
    return_url: 'business',
    success_url: 'business',
    cancel_url: 'business',
    custom_workflows: 'business',
    bulk_send: 'enterprise',
    qes: 'enterprise',
    method_token: 'enterprise',
    signer_attachments: 'enterprise',
    access_code: 'enterprise',
  };
  const ORDER: readonly PlanName[] = ['none', 'starter', 'business', 'enterprise'];
  const covers = (plan: PlanName, required: PlanName) => ORDER.indexOf(plan) >= ORDER.indexOf(required);

  test("the feature table is the spec's, plus the custom domain", () => {
    assert.deepEqual(Object.keys(FEATURES).sort(), [...Object.keys(TABLE), 'custom_domain'].sort());
    for (const [feature, plan] of Object.entries(TABLE)) assert.equal(FEATURES[feature as Feature], plan, feature);
    assert.deepEqual([...PLAN_NAMES], [...ORDER]);
  });

  test('missingPlanFor: live mode needs the plan of the table; test mode unlocks all but the custom domain', () => {
    for (const plan of PLAN_NAMES) {
      for (const [feature, required] of Object.entries(TABLE) as [Feature, PlanName][]) {
        assert.equal(missingPlanFor(feature, plan, true), covers(plan, required) ? null : required, `live ${plan} ${feature}`);
        assert.equal(missingPlanFor(feature, plan, false), null, `test ${plan} ${feature}`);
      }
      assert.equal(
        missingPlanFor('custom_domain', plan, false),
        missingPlanFor('custom_domain', plan, true),
        `custom_domain is not unlocked by test keys (${plan})`,
      );
    }
    assert.notEqual(missingPlanFor('custom_domain', 'starter', false), null);
    assert.equal(missingPlanFor('custom_domain', 'enterprise', false), null);
  });

  test('checkFeature throws 403 plan_feature_unavailable with feature, required_plan and upgrade_url', async () => {
    const auths: Record<PlanName, { live: AuthState; test: AuthState }> = {} as never;
    for (const plan of PLAN_NAMES) {
      const acct = await s.account(plan === 'none' ? { plan, planExpiresAt: null } : { plan });
      const account = (await getAccount(s.ctx.store.db, acct.id))!;
      const live = (await findKeyWithAccount(s.ctx.store.db, hashSecret(acct.keys.secret_live)))!.key;
      const test = (await findKeyWithAccount(s.ctx.store.db, hashSecret(acct.keys.secret_test)))!.key;
      auths[plan] = {
        live: { key: live, account, livemode: true, publishable: false },
        test: { key: test, account, livemode: false, publishable: false },
      };
    }
    let refusals = 0;
    for (const plan of PLAN_NAMES) {
      for (const [feature, required] of Object.entries(TABLE) as [Feature, PlanName][]) {
        assert.doesNotThrow(() => checkFeature(s.ctx, auths[plan].test, feature), `test ${plan} ${feature}`);
        if (covers(plan, required)) {
          assert.doesNotThrow(() => checkFeature(s.ctx, auths[plan].live, feature), `live ${plan} ${feature}`);
          continue;
        }
        refusals++;
        assert.throws(
          () => checkFeature(s.ctx, auths[plan].live, feature, 'signers[0].method'),
          (err: unknown) => {
            assert.ok(err instanceof ApiError);
            assert.equal(err.code, 'plan_feature_unavailable');
            assert.equal(ERRORS[err.code].status, 403);
            assert.equal(err.param, 'signers[0].method');
            assert.deepEqual(err.extra, { feature, required_plan: required, upgrade_url: 'https://console.example.com/billing' });
            return true;
          },
          `live ${plan} ${feature}`,
        );
      }
    }
    // none and starter miss all 10; business misses the 5 enterprise features.
    assert.equal(refusals, 10 + 10 + 5);
    assert.throws(
      () => checkFeature(s.ctx, auths.starter.test, 'custom_domain'),
      (err: unknown) => err instanceof ApiError && err.code === 'plan_feature_unavailable',
    );
    assert.doesNotThrow(() => checkFeature(s.ctx, auths.business.test, 'custom_domain'));
  });
});

describe('send pricing (spec 4.1 rule 2): priceSend', () => {
  test('identity verification is 150 minor units (1.50) per signer', () => {
    assert.equal(IDENTITY_PRICE_MINOR, 150);
  });

  test('the yearly balance is used first; nothing from the wallet while it covers the sends', () => {
    assert.deepEqual(priceSend(PLANS.business, 10, 3, 0), { sendsFromBalance: 3, walletMinor: 0, source: 'plan' });
    assert.deepEqual(priceSend(PLANS.business, 3, 3, 0), { sendsFromBalance: 3, walletMinor: 0, source: 'plan' });
  });

  test("beyond the balance each send is charged at the plan's overage rate", () => {
    assert.deepEqual(priceSend(PLANS.business, 1, 3, 0), { sendsFromBalance: 1, walletMinor: 2 * 900, source: 'overage' });
    assert.deepEqual(priceSend(PLANS.starter, 0, 2, 0), { sendsFromBalance: 0, walletMinor: 2 * 1200, source: 'overage' });
    assert.deepEqual(priceSend(PLANS.enterprise, 0, 5, 0), { sendsFromBalance: 0, walletMinor: 5 * 600, source: 'overage' });
  });

  test('identity verification is always a wallet charge, per identity signer, balance or not', () => {
    assert.deepEqual(priceSend(PLANS.business, 100, 4, 2), { sendsFromBalance: 4, walletMinor: 2 * 150, source: 'plan' });
    assert.deepEqual(priceSend(PLANS.business, 2, 5, 5), { sendsFromBalance: 2, walletMinor: 3 * 900 + 5 * 150, source: 'overage' });
    assert.deepEqual(priceSend(PLANS.enterprise, 0, 1, 1), { sendsFromBalance: 0, walletMinor: 600 + 150, source: 'overage' });
  });
});
