/**
 * What the soak runs against, all real and on 127.0.0.1: the server's own entry point
 * (server/src/main.ts) as a child process, on SQLite under a fresh DATA_DIR or on a fresh database
 * of a throwaway PostgreSQL cluster (bench/support/postgres.ts); an SMTP peer the server sends its
 * invitations and one-time codes to; an HTTPS webhook receiver (its CA trusted by the server through
 * NODE_EXTRA_CA_CERTS). The account is made by the operator's CLI (`tawqi account create`), the
 * template and the webhook endpoint through the API, as an integrator would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../test/support/cli.js';
import { killIfRunning, spawnServer, type ServerProcess } from '../../test/support/serverProcess.js';
import { startSmtpPeer, type SmtpPeer } from '../../test/support/smtpPeer.js';
import { makeTestCa, WebhookReceiver } from '../../test/support/webhookReceiver.js';
import { postgresEnv, startBenchPostgres, type BenchPostgres } from '../support/postgres.js';
import { TEMPLATE } from '../seal/workload.js';

export type Engine = 'sqlite' | 'postgres';

/** Sends enough for any soak: the account never runs out, so every create is charged the same way. */
const BALANCE_SENDS = '100000000';

export interface Installation {
  engine: Engine;
  server: ServerProcess;
  dataDir: string;
  /** The server's database URL on PostgreSQL (null on SQLite). */
  databaseUrl: string | null;
  /** The cluster's maintenance URL, as its superuser (null on SQLite): for size readings. */
  clusterUrl: string | null;
  smtp: SmtpPeer;
  receiver: WebhookReceiver;
  /** The account's live secret key. */
  key: string;
  templateId: string;
  close(): Promise<void>;
}

/** Everything in order; whatever was started is stopped again if a later step fails. */
export async function startInstallation(engine: Engine): Promise<Installation> {
  const undo: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const step of undo.reverse()) await step();
  };
  try {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-soak-'));
    undo.push(() => rmSync(dataDir, { recursive: true, force: true }));
    let postgres: BenchPostgres | null = null;
    let databaseUrl: string | null = null;
    if (engine === 'postgres') {
      postgres = await startBenchPostgres();
      undo.push(() => postgres!.stop());
      databaseUrl = await postgres.createDatabase();
    }
    const database = databaseUrl ? postgresEnv(databaseUrl) : {};
    const smtp = await startSmtpPeer();
    undo.push(() => smtp.close());
    const ca = makeTestCa();
    undo.push(() => ca.cleanup());
    const receiver = await WebhookReceiver.start(ca);
    undo.push(() => receiver.close());
    const key = await createAccount({ DATA_DIR: dataDir, ...database });
    const server = await spawnServer({
      ...database,
      DATA_DIR: dataDir,
      TAWQI_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      TAWQI_SMTP_FROM: 'Tawqi <no-reply@soak.example>',
      TAWQI_RATE_LIMIT: '100000000',
      TAWQI_IP_RATE_LIMIT: '100000000',
      TAWQI_WEBHOOK_ALLOW_PRIVATE: 'true',
      NODE_EXTRA_CA_CERTS: ca.caFile,
    });
    undo.push(async () => {
      killIfRunning(server.proc);
      await server.exited;
    });
    const templateId = await prepareAccount(server.base, key, receiver);
    return { engine, server, dataDir, databaseUrl, clusterUrl: postgres?.url ?? null, smtp, receiver, key, templateId, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** `tawqi account create` on the installation's database: an enterprise account with sends to spare; its live secret key. */
async function createAccount(settings: Record<string, string>): Promise<string> {
  const env = { PATH: process.env.PATH ?? '', TAWQI_LOG_LEVEL: 'silent', ...settings };
  const args = ['account', 'create', '--name', 'Soak Co', '--plan', 'enterprise', '--balance', BALANCE_SENDS, '--json'];
  const run = await runCli(env, ...args);
  if (run.code !== 0) throw new Error(`tawqi account create: exit ${run.code}: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { keys: { secret_live: string } }).keys.secret_live;
}

/** The seal benchmark's two-page template, and one endpoint subscribed to every event; the template's id. */
async function prepareAccount(base: string, key: string, receiver: WebhookReceiver): Promise<string> {
  const post = async (p: string, body: unknown) => {
    const res = await fetch(`${base}/api/v1${p}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST ${p}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as { id: string };
  };
  await post('/webhook_endpoints', { url: receiver.url('/soak'), enabled_events: ['*'] });
  return (await post('/templates', TEMPLATE)).id;
}
