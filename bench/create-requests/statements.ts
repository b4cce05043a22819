/**
 * Diagnostic, not a load test: how many SQL statements and transactions one
 * POST /api/v1/signature_requests (with an Idempotency-Key, live key, 3 signers) costs on Tawqi,
 * and how many more the background jobs it schedules cost. It starts the server in this process
 * (jobs run by hand), counts every statement Kysely prepares on the store's better-sqlite3
 * connection, and prints one JSON line. With --list it also prints the statements.
 *
 *   node --conditions=tawqi-source --import tsx bench/create-requests/statements.ts [--list]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../../server/src/clock.js';
import { loadConfig } from '../../server/src/config.js';
import { startServer } from '../../server/src/server.js';
import { createAccount } from '../../server/src/services/accounts.js';
import { API_PATH, createBody, TEMPLATE } from './workload.js';

interface Phase {
  statements: string[];
}

const WRITE = /^(INSERT|UPDATE|DELETE|REPLACE)/i;

const dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-bench-sql-'));
const running = await startServer(loadConfig({ DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', TAWQI_LOG_LEVEL: 'silent' }), { manualJobs: true });
try {
  const { keys } = await createAccount(running.ctx.store, systemClock, {
    name: 'Benchmark Co',
    plan: 'enterprise',
    planExpiresAt: Math.floor(Date.now() / 1000) + 365 * 86400,
    kyb: 'approved',
    balanceSends: 1000,
    walletMinor: 0,
    currency: running.ctx.config.TAWQI_CURRENCY,
  });
  const post = async (p: string, body: string) => {
    const res = await fetch(running.url + p, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.secret_live}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body,
    });
    return { status: res.status, body: (await res.json()) as { id?: string } };
  };
  const template = await post('/api/v1/templates', JSON.stringify(TEMPLATE));
  if (template.status !== 201 || !template.body.id) throw new Error(`template: ${template.status} ${JSON.stringify(template.body)}`);
  const body = createBody(template.body.id);
  await post(API_PATH, body); // the first create (and its jobs) warms caches; the second is counted
  await running.jobs.runDue();

  const raw = running.ctx.store.raw;
  const prepare = raw.prepare.bind(raw);
  let phase: Phase | null = null;
  raw.prepare = ((source: string) => {
    phase?.statements.push(source.replace(/\s+/g, ' ').trim());
    return prepare(source);
  }) as typeof raw.prepare;

  const request: Phase = { statements: [] };
  phase = request;
  const created = await post(API_PATH, body);
  await new Promise((resolve) => setTimeout(resolve, 50)); // the idempotency release runs on 'finish'
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const jobs: Phase = { statements: [] };
  phase = jobs;
  const ran = await running.jobs.runDue();
  phase = null;

  console.log(JSON.stringify({ bench: 'create-requests', server: 'tawqi', diagnostic: 'sql_per_create', request: summarise(request.statements), jobs: { ran, ...summarise(jobs.statements) } }));
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

/** Statements, explicit transactions, and writes outside them (each its own implicit transaction). */
function summarise(statements: readonly string[]) {
  let inTx = false;
  let transactions = 0;
  let inTransactions = 0;
  let writes = 0;
  let autocommitWrites = 0;
  for (const s of statements) {
    if (/^BEGIN/i.test(s)) {
      inTx = true;
      transactions++;
      continue;
    }
    if (/^(COMMIT|ROLLBACK)/i.test(s)) {
      inTx = false;
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
    reads: statements.length - writes - 2 * transactions,
    autocommit_writes: autocommitWrites,
  };
}
