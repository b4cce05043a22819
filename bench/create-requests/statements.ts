/**
 * Diagnostic, not a load test: how many SQL statements and transactions one
 * POST /api/v1/signature_requests (with an Idempotency-Key, test key, 3 signers) costs on Tawqi,
 * and how many more the background jobs it schedules cost. It starts the server in this process
 * (jobs run by hand), counts every statement run on the store's better-sqlite3 connection — or, with
 * DATABASE_URL (an empty PostgreSQL database; the driver passes one with BENCH_DATABASE=postgres),
 * every query sent by a pg client of this process — and prints one JSON line. With --list it also
 * prints the statements.
 *
 *   node --conditions=tawqi-source --import tsx bench/create-requests/statements.ts [--list]
 *
 * BENCH_KEY=live counts a create with the live key instead (it adds the charge). Then, under load:
 * BENCH_SQL_CONCURRENT clients at once (default 16) send BENCH_SQL_CREATES creates in all (default
 * 160) and the line's `under_load` gives the statements and transactions per create (what group
 * commit and the shared rate-limit hits save; on SQLite a statement is a function call) and the
 * statements per create of the jobs they left, run by hand in one go (so the outbox's batches are
 * fuller than on the timed run, where it polls as messages arrive).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../../server/src/clock.js';
import { loadConfig } from '../../server/src/config.js';
import { startServer } from '../../server/src/server.js';
import { createAccount } from '../../server/src/services/accounts.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import { benchSettings } from '../support/tawqiSetup.js';
import { watchStatements } from '../support/statements.js';
import { API_PATH, createBody, SIGNERS, TEMPLATE } from './workload.js';

interface Phase {
  statements: string[];
}

const WRITE = /^(INSERT|UPDATE|DELETE|REPLACE)/i;
/** The loaded phase: this many clients at once (the timed run's 16 connections), this many creates in all. */
const CONCURRENT = Number(process.env.BENCH_SQL_CONCURRENT ?? 16);
const LOADED_CREATES = Number(process.env.BENCH_SQL_CREATES ?? 160);
const round = (n: number): number => Math.round(n * 100) / 100;

const dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-bench-sql-'));
const running = await startServer(
  // Limits out of the way of the loaded phase, as in tawqi-server.ts.
  loadConfig(benchSettings(dataDir)),
  { manualJobs: true },
);
let phase: Phase | null = null;

try {
  const { account, keys } = await createAccount(running.ctx.store, systemClock, {
    name: 'Benchmark Co',
    plan: 'enterprise',
    planExpiresAt: Math.floor(Date.now() / 1000) + 365 * 86400,
    kyb: 'approved',
    balanceSends: 1000,
    walletMinor: 0,
    currency: running.ctx.config.TAWQI_CURRENCY,
  });
  // A test key may only send to team emails: the workload's signers are this account's team.
  await running.ctx.store.tx((trx) => updateAccount(trx, account.id, { team_emails: SIGNERS.map((s) => s.email) }));
  const post = async (p: string, body: string) => {
    const res = await fetch(running.url + p, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${process.env.BENCH_KEY === 'live' ? keys.secret_live : keys.secret_test}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body,
    });
    return { status: res.status, body: (await res.json()) as { id?: string } };
  };
  const template = await post('/api/v1/templates', JSON.stringify(TEMPLATE));
  if (template.status !== 201 || !template.body.id) throw new Error(`template: ${template.status} ${JSON.stringify(template.body)}`);
  const body = createBody(template.body.id);
  await post(API_PATH, body); // the first create (and its jobs) warms caches; the second is counted
  await running.jobs.runDue();

  await watchStatements(running.ctx.store, (sql) => phase?.statements.push(sql.replace(/\s+/g, ' ').trim()));

  const request: Phase = { statements: [] };
  phase = request;
  const created = await post(API_PATH, body);
  await new Promise((resolve) => setTimeout(resolve, 50)); // the idempotency release runs on 'finish'
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const jobs: Phase = { statements: [] };
  phase = jobs;
  const ran = await running.jobs.runDue();
  phase = null;

  // Under load: CONCURRENT clients creating one after another (the group commits and the hits of
  // a turn sharing statements, as on the timed run), then the jobs they left, run by hand.
  const loaded: Phase = { statements: [] };
  phase = loaded;
  const perClient = Math.ceil(LOADED_CREATES / CONCURRENT);
  await Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      for (let i = 0; i < perClient; i++) {
        const r = await post(API_PATH, body);
        if (r.status !== 201) throw new Error(`create under load: ${r.status} ${JSON.stringify(r.body)}`);
      }
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  const loadedJobs: Phase = { statements: [] };
  phase = loadedJobs;
  await running.jobs.runDue();
  phase = null;
  const creates = perClient * CONCURRENT;

  console.log(
    JSON.stringify({
      bench: 'create-requests',
      server: 'tawqi',
      ...(running.ctx.store.dialect === 'postgres' ? { database: 'postgres' } : {}),
      diagnostic: 'sql_per_create',
      request: summarise(request.statements),
      jobs: { ran, ...summarise(jobs.statements) },
      under_load: {
        concurrent: CONCURRENT,
        creates,
        statements_per_create: round(loaded.statements.length / creates),
        transactions_per_create: round(summarise(loaded.statements).explicit_transactions / creates),
        jobs_statements_per_create: round(loadedJobs.statements.length / creates),
      },
    }),
  );
  if (process.argv.includes('--list')) {
    console.log('-- request');
    for (const s of request.statements) console.log(s.length > 160 ? s.slice(0, 157) + '...' : s);
    console.log('-- jobs');
    for (const s of jobs.statements) console.log(s.length > 160 ? s.slice(0, 157) + '...' : s);
  }
} finally {
  await running.close();
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * Statements, explicit transactions, and writes outside them (each its own implicit transaction).
 * SAVEPOINT/RELEASE (store.tx's group commit gives each member one) count as `savepoints`, not reads.
 */
function summarise(statements: readonly string[]) {
  let inTx = false;
  let transactions = 0;
  let inTransactions = 0;
  let writes = 0;
  let autocommitWrites = 0;
  let savepoints = 0;
  for (const s of statements) {
    if (/^(BEGIN|START TRANSACTION)/i.test(s)) {
      inTx = true;
      transactions++;
      continue;
    }
    if (/^(COMMIT|ROLLBACK$)/i.test(s)) {
      inTx = false;
      continue;
    }
    if (/^(SAVEPOINT|RELEASE|ROLLBACK TO)/i.test(s)) {
      savepoints++;
      continue;
    }
    const write = WRITE.test(s);
    if (write) writes++;
    if (inTx) inTransactions++;
    else if (write) autocommitWrites++;
  }
  return {
    statements: statements.length,
    explicit_transactions: transactions,
    statements_in_transactions: inTransactions,
    writes,
    reads: statements.length - writes - 2 * transactions - savepoints,
    savepoints,
    autocommit_writes: autocommitWrites,
  };
}
