/**
 * The installation the backup benchmark backs up: a real server (in this process, manual jobs) with
 * one enterprise account, `sealed` requests created, signed through and sealed the way the test
 * suite does (test/support/signing.ts signAll: the signer service, as the signing page calls it),
 * then the rest up to `requests` created through the API's bulk send (POST /signature_requests/bulk,
 * 100 recipients a call): the same service, transaction and rows as single creates (a request, its
 * signer, its events, its charge and its queued invitation each), 100 at a time because 100,000
 * single creates over HTTP take too long on this machine. The invitations stay queued: the outbox
 * is not run (no SMTP relay here), which is also the state of a busy installation.
 */
import { loadConfig } from '../../server/src/config.js';
import { createAccount } from '../../server/src/services/accounts.js';
import { startServer, type RunningServer } from '../../server/src/server.js';
import { systemClock } from '../../server/src/clock.js';
import { signAll } from '../../test/support/signing.js';

const BULK = 100;
const ORIGIN = { ip: '198.51.100.5', user_agent: 'BackupBench/1.0' };

export interface Installation {
  running: RunningServer;
  key: string;
  templateId: string;
  /** The sealed requests: id and public reference. */
  sealed: { id: string; reference: string }[];
}

/** Create requests one after another through the API until `until` settles; how many were acknowledged. */
export async function createWhile(built: Installation, until: Promise<unknown>): Promise<number> {
  let done = false;
  void until.finally(() => (done = true)).catch(() => undefined);
  let made = 0;
  const source = { type: 'template', template_id: built.templateId };
  while (!done) {
    await post(built.running, built.key, '/signature_requests', {
      title: 'During',
      source,
      signers: [{ name: 'Ali Hassan', email: 'd@example.com' }],
    });
    made++;
  }
  return made;
}

/** A server on `dataDir` (and the database settings given), rate limits out of the way, jobs run by hand. */
export function startBenchServer(dataDir: string, database: Record<string, string>): Promise<RunningServer> {
  return startServer(
    loadConfig({
      ...database,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
      TAWQI_LOG_LEVEL: 'silent',
      TAWQI_RATE_LIMIT: '100000000',
      TAWQI_IP_RATE_LIMIT: '100000000',
    }),
    { manualJobs: true },
  );
}

async function post(running: RunningServer, key: string, p: string, body: unknown): Promise<{ id: string; signers: { id: string }[] }> {
  const res = await fetch(`${running.url}/api/v1${p}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST ${p}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Build the installation; `progress` is told the number of requests made so far. */
export async function buildInstallation(
  running: RunningServer,
  requests: number,
  sealedCount: number,
  progress: (made: number) => void,
): Promise<Installation> {
  const created = await createAccount(running.ctx.store, systemClock, {
    name: 'Backup Bench Co',
    plan: 'enterprise',
    planExpiresAt: Math.floor(Date.now() / 1000) + 365 * 86400,
    kyb: 'approved',
    balanceSends: 100_000_000,
    walletMinor: 0,
    currency: running.ctx.config.TAWQI_CURRENCY,
  });
  const key = created.keys.secret_live;
  const template = await post(running, key, '/templates', { title: 'Bench', language: 'en', body: 'Agreed.', fields: [] });
  const source = { type: 'template', template_id: template.id };
  const sealed: Installation['sealed'] = [];
  for (let i = 0; i < sealedCount; i++) {
    const r = await post(running, key, '/signature_requests', {
      title: `Sealed ${i}`,
      source,
      signers: [{ name: 'Ali Hassan', email: `s${i}@example.com` }],
    });
    await signAll(
      running,
      r.signers.map((s) => s.id),
      ORIGIN,
    );
    await running.jobs.runDue();
    const row = await running.ctx.store.db
      .selectFrom('signature_requests')
      .select('reference')
      .where('id', '=', r.id)
      .executeTakeFirstOrThrow();
    sealed.push({ id: r.id, reference: row.reference! });
  }
  let made = sealedCount;
  while (made < requests) {
    const n = Math.min(BULK, requests - made);
    const recipients = Array.from({ length: n }, (_, j) => ({ name: 'Mona Said', email: `r${made + j}@example.com` }));
    await post(running, key, '/signature_requests/bulk', { title: 'Bulk', source, recipients });
    made += n;
    progress(made);
  }
  return { running, key, templateId: template.id, sealed };
}
