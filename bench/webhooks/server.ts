/**
 * The real Tawqi server for the webhook benchmark, in its own process: fresh DATA_DIR (and the
 * PostgreSQL database the driver passes in DATABASE_URL, if any), silent logs,
 * the system clock, the dispatcher started as in production (commit wake-ups + 1 s poll), and the
 * receivers' CA trusted through NODE_EXTRA_CA_CERTS (set by the driver). It registers one live
 * endpoint per receiver URL through the API, then waits for commands over IPC:
 *
 *   {cmd: 'emit', phase, count, rate}  → emits `count` events, one transaction each (as an API
 *      request commits its state change and events together), at `rate` events/s (0 = as fast as
 *      it can), then answers {phase, commits: [[event id, commit ms], …]}.
 *
 * The commit time is taken right after the transaction's COMMIT has returned and before the
 * dispatcher is woken (what commitWrite does): performance.timeOrigin + performance.now(), the
 * same wall clock the receivers stamp receipts with.
 *
 * argv: <receiver url>…   Prints {"ready": true, "endpoints": n} when the endpoints exist.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../../server/src/clock.js';
import { loadConfig } from '../../server/src/config.js';
import { startServer } from '../../server/src/server.js';
import { createAccount } from '../../server/src/services/accounts.js';
import { emitEvent } from '../../server/src/events/emit.js';
import { deliveryCounts } from '../../server/src/store/webhooks.js';
import { benchSettings } from '../support/tawqiSetup.js';
import { eventObject } from './workload.js';

const urls = process.argv.slice(2);
const dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-bench-webhooks-'));
const running = await startServer(
  loadConfig(
    benchSettings(dataDir, {
      TAWQI_WEBHOOK_ALLOW_PRIVATE: 'true',
      ...(process.env.TAWQI_WEBHOOK_ENDPOINT_CONCURRENCY
        ? { TAWQI_WEBHOOK_ENDPOINT_CONCURRENCY: process.env.TAWQI_WEBHOOK_ENDPOINT_CONCURRENCY }
        : {}),
    }),
  ),
);
const { ctx } = running;
const created = await createAccount(ctx.store, systemClock, {
  name: 'Webhook Benchmark Co',
  plan: 'enterprise',
  planExpiresAt: Math.floor(Date.now() / 1000) + 365 * 86400,
  kyb: 'approved',
  walletMinor: 0,
  currency: ctx.config.TAWQI_CURRENCY,
});
for (const url of urls) {
  const res = await fetch(`${running.url}/api/v1/webhook_endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${created.keys.secret_live}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, enabled_events: ['*'] }),
  });
  if (res.status !== 201) throw new Error(`POST /webhook_endpoints ${res.status}: ${await res.text()}`);
}

const nowMs = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function emit(count: number, rate: number): Promise<[string, number][]> {
  const commits: [string, number][] = [];
  const started = nowMs();
  for (let i = 0; i < count; i++) {
    if (rate > 0) {
      const due = started + (i * 1000) / rate;
      const wait = due - nowMs();
      if (wait > 1) await sleep(wait);
    } else if (i % 200 === 199) {
      await new Promise((r) => setImmediate(r)); // let the dispatcher's answers in between
    }
    const e = await ctx.store.tx((trx) =>
      emitEvent(trx, ctx.clock, {
        accountId: created.account.id,
        livemode: true,
        type: 'signature_request.completed',
        object: eventObject(i),
      }),
    );
    commits.push([e.id, nowMs()]);
    ctx.afterCommit();
  }
  return commits;
}

process.on('message', (m: { cmd: string; phase?: string; count?: number; rate?: number }) => {
  if (m.cmd === 'emit') {
    void emit(m.count!, m.rate!).then((commits) => process.send!({ phase: m.phase, commits }));
  } else if (m.cmd === 'counts') {
    void (async () => {
      // Answers already received may still be on their way to the database.
      while (running.webhooks.inFlightCount > 0) await sleep(10);
      process.send!({ counts: await deliveryCounts(ctx.store.db) });
    })();
  }
});

async function stop(): Promise<void> {
  await running.close();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}
process.on('disconnect', () => void stop());
process.on('SIGTERM', () => void stop());
console.log(JSON.stringify({ ready: true, endpoints: urls.length }));
