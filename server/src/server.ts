import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { nowSeconds, systemClock, type Clock } from './clock.js';
import { ConfigError, type Config } from './config.js';
import { TEMPLATE_LIBRARY } from './domain/templateLibrary.js';
import { createApp } from './http/app.js';
import { Lifecycle } from './http/operations.js';
import type { AppContext } from './http/context.js';
import { IDEMPOTENCY_TTL_SECONDS } from './http/middleware/idempotency.js';
import { createLogger } from './log.js';
import { createOperatorIfEmpty, type CreatedAccount } from './services/accounts.js';
import { openStore, type Db, type Store } from './store/db.js';
import { fileStorageFromConfig, storageKind, type FileStorage } from './store/files/index.js';
import { masterKeyFor, type MasterKey } from './masterKey.js';
import { keyMaterialFor } from './services/keyMaterial.js';
import { JobRunner } from './jobs/runner.js';
import { Leases } from './leases.js';
import { messageOutbox } from './delivery/outbox.js';
import { JOB_HANDLERS } from './services/jobHandlers.js';
import { transportFromConfig } from './delivery/index.js';
import { resetIdempotency } from './store/idempotency.js';
import { upsertLibraryTemplate } from './store/templates.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { RequestLogBuffer } from './store/requestLogBuffer.js';
import { archiveRenewal } from './services/archiveRenewal.js';
import { requestLogRetention } from './services/requestLogRetention.js';
import { loadOrCreatePki, Pkcs12Error, pkiOptionsFromConfig, type Pki, type PkiStorage } from './sealing/pki/index.js';

export interface RunningServer {
  url: string;
  ctx: AppContext;
  /** Set on the first start with an empty DATA_DIR: the operator account and its four keys. */
  operator: CreatedAccount | null;
  jobs: JobRunner;
  /** The webhook dispatcher; with manualJobs, tests move the clock and call `webhooks.runDue()`. */
  webhooks: WebhookDispatcher;
  /**
   * SIGTERM/SIGINT: /readyz turns 503, the listener closes (new connections are refused), idle
   * connections close and every later response carries `Connection: close`; requests in flight and
   * the current job, message and webhook attempts finish (their leases released), then the store
   * closes. Unbounded here: main.ts bounds it with TAWQI_SHUTDOWN_TIMEOUT_MS.
   */
  drain(): Promise<void>;
  /** Stop at once (tests): open connections are cut, background work finishes its current attempt. */
  close(): Promise<void>;
}

/** Request log entries kept in memory at most (a database away for a while): about 10 MB. */
const REQUEST_LOG_MAX_WAITING = 20_000;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

/** TLS 1.2+ is mandatory in production: plain HTTP only on loopback, behind trusted proxies, or when forced. */
export function checkTransport(config: Config): void {
  if (config.TAWQI_TLS_CERT || LOOPBACK_HOSTS.has(config.HOST) || config.HOST.startsWith('127.')) return;
  if (config.TAWQI_TRUSTED_PROXIES.length > 0 || config.TAWQI_ALLOW_INSECURE_HTTP) return;
  throw new ConfigError(
    `Invalid setting:\n  HOST: ${config.HOST} is not a loopback address; serve HTTPS (TAWQI_TLS_CERT, TAWQI_TLS_KEY), ` +
      'name your reverse proxy in TAWQI_TRUSTED_PROXIES, or set TAWQI_ALLOW_INSECURE_HTTP=true for a closed network',
  );
}

async function prepareStore(store: Store, clock: Clock): Promise<void> {
  const now = nowSeconds(clock);
  await store.tx(async (trx) => {
    await resetIdempotency(trx, now - IDEMPOTENCY_TTL_SECONDS, now);
    for (const t of TEMPLATE_LIBRARY)
      await upsertLibraryTemplate(trx, { ...t, fields: [...t.fields], account_id: null, created_at: 0, archived_at: null });
  });
}

export interface StartOptions {
  clock?: Clock;
  log?: Logger;
  /** Tests run jobs themselves (after moving the clock) instead of the timer and commit wake-ups. */
  manualJobs?: boolean;
  /**
   * In-process tests only: the CA certificate (PEM) of a test webhook receiver. Production trusts
   * Node's store plus NODE_EXTRA_CA_CERTS; there is deliberately no setting for this.
   */
  webhookCa?: string;
}

/**
 * Load or create the PKI (DATA_DIR/pki, or the database). Until the listen address is known (PORT 0),
 * certificates name the configured address; startServer corrects that with setPublicUrl once listening.
 */
async function startPki(config: Config, storage: PkiStorage, clock: Clock, log: Logger): Promise<Pki> {
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const provisional = config.TAWQI_PUBLIC_URL ?? `${config.TAWQI_TLS_CERT ? 'https' : 'http'}://${host}:${config.PORT}`;
  try {
    return await loadOrCreatePki(storage, clock, provisional, pkiOptionsFromConfig(config, log));
  } catch (err) {
    if (err instanceof Pkcs12Error) throw new ConfigError(`Invalid setting:\n  TAWQI_SEAL_P12: ${err.message}`);
    throw err;
  }
}

/**
 * The file storage TAWQI_STORAGE names, checked before anything is created: an S3 bucket that does
 * not answer to these settings stops the start (rather than every seal failing later).
 */
async function startFileStorage(config: Config, log: Logger, database?: { db: Db; nowSeconds: () => number }): Promise<FileStorage> {
  const files = fileStorageFromConfig(config, database);
  try {
    await files.check();
  } catch (err) {
    await files.close();
    throw new ConfigError(`Invalid setting:\n  TAWQI_STORAGE: ${err instanceof Error ? err.message : String(err)}`);
  }
  log.info({ storage: files.description }, 'file storage');
  return files;
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  checkTransport(config);
  // Before anything is opened or created: PostgreSQL needs TAWQI_MASTER_KEY.
  const masterKey = masterKeyFor(config);
  const clock = options.clock ?? systemClock;
  const log = options.log ?? createLogger(config.TAWQI_LOG_LEVEL);
  if (!masterKey && config.TAWQI_MASTER_KEY) log.warn('TAWQI_MASTER_KEY is not used with SQLite: the keys stay files under DATA_DIR');
  // Folder and S3 storage are checked before the store opens (a bucket that does not answer creates
  // nothing); database storage is part of the store, so it starts once the store is open.
  const external = storageKind(config) === 'postgres' ? null : await startFileStorage(config, log);
  const store = await openStore(config.DATA_DIR, {
    databaseUrl: config.DATABASE_URL,
    poolSize: config.TAWQI_PG_POOL_SIZE,
    onPoolError: (err) => log.warn({ err }, 'an idle PostgreSQL connection failed; the pool opens another when needed'),
    synchronous: config.TAWQI_SQLITE_SYNCHRONOUS,
    checkpointWorker: true,
    onCheckpointFailure: (err) => log.error({ err }, 'WAL checkpoint worker failed; automatic checkpoints are back on'),
  });
  let files = external;
  try {
    files ??= await startFileStorage(config, log, { db: store.db, nowSeconds: () => nowSeconds(clock) });
    return await startOnStore(config, { store, files, masterKey }, clock, log, options);
  } catch (err) {
    // A start that fails after the store opened (a bad certificate, a taken port) closes it: no pool or worker left behind.
    await store.close();
    await files?.close();
    throw err;
  }
}

/** Everything after the store is open: library templates, the operator, the secrets and PKI, the workers and the listener. */
async function startOnStore(
  config: Config,
  { store, files, masterKey }: { store: Store; files: FileStorage; masterKey: MasterKey | null },
  clock: Clock,
  log: Logger,
  options: StartOptions,
): Promise<RunningServer> {
  // The keys first: a TAWQI_MASTER_KEY that does not open them stops the start before anything else is written.
  const keys = keyMaterialFor(config, masterKey, store, clock);
  const secrets = await keys.secrets();
  const pki = await startPki(config, keys.pki, clock, log);
  await prepareStore(store, clock);
  const operator = await createOperatorIfEmpty(store, clock, config.TAWQI_CURRENCY);
  const ctx: AppContext = {
    config,
    store,
    files,
    clock,
    log,
    secrets,
    publicUrl: config.TAWQI_PUBLIC_URL ?? '',
    afterCommit: () => {},
    pki,
    requestLog: new RequestLogBuffer(store, {
      intervalMs: config.TAWQI_REQUEST_LOG_FLUSH_MS,
      maxEntries: REQUEST_LOG_MAX_WAITING,
      onError: (err, dropped) => log.warn({ err, dropped }, 'writing the request log failed; its entries wait for the next flush'),
    }),
  };
  // SMTP when configured; otherwise undefined, and outgoing messages are kept as 'held' (tawqi mail list).
  ctx.transport = transportFromConfig(config);
  const { jobs, webhooks } = await startWorkers(ctx, options);
  const lifecycle = new Lifecycle();
  const { server, url } = await listen(config, createApp(ctx, lifecycle)).catch(async (err: unknown) => {
    await Promise.all([jobs.stop(), webhooks.stop(), ctx.requestLog.stop()]);
    throw err;
  });
  if (!ctx.publicUrl) ctx.publicUrl = url;
  // Without TAWQI_PUBLIC_URL the leaf certificates' AIA/CRL URLs name the address actually listened on.
  await pki.setPublicUrl(ctx.publicUrl);
  return {
    url,
    ctx,
    operator,
    jobs,
    webhooks,
    drain: async () => {
      lifecycle.beginDrain();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.all([closed, jobs.stop(), webhooks.stop()]);
      // After the last response: every request's entry is written before the store closes.
      await ctx.requestLog.stop();
      await ctx.transport?.close?.();
      await store.close();
      await files.close();
    },
    close: async () => {
      await jobs.stop();
      await webhooks.stop();
      await ctx.transport?.close?.();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await ctx.requestLog.stop();
      await store.close();
      await files.close();
    },
  };
}

/** The job runner (with the message outbox) and the webhook dispatcher; ticking on their own unless tests run them by hand. */
async function startWorkers(ctx: AppContext, options: StartOptions): Promise<{ jobs: JobRunner; webhooks: WebhookDispatcher }> {
  const { config } = ctx;
  // One lease owner for the process: its job runner, outbox and webhook dispatcher.
  const leases = new Leases(config.TAWQI_LEASE_SECONDS);
  const jobs = new JobRunner(ctx, JOB_HANDLERS, leases, [messageOutbox, requestLogRetention(), archiveRenewal()]);
  const webhooks = new WebhookDispatcher(ctx, {
    timeoutMs: config.TAWQI_WEBHOOK_TIMEOUT_MS,
    concurrency: config.TAWQI_WEBHOOK_CONCURRENCY,
    endpointConcurrency: config.TAWQI_WEBHOOK_ENDPOINT_CONCURRENCY,
    allowPrivate: config.TAWQI_WEBHOOK_ALLOW_PRIVATE,
    defaultVersion: config.TAWQI_DEFAULT_VERSION,
    ca: options.webhookCa,
    leases,
  });
  await webhooks.recover();
  if (!options.manualJobs) {
    ctx.afterCommit = () => {
      jobs.wake();
      webhooks.wakeAfterCommit();
    };
    jobs.start();
    webhooks.start();
    // Tests (manualJobs) write the buffered request log themselves: ctx.requestLog.flush().
    ctx.requestLog.start();
  }
  return { jobs, webhooks };
}

/** Listen over HTTPS when a certificate is configured, else HTTP; the URL names the address actually bound. */
async function listen(config: Config, app: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = config.TAWQI_TLS_CERT
    ? https.createServer(
        { cert: readFileSync(config.TAWQI_TLS_CERT), key: readFileSync(config.TAWQI_TLS_KEY!), minVersion: 'TLSv1.2' },
        app,
      )
    : http.createServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return { server, url: `${config.TAWQI_TLS_CERT ? 'https' : 'http'}://${host}:${addr.port}` };
}
