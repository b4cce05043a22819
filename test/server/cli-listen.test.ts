/**
 * `tawqi listen` and `tawqi trigger`, run from source as real processes against a real server over
 * HTTP with a secret key (they never open the store), forwarding to a real local receiver: events
 * made by `trigger` reach the receiver as real deliveries would (the same body as GET /events/{id},
 * the same headers, a signature that verifies with the printed secret), one line each; --events
 * filters; a refused connection is reported and listening goes on; ^C ends it cleanly; trigger
 * refuses live keys.
 */
import assert from 'node:assert/strict';
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { EVENT_TYPES } from '../../server/src/domain/eventTypes.js';
import { Tawqi } from '@tawqi/node';
import { EventFollower } from '../../server/src/cli/remote/follow.js';
import { listenSecret } from '../../server/src/cli/remote/listen.js';
import { ManualClock } from '../../server/src/clock.js';
import { emitEvent } from '../../server/src/events/emit.js';
import { NOT_TRIGGERABLE, SCENARIOS } from '../../server/src/cli/remote/scenarios.js';
import { signPayload } from '../../server/src/webhooks/signing.js';
import { CliProcess, runCli } from '../support/cli.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/waitFor.js';

interface Received {
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  event: any;
}

/** A plain HTTP receiver on 127.0.0.1, as a developer's local app would be; it answers `status`. */
class LocalReceiver {
  readonly received: Received[] = [];
  status = 200;
  private readonly waiters = new Set<() => void>();
  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<LocalReceiver> {
    const server = http.createServer();
    const rx = new LocalReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        rx.received.push({ headers: req.headers, rawBody, event: JSON.parse(rawBody) });
        res.writeHead(rx.status).end();
        for (const wake of rx.waiters) wake();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return rx;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** The delivery of an event of `type` about request `sr`, waiting for it. */
  of(type: string, sr: string, timeoutMs = 120_000): Promise<Received> {
    const about = (r: Received) => r.event.type === type && (r.event.data.object.id === sr || r.event.data.object.signature_request === sr);
    const got = () => `no ${type} for ${sr}; got ${this.received.map((r) => r.event.type).join(', ')}`;
    return waitFor(() => this.received.find(about), this.waiters, got, timeoutMs);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Spec part 5's verification, with the server's own HMAC: every v1 is checked against the secret, t within 300 s. */
function verifies(r: Received, secret: string): boolean {
  const parts = String(r.headers['svc-signature']).split(',');
  const t = Number(parts.find((p) => p.startsWith('t='))?.slice(2));
  const expected = Buffer.from(signPayload(secret, t, r.rawBody));
  const fresh = Math.abs(Date.now() / 1000 - t) <= 300;
  return (
    fresh &&
    parts.some((p) => p.startsWith('v1=') && p.length === 3 + expected.length && timingSafeEqual(Buffer.from(p.slice(3)), expected))
  );
}

const OWNER = 'owner@trigger.example';

describe('tawqi listen and tawqi trigger', () => {
  let s: TestServer;
  let rx: LocalReceiver;
  let key: string;
  let liveKey: string;
  let listener: CliProcess;
  let secret: string;

  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    TAWQI_API_BASE: s.url,
    TAWQI_SECRET_KEY: key,
    ...extra,
  });
  const listen = (...args: string[]) => new CliProcess(env(), ['listen', '--interval', '0.2', ...args]);
  const trigger = async (type: string, extra: Record<string, string> = {}) => {
    const r = await runCli(env(extra), 'trigger', type, '--email', OWNER, '--json');
    assert.equal(r.code, 0, `trigger ${type}: ${r.stderr}`);
    return JSON.parse(r.stdout) as { signature_request: string; events: { id: string; type: string }[] };
  };
  const ready = async (p: CliProcess) => (await p.line(/Your webhook signing secret is (whsec_\w+)/))[1]!;

  before(async () => {
    // The test clock stands still, so the rate window never ends: raised, as polling is not what is tested here.
    s = await startTestServer({ TAWQI_RATE_LIMIT: '100000', TAWQI_IP_RATE_LIMIT: '100000' });
    const acct = await s.account({ ownerEmail: OWNER });
    key = acct.keys.secret_test;
    liveKey = acct.keys.secret_live;
    rx = await LocalReceiver.start();
    // An event from before listen starts: it must not be forwarded.
    await trigger('signature_request.created');
    listener = listen('--forward-to', rx.url);
    secret = await ready(listener);
  });
  after(async () => {
    await listener?.stop();
    await rx.close();
    await s.close();
  });

  test('the secret: printed at start, the same from --print-secret and for every session with the key, different for another key', async () => {
    assert.match(secret, /^whsec_[0-9A-Za-z]{43}$/);
    assert.equal(secret, listenSecret(key));
    const printed = await runCli(env(), 'listen', '--print-secret');
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(printed.stdout.trim(), secret);
    assert.notEqual(listenSecret(liveKey), secret);
    assert.match(
      listener.lines()[0]!,
      new RegExp(`Ready! Forwarding test events of Test Co \\(acct_\\w+\\) to ${rx.url.replaceAll('.', '\\.')}`),
    );
  });

  test('a triggered event reaches the local address as a real delivery: same body and headers, signed with the printed secret, one line each', async () => {
    const t = await trigger('signature_request.canceled');
    assert.deepEqual(
      t.events.map((e) => e.type),
      ['signature_request.sent', 'signer.sent', 'signature_request.canceled'],
    );
    for (const e of t.events) {
      const r = await rx.of(e.type, t.signature_request);
      assert.ok(verifies(r, secret), `${e.type}: the signature verifies with the printed secret`);
      assert.ok(!verifies(r, listenSecret(liveKey)), 'and with no other secret');
      const stored = await s.call('GET', `/events/${e.id}`, { key });
      assert.equal(r.rawBody, stored.text, 'the body is the envelope GET /events/{id} answers, byte for byte');
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers['svc-version'], stored.headers.get('svc-version'));
      assert.equal(r.headers['user-agent'], 'Tawqi-Webhooks/1');
      await listener.line(
        new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  ${e.type.replace('.', '\\.')} \\[${e.id}\\] → \\[200\\] POST `),
      );
    }
    const before = rx.received.filter((r) => r.event.type === 'signature_request.created');
    assert.equal(before.length, 0, 'the event from before listen started was not forwarded');
  });

  test('the local answer is shown; a refused connection is reported and listening goes on', async () => {
    rx.status = 500;
    const t = await trigger('signature_request.created');
    const created = t.events.find((e) => e.type === 'signature_request.created')!;
    await listener.line(new RegExp(`signature_request\\.created \\[${created.id}\\] → \\[500\\] POST`));
    rx.status = 200;

    const closed = await LocalReceiver.start();
    const deadUrl = closed.url;
    await closed.close();
    const lost = listen('--forward-to', deadUrl);
    try {
      await ready(lost);
      const first = await trigger('signature_request.created');
      await lost.line(new RegExp(`signature_request\\.created \\[${first.events[0]!.id}\\] → error: .*ECONNREFUSED`));
      const second = await trigger('signature_request.created');
      await lost.line(new RegExp(`signature_request\\.created \\[${second.events[0]!.id}\\] → error: .*ECONNREFUSED`));
    } finally {
      assert.equal((await lost.stop()).code, 0, '^C ends listen cleanly (exit 0)');
    }
  });

  test('--events forwards only the types named (a prefix works); --json prints one object per line', async () => {
    const rx2 = await LocalReceiver.start();
    const filtered = listen('--forward-to', rx2.url, '--events', 'signer.*,signature_request.canceled', '--json');
    try {
      const started = JSON.parse((await filtered.line(/^\{"ready":true.*\}$/))[0]);
      assert.deepEqual(started, { ready: true, secret, account: started.account, livemode: false, forward_to: rx2.url });
      const t = await trigger('signature_request.canceled');
      await rx2.of('signature_request.canceled', t.signature_request);
      await rx2.of('signer.sent', t.signature_request);
      // Events are forwarded oldest first and canceled is the request's last: signature_request.sent, had it passed the filter, would be here.
      assert.deepEqual(rx2.received.map((r) => r.event.type).sort(), ['signature_request.canceled', 'signer.sent']);
      const canceled = t.events.find((e) => e.type === 'signature_request.canceled')!;
      const line = JSON.parse((await filtered.line(new RegExp(`^\\{.*"id":"${canceled.id}".*\\}$`)))[0]);
      assert.deepEqual(line, { time: line.time, id: canceled.id, type: canceled.type, status: 200, error: null });
    } finally {
      await filtered.stop();
      await rx2.close();
    }
    const bad = await runCli(env(), 'listen', '--forward-to', rx.url, '--events', 'signer.nope');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Unknown event type signer\.nope/);
  });

  test('trigger signature_request.completed runs unattended (test helpers): the request is signed and completes; listen forwards every event', async () => {
    const run = new CliProcess(env(), ['trigger', 'signature_request.completed', '--email', OWNER]);
    run.child.stdin!.end(); // nothing is read from the terminal: no prompt waits on it
    assert.equal((await run.exited).code, 0, run.lines('stderr').join('\n'));
    assert.deepEqual(run.lines('stderr'), [], 'no prompt');
    const sr = /Triggered signature_request\.completed: .*\((sr_\w+)\)/.exec(run.lines().join('\n'))![1]!;
    const printed = run
      .lines()
      .map((l) => /^\s+([\w.]+) \[evt_/.exec(l)?.[1])
      .filter(Boolean);
    assert.deepEqual(printed, [
      'signature_request.sent',
      'signer.sent',
      'signature_request.viewed',
      'signer.viewed',
      'signer.otp_verified',
      'signer.signed',
      'signature_request.completed',
    ]);
    for (const type of printed) assert.ok(verifies(await rx.of(type!, sr), secret), `${type} forwarded and signed`);
    const r = await rx.of('signature_request.completed', sr);
    assert.equal(r.event.data.object.status, 'completed');
  });

  test('trigger signer.declined goes through the signer’s page; signer.identity_verified and declined through the simulation, unattended', async () => {
    const declined = await trigger('signer.declined');
    assert.ok(declined.events.some((e) => e.type === 'signature_request.declined'));
    await rx.of('signer.declined', declined.signature_request);

    const verified = await trigger('signer.identity_verified');
    assert.deepEqual(verified.events.map((e) => e.type).slice(-2), ['signer.otp_verified', 'signer.identity_verified']);
    await rx.of('signer.identity_verified', verified.signature_request);
    const refused = await trigger('signer.identity_declined');
    assert.equal(refused.events.at(-1)!.type, 'signer.identity_declined');
    const partial = await trigger('signature_request.partially_signed');
    assert.equal(partial.events.at(-1)!.type, 'signature_request.partially_signed');
  });

  test('following: an event committed after a later one is still forwarded; each event once, oldest first, across pages', async () => {
    const acct = await s.account({ ownerEmail: 'follow@trigger.example' });
    const follower = new EventFollower(new Tawqi(acct.keys.secret_test, { baseUrl: s.url, apiVersion: null }));
    const emitAt = (clock: ManualClock, n: number) =>
      s.ctx.store.tx(async (trx) => {
        const ids: string[] = [];
        for (let i = 0; i < n; i++) {
          const e = await emitEvent(trx, clock, {
            accountId: acct.id,
            livemode: false,
            type: 'signer.viewed',
            object: { object: 'signer', id: 'sgr_x' },
          });
          ids.push(e.id);
        }
        return ids;
      });
    await follower.start();
    const [a] = await emitAt(s.clock, 1);
    assert.deepEqual(
      (await follower.poll()).map((e) => e.id),
      [a],
    );
    // Stamped 5 s earlier (an earlier id and time) but committed after `a`: a cursor after the newest id would skip it.
    const late = await emitAt(new ManualClock(s.clock.nowMs() - 5000), 1);
    assert.deepEqual(
      (await follower.poll()).map((e) => e.id),
      late,
    );
    assert.deepEqual(await follower.poll(), []);
    s.clock.advanceSeconds(1);
    const many = await emitAt(s.clock, 150);
    const got = (await follower.poll()).map((e) => e.id);
    assert.deepEqual(got, [...many].sort(), '150 events over two pages, oldest first');
    assert.deepEqual(await follower.poll(), []);
  });

  test('on 429 listen waits as long as Retry-After says, then goes on', async () => {
    const limited = await startTestServer({ TAWQI_RATE_LIMIT: '4' });
    try {
      const acct = await limited.account();
      const p = new CliProcess({ ...env(), TAWQI_API_BASE: limited.url, TAWQI_SECRET_KEY: acct.keys.secret_test }, [
        'listen',
        '--interval',
        '0.2',
        '--forward-to',
        rx.url,
      ]);
      await ready(p);
      const m = await p.line(/answered 429 too_many_requests: .* trying again in (\d+) s$/, 'stderr');
      assert.ok(Number(m[1]) >= 1 && Number(m[1]) <= 10, 'the Retry-After of the 10 s window, not the 0.2 s interval');
      assert.equal((await p.stop()).code, 0, '^C during the wait ends it at once');
    } finally {
      await limited.close();
    }
  });

  test('trigger refuses a live key before using it, a publishable key, and unknown or untriggerable types; --list covers the catalogue', async () => {
    const live = await runCli(env({ TAWQI_SECRET_KEY: liveKey }), 'trigger', 'signature_request.sent', '--email', OWNER);
    assert.equal(live.code, 1);
    assert.match(live.stderr, /test objects only: use a test key \(sk_test_…\)/);
    const list = await s.call('GET', '/signature_requests', { key: liveKey });
    assert.equal(list.body.data.length, 0, 'nothing was created with the live key');

    const pk = await runCli(env({ TAWQI_SECRET_KEY: 'pk_test_abc' }), 'trigger', 'signature_request.sent', '--email', OWNER);
    assert.equal(pk.code, 1);
    assert.match(pk.stderr, /Use a secret key/);
    const expired = await runCli(env(), 'trigger', 'signature_request.expired', '--email', OWNER);
    assert.equal(expired.code, 1);
    assert.match(expired.stderr, /signature_request\.expired cannot be triggered: needs time to pass/);
    const unknown = await runCli(env(), 'trigger', 'nothing.here', '--email', OWNER);
    assert.match(unknown.stderr, /Unknown event type nothing\.here/);

    const listed = await runCli(env(), 'trigger', '--list', '--json');
    assert.equal(listed.code, 0, listed.stderr);
    const body = JSON.parse(listed.stdout) as { supported: { type: string }[]; not_supported: { type: string }[] };
    const covered = [...body.supported, ...body.not_supported].map((t) => t.type).sort();
    assert.deepEqual(covered, [...EVENT_TYPES].sort(), 'every event type of spec 6.3 is triggerable or explained');
    assert.deepEqual(body.supported.map((t) => t.type).sort(), Object.keys(SCENARIOS).sort());
    assert.deepEqual(body.not_supported.map((t) => t.type).sort(), Object.keys(NOT_TRIGGERABLE).sort());
  });
});
