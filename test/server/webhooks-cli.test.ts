/**
 * `tawqi webhook …` and `tawqi events show`, run from source as real processes on the data directory
 * of a real in-process server: endpoints the operator adds are live (spec 6.1), their secret is
 * printed once, `rotate-secret` keeps the old secret signing through the overlap, and `events show`
 * prints the event with every delivery attempt.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { emitEvent } from '../../server/src/events/emit.js';
import type { TestServer } from '../support/server.js';
import { makeTestCa, startWebhookTestServer, WebhookReceiver, type Received, type TestCa } from '../support/webhookReceiver.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The v1 values of a delivery that verify with `secret` (computed here, independently of the server). */
function matchingSignatures(r: Received, secret: string): number {
  const parts = String(r.headers['svc-signature']).split(',');
  const t = parts.find((p) => p.startsWith('t='))!.slice(2);
  const expected = createHmac('sha256', secret).update(`${t}.${r.rawBody}`).digest('hex');
  return parts.filter((p) => p === `v1=${expected}`).length;
}
const v1Count = (r: Received) =>
  String(r.headers['svc-signature'])
    .split(',')
    .filter((p) => p.startsWith('v1=')).length;

describe('tawqi webhook and events commands', () => {
  let ca: TestCa;
  let rx: WebhookReceiver;
  let s: TestServer;

  before(async () => {
    ca = makeTestCa();
    rx = await WebhookReceiver.start(ca);
    s = await startWebhookTestServer(ca);
  });
  after(async () => {
    await s.close();
    await rx.close();
    ca.cleanup();
  });

  function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    const e: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: s.dataDir, ...s.databaseEnv, TAWQI_WEBHOOK_ALLOW_PRIVATE: 'true', ...env };
    delete e.NODE_TEST_CONTEXT;
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--conditions=tawqi-source', '--import', 'tsx', 'server/src/cli/main.ts', ...args],
        { cwd: ROOT, env: e, encoding: 'utf8' },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
      );
    });
  }
  async function cliJson(...args: string[]): Promise<Json> {
    const r = await cli([...args, '--json']);
    assert.equal(r.code, 0, `tawqi ${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, '');
    return JSON.parse(r.stdout);
  }
  const emit = (accountId: string, livemode: boolean) =>
    s.ctx.store.tx((trx) =>
      emitEvent(trx, s.clock, {
        accountId,
        livemode,
        type: 'signature_request.completed',
        object: { object: 'signature_request', id: 'sr_cli' },
      }),
    );

  test('add (live, secret once), list, show; refusals name the problem', async () => {
    const a = await s.account();
    const added = await cliJson(
      'webhook',
      'add',
      '--account',
      a.id,
      '--url',
      rx.url('/cli'),
      '--events',
      'signature_request.completed, signer.signed',
      '--description',
      'ERP',
    );
    assert.match(added.secret, /^whsec_[0-9A-Za-z]{43}$/);
    assert.equal(added.endpoint.livemode, true, 'operator endpoints are live');
    assert.equal(added.endpoint.created_via, 'cli');
    assert.deepEqual(added.endpoint.enabled_events, ['signature_request.completed', 'signer.signed']);
    assert.equal(added.endpoint.status, 'enabled');

    const listed = await cliJson('webhook', 'list', '--account', a.id);
    assert.deepEqual(
      listed.endpoints.map((e: Json) => e.id),
      [added.endpoint.id],
    );
    const shown = await cli(['webhook', 'show', added.endpoint.id]);
    assert.equal(shown.code, 0);
    assert.match(shown.stdout, new RegExp(`${added.endpoint.id}  enabled  live  ${rx.url('/cli').replace(/[.]/g, '\\.')}`));
    for (const out of [JSON.stringify(listed), shown.stdout]) assert.ok(!out.includes('whsec_'), 'the secret is printed by add only');
    // The live key's API sees it; the test key does not.
    assert.equal((await s.call('GET', `/webhook_endpoints/${added.endpoint.id}`, { key: a.keys.secret_live })).status, 200);
    assert.equal((await s.call('GET', `/webhook_endpoints/${added.endpoint.id}`, { key: a.keys.secret_test })).status, 404);

    // Live events reach it, test events do not.
    const live = await emit(a.id, true);
    await emit(a.id, false);
    assert.equal(await s.webhooks.runDue(), 1);
    const got = rx.received.at(-1)!;
    assert.equal(JSON.parse(got.rawBody).id, live.id);
    assert.equal(matchingSignatures(got, added.secret), 1);

    const refused = await cli(['webhook', 'add', '--account', a.id, '--url', rx.url(), '--events', '*'], {
      TAWQI_WEBHOOK_ALLOW_PRIVATE: 'false',
    });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /url must be publicly reachable: localhost resolves to .*not a public address \(loopback\)/);
    const http = await cli(['webhook', 'add', '--account', a.id, '--url', 'http://hooks.example.com/', '--events', '*']);
    assert.equal(http.code, 1);
    assert.match(http.stderr, /must use https/);
    const badEvents = await cli(['webhook', 'add', '--account', a.id, '--url', rx.url(), '--events', 'signer.signed,signer.flew']);
    assert.notEqual(badEvents.code, 0);
    assert.match(badEvents.stderr, /Unknown: signer\.flew/);
    const noAccount = await cli(['webhook', 'add', '--account', 'acct_nope', '--url', rx.url(), '--events', '*']);
    assert.equal(noAccount.code, 1);
    assert.match(noAccount.stderr, /No account acct_nope/);
    const noEndpoint = await cli(['webhook', 'show', 'we_nope']);
    assert.equal(noEndpoint.code, 1);
    assert.match(noEndpoint.stderr, /No webhook endpoint we_nope/);
  });

  test('rotate-secret: two v1 values during the overlap, then the new secret alone', async () => {
    const a = await s.account();
    const added = await cliJson('webhook', 'add', '--account', a.id, '--url', rx.url('/rotate'), '--events', '*');
    // The CLI stamps the overlap with the system clock: bring the server's clock to the present.
    s.clock.set(Math.max(s.clock.nowMs(), Date.now()));
    const before = Math.floor(Date.now() / 1000);
    const rotated = await cliJson('webhook', 'rotate-secret', added.endpoint.id, '--overlap-hours', '1');
    const after = Math.ceil(Date.now() / 1000);
    assert.match(rotated.secret, /^whsec_[0-9A-Za-z]{43}$/);
    assert.notEqual(rotated.secret, added.secret);
    const until = rotated.endpoint.previous_secret_signs_until as number;
    // The CLI read its clock while it ran: between the two readings around it, however slow the run.
    assert.ok(until >= before + 3600 && until <= after + 3600, 'the old secret signs for the hour asked');

    await emit(a.id, true);
    await s.webhooks.runDue();
    const during = rx.received.at(-1)!;
    assert.equal(v1Count(during), 2);
    assert.equal(matchingSignatures(during, added.secret), 1, 'the old secret still verifies');
    assert.equal(matchingSignatures(during, rotated.secret), 1, 'the new one too');

    s.clock.set(until * 1000);
    await emit(a.id, true);
    await s.webhooks.runDue();
    const afterwards = rx.received.at(-1)!;
    assert.equal(v1Count(afterwards), 1);
    assert.equal(matchingSignatures(afterwards, rotated.secret), 1);
    assert.equal(matchingSignatures(afterwards, added.secret), 0);

    // --overlap-hours 0 stops the old secret at once; out-of-range values are refused.
    const now = await cliJson('webhook', 'rotate-secret', added.endpoint.id, '--overlap-hours', '0');
    assert.equal(now.endpoint.previous_secret_signs_until, null);
    const tooLong = await cli(['webhook', 'rotate-secret', added.endpoint.id, '--overlap-hours', '1000']);
    assert.notEqual(tooLong.code, 0);
    assert.match(tooLong.stderr, /hours from 0 to 168/);
  });

  test('disable, enable, delete; events show prints the event and every attempt', async () => {
    const a = await s.account();
    const added = await cliJson('webhook', 'add', '--account', a.id, '--url', rx.url('/show'), '--events', '*');
    let first = true;
    rx.answer = (_n, r) => {
      const status = r.path === '/show' && first ? 500 : 200;
      first = false;
      return { status, body: status === 500 ? 'try\r\nlater' : 'ok' };
    };
    const e = await emit(a.id, true);
    await s.webhooks.runDue();
    s.clock.advanceSeconds(60);
    await s.webhooks.runDue();
    rx.answer = () => ({ status: 200 });

    const shown = await cliJson('events', 'show', e.id);
    assert.equal(shown.event.id, e.id);
    assert.equal(shown.event.type, 'signature_request.completed');
    assert.deepEqual(shown.event.data, { object: { object: 'signature_request', id: 'sr_cli' } });
    assert.equal(shown.deliveries.length, 1);
    const d = shown.deliveries[0];
    assert.equal(d.endpoint, added.endpoint.id);
    assert.equal(d.status, 'succeeded');
    assert.deepEqual(
      d.attempts.map((x: Json) => [x.response_status, x.response_excerpt]),
      [
        [500, 'try\nlater'],
        [200, 'ok'],
      ],
    );
    const text = await cli(['events', 'show', e.id]);
    assert.equal(text.code, 0);
    assert.match(text.stdout, new RegExp(`${d.id}  ${added.endpoint.id}  succeeded  2 attempt\\(s\\)`));
    assert.match(text.stdout, /#1 .* 500 .*answered 500 .*retry.*\n {8}answered: try⏎later\n/);
    assert.match(text.stdout, /#2 .* 200 /);
    const missing = await cli(['events', 'show', 'evt_nope']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No event evt_nope/);

    const off = await cliJson('webhook', 'disable', added.endpoint.id);
    assert.equal(off.endpoint.status, 'disabled');
    await emit(a.id, true);
    assert.equal(await s.webhooks.runDue(), 0, 'a disabled endpoint gets nothing');
    const on = await cliJson('webhook', 'enable', added.endpoint.id);
    assert.equal(on.endpoint.status, 'enabled');
    const deleted = await cliJson('webhook', 'delete', added.endpoint.id);
    assert.deepEqual(deleted, { id: added.endpoint.id, object: 'webhook_endpoint', deleted: true });
    assert.equal((await cliJson('webhook', 'list', '--account', a.id)).endpoints.length, 0);
    await emit(a.id, true);
    assert.equal(await s.webhooks.runDue(), 0);
  });
});
