/**
 * @tawqi/node retries (issue 14, point 3) against a real server: a connection cut after the server
 * did the work (a TCP relay drops the answer), a request still in progress (409
 * idempotency_in_progress while the first attempt waits on a held SMTP relay) and the account's
 * rate limit (429 with Retry-After) are retried with the same Idempotency-Key, so each effect
 * happens once. The client's sleep is injected: it records the delays and moves the server's
 * clock (or opens the held relay) instead of waiting. The backoff itself is checked as a function.
 */
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Tawqi, TawqiConnectionError, TawqiRateLimitError, backoffMs, retryDelayMs, DEFAULT_RETRY_POLICY } from '@tawqi/node';
import { createWorkflow } from '../../server/src/services/workflows.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startSmtpPeer, type SmtpPeer } from '../support/smtpPeer.js';
import { TcpRelay } from '../support/tcpRelay.js';

const TEAM = ['owner@example.com'];

describe('@tawqi/node retries: network failures and 409 in progress, with one Idempotency-Key', () => {
  let s: TestServer;
  let peer: SmtpPeer;
  let smtpGate: TcpRelay;
  let apiRelay: TcpRelay;
  let acct: Awaited<ReturnType<TestServer['account']>>;
  let template: string;
  before(async () => {
    peer = await startSmtpPeer();
    smtpGate = await TcpRelay.start(peer.port);
    s = await startTestServer({
      TAWQI_SMTP_URL: `smtp://127.0.0.1:${smtpGate.port}`,
      TAWQI_SMTP_FROM: 'Tawqi <no-reply@tawqi.test>',
      TAWQI_RATE_LIMIT: '100000',
    });
    apiRelay = await TcpRelay.start(Number(new URL(s.url).port));
    acct = await s.account({ ownerEmail: TEAM[0], plan: 'enterprise', balanceSends: 100, walletMinor: 100_000 });
    await s.ctx.store.tx((trx) => updateAccount(trx, acct.id, { team_emails: TEAM }));
    const tpl = await s.call('POST', '/templates', {
      key: acct.keys.secret_live,
      body: {
        title: 'Retry deal',
        language: 'en',
        body: 'Deal with {{party}}.',
        fields: [{ key: 'party', label: 'Party', required: false }],
      },
    });
    template = tpl.body.id;
  });
  after(async () => {
    await s.close();
    await apiRelay.close();
    await smtpGate.close();
    await peer.close();
  });

  const countTitled = async (title: string) =>
    (await s.ctx.store.db.selectFrom('signature_requests').select('id').where('title', '=', title).execute()).length;

  test('the answer is lost after the server created the request: the retry gets the stored answer, one request exists', async () => {
    const sleeps: number[] = [];
    const tawqi = new Tawqi(acct.keys.secret_test, {
      baseUrl: `http://127.0.0.1:${apiRelay.port}`,
      sleep: async (ms) => void sleeps.push(ms),
      retry: { random: () => 0.5 },
    });
    apiRelay.dropAnswer = 1;
    const body = {
      title: 'Lost answer',
      source: { type: 'template' as const, template_id: template },
      signers: [{ name: 'Amira', email: TEAM[0] }],
    };
    const created = await tawqi.signatureRequests.create(body);
    assert.equal(created.lastResponse.attempts, 2);
    assert.equal(created.lastResponse.idempotentReplayed, true, 'the second attempt carried the same key: a replay');
    assert.deepEqual(sleeps, [375], 'one backoff: 500 ms × (0.5 + 0.5/2)');
    assert.equal(await countTitled('Lost answer'), 1, 'created once');

    apiRelay.dropAnswer = 1;
    const noRetry = new Tawqi(acct.keys.secret_test, { baseUrl: `http://127.0.0.1:${apiRelay.port}`, maxNetworkRetries: 0 });
    const err = await noRetry.signatureRequests.create({ ...body, title: 'No retry' }).catch((e) => e);
    assert.ok(err instanceof TawqiConnectionError, String(err));
    assert.equal(err.code, null);
    assert.equal(await countTitled('No retry'), 1, 'the server did it; the client could not know');
  });

  test('409 idempotency_in_progress while the first attempt runs: the client waits Retry-After and gets the replay', async () => {
    const wf = await createWorkflow(s.ctx.store, s.clock, acct.id, 'Deals', { document_mode: 'fixed', template_id: template }, true);
    const body = { workflow_id: wf.workflow.id, title: 'Held', signers: [{ name: 'Layla', email: 'layla@client.example' }] };
    const first = new Tawqi(acct.keys.secret_live, { baseUrl: s.url });
    smtpGate.hold();
    const connectionsBefore = smtpGate.connections;
    const running = first.sessions.create(body, { idempotencyKey: 'sdk-held-1' });
    // The first request now waits on the relay: its delivery happens before the answer, holding the key.
    await smtpGate.waitForConnections(connectionsBefore + 1);
    const sleeps: number[] = [];
    const second = new Tawqi(acct.keys.secret_live, {
      baseUrl: s.url,
      sleep: async (ms) => {
        sleeps.push(ms);
        smtpGate.open();
        await running;
      },
    });
    const replayed = await second.sessions.create(body, { idempotencyKey: 'sdk-held-1' });
    const original = await running;
    assert.equal(replayed.id, original.id);
    assert.equal(replayed.lastResponse.attempts, 2);
    assert.equal(replayed.lastResponse.idempotentReplayed, true);
    assert.equal(sleeps.length, 1);
    assert.ok(sleeps[0]! >= 1000, `waited at least Retry-After: 1 (${sleeps[0]} ms)`);
    assert.equal(await countTitled('Held'), 1);
    assert.equal(peer.mails.filter((m) => m.envelopeTo.includes('layla@client.example')).length, 1, 'one invitation');
  });
});

describe('@tawqi/node retries: 429 with Retry-After', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ TAWQI_RATE_LIMIT: '3' });
  });
  after(() => s.close());

  test('the account limit: the client waits the Retry-After (on the server’s clock) and the retry passes; a longer wait than allowed is an error', async () => {
    const acct = await s.account();
    const sleeps: number[] = [];
    const tawqi = new Tawqi(acct.keys.secret_live, {
      baseUrl: s.url,
      sleep: async (ms) => {
        sleeps.push(ms);
        s.clock.advanceSeconds(ms / 1000);
      },
    });
    for (let i = 0; i < 3; i++) assert.equal((await tawqi.usage.retrieve()).lastResponse.attempts, 1);
    const limited = await tawqi.usage.retrieve();
    assert.equal(limited.lastResponse.attempts, 2);
    assert.equal(sleeps.length, 1);
    assert.ok(sleeps[0]! >= 1000 && sleeps[0]! <= 10_000, `the window's Retry-After (${sleeps[0]} ms)`);

    const impatient = new Tawqi(acct.keys.secret_live, { baseUrl: s.url, retry: { maxRetryAfterSeconds: 0 } });
    for (let i = 0; i < 3; i++) await impatient.usage.retrieve().catch(() => undefined);
    const err = await impatient.usage.retrieve().catch((e) => e);
    assert.ok(err instanceof TawqiRateLimitError, String(err));
    assert.equal(err.code, 'too_many_requests');
    assert.equal(err.statusCode, 429);
    assert.ok(err.retryAfter! >= 1);
  });
});

describe('@tawqi/node backoff', () => {
  const policy = (random: number) => ({ ...DEFAULT_RETRY_POLICY, random: () => random });

  test('exponential with jitter between half and all of the step, capped', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((n) => backoffMs(policy(0), n)),
      [250, 500, 1000, 2000, 4000, 4000],
    );
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((n) => backoffMs(policy(0.999999), n)),
      [500, 1000, 2000, 4000, 8000, 8000],
    );
  });

  test('what is retried: network failures, 409 in progress, 429 with Retry-After (as a floor); nothing else, and not past maxNetworkRetries', () => {
    const p = policy(0);
    const answer = (status: number, code: string | null, retryAfterSeconds: number | null) =>
      ({ kind: 'answer', status, code, retryAfterSeconds }) as const;
    assert.equal(retryDelayMs(p, 0, { kind: 'network' }), 250);
    assert.equal(retryDelayMs(p, 2, { kind: 'network' }), null, 'two retries by default');
    assert.equal(retryDelayMs(p, 0, answer(409, 'idempotency_in_progress', 1)), 1000);
    assert.equal(retryDelayMs(p, 0, answer(409, 'idempotency_key_reused', null)), null);
    assert.equal(retryDelayMs(p, 0, answer(429, 'too_many_requests', 7)), 7000);
    assert.equal(retryDelayMs(p, 0, answer(429, 'reminder_too_soon', null)), null, 'a 429 without Retry-After is final');
    assert.equal(retryDelayMs(p, 0, answer(429, 'daily_cap_reached', 40_000)), null, 'longer than maxRetryAfterSeconds');
    assert.equal(retryDelayMs(p, 0, answer(500, 'internal_error', null)), null);
    assert.equal(retryDelayMs(p, 0, answer(400, 'parameter_invalid', null)), null);
  });
});

/** The address of a port nobody listens on (one just released). */
async function closedPort(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describe('@tawqi/node cancelling and unreachable servers', () => {
  test('a signal cancels a call in flight, and is not retried; a signal aborted during a retry wait ends the retries', async () => {
    // A server that accepts connections and never answers: the call hangs until cancelled.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const tawqi = new Tawqi('sk_test_x', { baseUrl, maxNetworkRetries: 2 });
      const stop = new AbortController();
      const call = tawqi.usage.retrieve({ signal: stop.signal }).catch((e: unknown) => e);
      while (sockets.length === 0) await new Promise((r) => setTimeout(r, 5));
      stop.abort();
      const err = await call;
      assert.ok(err instanceof Error && err.name === 'AbortError', `the signal's reason, not a connection error: ${String(err)}`);
      assert.ok(!(err instanceof TawqiConnectionError));
      assert.equal(sockets.length, 1, 'no retry after a cancel');

      const waits: number[] = [];
      const later = new AbortController();
      const refused = new Tawqi('sk_test_x', {
        baseUrl: await closedPort(),
        maxNetworkRetries: 5,
        sleep: async (ms) => {
          waits.push(ms);
          later.abort();
        },
      });
      const during = await refused.usage.retrieve({ signal: later.signal }).catch((e: unknown) => e);
      assert.ok(during instanceof Error && during.name === 'AbortError', String(during));
      assert.equal(waits.length, 1, 'the first wait was the last');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test('an unreachable server: the connection error names the cause (ECONNREFUSED), not just "fetch failed"', async () => {
    const baseUrl = await closedPort();
    const tawqi = new Tawqi('sk_test_x', { baseUrl, maxNetworkRetries: 0 });
    const err = await tawqi.usage.retrieve().catch((e: unknown) => e);
    assert.ok(err instanceof TawqiConnectionError, String(err));
    assert.equal(err.message.startsWith(`Could not reach Tawqi at ${baseUrl}/api/v1: `), true, err.message);
    assert.match(err.message, /ECONNREFUSED/);
  });
});
