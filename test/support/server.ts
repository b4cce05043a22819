import { AssertionError } from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../server/src/clock.js';
import { loadConfig } from '../../server/src/config.js';
import { createAccount, type NewAccount } from '../../server/src/services/accounts.js';
import { startServer, type RunningServer, type StartOptions } from '../../server/src/server.js';
import { databaseEnv, dropDatabaseOf } from './database.js';
import { responseProblem } from './openapiCheck.js';

export interface TestServer extends RunningServer {
  clock: ManualClock;
  dataDir: string;
  /** The settings that put a child process (the CLI) on this server's database: DATABASE_URL and TAWQI_MASTER_KEY on PostgreSQL runs, none on SQLite. */
  databaseEnv: Record<string, string>;
  keys: NonNullable<RunningServer['operator']>['keys'];
  /** Create another account (defaults: business plan, verified, 1000 sends) and return its keys. */
  account(overrides?: Partial<NewAccount>): Promise<{ id: string; keys: TestServer['keys'] }>;
  call(method: string, path: string, opts?: CallOptions): Promise<CallResult>;
  /** Stop the server but keep its data directory (for restart tests); close() (also after stop()) removes it. */
  stop(): Promise<void>;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  prefix?: string;
}

export interface CallResult {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

export interface TestServerOptions {
  /** Reuse a data directory (a restart); the operator keys are then not printed again (empty). */
  dataDir?: string;
  /** Extra start options (e.g. the webhook test CA). */
  start?: Omit<StartOptions, 'clock' | 'manualJobs'>;
  /** The clock to run on (another server's, for servers that share a database); a new ManualClock by default. */
  clock?: ManualClock;
}

/**
 * A real server on 127.0.0.1 with a fresh database (SQLite file, or a PostgreSQL database with
 * TAWQI_TEST_DATABASE=postgres; a restart on the same dataDir reuses it) and a ManualClock that tests move.
 */
export async function startTestServer(env: Record<string, string> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'tawqi-test-'));
  const clock = options.clock ?? new ManualClock();
  const database = await databaseEnv(dataDir);
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', TAWQI_LOG_LEVEL: 'silent', ...database, ...env });
  const running = await startServer(config, { ...options.start, clock, manualJobs: true });
  // stop() then close() (a restart test's clean-up) closes the server once.
  let closing: Promise<void> | null = null;
  const closeOnce = () => (closing ??= running.close());
  const server: TestServer = {
    ...running,
    clock,
    dataDir,
    databaseEnv: database,
    keys: running.operator?.keys ?? { secret_live: '', publishable_live: '', secret_test: '', publishable_test: '' },
    stop: closeOnce,
    close: async () => {
      await closeOnce();
      rmSync(dataDir, { recursive: true, force: true });
      await dropDatabaseOf(dataDir);
    },
    account: async (overrides = {}) => {
      const created = await createAccount(running.ctx.store, clock, {
        name: 'Test Co',
        plan: 'business',
        planExpiresAt: Math.floor(clock.nowMs() / 1000) + 365 * 86400,
        kyb: 'approved',
        walletMinor: 0,
        currency: 'EGP',
        ...overrides,
      });
      return { id: created.account.id, keys: created.keys };
    },
    call: (method, p, opts = {}) => call(running.url, method, p, opts),
  };
  return server;
}

/**
 * One HTTP request to the server. Every answer of an API operation is checked against the OpenAPI
 * document (support/openapiCheck.ts): an undocumented status or a body its schema refuses fails
 * the calling test here, so the document cannot drift from what the server sends.
 */
export async function call(baseUrl: string, method: string, p: string, opts: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${baseUrl}${opts.prefix ?? '/api/v1'}${p}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const url = `${opts.prefix ?? '/api/v1'}${p}`;
  const problem = responseProblem({
    method,
    url,
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    body: parsed,
    text,
  });
  if (problem) throw new AssertionError({ message: `OpenAPI document: ${problem}` });
  return { status: res.status, headers: res.headers, body: parsed, text };
}
