/**
 * What a benchmark's in-process Tawqi server starts with: the settings (a fresh DATA_DIR, loopback,
 * silent logs, the rate limits and test-mode day limits out of the way, the driver's database) and
 * an enterprise account whose team is the workload's signers (a test key may only send to team
 * emails). For the server files and diagnostics that start Tawqi with startServer(loadConfig(…)).
 */
import { systemClock } from '../../server/src/clock.js';
import type { RunningServer } from '../../server/src/server.js';
import { createAccount } from '../../server/src/services/accounts.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import { databaseSettingsFromEnv } from './databaseEnv.js';

/** Settings for loadConfig: `extra` over the benchmark defaults. */
export function benchSettings(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...databaseSettingsFromEnv(),
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    TAWQI_LOG_LEVEL: 'silent',
    TAWQI_RATE_LIMIT: '100000000',
    TAWQI_IP_RATE_LIMIT: '100000000',
    TAWQI_TEST_DAILY_REQUESTS: '100000000',
    TAWQI_TEST_DAILY_EMAILS: '1000000000',
    ...extra,
  };
}

/** An enterprise account (KYB approved, `balanceSends` sends) whose team emails are `team`; its keys. */
export async function benchAccount(running: RunningServer, name: string, team: readonly string[], balanceSends = 100_000_000) {
  const created = await createAccount(running.ctx.store, systemClock, {
    name,
    plan: 'enterprise',
    planExpiresAt: Math.floor(Date.now() / 1000) + 365 * 86400,
    kyb: 'approved',
    balanceSends,
    walletMinor: 0,
    currency: running.ctx.config.TAWQI_CURRENCY,
  });
  await running.ctx.store.tx((trx) => updateAccount(trx, created.account.id, { team_emails: [...team] }));
  return created.keys;
}
