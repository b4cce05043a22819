/**
 * The authorization matrix (issue 17 point 2): every route × every credential → the answer written
 * in authorization-matrix.table.ts. The first tests fail when the routes served (the API's route
 * registry, the signing page's routers) and the table differ, so a new route cannot ship without a
 * row. Then every cell is played over real HTTP with a request that is valid apart from its
 * credential (real ids of the right mode, a valid body; a fresh object where a success changes it),
 * its status and envelope code checked, and for every refusal: nothing written (the account
 * tables are the same before and after).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { API_ROUTES } from '../../server/src/http/app.js';
import type { AnyRoute } from '../../server/src/http/routes/registry.js';
import { issueKey, revokeKey, rotateKey } from '../../server/src/services/accounts.js';
import { simulateIdentityDecision, startIdentityVerification } from '../../server/src/services/identity.js';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { createWorkflow } from '../../server/src/services/workflows.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import type { ConsoleRole } from '../../server/src/domain/consoleRoles.js';
import { startIdentityProvider, type IdentityProviderPeer } from '../support/identityProvider.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, signedInClient } from '../support/consoleClient.js';
import { assertError } from '../support/envelope.js';
import { sealedRequest } from '../support/installation.js';
import { startTestServer, type CallResult, type TestServer } from '../support/server.js';
import { API_CREDENTIALS, API_MATRIX, OUTCOMES, type ApiCredential, type Outcome } from './authorization-matrix.table.js';

type Mode = 'live' | 'test';
type Keys = TestServer['keys'];
/** A request of a cell: its path with real ids and the body a permitted caller would send. */
interface Call {
  path: string;
  body?: unknown;
}
/** What a credential adds to a request, the mode of the objects it should find, and how far to move the clock for it. */
interface Credential {
  headers: Record<string, string>;
  mode: Mode;
  offsetSeconds?: number;
}

const OWNER = 'owner@example.com';
const TEAM = [OWNER, 'second@example.com'];
const SHOP = 'https://shop.example.com';
const WHERE = { ip: '198.51.100.7', user_agent: 'authorization-matrix' };
const ROLES: ConsoleRole[] = ['owner', 'admin', 'developer', 'viewer'];
const roleEmail = (role: ConsoleRole) => `${role}@a.example.com`;
const routeKey = (r: AnyRoute) => `${r.method.toUpperCase()} ${r.path}`;
const parseRow = (row: string) => row.trim().split(/\s+/) as Outcome[];

let s: TestServer;
/** The identity provider of live mode (a local peer of the documented protocol). */
let provider: IdentityProviderPeer;
let a: { id: string; keys: Keys };
let b: { id: string; keys: Keys };
let template: string;
/** Account A's own workflow (the built-in default one is every account's). */
let flow: string;
const readOnly = {} as Record<Mode, string>;
let revoked: string;
const consoles = new Map<ConsoleRole, ConsoleClient>();

before(async () => {
  provider = await startIdentityProvider();
  s = await startTestServer({
    ...CONSOLE_TEST_ENV,
    TAWQI_IDENTITY_PROVIDER_URL: provider.url,
    TAWQI_IDENTITY_PROVIDER_KEY: provider.apiKey,
    TAWQI_IDENTITY_CALLBACK_SECRET: provider.callbackSecret,
    // Every cell that may create a request makes a fresh one: far more than a test account's day.
    TAWQI_TEST_DAILY_REQUESTS: '100000',
    TAWQI_TEST_DAILY_EMAILS: '100000',
    TAWQI_WEBHOOK_ALLOW_PRIVATE: 'true',
    TAWQI_RATE_LIMIT: '100000',
    TAWQI_IP_RATE_LIMIT: '100000',
    TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '100000',
  });
  a = await s.account({ name: 'A Co', ownerEmail: OWNER, plan: 'enterprise', balanceSends: 10_000, walletMinor: 100_000_000 });
  b = await s.account({ name: 'B Co', ownerEmail: 'owner@b.example.com', plan: 'enterprise', balanceSends: 1000, walletMinor: 1_000_000 });
  provider.now = () => Math.floor(s.clock.nowMs() / 1000);
  // B may send to A's signers and shop too, so B's requests naming A's objects fail on the objects alone.
  for (const id of [a.id, b.id])
    await s.ctx.store.tx((trx) => updateAccount(trx, id, { team_emails: TEAM, accepted_domains: ['shop.example.com'] }));
  flow = (await createWorkflow(s.ctx.store, s.clock, a.id, 'A flow', { expires_in: 5 }, true)).workflow.id;
  for (const mode of ['live', 'test'] as const) {
    readOnly[mode] = (
      await s.ctx.store.tx((trx) => issueKey(trx, s.clock, a.id, 'secret', mode, { name: 'reader', readOnly: true }))
    ).secret;
  }
  const gone = await s.ctx.store.tx((trx) => issueKey(trx, s.clock, a.id, 'secret', 'test', { name: 'gone' }));
  await revokeKey(s.ctx.store, s.clock, gone.key.id);
  revoked = gone.secret;
  for (const role of ROLES) {
    await consoleUser(s, a.id, roleEmail(role), role);
    consoles.set(role, await signedInClient(s, roleEmail(role), 'en'));
  }
  const tpl = await s.call('POST', '/templates', {
    key: a.keys.secret_live,
    body: { title: 'Matrix terms', language: 'en', body: 'Agreed.', fields: [] },
  });
  assert.equal(tpl.status, 201, tpl.text);
  template = tpl.body.id;
});
after(async () => {
  await s?.close();
  await provider?.close();
});

// ---------------------------------------------------------------------------------------------
// The credentials of the columns

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const secretOf = (mode: Mode) => (mode === 'live' ? a.keys.secret_live : a.keys.secret_test);

/** A fresh publishable key (its hourly quota and daily cap are its own), sent from its allowed origin. */
async function publishable(mode: Mode): Promise<Credential> {
  const k = await s.ctx.store.tx((trx) => issueKey(trx, s.clock, a.id, 'publishable', mode, { name: 'shop', allowedOrigins: [SHOP] }));
  return { headers: { ...bearer(k.secret), origin: SHOP }, mode };
}

/** A secret test key rotated now with the default grace: the old secret, optionally used past the grace. */
async function rotated(pastGrace: boolean): Promise<Credential> {
  const old = await s.ctx.store.tx((trx) => issueKey(trx, s.clock, a.id, 'secret', 'test', { name: 'rotating' }));
  await rotateKey(s.ctx.store, s.clock, old.key.id);
  return { headers: bearer(old.secret), mode: 'test', offsetSeconds: pastGrace ? 24 * 3600 + 1 : 0 };
}

function cookie(role: ConsoleRole): Credential {
  const c = consoles.get(role)!;
  return { headers: { cookie: `tawqi_console=${c.cookie}`, 'x-csrf-token': c.csrf ?? '' }, mode: 'test' };
}

/** The console's internal credential of a user of `role` for the API, test mode. */
async function consoleCredential(role: ConsoleRole): Promise<Credential> {
  const r = await consoles.get(role)!.call('POST', '/credentials', { body: { livemode: false } });
  assert.equal(r.status, 201, r.text);
  return { headers: bearer(r.body.token), mode: 'test' };
}

const CREDENTIALS: Record<ApiCredential, () => Credential | Promise<Credential>> = {
  secret_live: () => ({ headers: bearer(a.keys.secret_live), mode: 'live' }),
  secret_test: () => ({ headers: bearer(a.keys.secret_test), mode: 'test' }),
  publishable_live: () => publishable('live'),
  publishable_test: () => publishable('test'),
  read_only_live: () => ({ headers: bearer(readOnly.live), mode: 'live' }),
  read_only_test: () => ({ headers: bearer(readOnly.test), mode: 'test' }),
  rotated_in_grace: () => rotated(false),
  rotated_past_grace: () => rotated(true),
  revoked: () => ({ headers: bearer(revoked), mode: 'test' }),
  other_account: () => ({ headers: bearer(b.keys.secret_test), mode: 'test' }),
  none: () => ({ headers: {}, mode: 'test' }),
  malformed: () => ({ headers: { authorization: `Bearer sk_test_${'z'.repeat(40)}` }, mode: 'test' }),
  cookie_owner: () => cookie('owner'),
  cookie_admin: () => cookie('admin'),
  cookie_developer: () => cookie('developer'),
  cookie_viewer: () => cookie('viewer'),
  console_owner: () => consoleCredential('owner'),
  console_admin: () => consoleCredential('admin'),
  console_developer: () => consoleCredential('developer'),
  console_viewer: () => consoleCredential('viewer'),
};

// ---------------------------------------------------------------------------------------------
// Account A's objects, by mode: made with A's secret key of that mode

async function ok(status: number, method: string, path: string, mode: Mode, body?: unknown): Promise<CallResult['body']> {
  const r = await s.call(method, path, { key: secretOf(mode), body });
  assert.equal(r.status, status, `fixture ${method} ${path}: ${r.text.slice(0, 400)}`);
  return r.body;
}

const requestBody = (extra: Record<string, unknown> = {}) => ({
  title: 'Matrix',
  source: { type: 'template', template_id: template },
  signers: [{ name: 'Amira Saleh', email: OWNER }],
  ...extra,
});
const newRequest = (mode: Mode, extra: Record<string, unknown> = {}) => ok(201, 'POST', '/signature_requests', mode, requestBody(extra));

/** A signer held on a name mismatch, with its identity verification. */
async function heldSigner(mode: Mode): Promise<{ signer: string; verification: string }> {
  const sr = await newRequest(mode, { legal_level: 'aes' });
  const signer = sr.signers[0].id as string;
  await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signer, 'otp_verified', WHERE));
  const started = await startIdentityVerification(s.ctx, signer);
  if (mode === 'test') await simulateIdentityDecision(s.ctx, started.verificationId, 'approve', { documentName: 'Someone Else' });
  else {
    const r = await provider.callback(started.verificationId, 'approved', { document: { name: 'Someone Else', type: 'passport' } });
    assert.equal(r.status, 200, r.text);
  }
  return { signer, verification: started.verificationId };
}

interface Shared {
  request: string;
  signer: string;
  sealed: { id: string; reference: string };
  event: string;
  endpoint: string;
  verification: string;
  session: string;
}

/** The objects reads and repeatable writes use, made once per mode. */
const shared = new Map<Mode, Promise<Shared>>();
function world(mode: Mode): Promise<Shared> {
  let w = shared.get(mode);
  if (!w) {
    w = (async () => {
      const sr = await newRequest(mode);
      const sealed = await sealedRequest(s, secretOf(mode), template);
      const endpoint = await ok(201, 'POST', '/webhook_endpoints', mode, { url: 'https://127.0.0.1:9/hook', enabled_events: ['*'] });
      const events = await ok(200, 'GET', '/events?limit=1', mode);
      const session = await ok(201, 'POST', '/sessions', mode, {
        workflow_id: 'default',
        template_id: template,
        signers: [{ name: 'Amira Saleh', email: OWNER }],
      });
      return {
        request: sr.id,
        signer: sr.signers[0].id,
        sealed,
        event: events.data[0].id,
        endpoint: endpoint.id,
        verification: (await heldSigner(mode)).verification,
        session: session.id,
      };
    })();
    shared.set(mode, w);
  }
  return w;
}

/** A request with the signer's identity to check, for the identity test helper. */
const identitySigner = async (mode: Mode) =>
  (await newRequest(mode, { signers: [{ name: 'Amira Saleh', email: OWNER, require_identity: true }] })).signers[0].id as string;

/**
 * One fixture per route: the request a permitted caller would make, with account A's objects of
 * the credential's mode. Routes whose success changes their object get a fresh one per cell.
 */
const FIXTURES: Record<string, (mode: Mode) => Promise<Call>> = {
  'GET /': async () => ({ path: '/' }),
  'GET /usage': async () => ({ path: '/usage' }),
  'GET /balance': async () => ({ path: '/balance' }),
  'GET /templates': async () => ({ path: '/templates?scope=all&limit=5' }),
  'POST /templates': async () => ({ path: '/templates', body: { title: `Terms ${uniq()}`, language: 'en', body: 'Agreed.', fields: [] } }),
  'GET /templates/:id': async () => ({ path: `/templates/${template}` }),
  'POST /signature_requests': async () => ({ path: '/signature_requests', body: requestBody() }),
  'GET /signature_requests': async () => ({ path: '/signature_requests?limit=3' }),
  'GET /signature_requests/:id': async (m) => ({ path: `/signature_requests/${(await world(m)).request}` }),
  'POST /signature_requests/:id/send': async (m) => ({ path: `/signature_requests/${(await newRequest(m, { send: false })).id}/send` }),
  'POST /signature_requests/:id/cancel': async (m) => ({ path: `/signature_requests/${(await newRequest(m)).id}/cancel` }),
  'POST /signature_requests/:id/reminders': async (m) => ({ path: `/signature_requests/${(await newRequest(m)).id}/reminders`, body: {} }),
  'GET /signers': async (m) => ({ path: `/signers?signature_request=${(await world(m)).request}` }),
  'GET /signers/:id': async (m) => ({ path: `/signers/${(await world(m)).signer}` }),
  'POST /signers/:id/signing_session': async (m) => ({
    path: `/signers/${(await world(m)).signer}/signing_session`,
    body: { mode: 'redirect', success_url: `${SHOP}/done/{signature_request}` },
  }),
  'GET /events': async () => ({ path: '/events?limit=3' }),
  'GET /events/:id': async (m) => ({ path: `/events/${(await world(m)).event}` }),
  'POST /events/:id/redeliver': async (m) => {
    const w = await world(m);
    return { path: `/events/${w.event}/redeliver`, body: { endpoint: w.endpoint } };
  },
  'GET /events/:id/deliveries': async (m) => ({ path: `/events/${(await world(m)).event}/deliveries` }),
  'GET /signature_requests/:id/download': async (m) => ({ path: `/signature_requests/${(await world(m)).sealed.id}/download` }),
  'GET /signature_requests/:id/download/pdf': async (m) => ({ path: `/signature_requests/${(await world(m)).sealed.id}/download/pdf` }),
  'GET /signature_requests/:id/document': async (m) => ({ path: `/signature_requests/${(await world(m)).sealed.id}/document` }),
  'GET /signature_requests/:id/certificate': async (m) => ({ path: `/signature_requests/${(await world(m)).sealed.id}/certificate` }),
  'GET /signature_requests/:id/evidence': async (m) => ({ path: `/signature_requests/${(await world(m)).sealed.id}/evidence` }),
  'GET /verifications/:reference': async (m) => ({ path: `/verifications/${(await world(m)).sealed.reference}` }),
  'GET /identity_verifications/:id': async (m) => ({ path: `/identity_verifications/${(await world(m)).verification}` }),
  'POST /signers/:id/identity_match': async (m) => ({
    path: `/signers/${(await heldSigner(m)).signer}/identity_match`,
    body: { decision: 'approve' },
  }),
  'POST /webhook_endpoints': async () => ({ path: '/webhook_endpoints', body: { url: 'https://127.0.0.1:9/hook', enabled_events: ['*'] } }),
  'GET /webhook_endpoints': async () => ({ path: '/webhook_endpoints' }),
  'GET /webhook_endpoints/:id': async (m) => ({ path: `/webhook_endpoints/${(await world(m)).endpoint}` }),
  'POST /webhook_endpoints/:id': async (m) => ({
    path: `/webhook_endpoints/${(await world(m)).endpoint}`,
    body: { description: 'orders' },
  }),
  'DELETE /webhook_endpoints/:id': async (m) => ({
    path: `/webhook_endpoints/${(await ok(201, 'POST', '/webhook_endpoints', m, { url: 'https://127.0.0.1:9/gone', enabled_events: ['*'] })).id}`,
  }),
  'GET /flows': async () => ({ path: '/flows' }),
  'GET /flows/:id': async () => ({ path: `/flows/${flow}` }),
  'POST /sessions': async () => ({
    path: '/sessions',
    body: { workflow_id: 'default', template_id: template, signers: [{ name: 'Amira Saleh', email: OWNER }] },
  }),
  'GET /sessions': async () => ({ path: '/sessions?limit=3' }),
  'GET /sessions/:id': async (m) => ({ path: `/sessions/${(await world(m)).session}` }),
  'POST /signature_requests/bulk': async () => ({
    path: '/signature_requests/bulk',
    body: { title: 'Notice', source: { type: 'template', template_id: template }, recipients: [{ name: 'Amira', email: OWNER }] },
  }),
  'POST /test_helpers/signers/:id/verify_otp': async (m) => ({
    path: `/test_helpers/signers/${(await newRequest(m)).signers[0].id}/verify_otp`,
  }),
  'POST /test_helpers/signers/:id/identity': async (m) => ({
    path: `/test_helpers/signers/${await identitySigner(m)}/identity`,
    body: { decision: 'approve' },
  }),
  'POST /test_helpers/signers/:id/sign': async (m) => ({ path: `/test_helpers/signers/${(await newRequest(m)).signers[0].id}/sign` }),
};
let counter = 0;
const uniq = () => `${Date.now().toString(36)}-${++counter}`;

// ---------------------------------------------------------------------------------------------
// Checks

/** Every row of the tables an API call could change, sorted: equal before and after means nothing was written. */
async function snapshot(): Promise<string> {
  const db = s.ctx.store.db;
  const tables = [
    'accounts',
    'signature_requests',
    'signers',
    'templates',
    'webhook_endpoints',
    'webhook_deliveries',
    'events',
    'sessions',
    'signing_sessions',
    'identity_verifications',
    'ledger',
    'workflows',
  ] as const;
  const out: string[][] = [];
  for (const t of tables)
    out.push(
      (
        await db
          .selectFrom(t as 'templates')
          .selectAll()
          .execute()
      )
        .map((r) => JSON.stringify(r))
        .sort(),
    );
  return JSON.stringify(out);
}

/** The answer a cell got, as the table's word for it (or the raw status and code when it is none of them). */
function outcomeOf(route: AnyRoute, r: CallResult): string {
  if (r.status === route.status) return 'ok';
  const code = r.body?.error?.code;
  const word = Object.entries(OUTCOMES).find(([, c]) => c === code)?.[0];
  return word ?? `${r.status}:${code ?? r.text.slice(0, 80)}`;
}

/** Play one cell; its answer as a word of the table. A refusal that matches is checked further: its envelope, and nothing written. */
async function playCell(route: AnyRoute, column: ApiCredential, expected: Outcome): Promise<string> {
  const credential = await CREDENTIALS[column]();
  const call = await FIXTURES[routeKey(route)]!(credential.mode);
  const before = expected === 'ok' ? null : await snapshot();
  const now = s.clock.nowMs();
  if (credential.offsetSeconds) s.clock.set(now + credential.offsetSeconds * 1000);
  let r: CallResult;
  try {
    r = await s.call(route.method.toUpperCase(), call.path, { headers: credential.headers, body: call.body });
  } finally {
    s.clock.set(now);
  }
  const got = outcomeOf(route, r);
  if (got === 'ok' && column === 'other_account' && route.access !== 'public') {
    // Account B's key answered with B's own objects: none of A's may be in the answer (a public verification is anyone's).
    const ids = [
      a.id,
      template,
      flow,
      ...Object.values(await world('test')).flatMap((v) => (typeof v === 'string' ? [v] : [v.id, v.reference])),
    ];
    for (const id of ids)
      assert.equal(r.text.includes(id), false, `${routeKey(route)} as account B: ${id} of account A in ${r.text.slice(0, 300)}`);
  }
  if (got === expected && expected !== 'ok') {
    assertError(r, OUTCOMES[expected]);
    assert.equal(await snapshot(), before, `${routeKey(route)} as ${column}: a refusal wrote something`);
  }
  return got;
}

describe('the authorization matrix of the public API', () => {
  test('one row per route of the registry, none for a route that does not exist, one answer per credential, one fixture per row', () => {
    const served = API_ROUTES.map(routeKey).sort();
    const rows = Object.keys(API_MATRIX).sort();
    assert.deepEqual(
      served.filter((k) => !rows.includes(k)),
      [],
      'routes without a row in API_MATRIX (authorization-matrix.table.ts)',
    );
    assert.deepEqual(
      rows.filter((k) => !served.includes(k)),
      [],
      'rows in API_MATRIX for routes that do not exist',
    );
    for (const [key, row] of Object.entries(API_MATRIX)) {
      const answers = parseRow(row);
      assert.equal(answers.length, API_CREDENTIALS.length, `${key}: one answer per credential`);
      for (const w of answers) assert.ok(w === 'ok' || w in OUTCOMES, `${key}: unknown answer ${w}`);
    }
    assert.deepEqual(Object.keys(FIXTURES).sort(), rows, 'one fixture per row');
  });

  let cells = 0;
  for (const route of API_ROUTES) {
    const key = routeKey(route);
    test(`${key} (${route.access})`, async () => {
      const row = API_MATRIX[key];
      assert.ok(row, `no row for ${key}`);
      const answers = parseRow(row);
      const got: string[] = [];
      for (const [i, column] of API_CREDENTIALS.entries()) {
        got.push(await playCell(route, column, answers[i]!));
        cells++;
      }
      // The whole row at once, in the table's words, so a difference reads column by column.
      assert.deepEqual(
        Object.fromEntries(API_CREDENTIALS.map((c, i) => [c, got[i]])),
        Object.fromEntries(API_CREDENTIALS.map((c, i) => [c, answers[i]])),
        `${key}: ${got.join(' ')}`,
      );
    });
  }
  after(() =>
    console.log(`authorization matrix: ${API_ROUTES.length} API routes × ${API_CREDENTIALS.length} credentials = ${cells} cells checked`),
  );
});
