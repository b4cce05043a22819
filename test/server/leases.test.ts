/**
 * Background work is claimed, not assumed (issue 13, point 6): three servers on one PostgreSQL
 * database, each with its own store and pool (to PostgreSQL, three processes), run their job
 * runners, outboxes and webhook dispatchers at the same moment. Every job, message and webhook
 * delivery is done once: seals and their events are counted in the database, mails at a real SMTP
 * peer, deliveries at a real HTTPS receiver. A process that claims work and dies keeps it only for
 * its lease (TAWQI_LEASE_SECONDS, moved past with the injected clocks, never waited for); one whose
 * lease was taken over cannot overwrite the new holder's outcome; a draining runner gives back
 * what it took but did not start. SQLite is one process per database: these run on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { nowSeconds } from '../../server/src/clock.js';
import { loadConfig } from '../../server/src/config.js';
import { JobRunner, type JobHandler } from '../../server/src/jobs/runner.js';
import { Leases } from '../../server/src/leases.js';
import { runSeal } from '../../server/src/services/sealing.js';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { openStore, type Store } from '../../server/src/store/db.js';
import { claimDueJobs, finishJob, retryJob } from '../../server/src/store/jobs.js';
import { claimDueMessages, markMessageSent, retryMessage } from '../../server/src/store/messages.js';
import { pickDue } from '../../server/src/store/webhooks.js';
import { onPostgres, storeOptions } from '../support/database.js';
import type { TestServer } from '../support/server.js';
import { startSmtpPeer, type SmtpPeer } from '../support/smtpPeer.js';
import { teamAccount, type TeamAccount } from '../support/teamAccount.js';
import { makeTestCa, startWebhookTestServer, WebhookReceiver, type TestCa } from '../support/webhookReceiver.js';

const HOUR = 3600;
/** TAWQI_LEASE_SECONDS of every server here (the default). */
const LEASE = 120;
const ORIGIN = { ip: '203.0.113.9', user_agent: 'lease-test' };
const TEMPLATE = { title: 'Lease agreement', language: 'en', body: 'The parties agree.' };
type JobHandlerRun = Extract<JobHandler, { kind: 'external' }>['run'];

describe(
  'postgres only: background work claimed with leases by several processes on one database',
  {
    skip: !onPostgres && 'several processes share one database only on PostgreSQL (SQLite is one process per database)',
  },
  () => {
    let ca: TestCa;
    let rx: WebhookReceiver;
    let peer: SmtpPeer;
    let first: TestServer;
    let servers: TestServer[];
    let account: TeamAccount;
    let endpointId: string;
    const stores: Store[] = [];
    const sentTwice = new Set<string>();
    let serial = 0;

    before(async () => {
      ca = makeTestCa();
      rx = await WebhookReceiver.start(ca);
      peer = await startSmtpPeer();
      first = await startWebhookTestServer(ca, env());
      servers = [first, await join(), await join()];
      account = await teamAccount(first, TEMPLATE);
      const ep = await first.call('POST', '/webhook_endpoints', {
        key: account.keys.secret_live,
        body: { url: rx.url(), enabled_events: ['*'] },
      });
      assert.equal(ep.status, 201, ep.text);
      endpointId = ep.body.id;
    });
    after(async () => {
      for (const s of stores) await s.close();
      for (const s of servers.slice(1)) await s.stop();
      await first?.close();
      await rx?.close();
      await peer?.close();
      ca?.cleanup();
    });

    function env(): Record<string, string> {
      return {
        TAWQI_SMTP_HOST: '127.0.0.1',
        TAWQI_SMTP_PORT: String(peer.port),
        TAWQI_SMTP_FROM: 'Tawqi <no-reply@tawqi.test>',
        TAWQI_RATE_LIMIT: '100000',
        TAWQI_PG_POOL_SIZE: '4',
        // Long enough that a gated attempt below never times out while another server works.
        TAWQI_WEBHOOK_TIMEOUT_MS: '30000',
      };
    }

    /** Another server process on the first one's database (and DATA_DIR), its clock at the same time. */
    async function join(): Promise<TestServer> {
      const s = await startWebhookTestServer(ca, env(), first.dataDir);
      s.clock.set(first.clock.nowMs());
      return s;
    }

    /** A store of its own on the database: a process that claims work and then dies. */
    async function otherProcess(): Promise<Store> {
      const store = await openStore(first.dataDir, { ...(await storeOptions(first.dataDir)), poolSize: 2 });
      stores.push(store);
      return store;
    }

    /** Resolves once `done()` holds (it waits on real I/O of the servers, not on time); fails after 15 s. */
    async function eventually(done: () => boolean, what: string): Promise<void> {
      const deadline = Date.now() + 15_000;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`not within 15 s: ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }

    const now = () => nowSeconds(first.clock);
    const advance = (seconds: number) => servers.forEach((s) => s.clock.advanceSeconds(seconds));
    const db = () => first.ctx.store.db;

    /** Who holds each seal job still pending. */
    const pendingSealHolders = async () =>
      (await db().selectFrom('jobs').select('lease_owner').where('kind', '=', 'seal_request').where('state', '=', 'pending').execute()).map(
        (j) => j.lease_owner,
      );

    /**
     * A job runner of another process on the first server's context whose seal jobs wait at a gate
     * the test opens, then do `after`: it holds its claim as long as the test wants.
     */
    function gatedSealRunner(owner: string, after: JobHandlerRun) {
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const state = { started: 0, open: () => open(), runner: null as unknown as JobRunner };
      const run: JobHandlerRun = async (ctx, payload, job) => {
        state.started++;
        await gate;
        await after(ctx, payload, job);
      };
      state.runner = new JobRunner(first.ctx, { seal_request: { kind: 'external', run } }, new Leases(LEASE, owner));
      return state;
    }

    /** Every server runs its jobs and outbox, then its webhook dispatcher, all at the same moment. */
    async function runAll(): Promise<void> {
      await Promise.all(servers.map((s) => s.jobs.runDue()));
      await Promise.all(servers.map((s) => s.webhooks.runDue()));
    }

    /** Live requests, one external signer each; the first `complete` are signed (so their seal jobs are due). */
    async function requests(n: number, complete: number, extra: Record<string, unknown> = {}): Promise<string[]> {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const k = ++serial;
        const r = await servers[k % servers.length]!.call('POST', '/signature_requests', {
          key: account.keys.secret_live,
          body: {
            title: `Lease ${k}`,
            source: { type: 'template', template_id: account.templateId },
            signers: [{ name: `Signer ${k}`, email: `signer${k}@client.example` }],
            ...extra,
          },
        });
        assert.equal(r.status, 201, r.text);
        ids.push(r.body.id);
        if (i < complete)
          for (const move of ['view', 'otp_verified', 'sign'] as const)
            await first.ctx.store.tx((trx) => applySignerMove(first.ctx, trx, r.body.signers[0].id, move, ORIGIN));
      }
      return ids;
    }

    const count = async (type: string, requestId: string) =>
      Number(
        (
          await db()
            .selectFrom('events')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('type', '=', type)
            .where('signature_request_id', '=', requestId)
            .executeTakeFirstOrThrow()
        ).n,
      );

    /** Every message left once: all sent, and the SMTP peer got exactly those mails (recipient and subject), no more. */
    async function eachMessageSentOnce(): Promise<void> {
      const messages = await db().selectFrom('messages').select(['recipient', 'subject', 'state']).execute();
      assert.deepEqual(
        messages.filter((m) => m.state !== 'sent'),
        [],
        'every message is sent',
      );
      const key = (to: string, subject: string) => `${to}\u0000${subject}`;
      assert.deepEqual(
        peer.mails.map((m) => key(m.envelopeTo.join(','), m.subject)).sort(),
        messages.map((m) => key(m.recipient, m.subject)).sort(),
        'each message reached the SMTP peer once',
      );
    }

    /** Every event of the account reached the receiver once, and each delivery succeeded at its first attempt. */
    async function eachEventDeliveredOnce(): Promise<void> {
      const received = rx.eventIds();
      // A delivery whose late first attempt a test let through on purpose arrived twice (at least once): count it once.
      for (const id of sentTwice) received.splice(received.indexOf(id), 1);
      assert.equal(new Set(received).size, received.length, 'no event was delivered twice');
      const events = await db().selectFrom('events').select('id').where('account_id', '=', account.id).where('livemode', '=', 1).execute();
      assert.deepEqual([...received].sort(), events.map((e) => e.id).sort(), 'every event was delivered');
      const deliveries = await db().selectFrom('webhook_deliveries').select(['status', 'attempt_count', 'lease_owner']).execute();
      assert.ok(
        deliveries.every((d) => d.status === 'succeeded' && d.attempt_count === 1 && d.lease_owner === null),
        JSON.stringify(deliveries.filter((d) => d.status !== 'succeeded' || d.attempt_count !== 1)),
      );
    }

    /** Each completed request was sealed once: one document.sealed event, one evidence record, the PDF ready. */
    async function sealedOnce(ids: readonly string[]): Promise<void> {
      for (const id of ids) {
        assert.equal(await count('document.sealed', id), 1, `${id} sealed once`);
        const evidence = await db()
          .selectFrom('evidence_records')
          .select('signature_request_id')
          .where('signature_request_id', '=', id)
          .execute();
        assert.equal(evidence.length, 1);
        const sealed = await db()
          .selectFrom('sealed_documents')
          .select('pdf_status')
          .where('signature_request_id', '=', id)
          .executeTakeFirstOrThrow();
        assert.equal(sealed.pdf_status, 'ready');
      }
    }

    test('many due jobs, messages and webhook deliveries, three runners at once: each is done exactly once', async () => {
      const ids = await requests(12, 6);
      const due = await db().selectFrom('messages').select('id').where('state', '=', 'queued').execute();
      assert.ok(due.length >= 12, 'the invitations wait in the outbox');
      await runAll();
      // Sealing queues the final copies; a second round sends what the first round's work queued.
      await runAll();
      await sealedOnce(ids.slice(0, 6));
      await eachMessageSentOnce();
      await eachEventDeliveredOnce();
      const pending = await db().selectFrom('jobs').select('kind').where('state', '=', 'pending').where('run_at', '<=', now()).execute();
      assert.deepEqual(pending, [], 'no job is left due');
    });

    test('timed jobs due at the same moment run once across runners: automatic reminders and expiry', async () => {
      const t = now();
      const ids = await requests(8, 0, { expires_at: t + 150 * 60, reminders: { enabled: true, interval_hours: 1, max: 3 } });
      await runAll();
      const reminders = async (id: string) =>
        (await db().selectFrom('messages').select('id').where('signature_request_id', '=', id).where('kind', '=', 'reminder').execute())
          .length;
      advance(HOUR);
      await runAll();
      for (const id of ids) assert.equal(await reminders(id), 1, `${id}: one reminder after the first hour`);
      advance(HOUR);
      await runAll();
      for (const id of ids) assert.equal(await reminders(id), 2, `${id}: two after the second`);
      advance(30 * 60);
      await runAll();
      for (const id of ids) {
        assert.equal(await count('signature_request.expired', id), 1, `${id} expired once`);
        const r = await db()
          .selectFrom('signature_requests')
          .select(['status', 'auto_reminders_sent'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        assert.deepEqual(r, { status: 'expired', auto_reminders_sent: 2 });
      }
      advance(HOUR);
      await runAll();
      for (const id of ids) assert.equal(await reminders(id), 2, 'none once expired');
      await eachMessageSentOnce();
      await eachEventDeliveredOnce();
    });

    test('a process that dies holding leases keeps its work only until the lease ends; then another finishes it, once', async () => {
      const ids = await requests(4, 2);
      // A process claims everything due, then dies (never finishes, never releases).
      const dead = await otherProcess();
      const claim = new Leases(LEASE, 'dead-process').claim(now());
      const jobs = await claimDueJobs(dead, claim, 50);
      const messages = await claimDueMessages(dead, claim, 50);
      const deliveries = await dead.lockingTx((trx) => pickDue(trx, endpointId, claim, 50));
      assert.equal(jobs.filter((j) => j.kind === 'seal_request').length, 2);
      assert.equal(messages.length, 4, 'the four invitations');
      assert.ok(deliveries.length >= 4);
      const mails = peer.mails.length;
      const hits = rx.received.length;

      // A process starting now takes no lease from one that may be alive.
      const late = await join();
      servers.push(late);
      assert.equal(await late.webhooks.recover(), 0);
      const stillHeld = await db().selectFrom('webhook_deliveries').select('id').where('lease_owner', '=', claim.token).execute();
      assert.equal(stillHeld.length, deliveries.length, 'the dead process still holds its deliveries after the start');
      await runAll();
      advance(LEASE - 1);
      await runAll();
      assert.equal(peer.mails.length, mails, 'no message sent while the lease lasts');
      assert.equal(rx.received.length, hits, 'no delivery sent while the lease lasts');
      for (const id of ids.slice(0, 2)) assert.equal(await count('document.sealed', id), 0, 'not sealed while the lease lasts');

      advance(1);
      await runAll();
      await runAll();
      await sealedOnce(ids.slice(0, 2));
      await eachMessageSentOnce();
      await eachEventDeliveredOnce();
    });

    test('a late finisher whose lease was taken over cannot overwrite the outcome of the new holder', async () => {
      // Webhooks, through the real dispatchers: the first server's attempt hangs at the receiver past its lease.
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const before = rx.received.length;
      rx.answer = (n) => (n === before ? { status: 500, after: gate, body: 'late' } : { status: 200 });
      await requests(1, 0);
      const slow = first.webhooks.runDue();
      await rx.waitFor(before + 1);
      const gated = (JSON.parse(rx.received[before]!.rawBody) as { id: string }).id;
      // Every other attempt of the first server is answered and recorded: only the gated one is in flight.
      await eventually(() => first.webhooks.inFlightCount === 1, 'the first server has only the gated attempt in flight');
      advance(LEASE);
      await servers[1]!.webhooks.runDue();
      open();
      await slow;
      rx.answer = () => ({ status: 200 });
      const delivery = await db()
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempt_count', 'attempts'])
        .where('event_id', '=', gated)
        .executeTakeFirstOrThrow();
      assert.equal(delivery.status, 'succeeded');
      assert.equal(delivery.attempt_count, 1, 'the late 500 is not recorded over the success');
      assert.deepEqual(
        (JSON.parse(delivery.attempts) as { response_status: number; response_excerpt: string }[]).map((a) => [
          a.response_status,
          a.response_excerpt,
        ]),
        [[200, 'ok']],
      );
      assert.equal(rx.eventIds().filter((e) => e === gated).length, 2, 'sent by both: at least once');
      sentTwice.add(gated);

      // A job, through a real runner whose handler outlives its lease and then fails.
      const [sealId] = await requests(1, 1);
      const stalled = gatedSealRunner('stalled-process', async () => {
        throw new Error('the late runner fails after its lease ended');
      });
      const stalledRun = stalled.runner.runDue();
      await eventually(() => stalled.started > 0, 'the stalled runner started the seal job');
      const holders = await pendingSealHolders();
      assert.ok(holders.length === 1 && holders[0]?.startsWith('stalled-process#'), 'the stalled runner holds the seal job');
      // The others find nothing until its lease ends.
      await runAll();
      assert.equal(await count('document.sealed', sealId!), 0);
      advance(LEASE);
      await runAll();
      stalled.open();
      await stalledRun;
      await sealedOnce([sealId!]);
      const job = await db()
        .selectFrom('jobs')
        .select(['state', 'attempts', 'last_error'])
        .where('dedupe_key', 'is', null)
        .where('kind', '=', 'seal_request')
        .where('payload', 'like', `%${sealId}%`)
        .executeTakeFirstOrThrow();
      assert.deepEqual(job, { state: 'done', attempts: 0, last_error: null }, 'the late failure did not put the job back');

      // A message and a job, at the store: every outcome is written only under the claim that holds the row.
      await requests(1, 1);
      const gone = await otherProcess();
      const lost = new Leases(LEASE, 'lost-process').claim(now());
      const [message] = await claimDueMessages(gone, lost, 1);
      const [sealJob] = await claimDueJobs(gone, lost, 1);
      assert.equal(sealJob?.kind, 'seal_request');
      advance(LEASE);
      await runAll();
      await runAll();
      assert.equal(await gone.tx((trx) => markMessageSent(trx, message!.id, now(), message!.lease_owner)), false);
      assert.equal(await retryMessage(gone.db, message!, now() + 60, 'late', false), false);
      const row = await db()
        .selectFrom('messages')
        .select(['state', 'attempts', 'last_error'])
        .where('id', '=', message!.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { state: 'sent', attempts: 0, last_error: null });
      assert.equal(await gone.tx((trx) => finishJob(trx, sealJob!.id, sealJob!.lease_owner)), false);
      await retryJob(gone.db, sealJob!, now(), 'late', false);
      const sealRow = await db()
        .selectFrom('jobs')
        .select(['state', 'attempts', 'last_error'])
        .where('id', '=', sealJob!.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(sealRow, { state: 'done', attempts: 0, last_error: null });
      await eachMessageSentOnce();
    });

    test('a draining runner finishes the job in progress and gives back the ones it claimed but did not start', async () => {
      const ids = await requests(3, 3);
      const draining = gatedSealRunner('draining-process', runSeal);
      const run = draining.runner.runDue();
      await eventually(() => draining.started > 0, 'the draining runner started a seal job');
      const leased = await pendingSealHolders();
      assert.equal(leased.length, 3);
      assert.ok(
        leased.every((owner) => owner?.startsWith('draining-process#')),
        'it claimed all three',
      );
      const stopped = draining.runner.stop();
      draining.open();
      await stopped;
      await run;
      assert.equal(draining.started, 1, 'only the job in progress ran');
      // No time has passed: the two it gave back are due at once for the other servers.
      await runAll();
      await sealedOnce(ids);
      await eachMessageSentOnce();
      await eachEventDeliveredOnce();
    });
  },
);

describe('leases: the setting and the claims', () => {
  test('TAWQI_LEASE_SECONDS: 120 by default; at least twice the webhook and WhatsApp timeouts, else the start stops naming it', () => {
    assert.equal(loadConfig({}).TAWQI_LEASE_SECONDS, 120);
    assert.equal(loadConfig({ TAWQI_LEASE_SECONDS: '20' }).TAWQI_LEASE_SECONDS, 20);
    assert.throws(() => loadConfig({ TAWQI_LEASE_SECONDS: '19' }), /TAWQI_LEASE_SECONDS: must be at least twice .*at least 20/);
    assert.throws(() => loadConfig({ TAWQI_LEASE_SECONDS: '100', TAWQI_WEBHOOK_TIMEOUT_MS: '60000' }), /at least 120/);
    assert.throws(() => loadConfig({ TAWQI_LEASE_SECONDS: '5' }), /TAWQI_LEASE_SECONDS/);
  });

  test('each claim has its own token; an entry is started only while half its lease is left', () => {
    const leases = new Leases(120, 'host/1/ab');
    const a = leases.claim(1000);
    const b = leases.claim(1000);
    assert.deepEqual(a, { token: 'host/1/ab#1', now: 1000, until: 1120 });
    assert.notEqual(a.token, b.token);
    assert.ok(new Leases(120).owner !== new Leases(120).owner, 'two processes (or one restarted) are two owners');
    assert.equal(leases.mayStart(a, 1060), true);
    assert.equal(leases.mayStart(a, 1061), false);
  });
});
