/**
 * Console authorization, route by route (issue 15 point 7). ROUTES below holds one row per route
 * of /console/api: who may call it (public, any signed-in user, the second-factor step, or a
 * permission of domain/consoleRoles.ts) and, for a route naming an object, which kind of object
 * and a body a permitted caller would send. The first test fails when the console's route
 * registry (server/src/http/console/api/routes.ts) and this table differ, so a new route cannot
 * ship without its row. Then, for every route over real HTTP: no session → 401; a state change
 * without the CSRF token or from another origin → 403 csrf_failed; each role allowed or
 * 403 forbidden as its permissions say; account A's owner on account B's objects → 404 and
 * nothing of B's changed. And the internal credential on the public API: a viewer's is refused
 * every write, account A's finds none of account B's objects, and every write it makes (POST
 * /sessions included) is in the audit log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CONSOLE_ROLES, hasPermission, type ConsoleRole } from '../../server/src/domain/consoleRoles.js';
import { API_ROUTES } from '../../server/src/http/app.js';
import { consoleApiRouter, consoleApiRoutes } from '../../server/src/http/console/index.js';
import type { ConsoleAccess } from '../../server/src/http/console/api/routes.js';
import { enableTwoFactor } from '../../server/src/services/consoleUsers.js';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { createWorkflow } from '../../server/src/services/workflows.js';
import { assertError } from '../support/envelope.js';
import { mountedRoutes } from '../support/mountedRoutes.js';
import { NDA_FIELDS } from '../support/ndaFields.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD, type ConsoleAnswer } from '../support/consoleClient.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** The kind of account object a route's `:id` names (account B's is tried by account A). */
type ObjectKind = 'user' | 'key' | 'endpoint' | 'document' | 'workflow' | 'template';

interface Row {
  access: ConsoleAccess;
  /** For a route with `:id`: the object it names. */
  id?: ObjectKind;
  /** A body a permitted caller would send, so a refusal is the object's lookup, not the body's check. */
  body?: Record<string, unknown>;
}

/**
 * One row per console API route. Adding a route: add its row here with the access it declares in
 * its router (and, if it names an object, the object's kind and a valid body); the tests below
 * then check it over HTTP.
 */
const ROUTES: Record<string, Row> = {
  'POST /sign_in': { access: 'public' },
  'POST /sign_in/two_factor': { access: 'pending' },
  'GET /session': { access: 'session' },
  'POST /sign_out': { access: 'session' },
  'POST /sign_out_everywhere': { access: 'session' },
  'GET /audit_log': { access: 'audit.read' },
  'GET /two_factor': { access: 'session' },
  'POST /two_factor/setup': { access: 'session' },
  'POST /two_factor/confirm': { access: 'session' },
  'POST /two_factor/disable': { access: 'session' },
  'POST /two_factor/recovery_codes': { access: 'session' },
  'POST /password_reset': { access: 'public' },
  'POST /password_reset/confirm': { access: 'public' },
  'POST /password': { access: 'session' },
  'GET /users': { access: 'users.read' },
  'POST /users/invitations': { access: 'users.manage' },
  'PATCH /users/:id': { access: 'users.manage', id: 'user', body: { role: 'viewer' } },
  'DELETE /users/:id': { access: 'users.manage', id: 'user' },
  'POST /invitations/lookup': { access: 'public' },
  'POST /invitations/accept': { access: 'public' },
  'POST /credentials': { access: 'requests.read' },
  'GET /keys': { access: 'developers.manage' },
  'POST /keys': { access: 'developers.manage' },
  'POST /keys/:id/rotate': { access: 'developers.manage', id: 'key', body: { expire: 'now' } },
  'POST /keys/:id/revoke': { access: 'developers.manage', id: 'key', body: {} },
  'PATCH /keys/:id': { access: 'developers.manage', id: 'key', body: { name: 'Taken over', allowed_ips: ['203.0.113.9'] } },
  'POST /webhook_endpoints/:id/rotate_secret': { access: 'developers.manage', id: 'endpoint', body: { overlap_hours: 0 } },
  'POST /webhook_endpoints/:id/test': { access: 'developers.manage', id: 'endpoint', body: {} },
  'GET /webhook_endpoints/:id/deliveries': { access: 'requests.read', id: 'endpoint' },
  'GET /request_log': { access: 'requests.read' },
  'GET /version_pin': { access: 'requests.read' },
  'PUT /version_pin': { access: 'developers.manage' },
  'GET /identity_reviews': { access: 'requests.read' },
  'GET /branding': { access: 'branding.manage' },
  'PUT /branding': { access: 'branding.manage' },
  'PUT /branding/logo': { access: 'branding.manage' },
  'GET /branding/custom_domain': { access: 'branding.manage' },
  'GET /billing': { access: 'billing.read' },
  'GET /billing/ledger': { access: 'billing.read' },
  'GET /billing/usage': { access: 'billing.read' },
  'GET /billing/prices': { access: 'billing.read' },
  'GET /billing/notices': { access: 'billing.read' },
  'GET /company_verification': { access: 'account' },
  'POST /company_verification/documents': { access: 'company.verify' },
  'GET /company_verification/documents/:id': { access: 'company.verify', id: 'document' },
  'DELETE /company_verification/documents/:id': { access: 'company.verify', id: 'document' },
  'POST /company_verification/representative': { access: 'company.verify' },
  'POST /company_verification/submit': { access: 'company.verify' },
  'PUT /templates/:id': { access: 'requests.write', id: 'template', body: { title: 'Taken over', body: 'Changed.' } },
  'POST /templates/:id/duplicate': { access: 'requests.write', id: 'template', body: {} },
  'POST /templates/:id/archive': { access: 'requests.write', id: 'template', body: {} },
  'POST /template_preview': { access: 'requests.read' },
  // The operator's admin: installation-wide (every account's objects), so no account-B row applies.
  'GET /admin/status': { access: 'operator' },
  'GET /admin/accounts': { access: 'operator' },
  'GET /admin/accounts/:id': { access: 'operator' },
  'PATCH /admin/accounts/:id': { access: 'operator' },
  'POST /admin/accounts/:id/wallet_topups': { access: 'operator' },
  'POST /admin/accounts/:id/sends': { access: 'operator' },
  'GET /admin/accounts/:id/ledger': { access: 'operator' },
  'GET /admin/company_verifications': { access: 'operator' },
  'GET /admin/company_verifications/:id': { access: 'operator' },
  'GET /admin/company_verifications/:id/documents/:document_id': { access: 'operator' },
  'POST /admin/company_verifications/:id/approve': { access: 'operator' },
  'POST /admin/company_verifications/:id/reject': { access: 'operator' },
  'GET /admin/audit_log': { access: 'operator' },
  'GET /workflows': { access: 'requests.read' },
  'GET /workflows/:id': { access: 'requests.read', id: 'workflow' },
  'POST /workflows': { access: 'requests.write' },
  'PATCH /workflows/:id': { access: 'requests.write', id: 'workflow', body: { name: 'Taken over', expires_in: 3 } },
  'POST /workflows/:id/publish': { access: 'requests.write', id: 'workflow', body: {} },
  'POST /workflows/:id/archive': { access: 'requests.write', id: 'workflow', body: {} },
};

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
const FOREIGN = 'https://evil.example';
const methodOf = (key: string) => key.split(' ')[0]!;
const pathOf = (key: string) => key.split(' ')[1]!;
/** The path with every parameter filled: `ids` for the named kind, a made-up value otherwise. */
const fill = (key: string, id = 'nonexistent0000') => pathOf(key).replace(/:[a-z_]+/g, id);

let s: TestServer;
let a: { id: string; keys: TestServer['keys'] };
let b: { id: string; keys: TestServer['keys'] };
const ROLE_EMAIL = (role: ConsoleRole) => `${role}@a.example.com`;
const TWO_FACTOR_EMAIL = 'second@a.example.com';
const B_OWNER = 'owner@b.example.com';
/** An operator of the installation (no account): the admin routes only. */
const OPERATOR = 'ops@tawqi.example';
/** Account B's objects, by kind, that account A's users try. */
const bIds = {} as Record<ObjectKind, string>;
let bRequest: { id: string; signer: string; template: string; event: string };

before(async () => {
  s = await startTestServer({
    ...CONSOLE_TEST_ENV,
    TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '100000',
    TAWQI_CONSOLE_SIGN_IN_EMAIL_LIMIT: '100000',
    TAWQI_IP_RATE_LIMIT: '100000',
    TAWQI_RATE_LIMIT: '100000',
  });
  a = await s.account({ name: 'A Co', ownerEmail: ROLE_EMAIL('owner'), walletMinor: 100_000 });
  // Not yet verified, so its owner can upload a company document (account A's try at it below).
  b = await s.account({ name: 'B Co', ownerEmail: B_OWNER, walletMinor: 100_000, kyb: 'none' });
  for (const role of CONSOLE_ROLES) await consoleUser(s, a.id, ROLE_EMAIL(role), role);
  const second = await consoleUser(s, a.id, TWO_FACTOR_EMAIL, 'viewer');
  await enableTwoFactor(s.ctx.store, s.clock, s.ctx.secrets.consoleKey, second, new Uint8Array(20).fill(7), null);

  await consoleUser(s, null, OPERATOR, 'operator');
  await consoleUser(s, b.id, B_OWNER, 'owner');
  bIds.user = (await consoleUser(s, b.id, 'dev@b.example.com', 'developer')).id;
  const bOwner = await signedIn(B_OWNER);
  const key = await bOwner.call('POST', '/keys', { body: { type: 'secret', mode: 'test', name: 'B key' } });
  assert.equal(key.status, 201, key.text);
  bIds.key = key.body.id;
  const { endpoint } = await s.ctx.store.tx((trx) =>
    createEndpoint(trx, s.clock, {
      accountId: b.id,
      livemode: false,
      url: 'https://hooks.b.example.com/tawqi',
      enabledEvents: ['*'],
      description: null,
      via: 'api',
    }),
  );
  bIds.endpoint = endpoint.id;
  bIds.workflow = (await createWorkflow(s.ctx.store, s.clock, b.id, 'B flow', { expires_in: 5 }, true)).workflow.id;
  const pdf = await fetch(`${s.url}/console/api/company_verification/documents?file_name=register.pdf`, {
    method: 'POST',
    headers: { cookie: `tawqi_console=${bOwner.cookie}`, 'x-csrf-token': bOwner.csrf!, 'content-type': 'application/pdf' },
    body: Buffer.from('%PDF-1.4\n%B only\n%%EOF\n'),
  });
  assert.equal(pdf.status, 201, await pdf.clone().text());
  bIds.document = ((await pdf.json()) as { id: string }).id;
  const tpl = await s.call('POST', '/templates', { key: b.keys.secret_test, body: { title: 'B terms', body: 'Terms of B.' } });
  assert.equal(tpl.status, 201, tpl.text);
  bIds.template = tpl.body.id;
  const req = await s.call('POST', '/signature_requests', {
    key: b.keys.secret_test,
    body: {
      title: 'B only',
      source: { type: 'template', template_id: 'tpl_nda_ar' },
      signers: [{ name: 'B', email: B_OWNER, fields: NDA_FIELDS }],
    },
  });
  assert.equal(req.status, 201, req.text);
  const events = await s.call('GET', '/events?limit=1', { key: b.keys.secret_test });
  assert.equal(events.status, 200, events.text);
  bRequest = { id: req.body.id, signer: req.body.signers[0].id, template: tpl.body.id, event: events.body.data[0].id };
});
after(() => s.close());

async function signedIn(email: string): Promise<ConsoleClient> {
  const c = new ConsoleClient(s.url, 'en');
  const r = await c.signIn(email, TEST_PASSWORD);
  assert.equal(r.status, 200, r.text);
  return c;
}

/** Every row of account B's, in the tables a console or API call could change, sorted: equal before and after means nothing changed. */
async function snapshotOfB(): Promise<string> {
  const db = s.ctx.store.db;
  const byAccount = [
    'console_users',
    'api_keys',
    'webhook_endpoints',
    'signature_requests',
    'templates',
    'events',
    'messages',
    'audit_log',
    'identity_verifications',
    'console_credentials',
    'company_documents',
    'workflows',
  ] as const;
  const tables: Record<string, unknown[]> = {};
  for (const t of byAccount)
    tables[t] = await db
      .selectFrom(t as 'api_keys')
      .selectAll()
      .where('account_id', '=', b.id)
      .execute();
  const userIds = (tables.console_users as { id: string }[]).map((u) => u.id);
  tables.console_tokens = await db.selectFrom('console_tokens').selectAll().where('user_id', 'in', userIds).execute();
  tables.console_sessions = await db.selectFrom('console_sessions').selectAll().where('user_id', 'in', userIds).execute();
  tables.signers = await db.selectFrom('signers').selectAll().where('signature_request_id', '=', bRequest.id).execute();
  tables.workflow_versions = await db.selectFrom('workflow_versions').selectAll().where('workflow_id', '=', bIds.workflow).execute();
  tables.webhook_deliveries = await db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', bIds.endpoint).execute();
  const sorted = Object.entries(tables).map(([t, rows]) => [t, rows.map((r) => JSON.stringify(r)).sort()]);
  return JSON.stringify(sorted);
}

describe('the route table', () => {
  test('one row per route the console API serves: none missing, none for a route that does not exist', () => {
    const declared = consoleApiRoutes(s.ctx).list;
    const keys = declared.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();
    // Nothing is mounted around the registry (a route added with router.get would be missing from it).
    assert.deepEqual(mountedRoutes(consoleApiRouter(s.ctx)), keys);
    const rows = Object.keys(ROUTES).sort();
    assert.deepEqual(
      keys.filter((k) => !(k in ROUTES)),
      [],
      'routes without a row in ROUTES',
    );
    assert.deepEqual(
      rows.filter((k) => !keys.includes(k)),
      [],
      'rows in ROUTES for routes that do not exist',
    );
    for (const r of declared) assert.equal(ROUTES[`${r.method.toUpperCase()} ${r.path}`]!.access, r.access, `${r.method} ${r.path}`);
  });

  test('every row naming an object says which kind, so account B’s is tried', () => {
    for (const [key, row] of Object.entries(ROUTES)) {
      if (row.access !== 'public' && row.access !== 'operator' && /:[a-z_]+/.test(pathOf(key)))
        assert.ok(row.id, `${key}: the kind of object its :id names`);
    }
  });
});

/** Whether `role` passes the guard of `access` (the operator holds no account permission). */
function mayCall(role: ConsoleRole | 'operator', access: ConsoleAccess): boolean {
  if (access === 'public' || access === 'session') return true;
  if (access === 'operator') return role === 'operator';
  if (role === 'operator') return false;
  return access === 'account' || hasPermission(role, access as Parameters<typeof hasPermission>[1]);
}

/** Call a route as `c` (or without a session), with an empty JSON body on a state change. */
function callRoute(c: ConsoleClient, key: string, opts: { headers?: Record<string, string>; noCsrf?: boolean; path?: string } = {}) {
  const method = methodOf(key);
  return c.call(method, opts.path ?? fill(key), { body: SAFE.has(method) ? undefined : {}, headers: opts.headers, noCsrf: opts.noCsrf });
}

/** Past the guard: not 401, and not the guard's 403 (a route's own 403, e.g. plan_feature_unavailable, is past it). */
const allowed = (r: ConsoleAnswer) => r.status !== 401 && !(r.status === 403 && ['forbidden', 'csrf_failed'].includes(r.body?.error?.code));

/** A client of `email` with a live session: signed in again when the last call ended it (sign-out). */
const sessions = new Map<string, ConsoleClient>();
async function asUser(email: string): Promise<ConsoleClient> {
  let c = sessions.get(email);
  if (!c || (await c.call('GET', '/session')).status !== 200) {
    c = await signedIn(email);
    sessions.set(email, c);
  }
  return c;
}

/** A session past the password of a user with a second factor, waiting for the code. */
async function pendingSession(): Promise<ConsoleClient> {
  const c = new ConsoleClient(s.url, 'en');
  const r = await c.signIn(TWO_FACTOR_EMAIL, TEST_PASSWORD);
  assert.equal(r.body.two_factor_required, true, r.text);
  return c;
}

describe('every route over HTTP', () => {
  for (const [key, row] of Object.entries(ROUTES)) {
    const method = methodOf(key);
    test(`${key} (${row.access})`, async () => {
      const anonymous = await callRoute(new ConsoleClient(s.url, 'en'), key);
      if (row.access === 'public') assert.ok(allowed(anonymous), `${key} without a session: ${anonymous.status} ${anonymous.text}`);
      else assertError(anonymous, 'console_session_required', 'en');

      if (!SAFE.has(method)) {
        const c =
          row.access === 'pending'
            ? await pendingSession()
            : row.access === 'public'
              ? new ConsoleClient(s.url, 'en')
              : await asUser(ROLE_EMAIL('owner'));
        if (row.access !== 'public') assertError(await callRoute(c, key, { noCsrf: true }), 'csrf_failed', 'en');
        assertError(await callRoute(c, key, { headers: { origin: FOREIGN } }), 'csrf_failed', 'en');
        assertError(await callRoute(c, key, { headers: { 'sec-fetch-site': 'cross-site' } }), 'csrf_failed', 'en');
      }

      if (row.access === 'pending') {
        // Only the second-factor step: a full session is not one waiting for its code.
        const r = await callRoute(await pendingSession(), key);
        assert.ok(allowed(r), `${key} with a pending session: ${r.status} ${r.text}`);
        assertError(await callRoute(await asUser(ROLE_EMAIL('owner')), key), 'console_session_required', 'en');
        return;
      }
      for (const role of CONSOLE_ROLES) {
        const r = await callRoute(await asUser(ROLE_EMAIL(role)), key);
        if (mayCall(role, row.access)) assert.ok(allowed(r), `${key} as ${role}: ${r.status} ${r.text}`);
        else {
          assertError(r, 'forbidden', 'en');
          if (row.access === 'operator') assert.equal(r.body.error.reason, 'operator_only', r.text);
          else assert.equal(r.body.error.message.includes(row.access), true, r.text);
        }
      }
      // The operator: the admin routes and their own session's, nothing of an account's.
      const asOperator = await callRoute(await asUser(OPERATOR), key);
      if (mayCall('operator', row.access))
        assert.ok(allowed(asOperator), `${key} as the operator: ${asOperator.status} ${asOperator.text}`);
      else assertError(asOperator, 'forbidden', 'en');
    });
  }
});

describe('account A on account B’s objects', () => {
  for (const [key, row] of Object.entries(ROUTES).filter(([, r]) => r.id)) {
    test(`${key}: 404 not_found, and nothing of B’s changed`, async () => {
      const before = await snapshotOfB();
      const owner = await asUser(ROLE_EMAIL('owner'));
      const method = methodOf(key);
      const r = await owner.call(method, fill(key, bIds[row.id!]), { body: SAFE.has(method) ? undefined : row.body });
      assertError(r, 'not_found', 'en');
      assert.equal(await snapshotOfB(), before);
    });
  }

  test('the lists hold only A’s: users, keys, audit log, identity reviews', async () => {
    const owner = await asUser(ROLE_EMAIL('owner'));
    const users = await owner.call('GET', '/users');
    assert.equal(users.status, 200, users.text);
    assert.ok(users.body.data.length >= 4);
    assert.ok(
      users.body.data.every((u: { email: string }) => u.email.endsWith('@a.example.com')),
      users.text,
    );
    const keys = await owner.call('GET', '/keys');
    assert.equal(
      keys.body.data.some((k: { id: string }) => k.id === bIds.key),
      false,
    );
    const log = await owner.call('GET', '/audit_log?limit=100');
    assert.equal(log.status, 200, log.text);
    assert.equal(log.text.includes('b.example.com'), false);
    const reviews = await owner.call('GET', '/identity_reviews?livemode=false');
    assert.equal(reviews.status, 200, reviews.text);
    assert.equal(reviews.text.includes(bRequest.signer), false);
  });
});

describe('the internal credential on the public API', () => {
  async function credential(email: string): Promise<string> {
    const r = await (await asUser(email)).call('POST', '/credentials', { body: { livemode: false } });
    assert.equal(r.status, 201, r.text);
    return r.body.token;
  }
  const apiActions = async () =>
    (await s.ctx.store.db.selectFrom('audit_log').select('id').where('account_id', '=', a.id).where('action', '=', 'api.request').execute())
      .length;

  test('a viewer’s is refused every write of the API: 403 forbidden, nothing written', async () => {
    const token = await credential(ROLE_EMAIL('viewer'));
    const writes = API_ROUTES.filter((r) => r.method !== 'get' && r.access !== 'public');
    assert.ok(writes.length >= 10, 'the API’s writes');
    const audited = await apiActions();
    for (const route of writes) {
      const r = await s.call(route.method.toUpperCase(), route.path.replace(/:[a-z_]+/g, 'nonexistent0000'), { key: token, body: {} });
      assertError(r, 'forbidden');
    }
    assert.equal(await apiActions(), audited);
  });

  test('account A’s finds none of account B’s objects: 404 on reads and writes, nothing of B’s changed', async () => {
    const token = await credential(ROLE_EMAIL('owner'));
    const before = await snapshotOfB();
    const calls: [string, string, unknown?][] = [
      ['GET', `/signature_requests/${bRequest.id}`],
      ['POST', `/signature_requests/${bRequest.id}/cancel`, {}],
      ['POST', `/signature_requests/${bRequest.id}/reminders`, {}],
      ['GET', `/signature_requests/${bRequest.id}/evidence`],
      ['GET', `/signers/${bRequest.signer}`],
      ['POST', `/signers/${bRequest.signer}/identity_match`, { decision: 'approve' }],
      ['GET', `/templates/${bRequest.template}`],
      ['GET', `/events/${bRequest.event}`],
      ['POST', `/events/${bRequest.event}/redeliver`, {}],
      ['GET', `/webhook_endpoints/${bIds.endpoint}`],
      ['POST', `/webhook_endpoints/${bIds.endpoint}`, { description: 'Taken over' }],
      ['DELETE', `/webhook_endpoints/${bIds.endpoint}`],
    ];
    for (const [method, path, body] of calls) {
      const r = await s.call(method, path, { key: token, body });
      assert.equal(r.body?.error?.code, 'not_found', `${method} ${path}: ${r.status} ${r.text}`);
      assertError(r, 'not_found');
    }
    assert.equal(await snapshotOfB(), before);
  });

  test('POST /sessions, which runs its own transactions, is audited as api.request like every other write', async () => {
    const token = await credential(ROLE_EMAIL('owner'));
    const r = await s.call('POST', '/sessions', {
      key: token,
      body: {
        workflow_id: 'wf_default',
        template_id: 'tpl_nda_ar',
        signers: [{ name: 'Owner', email: ROLE_EMAIL('owner'), fields: NDA_FIELDS }],
      },
    });
    assert.equal(r.status, 201, r.text);
    const entries = await s.ctx.store.db
      .selectFrom('audit_log')
      .selectAll()
      .where('account_id', '=', a.id)
      .where('action', '=', 'api.request')
      .where('target', '=', r.body.id)
      .execute();
    assert.equal(entries.length, 1, r.text);
    const detail = JSON.parse(entries[0]!.detail!);
    assert.equal(entries[0]!.actor, ROLE_EMAIL('owner'));
    assert.equal(detail.method, 'POST');
    assert.equal(detail.path, '/api/v1/sessions');
    assert.equal(detail.status, 201);
    assert.equal(detail.request_id, r.headers.get('svc-request-id'));
  });
});
