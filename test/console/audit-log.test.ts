/**
 * The audit log (issue 15, point 2): every sign-in, failed sign-in and security change, read by the
 * owner and admins of the account at GET /console/api/audit_log, newest first, in cursor pages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/envelope.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, TEST_PASSWORD } from '../support/consoleClient.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let accountA: string;
let accountB: string;
const clients: Record<string, ConsoleClient> = {};

before(async () => {
  s = await startTestServer({ ...CONSOLE_TEST_ENV, TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000' });
  accountA = (await s.account({ name: 'A' })).id;
  accountB = (await s.account({ name: 'B' })).id;
  for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) await consoleUser(s, accountA, `${role}@a.example`, role);
  await consoleUser(s, accountB, 'owner@b.example', 'owner');
  // A failed attempt on A's owner, one on an unknown email, then everyone signs in.
  assert.equal((await new ConsoleClient(s.url).signIn('owner@a.example', 'wrong password')).status, 401);
  assert.equal((await new ConsoleClient(s.url).signIn('stranger@a.example', 'wrong password')).status, 401);
  for (const email of ['owner@a.example', 'admin@a.example', 'developer@a.example', 'viewer@a.example', 'owner@b.example']) {
    s.clock.advanceSeconds(1);
    clients[email] = new ConsoleClient(s.url);
    assert.equal((await clients[email].signIn(email, TEST_PASSWORD)).status, 200);
  }
});
after(() => s.close());

describe('GET /console/api/audit_log', () => {
  test('the owner reads the account’s entries, newest first: sign-ins, the failed sign-in, the users created; nothing of another account', async () => {
    const r = await clients['owner@a.example']!.call('GET', '/audit_log?limit=100');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.object, 'list');
    const entries = r.body.data as { id: string; action: string; actor: string; account_id: string; ip: string; detail: object }[];
    assert.deepEqual(
      entries.map((e) => e.id),
      entries
        .map((e) => e.id)
        .sort()
        .reverse(),
      'newest first',
    );
    assert.ok(entries.every((e) => e.account_id === accountA));
    const signedIn = entries.filter((e) => e.action === 'console.signed_in').map((e) => e.actor);
    assert.deepEqual(signedIn, ['viewer@a.example', 'developer@a.example', 'admin@a.example', 'owner@a.example']);
    const failed = entries.filter((e) => e.action === 'console.sign_in_failed');
    assert.equal(failed.length, 1, 'the unknown email is not an entry of this account');
    assert.equal(failed[0]!.actor, 'owner@a.example');
    assert.equal(failed[0]!.ip, '127.0.0.1');
    assert.deepEqual(failed[0]!.detail, { stage: 'password', reason: 'wrong_password' });
    assert.equal(entries.filter((e) => e.action === 'user.created').length, 4);
    assert.ok(!JSON.stringify(entries).includes('b.example'));
  });

  test('cursor pages: limit, has_more, starting_after; an unknown cursor is 400 parameter_invalid', async () => {
    const owner = clients['owner@a.example']!;
    const all = (await owner.call('GET', '/audit_log?limit=100')).body.data.map((e: { id: string }) => e.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await owner.call('GET', `/audit_log?limit=3${cursor ? `&starting_after=${cursor}` : ''}`);
      assert.equal(page.status, 200, page.text);
      assert.ok(page.body.data.length <= 3);
      seen.push(...page.body.data.map((e: { id: string }) => e.id));
      cursor = page.body.next_cursor;
      assert.equal(page.body.has_more, cursor !== null);
    } while (cursor);
    assert.deepEqual(seen, all);
    const foreign = (await clients['owner@b.example']!.call('GET', '/audit_log')).body.data[0].id;
    const bad = await owner.call('GET', `/audit_log?starting_after=${foreign}`);
    assertError(bad, 'parameter_invalid');
    assert.equal(bad.body.error.param, 'starting_after');
  });

  test('?action= keeps one action, still newest first and in pages; a malformed action is 400 parameter_invalid', async () => {
    const owner = clients['owner@a.example']!;
    const r = await owner.call('GET', '/audit_log?action=console.signed_in&limit=3');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.data.map((e: { actor: string }) => e.actor),
      ['viewer@a.example', 'developer@a.example', 'admin@a.example'],
    );
    assert.ok(r.body.data.every((e: { action: string }) => e.action === 'console.signed_in'));
    const rest = await owner.call('GET', `/audit_log?action=console.signed_in&starting_after=${r.body.next_cursor}`);
    assert.deepEqual(
      rest.body.data.map((e: { actor: string }) => e.actor),
      ['owner@a.example'],
    );
    assert.equal(rest.body.has_more, false);
    assert.deepEqual((await owner.call('GET', '/audit_log?action=key.created')).body.data, []);
    const bad = await owner.call('GET', '/audit_log?action=DROP%20TABLE');
    assertError(bad, 'parameter_invalid');
    assert.equal(bad.body.error.param, 'action');
  });

  test('an admin reads it too; a developer and a viewer get 403 forbidden (Arabic by default, English on request)', async () => {
    assert.equal((await clients['admin@a.example']!.call('GET', '/audit_log')).status, 200);
    assertError(await clients['developer@a.example']!.call('GET', '/audit_log'), 'forbidden');
    assertError(await clients['viewer@a.example']!.call('GET', '/audit_log', { headers: { 'accept-language': 'en' } }), 'forbidden', 'en');
    assertError(await new ConsoleClient(s.url).call('GET', '/audit_log'), 'console_session_required');
  });

  test('the other account’s owner sees only their own account', async () => {
    const r = await clients['owner@b.example']!.call('GET', '/audit_log');
    assert.ok(r.body.data.length > 0);
    assert.ok(r.body.data.every((e: { account_id: string }) => e.account_id === accountB));
  });
});
