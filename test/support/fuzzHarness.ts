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
import { sql } from 'kysely';
import { apiCases, operationsOf, type FuzzCase, type FuzzWorld } from './fuzzCases.js';
import { buildWorld } from './fuzzWorld.js';
import { responseProblem } from './openapiCheck.js';
import type { Schema } from './schemaArbitrary.js';
import type { TestServer } from './server.js';
import type { TeamAccount } from './teamAccount.js';

export { FUZZ_SERVER_ENV } from './fuzzWorld.js';

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

/** A world of objects on `s` (fuzzWorld.ts), and the tally of its rows before any case runs. */
export async function fuzzWorld(s: TestServer): Promise<Fuzzed> {
  const { world, account, others } = await buildWorld(s);
  const fuzzed: Fuzzed = {
    server: s,
    world,
    account,
    others,
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

/** The rows the tally counts, in one statement (it runs after every case). */
async function counts(f: Fuzzed): Promise<Fuzzed['tally']> {
  const id = f.account.id;
  const { rows } = await sql<Record<keyof Fuzzed['tally'], number | string>>`
    SELECT (SELECT COUNT(*) FROM signature_requests WHERE account_id = ${id}) AS requests,
           (SELECT COUNT(*) FROM templates WHERE account_id = ${id}) AS templates,
           (SELECT COUNT(*) FROM webhook_endpoints WHERE account_id = ${id} AND deleted_at IS NULL) AS endpoints`.execute(
    f.server.ctx.store.db,
  );
  const row = rows[0]!;
  return { requests: Number(row.requests), templates: Number(row.templates), endpoints: Number(row.endpoints) };
}

/** Each account's balances beside the sums of its ledger, in one statement. */
async function balances(f: Fuzzed): Promise<{ id: string; sends: number; wallet: number; ledgerSends: number; ledgerWallet: number }[]> {
  const ids = [f.account.id, ...f.others];
  const { rows } = await sql<{
    id: string;
    sends: number | string;
    wallet: number | string;
    ledger_sends: number | string;
    ledger_wallet: number | string;
  }>`
    SELECT a.id, a.balance_sends AS sends, a.wallet_minor AS wallet,
           (SELECT COALESCE(SUM(l.sends_delta), 0) FROM ledger l WHERE l.account_id = a.id) AS ledger_sends,
           (SELECT COALESCE(SUM(l.wallet_delta_minor), 0) FROM ledger l WHERE l.account_id = a.id) AS ledger_wallet
    FROM accounts a WHERE a.id IN (${sql.join(ids)})`.execute(f.server.ctx.store.db);
  assert.equal(rows.length, ids.length);
  return rows.map((r) => ({
    id: r.id,
    sends: Number(r.sends),
    wallet: Number(r.wallet),
    ledgerSends: Number(r.ledger_sends),
    ledgerWallet: Number(r.ledger_wallet),
  }));
}

/** No partial write: the rows equal the tally of 2xx answers, and every account's balances equal its ledger. */
export async function invariantProblem(f: Fuzzed): Promise<string | null> {
  const now = await counts(f);
  for (const table of Object.keys(now) as (keyof Fuzzed['tally'])[]) {
    if (now[table] !== f.tally[table]) return `${table}: ${now[table]} rows, but the answers account for ${f.tally[table]}`;
  }
  for (const b of await balances(f)) {
    if (b.sends !== b.ledgerSends || b.wallet !== b.ledgerWallet) {
      return `account ${b.id}: balance ${b.sends} sends / ${b.wallet} wallet, ledger ${b.ledgerSends} / ${b.ledgerWallet}`;
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
