/**
 * The real Tawqi server, from source, in its own process: a fresh SQLite data directory (or, when
 * the driver passes DATABASE_URL, TAWQI_PG_POOL_SIZE and TAWQI_MASTER_KEY, a PostgreSQL database),
 * silent logs, rate limits out of the way, and BENCH_ACCOUNTS benchmark accounts (default 1). Prints
 * one JSON line on stdout, {"listening": port, "accounts": [{"key": "<secret live key>",
 * "test_key": "<secret test key>"}, …]}, then serves until SIGTERM/SIGINT (it closes the server and
 * removes its data directory unless the driver gave one).
 *
 * A second process of the same installation (BENCH_JOIN=1, the same DATABASE_URL and BENCH_DATA_DIR:
 * every process of one installation needs the same DATA_DIR) creates no account and prints
 * {"listening": port, "accounts": []}.
 *
 * Started with an IPC channel (the driver's --profile), it records a CPU profile of whatever the
 * driver brackets with its start and stop messages (bench/support/profiler.ts).
 *
 * The driver loads it with the test secret key (as the issue asks): test mode allows 20 creates
 * and 50 emails per account and UTC day by default, so this server raises TAWQI_TEST_DAILY_REQUESTS
 * and TAWQI_TEST_DAILY_EMAILS out of the way (operator settings for private installations and
 * benchmarks). The live key (BENCH_KEY=live) loads an enterprise account with a huge send balance,
 * which adds the charge (a guarded balance UPDATE and a ledger row) to each create. The per-account
 * and per-address rate limits are raised through their settings (TAWQI_RATE_LIMIT,
 * TAWQI_IP_RATE_LIMIT), wherever the limiter keeps its counts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../../server/src/clock.js';
import { loadConfig } from '../../server/src/config.js';
import { startServer } from '../../server/src/server.js';
import { createAccount } from '../../server/src/services/accounts.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import { databaseSettingsFromEnv } from '../support/databaseEnv.js';
import { serveProfiler } from '../support/profiler.js';
import { SIGNERS } from './workload.js';

const givenDir = process.env.BENCH_DATA_DIR;
const dataDir = givenDir ?? mkdtempSync(path.join(tmpdir(), 'tawqi-bench-'));
const removeDataDir = (): void => {
  if (!givenDir) rmSync(dataDir, { recursive: true, force: true });
};
const ACCOUNTS = process.env.BENCH_JOIN === '1' ? 0 : Math.max(1, Number(process.env.BENCH_ACCOUNTS ?? 1));

async function setUp() {
  const running = await startServer(
    loadConfig({
      ...databaseSettingsFromEnv(),
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: process.env.PORT ?? '0',
      TAWQI_LOG_LEVEL: 'silent',
      TAWQI_RATE_LIMIT: '100000000',
      TAWQI_IP_RATE_LIMIT: '100000000',
      TAWQI_TEST_DAILY_REQUESTS: '100000000',
      TAWQI_TEST_DAILY_EMAILS: '1000000000',
      TAWQI_SQLITE_SYNCHRONOUS: process.env.BENCH_SYNCHRONOUS === 'normal' ? 'normal' : 'full',
    }),
  );
  const accounts: { key: string; test_key: string }[] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    const created = await createAccount(running.ctx.store, systemClock, {
      name: `Benchmark Co ${i + 1}`,
      plan: 'enterprise',
      planExpiresAt: Math.floor(Date.now() / 1000) + 365 * 86400,
      kyb: 'approved',
      balanceSends: 100_000_000,
      walletMinor: 0,
      currency: running.ctx.config.TAWQI_CURRENCY,
    });
    // Test keys may only send to team emails; live keys do not need this, but the account is the same for both.
    await running.ctx.store.tx((trx) => updateAccount(trx, created.account.id, { team_emails: SIGNERS.map((s) => s.email) }));
    accounts.push({ key: created.keys.secret_live, test_key: created.keys.secret_test });
  }
  return { running, accounts };
}

let setup: Awaited<ReturnType<typeof setUp>>;
try {
  setup = await setUp();
} catch (err) {
  removeDataDir();
  throw err;
}
const { running, accounts } = setup;

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  try {
    await running.close();
  } finally {
    removeDataDir();
    process.exit(0);
  }
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());

serveProfiler();
const port = Number(new URL(running.url).port);
console.log(JSON.stringify({ listening: port, accounts }));
