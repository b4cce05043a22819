/**
 * The world the API fuzzing runs in (fuzzHarness.ts): real objects of every kind the API names, made
 * through the API on a test server — requests sent, draft, completed and sealed, in both modes of
 * one account with balance; signers, an identity verification held for review, webhook endpoints,
 * events, a session, the workflows — and a few objects of another account, so that cases use ids
 * that exist, ids of the wrong kind and ids that are not theirs. Hints give the generator realistic
 * values by field name (schemaArbitrary.ts), mixed with what the schemas alone yield.
 */
import assert from 'node:assert/strict';
import { issueKey } from '../../server/src/services/accounts.js';
import { simulateIdentityDecision, startIdentityVerification } from '../../server/src/services/identity.js';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import type { FuzzWorld } from './fuzzCases.js';
import { sealedRequest } from './installation.js';
import { servedDocument } from './openapiCheck.js';
import type { Schema } from './schemaArbitrary.js';
import type { TestServer } from './server.js';
import { teamAccount, type TeamAccount } from './teamAccount.js';

/** The settings of a fuzzed server: limits high enough that the cases, not the rate windows, decide the answers. */
export const FUZZ_SERVER_ENV = {
  TAWQI_RATE_LIMIT: '10000000',
  TAWQI_IP_RATE_LIMIT: '10000000',
  TAWQI_BODY_LIMIT_BYTES: '8192',
  TAWQI_WEBHOOK_ALLOW_PRIVATE: 'true',
};

const TEMPLATE = {
  title: 'Fuzzed agreement',
  language: 'en',
  body: 'Agreed by {{client_name}}.',
  fields: [{ key: 'client_name', label: 'Client', type: 'text', required: false }],
};
const SHOP = 'https://shop.example.com';
const HOOK = 'https://127.0.0.1:9/hook';
const PHONE = '+201001234567';
const WHERE = { ip: '198.51.100.7', user_agent: 'fuzz' };

async function idsOf(s: TestServer, key: string, path: string): Promise<string[]> {
  const r = await s.call('GET', path, { key });
  assert.equal(r.status, 200, r.text);
  return r.body.data.map((o: { id: string }) => o.id);
}

async function created(s: TestServer, key: string, path: string, body: unknown): Promise<Schema> {
  const r = await s.call('POST', path, { key, body });
  assert.ok(r.status < 300, `${path}: ${r.text}`);
  return r.body;
}

interface Objects {
  /** Ids by the collection (first path segment) whose routes take them. */
  ids: Record<string, string[]>;
  requests: string[];
  signers: string[];
  endpoints: string[];
  flows: string[];
  foreignIds: string[];
  publishable: string;
}

/** Every kind of object, in account `a` (both modes) and a few in account `b`. */
async function makeObjects(s: TestServer, a: TeamAccount, b: TeamAccount): Promise<Objects> {
  const { secret_test: test, secret_live: live } = a.keys;
  const request = (extra: Record<string, unknown> = {}) => ({
    title: 'Fuzz base',
    source: { type: 'template', template_id: a.templateId },
    signers: [{ name: 'Amira Saleh', email: a.team[1] }],
    ...extra,
  });
  const sent = [await created(s, test, '/signature_requests', request()), await created(s, live, '/signature_requests', request())];
  const draft = await created(s, test, '/signature_requests', request({ send: false }));
  const idv = await created(s, test, '/signature_requests', request({ legal_level: 'aes' }));
  await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, idv.signers[0].id, 'otp_verified', WHERE));
  const verification = await startIdentityVerification(s.ctx, idv.signers[0].id);
  await simulateIdentityDecision(s.ctx, verification.verificationId, 'approve', { documentName: 'Someone Else' });
  const sealed = await sealedRequest(s, live, a.templateId);
  const endpoints = [test, live].map((key) => created(s, key, '/webhook_endpoints', { url: HOOK, enabled_events: ['*'] }));
  const session = await created(s, test, '/sessions', {
    workflow_id: 'default',
    template_id: a.templateId,
    signers: [{ name: 'Amira Saleh', email: a.team[2] }],
  });
  const publishable = await s.ctx.store.tx((trx) => issueKey(trx, s.clock, a.id, 'publishable', 'test', { allowedOrigins: [SHOP] }));
  const foreign = await created(s, b.keys.secret_test, '/signature_requests', {
    ...request(),
    source: { type: 'template', template_id: b.templateId },
    signers: [{ name: 'Other', email: b.team[1] }],
  });
  const foreignEndpoint = await created(s, b.keys.secret_test, '/webhook_endpoints', { url: HOOK, enabled_events: ['*'] });
  const requests = [...sent, draft, idv, { id: sealed.id }].map((r) => r.id);
  const signers: string[] = [...sent, draft, idv].flatMap((r) => r.signers.map((x: { id: string }) => x.id));
  const endpointIds = (await Promise.all(endpoints)).map((e) => e.id);
  const flows = await idsOf(s, test, '/flows');
  return {
    ids: {
      signature_requests: requests,
      signers,
      events: [...(await idsOf(s, test, '/events?limit=20')), ...(await idsOf(s, live, '/events?limit=20'))],
      webhook_endpoints: endpointIds,
      templates: [a.templateId, ...(await idsOf(s, test, '/templates?limit=3'))],
      flows,
      sessions: [session.id],
      identity_verifications: [verification.verificationId],
      verifications: [sealed.reference],
      test_helpers: signers,
    },
    requests,
    signers,
    endpoints: endpointIds,
    flows,
    foreignIds: [foreign.id, foreign.signers[0].id, foreignEndpoint.id, b.templateId],
    publishable: publishable.secret,
  };
}

/** Realistic values by field name: ids that exist, the team's addresses, https URLs, list cursors and times. */
function hintsFor(a: TeamAccount, o: Objects, now: number): FuzzWorld['hints'] {
  return {
    template_id: [a.templateId],
    email: a.team,
    phone: [PHONE],
    // Drawn signatures at the simple level with its format (aes and qes ask for PAdES, qes for a token).
    method: ['draw'],
    legal_level: ['ses'],
    format: ['platform-evidence'],
    signer: o.signers,
    endpoint: o.endpoints,
    workflow_id: ['default', ...o.flows],
    url: [HOOK, 'https://93.184.215.14/hook'],
    enabled_events: [['*'], ['signature_request.completed', 'signer.signed']],
    success_url: [`${SHOP}/done/{signature_request}`],
    return_url: [`${SHOP}/back`],
    cancel_url: [`${SHOP}/cancel?r={signature_request}`],
    embed_origin: [SHOP],
    // Lists: a cursor must be an id the list can show, times unix seconds or ISO 8601.
    starting_after: Object.values(o.ids).flat(),
    signature_request: o.requests,
    created_after: ['0', '1700000000', '2026-01-01T00:00:00Z'],
    created_before: ['4102444800', '2099-12-31T00:00:00Z'],
    expires_at: [Math.floor(now / 1000) + 30 * 86400],
  };
}

/** The world: the fuzzed account (enterprise, with balance and wallet), another account, their objects and keys. */
export async function buildWorld(s: TestServer): Promise<{ world: FuzzWorld; account: TeamAccount; others: string[] }> {
  const a = await teamAccount(s, TEMPLATE, { overrides: { plan: 'enterprise', balanceSends: 500, walletMinor: 10_000_000 } });
  // Test-mode signers may be the team's phones too; redirect URLs must be on an accepted domain.
  await updateAccount(s.ctx.store.db, a.id, { team_phones: [PHONE], accepted_domains: [new URL(SHOP).hostname] });
  const b = await teamAccount(s, TEMPLATE);
  const o = await makeObjects(s, a, b);
  const { doc, validator } = servedDocument();
  const world: FuzzWorld = {
    doc,
    valid: (schema, value) => validator.compile(schema)(value) as boolean,
    hints: hintsFor(a, o, s.clock.nowMs()),
    ids: o.ids,
    foreignIds: o.foreignIds,
    keys: [
      { name: 'test secret key', key: a.keys.secret_test, weight: 8 },
      { name: 'live secret key', key: a.keys.secret_live, weight: 5 },
      { name: 'test publishable key', key: o.publishable, weight: 1 },
    ],
    origins: [SHOP],
    bodyLimit: Number(FUZZ_SERVER_ENV.TAWQI_BODY_LIMIT_BYTES),
  };
  return { world, account: a, others: [b.id] };
}
