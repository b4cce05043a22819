/**
 * N server processes on one database (DESIGN §6, README Operations "Scale-out"): every limit holds
 * in total, whichever process answers, and an Idempotency-Key sent to two processes at once has one
 * effect. Each test runs two servers — two startServer instances, each with its own store (its own
 * PostgreSQL pool or SQLite connection) — on one database and one ManualClock.
 *
 * The rate windows and idempotency claims are shared only on PostgreSQL: on SQLite one process owns
 * the database and keeps them in its memory, so those tests run on PostgreSQL. The limits kept in
 * database rows on both engines (publishable quotas, test-mode daily limits, reminders, one-time
 * code attempts) and the one-effect rule of idempotency are tested on both.
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { nowSeconds } from '../../server/src/clock.js';
import { issueKey } from '../../server/src/services/accounts.js';
import { createWorkflow } from '../../server/src/services/workflows.js';
import { getAccount } from '../../server/src/store/accounts.js';
import { completeIdempotency } from '../../server/src/store/idempotency.js';
import { idempotencyClaims } from '../../server/src/store/idempotencyClaims.js';
import { listLedger } from '../../server/src/store/ledger.js';
import { listNotices } from '../../server/src/store/notices.js';
import { onPostgres } from '../support/database.js';
import { assertError } from '../support/envelope.js';
import { startTestServer, type CallResult, type TestServer } from '../support/server.js';
import { lastOtp, PageClient } from '../support/signing.js';
import { teamAccount } from '../support/teamAccount.js';

const POSTGRES_ONLY = !onPostgres && 'shared by processes on PostgreSQL only (SQLite: one process owns the database; in its memory)';
const HOUR = 3600;
const DAY = 86400;
const ORIGIN = 'https://shop.example.com';
const TEMPLATE = {
  title: 'Plain agreement',
  language: 'en',
  body: 'The parties agree. {{note}}',
  fields: [{ key: 'note', label: 'Note' }],
};

interface Pair {
  a: TestServer;
  b: TestServer;
  servers: [TestServer, TestServer];
  /** Both servers, alternately: the i-th request goes to at(i). */
  at(i: number): TestServer;
  close(): Promise<void>;
}

/** Two servers on one database (the same DATA_DIR, so the same link secrets too) and one clock. */
async function startPair(env: Record<string, string> = {}): Promise<Pair> {
  const a = await startTestServer(env);
  const b = await startTestServer(env, { dataDir: a.dataDir, clock: a.clock });
  return {
    a,
    b,
    servers: [a, b],
    at: (i) => (i % 2 === 0 ? a : b),
    close: async () => {
      await b.stop();
      await a.close();
    },
  };
}

/** Move the shared clock to the start of the next window of `seconds`, plus `offset` seconds. */
function startOfWindow(s: TestServer, seconds: number, offset = 0): void {
  s.clock.set((Math.floor(s.clock.nowMs() / 1000 / seconds) + 1) * seconds * 1000 + offset * 1000);
}

const codes = (results: CallResult[]): string[] => results.map((r) => (r.status < 300 ? String(r.status) : r.body?.error?.code)).sort();
const times = (n: number, code: string): string[] => Array<string>(n).fill(code);

describe('rate windows across processes', () => {
  let p: Pair;
  before(async () => {
    p = await startPair({ TAWQI_IP_RATE_LIMIT: '100000' });
  });
  after(() => p?.close());

  test(
    'postgres only: the account window: 100 requests per 10 s in total, the 101st refused by either process; the next window opens',
    { skip: POSTGRES_ONLY },
    async () => {
      const acct = await p.a.account();
      startOfWindow(p.a, 10);
      for (let i = 0; i < 100; i++) {
        const r = await p.at(i).call('GET', '/', { key: i % 3 === 0 ? acct.keys.secret_test : acct.keys.secret_live });
        assert.equal(r.status, 200, `request ${i + 1}`);
        assert.equal(r.headers.get('x-ratelimit-remaining'), String(99 - i), `request ${i + 1} counted once, in the shared window`);
      }
      p.a.clock.advanceSeconds(4);
      for (const s of p.servers) {
        const over = await s.call('GET', '/', { key: acct.keys.secret_live });
        assertError(over, 'too_many_requests');
        assert.equal(over.headers.get('retry-after'), '6');
        assert.equal(over.headers.get('x-ratelimit-limit'), '100');
        assert.equal(over.headers.get('x-ratelimit-remaining'), '0');
        assert.equal(Number(over.headers.get('x-ratelimit-reset')), p.a.clock.nowMs() / 1000 + 6);
      }
      // Another account has its own window.
      assert.equal((await p.b.call('GET', '/', { key: p.a.keys.secret_live })).status, 200);
      p.a.clock.advanceSeconds(6);
      for (const s of p.servers) assert.equal((await s.call('GET', '/', { key: acct.keys.secret_live })).status, 200);
    },
  );

  test('postgres only: at once: of 130 concurrent requests over both processes exactly 100 pass', { skip: POSTGRES_ONLY }, async () => {
    const acct = await p.a.account();
    startOfWindow(p.a, 10);
    const results = await Promise.all(Array.from({ length: 130 }, (_, i) => p.at(i).call('GET', '/', { key: acct.keys.secret_live })));
    assert.deepEqual(codes(results), [...times(100, '200'), ...times(30, 'too_many_requests')]);
  });
});

describe('the per-address limit across processes', () => {
  test(
    'postgres only: 5 per window from one address in total over both processes; the next window opens',
    { skip: POSTGRES_ONLY },
    async () => {
      const p = await startPair({ TAWQI_IP_RATE_LIMIT: '5' });
      try {
        startOfWindow(p.a, 10);
        for (let i = 0; i < 5; i++) assertError(await p.at(i).call('GET', '/', { key: 'sk_' + 'b'.repeat(40) }), 'invalid_api_key');
        for (const s of p.servers) {
          const r = await s.call('GET', '/', { key: s.keys.secret_live || p.a.keys.secret_live });
          assertError(r, 'too_many_requests');
          assert.ok(Number(r.headers.get('retry-after')) > 0);
        }
        p.a.clock.advanceSeconds(10);
        for (const s of p.servers) assert.equal((await s.call('GET', '/', { key: p.a.keys.secret_live })).status, 200);
      } finally {
        await p.close();
      }
    },
  );
});

describe('limits kept in database rows, across processes', () => {
  let p: Pair;
  before(async () => {
    p = await startPair({ TAWQI_TRUSTED_PROXIES: '127.0.0.1' });
  });
  after(() => p?.close());

  const publishable = async (dailyCap?: number): Promise<{ accountId: string; key: string }> => {
    const acct = await p.a.account();
    const issued = await p.a.ctx.store.tx((trx) =>
      issueKey(trx, p.a.clock, acct.id, 'publishable', 'live', { allowedOrigins: [ORIGIN], dailyCap }),
    );
    return { accountId: acct.id, key: issued.secret };
  };
  const post = (s: TestServer, key: string, ip: string) =>
    s.call('POST', '/signature_requests', { key, headers: { origin: ORIGIN, 'x-forwarded-for': ip }, body: {} });

  test('the publishable hourly quota: 5 per visitor in total when both processes take them at once', async () => {
    const { key } = await publishable();
    startOfWindow(p.a, HOUR);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => post(p.at(i), key, '198.51.100.7')));
    assert.equal(results.filter((r) => r.status !== 429).length, 5, codes(results).join(' '));
    assert.deepEqual(codes(results.filter((r) => r.status === 429)), times(3, 'too_many_requests'));
  });

  test('the publishable daily cap: reached once over both processes, the owner told once per threshold', async () => {
    const { accountId, key } = await publishable(6);
    startOfWindow(p.a, DAY, 3 * HOUR);
    const results = await Promise.all(Array.from({ length: 9 }, (_, i) => post(p.at(i), key, `203.0.113.${i + 1}`)));
    assert.equal(results.filter((r) => r.status !== 429).length, 6, codes(results).join(' '));
    assert.deepEqual(codes(results.filter((r) => r.status === 429)), times(3, 'daily_cap_reached'));
    const notices = await listNotices(p.b.ctx.store.db, accountId);
    assert.deepEqual(notices.map((n) => n.kind).sort(), ['publishable_daily_cap_80', 'publishable_daily_cap_reached']);
  });

  test('the test-mode daily limit: 20 requests a day in total', async () => {
    const team = await teamAccount(p.a, TEMPLATE, { members: 1 });
    const create = (s: TestServer) =>
      s.call('POST', '/signature_requests', {
        key: team.keys.secret_test,
        body: {
          title: 'Test',
          source: { type: 'template', template_id: team.templateId },
          signers: [{ name: 'Owner', email: team.owner }],
        },
      });
    startOfWindow(p.a, DAY, 8 * HOUR);
    for (let i = 0; i < 14; i++) assert.equal((await create(p.at(i))).status, 201, `request ${i + 1}`);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create(p.at(i))));
    assert.deepEqual(codes(results), [...times(6, '201'), ...times(4, 'test_daily_limit')]);
  });

  test('reminders: one per signer per hour and 10 per request, whichever process is asked', async () => {
    const team = await teamAccount(p.a, TEMPLATE, { members: 1 });
    const key = team.keys.secret_live;
    const created = await p.a.call('POST', '/signature_requests', {
      key,
      body: {
        title: 'Live',
        source: { type: 'template', template_id: team.templateId },
        signers: [{ name: 'Client', email: 'client@client.example' }],
      },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;
    const remind = (s: TestServer) => s.call('POST', `/signature_requests/${id}/reminders`, { key });
    const burst = () => Promise.all(Array.from({ length: 6 }, (_, i) => remind(p.at(i))));
    assert.deepEqual(codes(await burst()), ['200', ...times(5, 'reminder_too_soon')], 'one reminder per signer per hour');
    for (let i = 0; i < 8; i++) {
      p.a.clock.advanceSeconds(HOUR);
      assert.equal((await remind(p.at(i))).status, 200, `reminder ${i + 2}`);
    }
    p.a.clock.advanceSeconds(HOUR);
    assert.deepEqual(codes(await burst()), ['200', ...times(5, 'reminder_limit_reached')], 'the tenth, and no more');
    const sent = await p.a.ctx.store.db
      .selectFrom('messages')
      .select('id')
      .where('signature_request_id', '=', id)
      .where('kind', '=', 'reminder')
      .execute();
    assert.equal(sent.length, 10);
  });

  /** A test-mode request to a team member, and its signing page as each server answers it. */
  const memberPage = async (signer: Record<string, unknown> = {}) => {
    const team = await teamAccount(p.a, TEMPLATE, { members: 1 });
    const created = await p.a.call('POST', '/signature_requests', {
      key: team.keys.secret_test,
      body: {
        title: 'Test',
        source: { type: 'template', template_id: team.templateId },
        signers: [{ name: 'Member', email: team.team[1], ...signer }],
      },
    });
    assert.equal(created.status, 201, created.text);
    const page = await PageClient.open(created.body.signers[0].signing_url);
    return { signer: created.body.signers[0] as { id: string }, pages: [page, page.via(p.b.url)] };
  };

  test('one-time codes: one sent per minute and 5 attempts in total when requests reach both processes at once', async () => {
    const { signer, pages } = await memberPage();
    const otps = async () =>
      (await p.a.ctx.store.db.selectFrom('messages').select('id').where('signer_id', '=', signer.id).where('kind', '=', 'otp').execute())
        .length;
    const sends = await Promise.all(Array.from({ length: 6 }, (_, i) => pages[i % 2]!.call('POST', '/otp/send')));
    assert.deepEqual(sends.map((r) => (r.status === 200 ? '200' : r.body.error.code)).sort(), ['200', ...times(5, 'otp_too_soon')]);
    assert.equal(await otps(), 1, 'one code sent');
    const code = await lastOtp(p.a, signer.id);
    const wrong = (n: number) => String((Number(code) + 1 + n) % 1_000_000).padStart(6, '0');
    const tries = await Promise.all(Array.from({ length: 8 }, (_, i) => pages[i % 2]!.call('POST', '/otp/verify', { code: wrong(i) })));
    assert.deepEqual(tries.map((t) => t.body.error.code).sort(), [...times(4, 'otp_invalid'), ...times(4, 'otp_locked')]);
    assert.equal((await pages[1]!.call('POST', '/otp/verify', { code })).body.error.code, 'otp_locked', 'the right code comes too late');
  });

  test('access code attempts: 5 in total when guesses reach both processes at once', async () => {
    const { pages } = await memberPage({ access_code: 'Secret-42' });
    const guesses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => pages[i % 2]!.call('POST', '/access_code', { code: `wrong-${i}` })),
    );
    assert.deepEqual(guesses.map((g) => g.body.error.code).sort(), [...times(4, 'access_code_invalid'), ...times(4, 'access_code_locked')]);
    assert.equal((await pages[1]!.call('POST', '/access_code', { code: 'Secret-42' })).body.error.code, 'access_code_locked');
  });
});

describe('Idempotency-Key across processes', () => {
  let p: Pair;
  before(async () => {
    p = await startPair();
  });
  after(() => p?.close());

  test('the same key sent to both processes at once, 20 times over: one request and one charge each; the other answer is 409 or the replay', async () => {
    const acct = await p.a.account({ balanceSends: 100, walletMinor: 0 });
    const template = await p.a.call('POST', '/templates', { key: acct.keys.secret_live, body: TEMPLATE });
    assert.equal(template.status, 201, template.text);
    const body = (i: number) => ({
      title: `Pair ${i}`,
      source: { type: 'template', template_id: template.body.id },
      signers: [{ name: 'Client', email: `client${i}@client.example` }],
    });
    const pairs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        Promise.all(
          p.servers.map((s) =>
            s.call('POST', '/signature_requests', {
              key: acct.keys.secret_live,
              headers: { 'idempotency-key': `pair-${i}` },
              body: body(i),
            }),
          ),
        ),
      ),
    );
    const ids = new Set<string>();
    for (const [i, pair] of pairs.entries()) {
      const firsts = pair.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
      assert.equal(firsts.length, 1, `pair ${i}: one answer ran the request: ${pair.map((r) => r.text).join(' | ')}`);
      for (const other of pair.filter((r) => r !== firsts[0])) {
        if (other.status === 409) {
          assertError(other, 'idempotency_in_progress');
          assert.equal(other.headers.get('retry-after'), '1');
        } else {
          assert.equal(other.status, 201, other.text);
          assert.equal(other.headers.get('idempotent-replayed'), 'true');
          assert.deepEqual(other.body, firsts[0]!.body);
        }
      }
      ids.add(firsts[0]!.body.id);
    }
    assert.equal(ids.size, 20);
    const requests = await p.a.ctx.store.db.selectFrom('signature_requests').select('id').where('account_id', '=', acct.id).execute();
    assert.deepEqual(requests.map((r) => r.id).sort(), [...ids].sort(), 'one request per key');
    const sends = (await listLedger(p.a.ctx.store.db, acct.id)).filter((e) => e.kind === 'send');
    assert.equal(sends.length, 20, 'one charge per key');
    assert.equal((await getAccount(p.b.ctx.store.db, acct.id))!.balance_sends, 80, 'twenty sends taken from the balance');
    // Afterwards either process replays each key.
    for (const [i, s] of p.servers.entries()) {
      const again = await s.call('POST', '/signature_requests', {
        key: acct.keys.secret_live,
        headers: { 'idempotency-key': `pair-${i}` },
        body: body(i),
      });
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.ok(ids.has(again.body.id));
    }
  });

  test(
    'postgres only: a claim left by a dead process holds until its lease has passed, then another process takes the key over',
    { skip: POSTGRES_ONLY },
    async () => {
      const acct = await p.a.account();
      const now = nowSeconds(p.a.clock);
      // The row a process writes when it claims a key, left behind as it was killed mid-request.
      await p.a.ctx.store.db
        .insertInto('idempotency')
        .values({
          account_id: acct.id,
          mode: 'live',
          idem_key: 'orphan',
          method: 'POST',
          path: '/api/v1/templates',
          state: 'in_progress',
          response_status: null,
          response_body: null,
          created_at: now,
          claim_token: 'the-dead-process',
          lease_until: now + 60,
        })
        .execute();
      const post = (s: TestServer) =>
        s.call('POST', '/templates', {
          key: acct.keys.secret_live,
          headers: { 'idempotency-key': 'orphan' },
          body: { ...TEMPLATE, title: 'Orphan' },
        });
      for (const s of p.servers) assertError(await post(s), 'idempotency_in_progress');
      // A process starting meanwhile keeps the claim: its holder may be alive.
      const third = await startTestServer({}, { dataDir: p.a.dataDir, clock: p.a.clock });
      await third.stop();
      p.a.clock.advanceSeconds(59);
      assertError(await post(p.b), 'idempotency_in_progress');
      p.a.clock.advanceSeconds(1);
      const taken = await post(p.b);
      assert.equal(taken.status, 201, taken.text);
      assert.equal(taken.headers.get('idempotent-replayed'), null);
      const replay = await post(p.a);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, taken.body);
      const made = await p.a.ctx.store.db
        .selectFrom('templates')
        .select('id')
        .where('account_id', '=', acct.id)
        .where('title', '=', 'Orphan')
        .execute();
      assert.equal(made.length, 1);
    },
  );

  test(
    'postgres only: a holder whose lease passed and whose key was taken over can neither store its response nor free the key',
    { skip: POSTGRES_ONLY },
    async () => {
      const acct = await p.a.account();
      const store = p.a.ctx.store;
      const claims = idempotencyClaims(store, { ttlSeconds: DAY, leaseSeconds: 60 });
      const now = nowSeconds(p.a.clock);
      const request = { accountId: acct.id, mode: 'live', key: 'slow', method: 'POST', path: '/api/v1/templates' };
      const slow = await claims.claim({ ...request, now });
      assert.equal(slow.kind, 'claimed');
      assert.equal((await claims.claim({ ...request, now: now + 59 })).kind, 'in_progress');
      const next = await claims.claim({ ...request, now: now + 60 });
      assert.equal(next.kind, 'claimed');
      if (slow.kind !== 'claimed' || next.kind !== 'claimed') return;
      // The slow request finishes late: its transaction would store nothing (commitWrite then undoes its effect)…
      assert.equal(await store.tx((trx) => completeIdempotency(trx, slow.claim, 201, '{"who":"slow"}')), false);
      // …and its release leaves the new holder's claim alone.
      await claims.release(slow.claim);
      assert.equal((await claims.claim({ ...request, now: now + 61 })).kind, 'in_progress');
      assert.equal(await store.tx((trx) => completeIdempotency(trx, next.claim, 201, '{"who":"next"}')), true);
      assert.deepEqual(await claims.claim({ ...request, now: now + 62 }), { kind: 'replay', status: 201, body: '{"who":"next"}' });
    },
  );

  test(
    'postgres only: POST /sessions holds its key through the delivery after the creation commits: 409 elsewhere meanwhile, then the final answer',
    { skip: POSTGRES_ONLY },
    async () => {
      // A relay that accepts the connection and says nothing until told to hang up: the delivery waits there.
      const sockets: Socket[] = [];
      let connected!: () => void;
      const reached = new Promise<void>((resolve) => (connected = resolve));
      const relay = createServer((socket) => {
        sockets.push(socket);
        connected();
      });
      await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
      const q = await startPair({
        TAWQI_SMTP_URL: `smtp://127.0.0.1:${(relay.address() as AddressInfo).port}`,
        TAWQI_SMTP_FROM: 'Tawqi <no-reply@tawqi.test>',
      });
      try {
        const acct = await q.a.account({ ownerEmail: 'owner@acme.test', plan: 'enterprise', balanceSends: 5 });
        const tpl = await q.a.call('POST', '/templates', { key: acct.keys.secret_live, body: TEMPLATE });
        const wf = await createWorkflow(
          q.a.ctx.store,
          q.a.clock,
          acct.id,
          'Deals',
          { document_mode: 'fixed', template_id: tpl.body.id },
          true,
        );
        const post = (s: TestServer) =>
          s.call('POST', '/sessions', {
            key: acct.keys.secret_live,
            headers: { 'idempotency-key': 'held' },
            body: { workflow_id: wf.workflow.id, signers: [{ name: 'Layla', email: 'layla@client.example' }] },
          });
        const first = post(q.a);
        await reached;
        // The session and its 201 are committed; the delivery is still under way.
        const meanwhile = await post(q.b);
        assertError(meanwhile, 'idempotency_in_progress');
        for (const socket of sockets) socket.destroy();
        const answer = await first;
        assertError(answer, 'delivery_failed');
        const replay = await post(q.b);
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        assert.equal(replay.status, 502);
        assert.deepEqual(replay.body, answer.body);
      } finally {
        await q.close();
        relay.close();
      }
    },
  );
});
