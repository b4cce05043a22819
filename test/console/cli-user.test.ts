/**
 * `tawqi user create` (issue 15, point 1): the operator makes the first owner of an account, who
 * then signs in to the console; a one-time link to set the password, or the password on stdin.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { CliProcess, runCli } from '../support/cli.js';
import { CONSOLE_TEST_ENV, ConsoleClient } from '../support/consoleClient.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let accountId: string;
const env = () => ({ DATA_DIR: s.dataDir, ...s.databaseEnv, ...CONSOLE_TEST_ENV, TAWQI_PUBLIC_URL: 'https://sign.example.test' });

before(async () => {
  s = await startTestServer(CONSOLE_TEST_ENV);
  accountId = (await s.account({ name: 'Acme' })).id;
});
after(() => s.close());

async function createWithStdin(password: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = new CliProcess(env(), ['user', 'create', ...args, '--password-stdin']);
  p.child.stdin!.end(`${password}\n`);
  const { code } = await p.exited;
  return { code, stdout: p.lines().join('\n'), stderr: p.lines('stderr').join('\n') };
}

describe('tawqi user create', () => {
  test('with --password-stdin: an active owner who signs in at once; a team email of the account; in the audit log', async () => {
    const r = await createWithStdin(
      'a long enough password',
      '--account',
      accountId,
      '--email',
      'Boss@Acme.example',
      '--role',
      'owner',
      '--name',
      'Boss',
      '--json',
    );
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.user.email, 'boss@acme.example');
    assert.equal(out.user.role, 'owner');
    assert.equal(out.user.status, 'active');
    assert.equal(out.set_password_url, null);
    const c = new ConsoleClient(s.url);
    const signedIn = await c.signIn('boss@acme.example', 'a long enough password');
    assert.equal(signedIn.status, 200, signedIn.text);
    const session = await c.call('GET', '/session');
    assert.deepEqual(session.body.account, { id: accountId, name: 'Acme' });
    const account = await s.ctx.store.db.selectFrom('accounts').select('team_emails').where('id', '=', accountId).executeTakeFirstOrThrow();
    assert.ok(JSON.parse(account.team_emails).includes('boss@acme.example'));
    const log = await c.call('GET', '/audit_log');
    const created = log.body.data.find((e: { action: string }) => e.action === 'user.created');
    assert.equal(created.actor, 'operator (tawqi CLI)');
    assert.equal(created.target, out.user.id);
  });

  test('without a password: a one-time link (the token stored only as its SHA-256, for 7 days); no sign-in until it is used', async () => {
    const r = await runCli(env(), 'user', 'create', '--account', accountId, '--email', 'dev@acme.example', '--role', 'developer');
    assert.equal(r.code, 0, r.stderr);
    const m = /^ {2}(https:\/\/sign\.example\.test\/console\/reset#token=([0-9A-Za-z]+))$/m.exec(r.stdout);
    assert.ok(m, r.stdout);
    const row = await s.ctx.store.db
      .selectFrom('console_tokens')
      .selectAll()
      .where('id', '=', createHash('sha256').update(m[2]!).digest('hex'))
      .executeTakeFirstOrThrow();
    assert.equal(row.kind, 'password_reset');
    assert.equal(row.expires_at - row.created_at, 7 * 86400);
    assert.equal(row.used_at, null);
    const c = new ConsoleClient(s.url);
    assert.equal((await c.signIn('dev@acme.example', '')).status, 400, 'an empty password is refused as a parameter');
    assert.equal((await c.signIn('dev@acme.example', 'anything at all')).status, 401);
    // The link sets the password through the reset page's call, once; then the user signs in.
    const set = await c.call('POST', '/password_reset/confirm', { body: { token: m[2], password: 'the first passphrase' } });
    assert.equal(set.status, 200, set.text);
    assert.equal((await c.signIn('dev@acme.example', 'the first passphrase')).status, 200);
    const again = await c.call('POST', '/password_reset/confirm', { body: { token: m[2], password: 'another passphrase' } });
    assert.equal(again.body.error.code, 'console_link_invalid');
  });

  test('--operator makes an operator user (no account); mistakes are refused clearly', async () => {
    const op = await createWithStdin('operator password 1', '--operator', '--email', 'ops@tawqi.example', '--json');
    assert.equal(op.code, 0, op.stderr);
    const user = JSON.parse(op.stdout).user;
    assert.equal(user.account_id, null);
    assert.equal(user.role, 'operator');
    assert.equal(user.operator, true);
    const c = new ConsoleClient(s.url);
    assert.equal((await c.signIn('ops@tawqi.example', 'operator password 1')).status, 200);
    assert.deepEqual((await c.call('GET', '/session')).body.permissions, []);

    const again = await runCli(env(), 'user', 'create', '--account', accountId, '--email', 'boss@acme.example', '--role', 'viewer');
    assert.equal(again.code, 1);
    assert.match(again.stderr, /A console user with the email boss@acme.example exists already/);
    const noAccount = await runCli(env(), 'user', 'create', '--account', 'acct_nope', '--email', 'x@acme.example', '--role', 'viewer');
    assert.match(noAccount.stderr, /No account acct_nope/);
    const mixed = await runCli(env(), 'user', 'create', '--operator', '--account', accountId, '--email', 'y@acme.example');
    assert.match(mixed.stderr, /--operator alone/);
    const badRole = await runCli(env(), 'user', 'create', '--account', accountId, '--email', 'z@acme.example', '--role', 'boss');
    assert.match(badRole.stderr, /Allowed choices are owner, admin, developer, viewer/);
    const short = await createWithStdin('short', '--account', accountId, '--email', 'w@acme.example', '--role', 'viewer');
    assert.equal(short.code, 1);
    assert.match(short.stderr, /Use at least 10 characters/);
  });
});
