/**
 * The create plan (domain/createPlan.ts) as the pure function it is: no database, a fixed clock and
 * counting ids. What a create writes, charges, queues and emits, and when it is refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { planCreate, type CreateInput, type CreatePlan, type CreateRefusal } from '../../server/src/domain/createPlan.js';
import { IDENTITY_PRICE_MINOR, PLANS } from '../../server/src/domain/plans.js';
import { signatureRequestCreateSchema } from '../../server/src/domain/signatureRequestInput.js';
import type { TemplateRecord } from '../../server/src/store/templates.js';

const NOW = 1_800_000_000;
const DAY = 86400;
const TEAM = ['a@example.com', 'b@example.com', 'c@example.com'];

const template: TemplateRecord = {
  id: 'tpl_1',
  account_id: 'acc_1',
  title: 'NDA',
  language: 'ar',
  body: 'x',
  fields: [],
  created_at: NOW - 10,
  archived_at: null,
};

function input(body: Record<string, unknown>, over: Partial<CreateInput> = {}): CreateInput {
  let n = 0;
  return {
    body: signatureRequestCreateSchema.parse({
      source: { type: 'template', template_id: 'tpl_1' },
      signers: [{ name: 'A', email: TEAM[0] }],
      ...body,
    }),
    account: { id: 'acc_1', owner_email: TEAM[0]!, team_emails: TEAM, team_phones: [], accepted_domains: [] },
    livemode: false,
    template,
    balance: null,
    now: NOW,
    newId: (kind) => `${kind}_${++n}`,
    limits: { testDailyRequests: 20, testDailyEmails: 50 },
    ...over,
  };
}

const live = (balance_sends: number, wallet_minor: number): Partial<CreateInput> => ({
  livemode: true,
  balance: { plan: 'business', balance_sends, wallet_minor, currency: 'EGP' },
});

function planned(i: CreateInput): CreatePlan {
  const out = planCreate(i);
  if ('refusal' in out) assert.fail(`refused: ${out.refusal.code}`);
  return out;
}

function refusal(i: CreateInput): CreateRefusal {
  const out = planCreate(i);
  assert.ok('refusal' in out, 'expected a refusal');
  return out.refusal;
}

const signers = (n: number) => TEAM.slice(0, n).map((email, i) => ({ name: `S${i}`, email }));

describe('create plan', () => {
  test('a test-mode send charges nothing and counts the day’s request and emails', () => {
    const plan = planned(input({ signers: signers(2) }));
    assert.equal(plan.charge, null);
    assert.equal(plan.request.charged, false);
    assert.equal(plan.request.cost_wallet_minor, 0);
    assert.deepEqual(
      { ...plan.testRequests, refusal: undefined },
      { scope: 'test_requests:acc_1', windowStart: NOW - (NOW % DAY), by: 1, limit: 20, refusal: undefined },
    );
    assert.equal(plan.testRequests!.refusal.code, 'test_daily_limit');
    assert.equal(plan.testRequests!.refusal.headers!['Retry-After'], String(NOW - (NOW % DAY) + DAY - NOW));
    assert.equal(plan.testEmails!.by, 2);
    assert.equal(plan.testEmails!.refusal.code, 'test_email_limit');
  });

  test('a live send charges from the balance, then the wallet at the overage rate, identity always from the wallet', () => {
    const plan = planned(
      input(
        {
          signers: [
            { name: 'A', email: 'x@example.org', require_identity: true },
            { name: 'B', phone: '+201001234567' },
          ],
        },
        live(1, 100_000),
      ),
    );
    const overage = PLANS.business.overageMinor;
    assert.deepEqual(
      { sends: plan.charge!.sends, walletMinor: plan.charge!.walletMinor },
      { sends: 1, walletMinor: overage + IDENTITY_PRICE_MINOR },
    );
    assert.deepEqual(plan.charge!.ledger, {
      id: plan.charge!.ledger.id,
      account_id: 'acc_1',
      kind: 'send',
      sends_delta: -1,
      wallet_delta_minor: -(overage + IDENTITY_PRICE_MINOR),
      signature_request_id: plan.request.id,
      note: '2 signer(s), 1 identity',
      created_at: NOW,
    });
    assert.deepEqual(
      {
        charged: plan.request.charged,
        cost_sends: plan.request.cost_sends,
        cost_wallet_minor: plan.request.cost_wallet_minor,
        cost_source: plan.request.cost_source,
      },
      { charged: true, cost_sends: 1, cost_wallet_minor: overage + IDENTITY_PRICE_MINOR, cost_source: 'overage' },
    );
    assert.equal(plan.testRequests, null);
    assert.equal(plan.testEmails, null);
  });

  test('a live send within the yearly balance takes no money', () => {
    const plan = planned(input({ signers: [{ name: 'A', email: 'x@example.org' }] }, live(10, 0)));
    assert.deepEqual({ sends: plan.charge!.sends, walletMinor: plan.charge!.walletMinor }, { sends: 1, walletMinor: 0 });
    assert.equal(plan.request.cost_source, 'plan');
  });

  test('a live send over the balance is refused with insufficient_balance', () => {
    const r = refusal(
      input(
        {
          signers: [
            { name: 'A', email: 'x@example.org' },
            { name: 'B', email: 'y@example.org' },
          ],
        },
        live(0, 100),
      ),
    );
    assert.equal(r.code, 'insufficient_balance');
    assert.deepEqual(r.extra, {
      required: { amount: (2 * PLANS.business.overageMinor) / 100, currency: 'EGP' },
      available: { amount: 1, currency: 'EGP' },
    });
  });

  test('a live draft charges nothing and needs no balance', () => {
    const plan = planned(input({ send: false, signers: [{ name: 'A', email: 'x@example.org' }] }, { livemode: true }));
    assert.equal(plan.charge, null);
    assert.equal(plan.request.status, 'draft');
  });

  test('N signers: N signer rows, all invited, the request event then signer.sent for each', () => {
    const plan = planned(input({ signers: signers(3), reminders: { enabled: true, interval_hours: 24, max: 2 } }));
    assert.equal(plan.request.status, 'sent');
    assert.equal(plan.request.sent_at, NOW);
    assert.deepEqual(
      plan.signers.map((s) => [s.position, s.email, s.status, s.sent_at, s.signature_request_id]),
      TEAM.map((email, i) => [i + 1, email, 'sent', NOW, plan.request.id]),
    );
    assert.deepEqual(plan.invite, plan.signers);
    assert.deepEqual(
      plan.events.map((e) => [e.type, e.signer?.id ?? null]),
      [['signature_request.sent', null], ...plan.signers.map((s) => ['signer.sent', s.id])],
    );
    assert.deepEqual(plan.expiry, {
      kind: 'expire_request',
      runAt: NOW + 30 * DAY,
      payload: { signature_request_id: plan.request.id },
      dedupeKey: `expire:${plan.request.id}`,
    });
    assert.deepEqual(plan.autoReminder, {
      kind: 'auto_reminder',
      runAt: NOW + 24 * 3600,
      payload: { signature_request_id: plan.request.id },
      dedupeKey: `auto_reminder:${plan.request.id}:1`,
    });
  });

  test('an ordered send invites the first signer only', () => {
    const plan = planned(input({ signers: signers(3), ordered: true }));
    assert.deepEqual(
      plan.signers.map((s) => s.status),
      ['sent', 'pending', 'pending'],
    );
    assert.deepEqual(
      plan.invite.map((s) => s.position),
      [1],
    );
    assert.equal(plan.testEmails!.by, 1);
    assert.deepEqual(
      plan.events.map((e) => e.type),
      ['signature_request.sent', 'signer.sent'],
    );
  });

  test('a draft: pending signers, no invitations, the created event only', () => {
    const plan = planned(input({ send: false, signers: signers(2) }));
    assert.equal(plan.request.status, 'draft');
    assert.equal(plan.request.sent_at, null);
    assert.deepEqual(
      plan.signers.map((s) => s.status),
      ['pending', 'pending'],
    );
    assert.deepEqual(plan.invite, []);
    assert.equal(plan.testEmails, null);
    assert.deepEqual(plan.events, [{ type: 'signature_request.created', signer: null }]);
  });

  test('deferred events: the caller announces the send', () => {
    const plan = planned(input({ signers: signers(2) }, { deferEvents: true, deliveryDelaySeconds: 30 }));
    assert.deepEqual(plan.events, []);
    assert.equal(plan.invite.length, 2);
    assert.equal(plan.deliveryDelaySeconds, 30);
  });

  test('workflow_id default: a session row, the default workflow link and its expiry', () => {
    const plan = planned(input({ workflow_id: 'default' }));
    assert.equal(plan.request.workflow?.workflow_id, plan.session?.workflow_id);
    assert.equal(plan.session?.signature_request_id, plan.request.id);
    assert.equal(plan.request.language, 'ar');
    assert.equal(planned(input({})).session, null);
  });

  test('refusals, in the order they are reported', () => {
    assert.equal(
      refusal(input({ signers: [{ name: 'A', email: 'stranger@example.org' }] }, { template: undefined })).code,
      'test_recipient_not_allowed',
    );
    const missing = refusal(input({}, { template: undefined }));
    assert.deepEqual([missing.code, missing.param], ['invalid_request', 'source.template_id']);
    assert.equal(refusal(input({ workflow_id: 'wf_other' })).code, 'workflow_not_found');
    assert.equal(refusal(input({ expires_at: NOW })).param, 'expires_at');
    assert.equal(refusal(input({ return_url: 'https://elsewhere.example/back' })).code, 'domain_not_accepted');
  });

  test('an access code must be hashed before the plan', () => {
    assert.throws(() => planCreate(input({ signers: [{ name: 'A', email: TEAM[0], access_code: '1234' }] })), /not hashed/);
    const plan = planned(
      input({ signers: [{ name: 'A', email: TEAM[0], access_code: '1234' }] }, { accessCodeHashes: new Map([['1234', 'h']]) }),
    );
    assert.equal(plan.signers[0]!.access_code_hash, 'h');
  });
});
