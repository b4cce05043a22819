/**
 * The generated fuzzing of the API (issue 17, point 1), shared by the fixed-seed test
 * (test/server/fuzz-api.test.ts) and the long run (bench/fuzz): a world of real objects on a test
 * server, the cases of fuzzCases.ts sent over real HTTP, and after every case the checks —
 * never a 5xx the document does not declare (never 500), the status and body the OpenAPI document
 * declares for the operation (openapiCheck.ts, as every test's `call()`), the error envelope with
 * the answer's request id, a refusal where the case must be refused, and no partial write: the
 * rows the API created equal the 2xx answers, and every account's balances equal its ledger.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import fc from 'fast-check';
import { simulateIdentityDecision, startIdentityVerification } from '../../server/src/services/identity.js';
import { issueKey } from '../../server/src/services/accounts.js';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { ledgerTotals } from '../../server/src/store/ledger.js';
import { apiCases, operationsOf, type FuzzCase, type FuzzWorld } from './fuzzCases.js';
import { sealedRequest } from './installation.js';
import { responseProblem, servedDocument } from './openapiCheck.js';
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
const WHERE = { ip: '198.51.100.7', user_agent: 'fuzz' };

/**
 * What a 2xx answer of an operation created (or removed), by table: the tally the database must
 * match. Data, not code: a new creating route adds a row here.
 */
const CREATES: Record<string, { table: 'requests' | 'templates' | 'endpoints'; count: (body: Schema) => number; statuses: number[] }> = {
  'POST /signature_requests': { table: 'requests', count: () => 1, statuses: [201] },
  'POST /signature_requests/bulk': { table: 'requests', count: (b) => b.counts.signature_requests, statuses: [201] },
  // A 502 delivery_failed session keeps its request as a draft (README, sessions).
  'POST /sessions': { table: 'requests', count: () => 1, statuses: [201, 502] },
  'POST /templates': { table: 'templates', count: () => 1, statuses: [201] },
  'POST /webhook_endpoints': { table: 'endpoints', count: () => 1, statuses: [201] },
  'DELETE /webhook_endpoints/{id}': { table: 'endpoints', count: () => -1, statuses: [200] },
};

export interface Fuzzed {
  server: TestServer;
  world: FuzzWorld;
  account: TeamAccount;
  others: string[];
  tally: Record<'requests' | 'templates' | 'endpoints', number>;
  /** Cases sent, and answers by operation and status (for the report). */
  cases: number;
  answers: Map<string, Map<number, number>>;
}

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

/** Objects of every kind the API names, in both modes of one account, and a few of another account. */
export async function fuzzWorld(s: TestServer): Promise<Fuzzed> {
  const a = await teamAccount(s, TEMPLATE, { overrides: { plan: 'enterprise', balanceSends: 500, walletMinor: 10_000_000 } });
  const b = await teamAccount(s, TEMPLATE);
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
  const endpoints = [
    await created(s, test, '/webhook_endpoints', { url: HOOK, enabled_events: ['*'] }),
    await created(s, live, '/webhook_endpoints', { url: HOOK, enabled_events: ['*'] }),
  ];
  const flows = await idsOf(s, test, '/flows');
  const session = await created(s, test, '/sessions', {
    workflow_id: 'default',
    template_id: a.templateId,
    signers: [{ name: 'Amira Saleh', email: a.team[2] }],
  });
  const publishable = await s.ctx.store.tx((trx) => issueKey(trx, s.clock, a.id, 'publishable', 'test', { allowedOrigins: [SHOP] }));
  const foreignRequest = await created(s, b.keys.secret_test, '/signature_requests', {
    ...request(),
    source: { type: 'template', template_id: b.templateId },
    signers: [{ name: 'Other', email: b.team[1] }],
  });
  const foreignEndpoint = await created(s, b.keys.secret_test, '/webhook_endpoints', { url: HOOK, enabled_events: ['*'] });
  const requests = [...sent, draft, idv, { id: sealed.id }].map((r) => r.id);
  const signers = [...sent, draft, idv].flatMap((r) => r.signers.map((x: { id: string }) => x.id));
  const ids: Record<string, string[]> = {
    signature_requests: requests,
    signers,
    events: [...(await idsOf(s, test, '/events?limit=20')), ...(await idsOf(s, live, '/events?limit=20'))],
    webhook_endpoints: endpoints.map((e) => e.id),
    templates: [a.templateId, ...(await idsOf(s, test, '/templates?limit=3'))],
    flows,
    sessions: [session.id],
    identity_verifications: [verification.verificationId],
    verifications: [sealed.reference],
    test_helpers: signers,
  };
  const { doc, validator } = servedDocument();
  const world: FuzzWorld = {
    doc,
    valid: (schema, value) => validator.compile(schema)(value) as boolean,
    hints: {
      template_id: [a.templateId],
      email: a.team,
      signer: signers,
      endpoint: endpoints.map((e) => e.id),
      workflow_id: ['default', ...flows],
      url: [HOOK, 'https://93.184.215.14/hook'],
      enabled_events: [['*'], ['signature_request.completed', 'signer.signed']],
      success_url: [`${SHOP}/done/{signature_request}`],
      return_url: [`${SHOP}/back`],
      cancel_url: [`${SHOP}/cancel?r={signature_request}`],
      embed_origin: [SHOP],
      // Lists: a cursor must be an id the list can show, times unix seconds or ISO 8601.
      starting_after: Object.values(ids).flat(),
      signature_request: requests,
      created_after: ['0', '1700000000', '2026-01-01T00:00:00Z'],
      created_before: ['4102444800', '2099-12-31T00:00:00Z'],
    },
    ids,
    foreignIds: [foreignRequest.id, foreignRequest.signers[0].id, foreignEndpoint.id, b.templateId],
    keys: [
      { name: 'test secret key', key: test, weight: 8 },
      { name: 'live secret key', key: live, weight: 5 },
      { name: 'test publishable key', key: publishable.secret, weight: 1 },
    ],
    origins: [SHOP],
    bodyLimit: Number(FUZZ_SERVER_ENV.TAWQI_BODY_LIMIT_BYTES),
  };
  const fuzzed: Fuzzed = {
    server: s,
    world,
    account: a,
    others: [b.id],
    tally: { requests: 0, templates: 0, endpoints: 0 },
    cases: 0,
    answers: new Map(),
  };
  fuzzed.tally = await counts(fuzzed);
  return fuzzed;
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One case over plain node:http (fetch refuses Latin-1 header bytes and rewrites some paths). */
export function send(baseUrl: string, c: FuzzCase): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...c.headers };
    if (c.body) headers['content-length'] = c.body.length;
    const req = http.request({ host: url.hostname, port: url.port, method: c.method, path: c.url, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(c.body);
  });
}

/** What is wrong with the answer to a case, or null. */
export function answerProblem(c: FuzzCase, r: Answer): string | null {
  let body: Schema;
  try {
    body = r.text ? JSON.parse(r.text) : undefined;
  } catch {
    body = undefined;
  }
  if (r.status >= 500 && r.status !== 502) return `answered ${r.status}: ${r.text.slice(0, 300)}`;
  const problem = responseProblem({
    method: c.method,
    url: c.url,
    status: r.status,
    contentType: r.headers['content-type'] ?? '',
    body,
    text: r.text,
  });
  if (problem) return problem;
  if (r.status >= 400) {
    const e = body?.error;
    if (!e || typeof e.code !== 'string' || typeof e.type !== 'string' || typeof e.message !== 'string' || !('param' in e))
      return `${r.status} without the error envelope: ${r.text.slice(0, 300)}`;
    if (typeof e.request_id !== 'string' || !e.request_id.startsWith('req_') || e.request_id !== r.headers['svc-request-id']) {
      return `${r.status} ${e.code}: request_id ${e.request_id} is not the answer's Svc-Request-Id ${String(r.headers['svc-request-id'])}`;
    }
  }
  const replayed = r.headers['idempotent-replayed'] === 'true';
  if (c.mustRefuse.length > 0 && r.status < 400 && !replayed)
    return `answered ${r.status} although it must be refused (${c.mustRefuse.join('; ')}): ${r.text.slice(0, 300)}`;
  return null;
}

async function counts(f: Fuzzed): Promise<Fuzzed['tally']> {
  const db = f.server.ctx.store.db;
  const n = async (q: { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }) =>
    Number((await q.executeTakeFirstOrThrow()).n);
  const id = f.account.id;
  return {
    requests: await n(
      db
        .selectFrom('signature_requests')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', id),
    ),
    templates: await n(
      db
        .selectFrom('templates')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', id),
    ),
    endpoints: await n(
      db
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', id)
        .where('deleted_at', 'is', null),
    ),
  };
}

/** No partial write: the rows equal the tally of 2xx answers, and every account's balances equal its ledger. */
export async function invariantProblem(f: Fuzzed): Promise<string | null> {
  const now = await counts(f);
  for (const table of Object.keys(now) as (keyof Fuzzed['tally'])[]) {
    if (now[table] !== f.tally[table]) return `${table}: ${now[table]} rows, but the answers account for ${f.tally[table]}`;
  }
  for (const accountId of [f.account.id, ...f.others]) {
    const account = await f.server.ctx.store.db
      .selectFrom('accounts')
      .select(['balance_sends', 'wallet_minor'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    const ledger = await ledgerTotals(f.server.ctx.store.db, accountId);
    if (Number(account.balance_sends) !== ledger.sends || Number(account.wallet_minor) !== ledger.walletMinor) {
      return `account ${accountId}: balance ${account.balance_sends} sends / ${account.wallet_minor} wallet, ledger ${ledger.sends} / ${ledger.walletMinor}`;
    }
  }
  return null;
}

function record(f: Fuzzed, c: FuzzCase, r: Answer): void {
  f.cases++;
  const byStatus = f.answers.get(c.operation) ?? new Map<number, number>();
  f.answers.set(c.operation, byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1));
  const effect = CREATES[c.operation];
  if (!effect || !effect.statuses.includes(r.status) || r.headers['idempotent-replayed'] === 'true') return;
  f.tally[effect.table] += effect.count(JSON.parse(r.text));
}

/** The fuzz property: each case sent, answered as documented, and the invariants hold after it. */
export function apiProperty(f: Fuzzed): fc.IAsyncPropertyWithHooks<[FuzzCase]> {
  return fc.asyncProperty(apiCases(f.world), async (c) => {
    const r = await send(f.server.url, c);
    record(f, c, r);
    const problem = answerProblem(c, r) ?? (await invariantProblem(f));
    if (problem) throw new Error(`${c.method} ${c.url.slice(0, 300)} [${c.notes.join(' | ')}]: ${problem}`);
  });
}

/** Operations the document has that no case reached (should be none once enough cases ran). */
export function unreached(f: Fuzzed): string[] {
  return operationsOf(f.world.doc)
    .map((o) => o.key)
    .filter((k) => !f.answers.has(k));
}

/** A line per operation: its answers by status, for the report of a run. */
export function answerSummary(f: Fuzzed): string[] {
  return [...f.answers]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([op, byStatus]) =>
        `${op}: ${[...byStatus]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}×${n}`)
          .join(' ')}`,
    );
}
