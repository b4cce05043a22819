/**
 * The authorization matrix (issue 17 point 2): every route × every credential → the answer written
 * in authorization-matrix.table.ts. The first tests fail when the routes served (the API's route
 * registry, the signing page's routers) and the table differ, so a new route cannot ship without a
 * row. Then every cell is played over real HTTP with a request that is valid apart from its
 * credential (real ids of the right mode, a valid body; a fresh object where a success changes it),
 * its status and envelope code checked, and for every refusal: nothing written (row counts and
 * balances the same before and after, and the rows a refused write names).
 */
import assert from 'node:assert/strict';
import { createPrivateKey, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { API_ROUTES } from '../../server/src/http/app.js';
import type { AnyRoute } from '../../server/src/http/routes/registry.js';
import { signingRouter } from '../../server/src/http/signing/router.js';
import { issueKey, revokeKey, rotateKey } from '../../server/src/services/accounts.js';
import { simulateIdentityDecision, startIdentityVerification } from '../../server/src/services/identity.js';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { LINK_PAGE_SESSION_SECONDS, mintPageSession } from '../../server/src/services/signerJourney.js';
import { createWorkflow } from '../../server/src/services/workflows.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import type { ConsoleRole } from '../../server/src/domain/consoleRoles.js';
import { startIdentityProvider, type IdentityProviderPeer } from '../support/identityProvider.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, signedInClient } from '../support/consoleClient.js';
import { assertError } from '../support/envelope.js';
import { sealedRequest } from '../support/installation.js';
import { mountedRoutes } from '../support/mountedRoutes.js';
import { createPkiFixture, type PkiFixture } from '../support/pkiFixture.js';
import { agentCms, b64, type TokenKey } from '../support/qesSoftSigner.js';
import { startTestServer, type CallResult, type TestServer } from '../support/server.js';
import { lastOtp, PageClient, pngDataUrl } from '../support/signing.js';
import {
  API_CREDENTIALS,
  API_MATRIX,
  OUTCOMES,
  PAGE_CREDENTIALS,
  PAGE_MATRIX,
  TICKET_CREDENTIALS,
  TICKET_MATRIX,
  type ApiCredential,
  type Outcome,
  type PageCredential,
  type TicketCredential,
} from './authorization-matrix.table.js';

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
/** A throwaway PKI whose seal certificate stands for a signer's token (the qualified flow). */
let pki: PkiFixture;
let token: TokenKey;
/** The identity provider of live mode (a local peer of the documented protocol). */
let provider: IdentityProviderPeer;
let a: { id: string; keys: Keys };
let b: { id: string; keys: Keys };
let template: string;
/** An Arabic template for the signing page's requests: every answer of the page is then in Arabic. */
let pageTemplate: string;
/** Account A's own workflow (the built-in default one is every account's). */
let flow: string;
const readOnly = {} as Record<Mode, string>;
let revoked: string;
const consoles = new Map<ConsoleRole, ConsoleClient>();

before(async () => {
  provider = await startIdentityProvider();
  pki = createPkiFixture('rsa');
  token = {
    der: pki.seal.der,
    chain: [pki.issuingCa.der, pki.root.der],
    key: createPrivateKey(readFileSync(pki.seal.keyFile)),
    rsa: true,
  };
  s = await startTestServer({
    TAWQI_QES_TRUSTED_ROOTS: pki.caFile,
    ...CONSOLE_TEST_ENV,
    TAWQI_IDENTITY_PROVIDER_URL: provider.url,
    TAWQI_IDENTITY_PROVIDER_KEY: provider.apiKey,
    TAWQI_IDENTITY_CALLBACK_SECRET: provider.callbackSecret,
    // Every cell that may create a request makes a fresh one: far more than a test account's day.
    TAWQI_TEST_DAILY_REQUESTS: '100000',
    TAWQI_TEST_DAILY_EMAILS: '100000',
    TAWQI_PUBLISHABLE_HOURLY_QUOTA: '100000',
    TAWQI_WEBHOOK_ALLOW_PRIVATE: 'true',
    TAWQI_RATE_LIMIT: '100000',
    TAWQI_IP_RATE_LIMIT: '100000',
    TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '100000',
  });
  a = await s.account({ name: 'A Co', ownerEmail: OWNER, plan: 'enterprise', balanceSends: 10_000, walletMinor: 100_000_000 });
  b = await s.account({ name: 'B Co', ownerEmail: 'owner@b.example.com', plan: 'enterprise', balanceSends: 1000, walletMinor: 1_000_000 });
  // The fixture's certificates are valid from the real now: the injected clock starts there.
  s.clock.set(Date.now());
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
  const arabic = await s.call('POST', '/templates', {
    key: a.keys.secret_live,
    body: { title: 'شروط المصفوفة', language: 'ar', body: 'موافق.', fields: [] },
  });
  assert.equal(arabic.status, 201, arabic.text);
  pageTemplate = arabic.body.id;
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
  pki?.close();
});

// ---------------------------------------------------------------------------------------------
// The credentials of the columns

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const secretOf = (mode: Mode) => (mode === 'live' ? a.keys.secret_live : a.keys.secret_test);

/** Made on first use, then the same for every cell (the clock only moves for a call and back). */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** A publishable key of the mode, sent from its allowed origin (the hourly quota is raised for the run). */
const publishable = (mode: Mode) =>
  once(async (): Promise<Credential> => {
    const k = await s.ctx.store.tx((trx) => issueKey(trx, s.clock, a.id, 'publishable', mode, { name: 'shop', allowedOrigins: [SHOP] }));
    return { headers: { ...bearer(k.secret), origin: SHOP }, mode };
  });

/** A secret test key rotated with the default grace: the old secret, used within the grace or 24 h and 1 s on. */
const rotated = (pastGrace: boolean) =>
  once(async (): Promise<Credential> => {
    const old = await s.ctx.store.tx((trx) => issueKey(trx, s.clock, a.id, 'secret', 'test', { name: 'rotating' }));
    await rotateKey(s.ctx.store, s.clock, old.key.id);
    return { headers: bearer(old.secret), mode: 'test', offsetSeconds: pastGrace ? 24 * 3600 + 1 : 0 };
  });

function cookie(role: ConsoleRole): Credential {
  const c = consoles.get(role)!;
  return { headers: { cookie: `tawqi_console=${c.cookie}`, 'x-csrf-token': c.csrf ?? '' }, mode: 'test' };
}

/** The console's internal credential of a user of `role` for the API, test mode. */
const consoleCredential = (role: ConsoleRole) =>
  once(async (): Promise<Credential> => {
    const r = await consoles.get(role)!.call('POST', '/credentials', { body: { livemode: false } });
    assert.equal(r.status, 201, r.text);
    return { headers: bearer(r.body.token), mode: 'test' };
  });

const CREDENTIALS: Record<ApiCredential, () => Credential | Promise<Credential>> = {
  secret_live: () => ({ headers: bearer(a.keys.secret_live), mode: 'live' }),
  secret_test: () => ({ headers: bearer(a.keys.secret_test), mode: 'test' }),
  publishable_live: publishable('live'),
  publishable_test: publishable('test'),
  read_only_live: () => ({ headers: bearer(readOnly.live), mode: 'live' }),
  read_only_test: () => ({ headers: bearer(readOnly.test), mode: 'test' }),
  rotated_in_grace: rotated(false),
  rotated_past_grace: rotated(true),
  revoked: () => ({ headers: bearer(revoked), mode: 'test' }),
  other_account: () => ({ headers: bearer(b.keys.secret_test), mode: 'test' }),
  none: () => ({ headers: {}, mode: 'test' }),
  malformed: () => ({ headers: { authorization: `Bearer sk_test_${'z'.repeat(40)}` }, mode: 'test' }),
  cookie_owner: () => cookie('owner'),
  cookie_admin: () => cookie('admin'),
  cookie_developer: () => cookie('developer'),
  cookie_viewer: () => cookie('viewer'),
  console_owner: consoleCredential('owner'),
  console_admin: consoleCredential('admin'),
  console_developer: consoleCredential('developer'),
  console_viewer: consoleCredential('viewer'),
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

/** Tables whose row count a refused call must leave as it was (no row added or removed). */
const COUNTED = [
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
  'qes_prepared',
] as const;
/** Tables whose rows a call names by id (in its path): those rows must be unchanged too. */
const NAMED = ['signature_requests', 'signers', 'templates', 'webhook_endpoints', 'events', 'identity_verifications', 'workflows'] as const;

/**
 * What a refused call could have written: every table's row count (one query), the accounts
 * (balances), and for a state change the rows of the objects it names, with their signers and
 * session. Equal before and after means nothing was written (cheaper than every row of every
 * table, which grows with every cell; a refused read is held to the counts and balances).
 */
async function snapshot(ids: readonly string[]): Promise<string> {
  const db = s.ctx.store.db;
  const counts = sql.raw(COUNTED.map((t) => `(SELECT COUNT(*) FROM ${t}) AS ${t}`).join(', '));
  const out: unknown[] = [
    (await sql<Record<string, unknown>>`SELECT ${counts}`.execute(db)).rows.map((r) => Object.values(r).map(Number)),
    await db.selectFrom('accounts').selectAll().orderBy('id').execute(),
  ];
  if (ids.length > 0) {
    for (const t of NAMED)
      out.push(
        await db
          .selectFrom(t as 'templates')
          .selectAll()
          .where('id', 'in', ids)
          .execute(),
      );
    out.push(await db.selectFrom('signers').selectAll().where('signature_request_id', 'in', ids).orderBy('id').execute());
    out.push(await db.selectFrom('sessions').selectAll().where('signature_request_id', 'in', ids).execute());
  }
  return JSON.stringify(out);
}

/** The ids a path names (`/signature_requests/sr_…/send` → `sr_…`). */
const idsIn = (path: string) => path.split(/[/?=&]/).filter((part) => /^[a-z]+_[0-9A-Za-z]+$/.test(part));

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
  const ids = route.method === 'get' ? [] : idsIn(call.path);
  const before = expected === 'ok' ? null : await snapshot(ids);
  const r = await later(credential.offsetSeconds ?? 0, () =>
    s.call(route.method.toUpperCase(), call.path, { headers: credential.headers, body: call.body }),
  );
  const got = outcomeOf(route, r);
  if (got === 'ok' && column === 'other_account' && route.access !== 'public') {
    // Account B's key answered with B's own objects: none of A's may be in the answer (a public verification is anyone's).
    const ofA = [
      a.id,
      template,
      flow,
      ...Object.values(await world('test')).flatMap((v) => (typeof v === 'string' ? [v] : [v.id, v.reference])),
    ];
    for (const id of ofA)
      assert.equal(r.text.includes(id), false, `${routeKey(route)} as account B: ${id} of account A in ${r.text.slice(0, 300)}`);
  }
  if (got === expected && expected !== 'ok') {
    assertError(r, OUTCOMES[expected]);
    assert.equal(await snapshot(ids), before, `${routeKey(route)} as ${column}: a refusal wrote something`);
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

// ---------------------------------------------------------------------------------------------
// The signing page's API: page tokens, and the sign tickets of the qualified flow

const nowSeconds = () => Math.floor(s.clock.nowMs() / 1000);

/** A request for the page: test mode, or live for a qualified (token) signature; its signers signing in order. */
async function pageRequest(spec: PageSpec, signers = 1): Promise<{ id: string; signers: { id: string; signing_url: string }[] }> {
  const mode: Mode = spec.qes ? 'live' : 'test';
  const body = {
    title: 'مصفوفة',
    source: { type: 'template', template_id: pageTemplate },
    signers: TEAM.slice(0, signers).map((email, i) => ({ name: ['Amira Saleh', 'Bassem Ali'][i], email, ...spec.signer })),
    ordered: !spec.parallel,
    ...(spec.qes ? { legal_level: 'qes' } : {}),
  };
  return ok(201, 'POST', '/signature_requests', mode, body);
}

async function must(r: Promise<{ status: number; body: unknown }>): Promise<void> {
  const answer = await r;
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
}

/** View, ask for the one-time code and enter it: the step after the code (review, or identity). */
async function pastCode(page: PageClient, signerId: string): Promise<void> {
  await must(page.call('POST', '/view'));
  await must(page.call('POST', '/otp/send'));
  await must(page.call('POST', '/otp/verify', { code: await lastOtp(s, signerId) }));
}

const certificate = () => ({ certificate: b64(token.der), chain: token.chain.map(b64) });

/** Prepare a token signature on a page at review: its ticket and the CMS the agent would return for it. */
async function prepared(page: PageClient): Promise<{ ticket: string; cms: string }> {
  const r = await page.call('POST', '/token/prepare', certificate());
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { ticket: r.body.ticket, cms: b64(agentCms(token, Buffer.from(r.body.digest, 'hex'))) };
}

interface PageSpec {
  qes?: boolean;
  /** Every signer invited at once (the default: in order). */
  parallel?: boolean;
  signer?: Record<string, unknown>;
}
interface PageFixture {
  spec: PageSpec;
  /** Drive the signer's page to the step the route is for; the body a signer would then send. */
  drive: (page: PageClient, signerId: string) => Promise<unknown>;
  /** A body of the right shape for a page that cannot be driven (not the signer's turn). */
  sample?: () => unknown;
}

const ACCESS_CODE = 'K7-matrix';
const PAGE_FIXTURES: Record<string, PageFixture> = {
  'GET /api/state': { spec: {}, drive: async () => undefined },
  'POST /api/view': { spec: {}, drive: async () => undefined },
  'POST /api/access_code': {
    spec: { signer: { access_code: ACCESS_CODE } },
    drive: async () => ({ code: ACCESS_CODE }),
    sample: () => ({ code: ACCESS_CODE }),
  },
  'POST /api/otp/send': { spec: {}, drive: (page) => must(page.call('POST', '/view')) },
  'POST /api/otp/verify': {
    spec: {},
    drive: async (page, signer) => {
      await must(page.call('POST', '/view'));
      await must(page.call('POST', '/otp/send'));
      return { code: await lastOtp(s, signer) };
    },
    sample: () => ({ code: '000000' }),
  },
  'POST /api/sign': {
    spec: {},
    drive: async (page, signer) => {
      await pastCode(page, signer);
      return { signature: pngDataUrl(), consent: true };
    },
    sample: () => ({ signature: pngDataUrl(), consent: true }),
  },
  'POST /api/decline': { spec: {}, drive: async () => ({ reason: 'لا' }), sample: () => ({ reason: 'لا' }) },
  'POST /api/identity/start': {
    spec: { signer: { require_identity: true } },
    drive: async (page, signer) => {
      await pastCode(page, signer);
      return {};
    },
    sample: () => ({}),
  },
  'POST /api/identity/simulate': {
    spec: { signer: { require_identity: true } },
    drive: async (page, signer) => {
      await pastCode(page, signer);
      return { decision: 'approve' };
    },
    sample: () => ({ decision: 'approve' }),
  },
  'POST /api/token/check': {
    spec: { qes: true },
    drive: async (page, signer) => {
      await pastCode(page, signer);
      return { certificates: [certificate()] };
    },
    sample: () => ({ certificates: [certificate()] }),
  },
  'POST /api/token/prepare': {
    spec: { qes: true },
    drive: async (page, signer) => {
      await pastCode(page, signer);
      return certificate();
    },
    sample: certificate,
  },
  'POST /api/token/complete': {
    spec: { qes: true },
    drive: async (page, signer) => {
      await pastCode(page, signer);
      return prepared(page);
    },
    sample: () => ({ cms: b64(randomBytes(64)) }),
  },
};

/** One call of the page API, with this page token (or none). */
async function pageCall(method: string, path: string, pageToken: string | null, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}/sign${path}`, {
    method,
    headers: {
      ...(pageToken === null ? {} : { 'x-tawqi-page-token': pageToken }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // The preview answers an image or a PDF; everything else of the page API is JSON.
  const json = (res.headers.get('content-type') ?? '').includes('application/json');
  const text = json ? await res.text() : `(${res.headers.get('content-type')}, ${(await res.arrayBuffer()).byteLength} bytes)`;
  return { status: res.status, headers: res.headers, text, body: json && text ? JSON.parse(text) : undefined } as CallResult;
}

/** The page token and body of a cell, and how far to move the clock before the call. */
async function pageCredential(
  key: string,
  column: PageCredential,
): Promise<{ pageToken: string | null; body: unknown; offsetSeconds: number; ids: string[] }> {
  const f = PAGE_FIXTURES[key]!;
  // Refused before any page is read: a body of the right shape, no request needed.
  if (column === 'none') return { pageToken: null, body: f.sample?.(), offsetSeconds: 0, ids: [] };
  if (column === 'malformed') return { pageToken: randomBytes(24).toString('base64url'), body: f.sample?.(), offsetSeconds: 0, ids: [] };
  if (column === 'not_turn') {
    const sr = await pageRequest(f.spec, 2);
    // What the second signer's link would mint: its page, before its turn.
    const pageToken = await mintPageSession(s.ctx, sr.signers[1]!.id, 'link', nowSeconds() + LINK_PAGE_SESSION_SECONDS, null);
    return { pageToken, body: f.sample?.(), offsetSeconds: 0, ids: [sr.id] };
  }
  const sr = await pageRequest(f.spec);
  const signer = sr.signers[0]!;
  let url = signer.signing_url;
  let offsetSeconds = column === 'link_expired' ? LINK_PAGE_SESSION_SECONDS + 1 : 0;
  if (column === 'session_expired') {
    const session = await ok(200, 'POST', `/signers/${signer.id}/signing_session`, f.spec.qes ? 'live' : 'test', {
      mode: 'redirect',
      success_url: `${SHOP}/done/{signature_request}`,
    });
    url = session.signing_url;
    offsetSeconds = session.expires_at - nowSeconds() + 1;
  }
  const page = await PageClient.open(url);
  const body = await f.drive(page, signer.id);
  if (column === 'canceled') await ok(200, 'POST', `/signature_requests/${sr.id}/cancel`, f.spec.qes ? 'live' : 'test');
  return { pageToken: page.token, body, offsetSeconds, ids: [sr.id] };
}

/** Call with the clock moved on by `offsetSeconds` for the call alone. */
async function later<T>(offsetSeconds: number, call: () => Promise<T>): Promise<T> {
  const now = s.clock.nowMs();
  if (offsetSeconds) s.clock.set(now + offsetSeconds * 1000);
  try {
    return await call();
  } finally {
    s.clock.set(now);
  }
}

/** A page answer as the table's word; a refusal that matches: its envelope checked and nothing written. */
async function judge(r: CallResult, expected: Outcome, ids: readonly string[], before: string | null): Promise<string> {
  const code = r.body?.error?.code;
  const got =
    r.status === 200 ? 'ok' : (Object.entries(OUTCOMES).find(([, c]) => c === code)?.[0] ?? `${r.status}:${code ?? r.text.slice(0, 80)}`);
  if (got === expected && expected !== 'ok') {
    assertError(r, OUTCOMES[expected]);
    assert.equal(await snapshot(ids), before, 'a refusal wrote something');
  }
  return got;
}

function assertRow<C extends string>(key: string, columns: readonly C[], got: string[], answers: string[]): void {
  assert.deepEqual(
    Object.fromEntries(columns.map((c, i) => [c, got[i]])),
    Object.fromEntries(columns.map((c, i) => [c, answers[i]])),
    `${key}: ${got.join(' ')}`,
  );
}

const methodPath = (key: string) => key.split(' ') as [string, string];

describe('the authorization matrix of the signing page', () => {
  let pageCells = 0;
  test('one row per route of the page API (page token or ticket), none for a route that does not exist', () => {
    const served = mountedRoutes(signingRouter(s.ctx)).filter((k) => methodPath(k)[1].startsWith('/api/'));
    const rows = [...new Set([...Object.keys(PAGE_MATRIX), ...Object.keys(TICKET_MATRIX)])].sort();
    assert.deepEqual(served, rows, 'PAGE_MATRIX and TICKET_MATRIX (authorization-matrix.table.ts) against the routes served');
    for (const [key, row] of Object.entries(PAGE_MATRIX)) assert.equal(parseRow(row).length, PAGE_CREDENTIALS.length, key);
    for (const [key, row] of Object.entries(TICKET_MATRIX)) assert.equal(parseRow(row).length, TICKET_CREDENTIALS.length, key);
    assert.deepEqual(Object.keys(PAGE_FIXTURES).sort(), Object.keys(PAGE_MATRIX).sort(), 'one fixture per row');
  });

  for (const [key, row] of Object.entries(PAGE_MATRIX)) {
    test(`${key}: page tokens`, async () => {
      const [method, path] = methodPath(key);
      const answers = parseRow(row);
      const got: string[] = [];
      for (const [i, column] of PAGE_CREDENTIALS.entries()) {
        const cell = await pageCredential(key, column);
        const before = await snapshot(cell.ids);
        const r = await later(cell.offsetSeconds, () => pageCall(method, path, cell.pageToken, cell.body));
        got.push(await judge(r, answers[i]!, cell.ids, before));
        // A closed or not-yet-open page may answer its state, but nothing but the signer's own page changes anything.
        if (column !== 'own') assert.equal(await snapshot(cell.ids), before, `${key} with a ${column} page token wrote something`);
        pageCells++;
      }
      assertRow(key, PAGE_CREDENTIALS, got, answers);
    });
  }

  /** The reason a refused ticket names (shared/src/agentProtocol.ts, services/qes.ts). */
  const TICKET_REASONS: Partial<Record<TicketCredential, string>> = {
    malformed: 'malformed',
    replayed: 'used',
    other_signer: 'other_signer',
    other_request: 'other_signer',
    expired: 'expired',
  };

  /** A signer at review with a prepared signature, and the ticket of the column. */
  async function ticketCell(column: TicketCredential) {
    const sr = await pageRequest({ qes: true, parallel: true }, 2);
    const signer = sr.signers[0]!;
    const page = await PageClient.open(signer.signing_url);
    await pastCode(page, signer.id);
    const own = await prepared(page);
    let ticket: string | null = own.ticket;
    let offsetSeconds = 0;
    if (column === 'none') ticket = null;
    if (column === 'malformed') ticket = 'not-a-ticket';
    if (column === 'expired') offsetSeconds = 301;
    if (column === 'replayed') {
      // Signed with it; the replay comes from the signer's link opened again.
      await must(page.call('POST', '/token/complete', own));
      return { page: await PageClient.open(signer.signing_url), ticket, cms: own.cms, offsetSeconds, ids: [sr.id] };
    }
    if (column === 'other_signer' || column === 'other_request') {
      // Another signer at review: the second one of this request, or the first of another request.
      const other = column === 'other_request' ? (await pageRequest({ qes: true })).signers[0]! : sr.signers[1]!;
      const otherPage = await PageClient.open(other.signing_url);
      await pastCode(otherPage, other.id);
      const theirs = await prepared(otherPage);
      return { page, ticket: theirs.ticket, cms: theirs.cms, offsetSeconds, ids: [sr.id] };
    }
    return { page, ticket, cms: own.cms, offsetSeconds, ids: [sr.id] };
  }

  for (const [key, row] of Object.entries(TICKET_MATRIX)) {
    test(`${key}: sign tickets`, async () => {
      const [method, path] = methodPath(key);
      const answers = parseRow(row);
      const got: string[] = [];
      for (const [i, column] of TICKET_CREDENTIALS.entries()) {
        const cell = await ticketCell(column);
        const before = answers[i] === 'ok' ? null : await snapshot(cell.ids);
        const r = await later(cell.offsetSeconds, () =>
          method === 'GET'
            ? pageCall(method, path, null, undefined, cell.ticket === null ? {} : { authorization: `Bearer ${cell.ticket}` })
            : pageCall(method, path, cell.page.token, cell.ticket === null ? { cms: cell.cms } : { cms: cell.cms, ticket: cell.ticket }),
        );
        got.push(await judge(r, answers[i]!, cell.ids, before));
        if (answers[i] === 'ticket' && got[i] === 'ticket' && TICKET_REASONS[column])
          assert.equal(r.body.error.reason, TICKET_REASONS[column], `${key} with a ${column} ticket: ${r.text}`);
        pageCells++;
      }
      assertRow(key, TICKET_CREDENTIALS, got, answers);
    });
  }

  after(
    () => pageCells > 0 && console.log(`authorization matrix: signing page, ${pageCells} cells checked (page tokens and sign tickets)`),
  );
});
