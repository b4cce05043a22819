/**
 * Diagnostic, not a load test: the SQL statements one operation of each hot path costs Tawqi, run
 * alone (no group to share a commit or a read with): GET /api/v1/signature_requests/{id} (three
 * signers), GET /api/v1/events?limit=20&starting_after=… and a signer's POST /sign/api/sign that
 * completes a request, with the background jobs the sign leaves (its seal) run by hand afterwards.
 * The server runs in this process (jobs by hand); each operation is done once before it is counted,
 * so statements are prepared and caches warm. Counted as bench/support/statements.ts counts: every
 * execution on the store's better-sqlite3 connection, or (DATABASE_URL) every query a pg client of
 * this process sends. The request log is written apart, in batches on a timer, and is not counted.
 * Prints one JSON line; --list prints the statements too.
 *
 *   node --conditions=tawqi-source --import tsx bench/hot-paths/statements.ts [--list]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/src/config.js';
import { startServer } from '../../server/src/server.js';
import { HELPER_SIGNATURE_PNG } from '../../server/src/services/testHelpers.js';
import { SIGNERS } from '../create-requests/workload.js';
import { StatementTally, watchStatements } from '../support/statements.js';
import { benchAccount, benchSettings } from '../support/tawqiSetup.js';
import { eventPages, makeRequests, makeSignItems, tawqiTarget } from './prepare.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-bench-sql-'));
const running = await startServer(loadConfig(benchSettings(dataDir)), { manualJobs: true });

/** Where the watched statements go now (nowhere between counted phases). */
let current: ((sql: string, connection: object) => void) | null = null;

/** The statements of what runs while `work` does (and 50 ms after: a response's 'finish' hooks). */
async function counted(work: () => Promise<unknown>): Promise<{ tally: StatementTally; statements: string[] }> {
  const statements: string[] = [];
  const tally = new StatementTally();
  current = (sql, connection) => {
    statements.push(sql.replace(/\s+/g, ' ').trim());
    tally.sink(sql, connection);
  };
  await work();
  await new Promise((resolve) => setTimeout(resolve, 50));
  current = null;
  return { tally, statements };
}

async function expectOk(res: Response, what: string): Promise<void> {
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  await res.arrayBuffer();
}

try {
  const keys = await benchAccount(
    running,
    'Benchmark Co',
    SIGNERS.map((x) => x.email),
  );
  const target = await tawqiTarget(running.url, keys.secret_test);
  const ids = await makeRequests(target, 30);
  const items = await makeSignItems(target, 2);
  await running.jobs.runDue();
  const pages = await eventPages(target, 20);
  await watchStatements(running.ctx.store, (sql, connection) => current?.(sql, connection));

  const auth = { authorization: `Bearer ${target.key}` };
  const read = () => fetch(`${running.url}/api/v1/signature_requests/${ids[0]}`, { headers: auth }).then((r) => expectOk(r, 'GET request'));
  const page = () => fetch(running.url + pages[1]!, { headers: auth }).then((r) => expectOk(r, 'GET events'));
  const sign = (token: string) =>
    fetch(`${running.url}/sign/api/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tawqi-page-token': token },
      body: JSON.stringify({ signature: HELPER_SIGNATURE_PNG, consent: true }),
    }).then((r) => expectOk(r, 'POST /sign/api/sign'));

  await read();
  const reads = await counted(read);
  await page();
  const events = await counted(page);
  await sign(items[0]!.token);
  await running.jobs.runDue();
  const signs = await counted(() => sign(items[1]!.token));
  const jobs = await counted(() => running.jobs.runDue());

  const line = (c: { tally: StatementTally }) => c.tally.snapshot();
  console.log(
    JSON.stringify({
      bench: 'hot-paths',
      diagnostic: 'sql_per_operation',
      ...(running.ctx.store.dialect === 'postgres' ? { database: 'postgres' } : {}),
      read: line(reads),
      events_page: line(events),
      sign: line(signs),
      sign_jobs: line(jobs),
    }),
  );
  if (process.argv.includes('--list')) {
    for (const [name, c] of Object.entries({ read: reads, events_page: events, sign: signs, sign_jobs: jobs })) {
      console.log(`-- ${name}`);
      for (const s of c.statements) console.log(s.length > 160 ? s.slice(0, 157) + '...' : s);
    }
  }
} finally {
  await running.close();
  rmSync(dataDir, { recursive: true, force: true });
}
