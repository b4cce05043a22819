/**
 * The `tawqi` operator CLI, run from source as a real process against the data directory of a real
 * server running in this process: what the CLI writes, the server enforces.
 *
 * The server runs on a ManualClock (starting 2026-07-01); the CLI stamps times with the system clock.
 * Where a check depends on a time the CLI wrote (rotation grace, revocation), the test moves the
 * server's clock relative to that stored time, or brings it to the present with `catchUp()`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { ManualClock } from '../../server/src/clock.js';
import { loadConfig } from '../../server/src/config.js';
import { hashSecret } from '../../server/src/domain/keys.js';
import { startServer, type RunningServer } from '../../server/src/server.js';
import { databasePath } from '../../server/src/store/db.js';
import { databaseEnv, dropDatabaseOf, onPostgres } from '../support/database.js';
import { runCliWith, type CliRun } from '../support/cli.js';
import { assertError } from '../support/envelope.js';
import { call, type CallOptions, type CallResult } from '../support/server.js';

const KEY_FORMATS = {
  secret_live: /^sk_[0-9a-f]{40}$/,
  publishable_live: /^pk_[0-9a-f]{40}$/,
  secret_test: /^sk_test_[0-9a-f]{40}$/,
  publishable_test: /^pk_test_[0-9a-f]{40}$/,
} as const;
type Keys = Record<keyof typeof KEY_FORMATS, string>;
const DAY = 86400;
const ORIGIN = 'https://shop.example.com';
const TEMPLATE = (title: string) => ({ title, body: 'Agreement text.' });

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('tawqi CLI', () => {
  let dataDir: string;
  let clock: ManualClock;
  let server: RunningServer;
  let database: Record<string, string>;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-cli-'));
    database = await databaseEnv(dataDir);
    clock = new ManualClock();
    // Generous limits: every request here comes from 127.0.0.1 within one window of the still clock.
    const config = loadConfig({
      DATA_DIR: dataDir,
      ...database,
      PORT: '0',
      HOST: '127.0.0.1',
      TAWQI_LOG_LEVEL: 'silent',
      TAWQI_RATE_LIMIT: '100000',
      TAWQI_IP_RATE_LIMIT: '100000',
    });
    server = await startServer(config, { clock });
  });

  after(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
    await dropDatabaseOf(dataDir);
  });

  /** Run the CLI from source as its own process, on the server's data directory. */
  const cli = (...args: string[]): Promise<CliRun> => cliWith([], ...args);

  /** The same, with these options for node (before the entry). */
  const cliWith = (nodeOptions: string[], ...args: string[]): Promise<CliRun> =>
    runCliWith(nodeOptions, { ...process.env, DATA_DIR: dataDir, ...database }, ...args);

  /** Run with --json; it must succeed and print exactly one JSON object and nothing else. */
  async function cliJson(...args: string[]): Promise<Json> {
    const r = await cli(...args, '--json');
    assert.equal(r.code, 0, `tawqi ${args.join(' ')} failed: ${r.stderr}`);
    assert.equal(r.stderr, '');
    const parsed: unknown = JSON.parse(r.stdout); // throws on a second object or stray text
    assert.ok(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed), 'expected one JSON object');
    return parsed;
  }

  /** Run and expect exit 1, nothing on stdout, and a message on stderr matching each pattern. */
  async function cliFails(args: string[], ...patterns: RegExp[]): Promise<CliRun> {
    const r = await cli(...args);
    assert.equal(r.code, 1, `expected exit 1 from tawqi ${args.join(' ')}; stdout: ${r.stdout}`);
    assert.equal(r.stdout, '');
    assert.ok(r.stderr.trim().length > 0, 'expected a message on stderr');
    for (const p of patterns) assert.match(r.stderr, p);
    return r;
  }

  const api = (method: string, p: string, key: string, opts: CallOptions = {}): Promise<CallResult> =>
    call(server.url, method, p, { key, ...opts });

  /** Bring the server's clock to the present, so times the CLI stamped have been reached. */
  const catchUp = (): void => clock.set(Math.max(clock.nowMs(), Date.now()));

  async function newAccount(...args: string[]): Promise<{ id: string; account: Json; keys: Keys }> {
    const body = await cliJson('account', 'create', '--name', 'Acme Trading', ...args);
    return { id: body.account.id, account: body.account, keys: body.keys };
  }

  /** The key id behind a secret, found through `tawqi key list` (which shows hints, never secrets). */
  async function keyIdOf(accountId: string, secret: string): Promise<string> {
    const { keys } = await cliJson('key', 'list', '--account', accountId);
    const hint = `${secret.slice(0, -40)}…${secret.slice(-4)}`;
    const matches = (keys as Json[]).filter((k) => k.hint === hint);
    assert.equal(matches.length, 1, `one key with hint ${hint}`);
    return matches[0].id;
  }

  /** The stored rows, read from the database the server and the CLI share (either engine). */
  async function apiKeyRows(): Promise<Json[]> {
    return server.ctx.store.db.selectFrom('api_keys').selectAll().execute();
  }

  async function ledgerRows(accountId: string): Promise<Json[]> {
    return server.ctx.store.db.selectFrom('ledger').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  }

  test('account create --json prints exactly one JSON object: the account and four keys of the documented formats', async () => {
    const before = Math.floor(Date.now() / 1000);
    const body = await cliJson(
      'account',
      'create',
      '--name',
      'Acme',
      '--plan',
      'starter',
      '--balance',
      '42',
      '--wallet',
      '12.50',
      '--owner-email',
      'Owner@Acme.Example.com',
    );
    const after = Math.floor(Date.now() / 1000);
    assert.deepEqual(Object.keys(body).sort(), ['account', 'keys']);
    assert.deepEqual(Object.keys(body.keys).sort(), Object.keys(KEY_FORMATS).sort());
    for (const [name, format] of Object.entries(KEY_FORMATS)) assert.match(body.keys[name], format);
    const a = body.account;
    assert.match(a.id, /^acct_/);
    assert.equal(a.name, 'Acme');
    assert.equal(a.plan, 'starter');
    assert.equal(a.kyb_status, 'approved');
    assert.equal(a.balance_sends, 42);
    assert.deepEqual(a.wallet, { amount: 12.5, currency: 'EGP' });
    assert.equal(a.owner_email, 'owner@acme.example.com');
    assert.deepEqual(a.team_emails, ['owner@acme.example.com']);
    assert.ok(a.plan_expires_at >= before + 365 * DAY && a.plan_expires_at <= after + 365 * DAY);
    assert.equal(a.version_pin, null);
    const accountText = JSON.stringify(a);
    for (const secret of Object.values(body.keys as Keys)) assert.ok(!accountText.includes(secret));
    assert.doesNotMatch(accountText, /secret|hash/);
  });

  test('account create defaults: business plan for a year, verified, its yearly sends, empty wallet; --plan none has no expiry', async () => {
    const now = Math.floor(Date.now() / 1000);
    const { account, keys } = await newAccount();
    assert.equal(account.plan, 'business');
    assert.equal(account.kyb_status, 'approved');
    assert.equal(account.balance_sends, 1000);
    assert.deepEqual(account.wallet, { amount: 0, currency: 'EGP' });
    assert.ok(Math.abs(account.plan_expires_at - (now + 365 * DAY)) < 60);
    assert.equal((await api('POST', '/templates', keys.secret_live, { body: TEMPLATE('Defaults') })).status, 201);

    const free = await newAccount('--plan', 'none', '--kyb', 'pending');
    assert.equal(free.account.plan_expires_at, null);
    assert.equal(free.account.balance_sends, 0);
    assert.equal(free.account.kyb_status, 'pending');
    assertError(await api('POST', '/templates', free.keys.secret_live, { body: TEMPLATE('Free') }), 'plan_required');
    assert.equal(
      (await api('POST', '/templates', free.keys.secret_test, { body: TEMPLATE('Free') })).status,
      201,
      'test keys pass the live gates',
    );
  });

  test('the created keys work over HTTP against the running server, which shows the plan and balance set', async () => {
    const { keys } = await newAccount('--plan', 'enterprise', '--balance', '7', '--wallet', '250');
    const live = await api('GET', '/usage', keys.secret_live);
    assert.equal(live.status, 200, live.text);
    assert.equal(live.body.livemode, true);
    assert.equal(live.body.plan.name, 'enterprise');
    assert.equal(live.body.plan.status, 'active');
    assert.equal(live.body.balance.sends, 7);
    assert.deepEqual(live.body.balance.wallet, { amount: 250, currency: 'EGP' });
    assert.equal(live.body.company_verification, 'approved');
    const test = await api('GET', '/usage', keys.secret_test);
    assert.equal(test.status, 200);
    assert.equal(test.body.livemode, false);
    // Publishable keys exist and are recognised, but refuse requests until an origin is allowed.
    assertError(await api('GET', '/templates', keys.publishable_live, { headers: { origin: ORIGIN } }), 'forbidden');
    assertError(await api('GET', '/templates', keys.publishable_test, { headers: { origin: ORIGIN } }), 'forbidden');
  });

  test('the database holds only SHA-256 digests of the keys, never a plain key', async () => {
    const { keys } = await newAccount();
    const dump = JSON.stringify(await apiKeyRows());
    for (const secret of Object.values(keys)) {
      assert.ok(!dump.includes(secret), 'a plain key is stored');
      assert.ok(!dump.includes(secret.slice(-40)), 'the random part of a key is stored');
      assert.ok(dump.includes(hashSecret(secret)), 'the digest is stored');
    }
  });

  test('text output: create shows the id and the keys once with a warning; show, list and key list never show a secret', async () => {
    const created = await cli('account', 'create', '--name', 'Text Co', '--wallet', '3.5');
    assert.equal(created.code, 0, created.stderr);
    assert.throws(() => JSON.parse(created.stdout), 'text, not JSON');
    const id = /Account (acct_\w+)/.exec(created.stdout)?.[1];
    assert.ok(id, 'the account id is printed');
    const secrets = created.stdout.match(/\b(?:sk|pk)_(?:test_)?[0-9a-f]{40}\b/g) ?? [];
    assert.equal(secrets.length, 4);
    assert.equal(new Set(secrets).size, 4);
    assert.match(created.stdout, /shown this once/);
    assert.match(created.stdout, /3\.50 EGP/);

    const outputs = await Promise.all([
      cli('account', 'show', id),
      cli('account', 'show', id, '--json'),
      cli('account', 'list'),
      cli('account', 'list', '--json'),
      cli('key', 'list', '--account', id),
      cli('key', 'list', '--account', id, '--json'),
    ]);
    for (const r of outputs) {
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.includes(id));
      for (const s of secrets) {
        assert.ok(!r.stdout.includes(s), 'a secret is printed again');
        assert.ok(!r.stdout.includes(hashSecret(s)), 'a key hash is printed');
      }
    }
    const [show, showJson] = outputs;
    assert.match(show!.stdout, /Keys \(4\)/);
    assert.match(show!.stdout, /opening_balance/);
    const shown = JSON.parse(showJson!.stdout);
    assert.equal(shown.keys.length, 4);
    assert.equal(shown.ledger[0].kind, 'opening_balance');
    const listed = JSON.parse(outputs[3]!.stdout);
    assert.ok(listed.accounts.some((a: Json) => a.id === id && a.name === 'Text Co'));
  });

  test('account set --plan, --plan-expires and --kyb change what the server enforces', async () => {
    const { id, keys } = await newAccount('--plan', 'starter');
    const sk = keys.secret_live;

    let body = await cliJson('account', 'set', id, '--plan', 'enterprise');
    assert.equal(body.account.plan, 'enterprise');
    assert.equal((await api('GET', '/usage', sk)).body.plan.name, 'enterprise');

    const past = Math.floor(clock.nowMs() / 1000) - 1;
    body = await cliJson('account', 'set', id, '--plan-expires', String(past));
    assert.equal(body.account.plan_expires_at, past);
    assert.equal((await api('GET', '/usage', sk)).body.plan.status, 'expired');
    assertError(await api('POST', '/templates', sk, { body: TEMPLATE('Expired') }), 'plan_expired');

    body = await cliJson('account', 'set', id, '--plan-expires', 'none');
    assert.equal(body.account.plan_expires_at, null);
    assert.equal((await api('GET', '/usage', sk)).body.plan.status, 'active');

    body = await cliJson('account', 'set', id, '--kyb', 'pending');
    assert.equal(body.account.kyb_status, 'pending');
    assert.equal((await api('GET', '/usage', sk)).body.company_verification, 'pending');
    assertError(await api('POST', '/templates', sk, { body: TEMPLATE('Unverified') }), 'kyb_required');

    await cliJson('account', 'set', id, '--kyb', 'approved');
    assert.equal((await api('POST', '/templates', sk, { body: TEMPLATE('Verified') })).status, 201);

    body = await cliJson('account', 'set', id, '--plan', 'none');
    assert.equal(body.account.plan, 'none');
    assert.equal(body.account.plan_expires_at, null);
    assertError(await api('POST', '/templates', sk, { body: TEMPLATE('No plan') }), 'plan_required');
    const now = Math.floor(Date.now() / 1000);
    body = await cliJson('account', 'set', id, '--plan', 'business');
    assert.ok(Math.abs(body.account.plan_expires_at - (now + 365 * DAY)) < 60, 'a new paid plan runs a year');
  });

  test('account set --balance and --wallet-topup write ledger rows in the same transaction', async () => {
    const { id, keys } = await newAccount('--balance', '10');
    const opening = await ledgerRows(id);
    assert.equal(opening.length, 1);

    const body = await cliJson('account', 'set', id, '--balance', '25', '--wallet-topup', '12.50');
    assert.equal(body.account.balance_sends, 25);
    assert.deepEqual(body.account.wallet, { amount: 12.5, currency: 'EGP' });
    const usage = await api('GET', '/usage', keys.secret_live);
    assert.equal(usage.body.balance.sends, 25);
    assert.equal(usage.body.balance.wallet.amount, 12.5);

    const rows = (await ledgerRows(id)).slice(1);
    const balanceSet = rows.find((r) => r.kind === 'balance_set');
    const topup = rows.find((r) => r.kind === 'wallet_topup');
    assert.equal(rows.length, 2);
    assert.equal(balanceSet.sends_delta, 15);
    assert.equal(balanceSet.wallet_delta_minor, 0);
    assert.equal(topup.wallet_delta_minor, 1250);
    assert.equal(topup.sends_delta, 0);

    await cliJson('account', 'set', id, '--wallet-topup', '0.5', '--balance', '3');
    const more = (await ledgerRows(id)).slice(3);
    assert.deepEqual(more.map((r) => [r.kind, r.sends_delta, r.wallet_delta_minor]).sort(), [
      ['balance_set', -22, 0],
      ['wallet_topup', 0, 50],
    ]);
    const shown = await cliJson('account', 'show', id);
    assert.deepEqual(shown.account.wallet, { amount: 13, currency: 'EGP' });
    assert.equal(shown.ledger.length, 5);

    // A refused change writes nothing: neither the account nor the ledger.
    await cliFails(
      ['account', 'set', id, '--balance', '99', '--wallet-topup', '1', '--remove-domain', 'never-added.example.com'],
      /never-added\.example\.com/,
    );
    assert.equal((await ledgerRows(id)).length, 5);
    assert.equal((await cliJson('account', 'show', id)).account.balance_sends, 3);

    await cliFails(['account', 'set', id, '--wallet-topup', '1.234'], /--wallet-topup/);
    await cliFails(['account', 'set', id, '--wallet-topup=-5'], /--wallet-topup/);
    await cliFails(['account', 'set', id, '--wallet-topup', '0'], /more than 0/);
    await cliFails(['account', 'set', id, '--balance', '2.5'], /--balance/);
    await cliFails(['account', 'set', id], /Nothing to change/);
    assert.equal((await ledgerRows(id)).length, 5);
  });

  test('account set: accepted domains, team emails and phones, WhatsApp', async () => {
    const { id } = await newAccount('--owner-email', 'owner@acme.example.com');
    let { account } = await cliJson(
      'account',
      'set',
      id,
      '--accept-domain',
      'Shop.Example.com',
      '--accept-domain',
      'pay.example.org',
      '--team-email',
      'Ali@Example.com',
      '--team-email',
      'mona@example.com',
      '--team-phone',
      '+201001234567',
      '--team-phone',
      '+971501234567',
      '--whatsapp',
      'on',
    );
    assert.deepEqual(account.accepted_domains, ['shop.example.com', 'pay.example.org']);
    assert.deepEqual(account.team_emails, ['owner@acme.example.com', 'ali@example.com', 'mona@example.com']);
    assert.deepEqual(account.team_phones, ['+201001234567', '+971501234567']);
    assert.equal(account.whatsapp_enabled, true);

    ({ account } = await cliJson(
      'account',
      'set',
      id,
      '--remove-domain',
      'shop.example.com',
      '--accept-domain',
      'pay.example.org',
      '--remove-team-email',
      'ALI@example.com',
      '--remove-team-phone',
      '+971501234567',
      '--whatsapp',
      'off',
    ));
    assert.deepEqual(account.accepted_domains, ['pay.example.org'], 'no duplicates, removal applied');
    assert.deepEqual(account.team_emails, ['owner@acme.example.com', 'mona@example.com']);
    assert.deepEqual(account.team_phones, ['+201001234567']);
    assert.equal(account.whatsapp_enabled, false);
    assert.deepEqual((await cliJson('account', 'show', id)).account.accepted_domains, ['pay.example.org']);

    await cliFails(['account', 'set', id, '--accept-domain', 'https://shop.example.com'], /--accept-domain/, /host name only/);
    await cliFails(['account', 'set', id, '--accept-domain', 'shop.example.com/path'], /--accept-domain/);
    await cliFails(['account', 'set', id, '--accept-domain', 'not a domain'], /--accept-domain/);
    await cliFails(['account', 'set', id, '--accept-domain', '10.0.0.1'], /--accept-domain/);
    await cliFails(['account', 'set', id, '--team-email', 'not-an-email'], /--team-email/, /email/);
    await cliFails(['account', 'set', id, '--team-phone', '01001234567'], /--team-phone/, /E\.164/);
    await cliFails(['account', 'set', id, '--team-phone', '+20 100 123 4567'], /--team-phone/);
    await cliFails(['account', 'set', id, '--remove-team-email', 'nobody@example.com'], /nobody@example\.com/, /not on the account/);
    await cliFails(['account', 'set', id, '--whatsapp', 'maybe'], /--whatsapp/);
    await cliFails(['account', 'create', '--name', 'X', '--owner-email', 'nope'], /--owner-email/);
    assert.deepEqual((await cliJson('account', 'show', id)).account.team_phones, ['+201001234567']);
  });

  test('account set --version-pin: a request without Svc-Version gets the pinned version', async () => {
    const { id, keys } = await newAccount();
    const version = async (headers: Record<string, string> = {}) => {
      const r = await api('GET', '/usage', keys.secret_live, { headers });
      assert.equal(r.status, 200, r.text);
      return r.headers.get('svc-version');
    };
    assert.equal(await version(), '2026-07-01');
    assert.equal((await cliJson('account', 'set', id, '--version-pin', '2026-01-01')).account.version_pin, '2026-01-01');
    assert.equal(await version(), '2026-01-01');
    assert.equal(await version({ 'svc-version': '2026-07-01' }), '2026-07-01', 'the header still wins');

    await cliFails(['account', 'set', id, '--version-pin', '2099-01-01'], /--version-pin/, /2099-01-01/, /2026-07-01/);
    await cliFails(['account', 'set', id, '--version-pin', 'latest'], /--version-pin/);
    assert.equal(await version(), '2026-01-01', 'a refused pin changes nothing');

    assert.equal((await cliJson('account', 'set', id, '--version-pin', 'none')).account.version_pin, null);
    assert.equal(await version(), '2026-07-01');
  });

  test('bad input is refused with exit 1 and a message naming the problem', async () => {
    const { id } = await newAccount();
    const keysBefore = (await cliJson('key', 'list', '--account', id)).keys.length;
    const accountsBefore = (await cliJson('account', 'list')).accounts.length;
    const ips = (n: number) => Array.from({ length: n }, (_, i) => ['--allow-ip', `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}`]).flat();
    const secretKey = ['key', 'create', '--account', id, '--type', 'secret', '--mode', 'live'];
    const publishableKey = ['key', 'create', '--account', id, '--type', 'publishable', '--mode', 'live'];

    await Promise.all([
      cliFails(['account', 'create', '--name', 'X', '--plan', 'gold'], /--plan/, /gold/, /starter/),
      cliFails(['account', 'create', '--name', 'X', '--plan', 'gold', '--json'], /--plan/),
      cliFails(['account', 'create', '--name', 'X', '--kyb', 'done'], /--kyb/, /approved/),
      cliFails(['account', 'create', '--name', 'X', '--wallet', 'ten'], /--wallet/),
      cliFails(['account', 'create', '--name', 'X', '--plan-expires', 'tomorrow'], /--plan-expires/),
      cliFails(['account', 'create', '--name', '  '], /--name/),
      cliFails(['account', 'create'], /--name/),
      cliFails(['account', 'set', id, '--plan', 'gold'], /--plan/, /gold/),
      cliFails([...secretKey, '--allow-ip', '10.0.0.0/33'], /10\.0\.0\.0\/33/, /CIDR/),
      cliFails([...secretKey, '--allow-ip', '300.1.1.1'], /300\.1\.1\.1/),
      cliFails([...secretKey, ...ips(51)], /50/),
      cliFails([...publishableKey, '--allowed-origin', 'shop.example.com'], /shop\.example\.com/, /origin/),
      cliFails([...publishableKey, '--allowed-origin', 'ftp://shop.example.com'], /ftp:\/\/shop\.example\.com/),
      cliFails([...secretKey, '--allowed-origin', ORIGIN], /publishable keys only/),
      cliFails([...publishableKey, '--allow-ip', '127.0.0.1'], /secret keys only/),
      cliFails([...secretKey, '--daily-cap', '5'], /publishable keys only/),
      cliFails([...publishableKey, '--daily-cap', '0'], /--daily-cap/),
      cliFails(['key', 'create', '--account', id, '--type', 'root', '--mode', 'live'], /--type/, /secret/),
      cliFails(['key', 'create', '--account', id, '--type', 'secret'], /--mode/),
      cliFails(['account', 'show', 'acct_nope'], /acct_nope/),
      cliFails(['account', 'show', 'acct_nope', '--json'], /acct_nope/),
      cliFails(['account', 'set', 'acct_nope', '--kyb', 'none'], /acct_nope/),
      cliFails(['account', 'notices', 'acct_nope'], /acct_nope/),
      cliFails(['account', 'log', 'acct_nope'], /acct_nope/),
      cliFails(['key', 'create', '--account', 'acct_nope', '--type', 'secret', '--mode', 'live'], /acct_nope/),
      cliFails(['key', 'list', '--account', 'acct_nope'], /acct_nope/),
      cliFails(['key', 'rotate', 'key_nope'], /key_nope/),
      cliFails(['key', 'revoke', 'key_nope'], /key_nope/),
      cliFails(['key', 'set', 'key_nope', '--clear-ips'], /key_nope/),
      cliFails(['account', 'frobnicate'], /frobnicate/),
      cliFails(['account', 'list', '--verbose'], /--verbose/),
    ]);
    const okay = await cliJson(...secretKey, ...ips(50));
    assert.equal(okay.key.allowed_ips.length, 50, 'exactly 50 entries are accepted');
    assert.equal((await cliJson('key', 'list', '--account', id)).keys.length, keysBefore + 1, 'no refused key was created');
    assert.equal((await cliJson('account', 'list')).accounts.length, accountsBefore, 'no refused account was created');
  });

  test('key create --read-only: reads pass, writes get 403 forbidden', async () => {
    const { id } = await newAccount();
    const { key, secret } = await cliJson(
      'key',
      'create',
      '--account',
      id,
      '--type',
      'secret',
      '--mode',
      'live',
      '--read-only',
      '--name',
      'reporting',
    );
    assert.match(secret, KEY_FORMATS.secret_live);
    assert.equal(key.read_only, true);
    assert.equal(key.name, 'reporting');
    assert.equal(key.type, 'secret');
    assert.equal(key.mode, 'live');
    assert.equal(key.state, 'active');
    assert.equal(key.hint, `sk_…${secret.slice(-4)}`);
    assert.ok(!('secret_hash' in key));
    assert.equal((await api('GET', '/usage', secret)).status, 200);
    assert.equal((await api('GET', '/templates', secret)).status, 200);
    assertError(await api('POST', '/templates', secret, { body: TEMPLATE('Read only') }), 'forbidden');

    const test = await cliJson('key', 'create', '--account', id, '--type', 'secret', '--mode', 'test');
    assert.match(test.secret, KEY_FORMATS.secret_test);
    assert.equal((await api('GET', '/usage', test.secret)).body.livemode, false);
    await cliFails(['key', 'create', '--account', id, '--type', 'publishable', '--mode', 'live', '--read-only'], /read-only|secret keys/i);
  });

  test('key create --allow-ip: outside the list gives 403 ip_not_allowed and shows in account log; key set changes the list', async () => {
    const { id } = await newAccount();
    const fenced = await cliJson('key', 'create', '--account', id, '--type', 'secret', '--mode', 'live', '--allow-ip', '10.0.0.0/8');
    assert.deepEqual(fenced.key.allowed_ips, ['10.0.0.0/8']);
    assertError(await api('GET', '/usage', fenced.secret), 'ip_not_allowed');

    await server.ctx.requestLog.flush();
    const log = await cliJson('account', 'log', id);
    assert.equal(log.requests.length, 1);
    const entry = log.requests[0];
    assert.equal(entry.code, 'ip_not_allowed');
    assert.equal(entry.status, 403);
    assert.equal(entry.key_id, fenced.key.id);
    assert.equal(entry.ip, '127.0.0.1');
    assert.equal(entry.method, 'GET');
    assert.equal(entry.path, '/api/v1/usage');
    const logText = await cli('account', 'log', id);
    assert.equal(logText.code, 0);
    assert.match(logText.stdout, /ip_not_allowed/);
    assert.match(logText.stdout, /127\.0\.0\.1/);

    const open = await cliJson(
      'key',
      'create',
      '--account',
      id,
      '--type',
      'secret',
      '--mode',
      'live',
      '--allow-ip',
      '127.0.0.1',
      '--allow-ip',
      '2001:db8::/32',
    );
    assert.deepEqual(open.key.allowed_ips, ['127.0.0.1', '2001:db8::/32']);
    assert.equal((await api('GET', '/usage', open.secret)).status, 200);

    // Change the lists later: replace, then clear.
    let changed = await cliJson('key', 'set', fenced.key.id, '--allow-ip', '127.0.0.0/8');
    assert.deepEqual(changed.key.allowed_ips, ['127.0.0.0/8']);
    assert.equal((await api('GET', '/usage', fenced.secret)).status, 200);
    changed = await cliJson('key', 'set', open.key.id, '--allow-ip', '192.168.0.0/16');
    assertError(await api('GET', '/usage', open.secret), 'ip_not_allowed');
    changed = await cliJson('key', 'set', open.key.id, '--clear-ips');
    assert.deepEqual(changed.key.allowed_ips, []);
    assert.equal((await api('GET', '/usage', open.secret)).status, 200);
    // The request log keeps every request of the account (five here), the two refusals among them.
    await server.ctx.requestLog.flush();
    assert.equal((await cliJson('account', 'log', id, '--limit', '1')).requests.length, 1);
    const requests = (await cliJson('account', 'log', id)).requests as Json[];
    assert.deepEqual(
      requests.map((r) => `${r.status} ${r.code ?? ''}`),
      ['200 ', '403 ip_not_allowed', '200 ', '200 ', '403 ip_not_allowed'],
    );

    await cliFails(['key', 'set', open.key.id, '--allow-ip', 'nonsense'], /nonsense/);
    await cliFails(['key', 'set', open.key.id, ...Array.from({ length: 51 }, (_, i) => ['--allow-ip', `10.1.0.${i + 1}`]).flat()], /50/);
    await cliFails(['key', 'set', open.key.id, '--allow-ip', '10.0.0.1', '--clear-ips'], /--clear-ips/);
    await cliFails(['key', 'set', open.key.id], /Nothing to change/);
    assert.deepEqual((await cliJson('key', 'list', '--account', id)).keys.find((k: Json) => k.id === open.key.id).allowed_ips, []);
  });

  test('publishable keys: allowed origins and the daily cap set by the CLI are enforced; account notices shows the cap notice', async () => {
    const { id, keys } = await newAccount();
    const pkId = await keyIdOf(id, keys.publishable_live);
    const withOrigin = (origin: string) => ({ headers: { origin } });
    const set = await cliJson('key', 'set', pkId, '--allowed-origin', `${ORIGIN}/`, '--daily-cap', '2');
    assert.deepEqual(set.key.allowed_origins, [ORIGIN]);
    assert.equal(set.key.daily_cap, 2);
    assert.equal((await api('GET', '/templates', keys.publishable_live, withOrigin(ORIGIN))).status, 200);
    assertError(await api('GET', '/templates', keys.publishable_live, withOrigin('https://evil.example.com')), 'forbidden');

    const created = await cliJson(
      'key',
      'create',
      '--account',
      id,
      '--type',
      'publishable',
      '--mode',
      'live',
      '--allowed-origin',
      'https://other.example.com',
    );
    assert.match(created.secret, KEY_FORMATS.publishable_live);
    assert.equal((await api('GET', '/templates', created.secret, withOrigin('https://other.example.com'))).status, 200);
    assertError(await api('GET', '/templates', created.secret, withOrigin(ORIGIN)), 'forbidden');
    await cliJson('key', 'set', created.key.id, '--clear-origins');
    assertError(await api('GET', '/templates', created.secret, withOrigin('https://other.example.com')), 'forbidden');

    assert.deepEqual((await cliJson('account', 'notices', id)).notices, []);
    // Creation through a publishable key counts toward its daily cap (whatever the route then answers).
    for (let i = 0; i < 2; i++) await api('POST', '/signature_requests', keys.publishable_live, { ...withOrigin(ORIGIN), body: {} });
    assertError(await api('POST', '/signature_requests', keys.publishable_live, { ...withOrigin(ORIGIN), body: {} }), 'daily_cap_reached');
    const { notices } = await cliJson('account', 'notices', id);
    assert.equal(notices.length, 1);
    assert.equal(notices[0].kind, 'publishable_daily_cap_reached');
    assert.equal(notices[0].data.key_id, pkId);
    assert.equal(notices[0].data.cap, 2);
    const text = await cli('account', 'notices', id);
    assert.match(text.stdout, /publishable_daily_cap_reached/);

    await cliFails(['key', 'set', pkId, '--allowed-origin', 'shop.example.com'], /shop\.example\.com/);
    await cliFails(['key', 'set', pkId, '--allow-ip', '127.0.0.1'], /secret keys only/);
    const cleared = await cliJson('key', 'set', pkId, '--daily-cap', 'none');
    assert.equal(cleared.key.daily_cap, null);
  });

  test('key rotate: old and new keys both work; the old one stops 24 hours after the rotation', async () => {
    const { id, keys } = await newAccount();
    const oldId = await keyIdOf(id, keys.secret_live);
    const before = Math.floor(Date.now() / 1000);
    const rotated = await cliJson('key', 'rotate', oldId);
    const after = Math.floor(Date.now() / 1000);
    assert.match(rotated.secret, KEY_FORMATS.secret_live);
    assert.notEqual(rotated.secret, keys.secret_live);
    assert.equal(rotated.key.name, 'default');
    assert.equal(rotated.previous.id, oldId);
    assert.equal(rotated.previous.replaced_by, rotated.key.id);
    assert.equal(rotated.previous.state, 'expiring');
    const expiresAt: number = rotated.previous.expires_at;
    assert.ok(expiresAt >= before + DAY && expiresAt <= after + DAY, 'the old key has 24 hours');

    assert.equal((await api('GET', '/usage', keys.secret_live)).status, 200);
    assert.equal((await api('GET', '/usage', rotated.secret)).status, 200);
    clock.set(expiresAt * 1000 - 1000);
    assert.equal((await api('GET', '/usage', keys.secret_live)).status, 200, 'still valid one second before the end');
    clock.set(expiresAt * 1000 + 1000);
    assertError(await api('GET', '/usage', keys.secret_live), 'invalid_api_key');
    assert.equal((await api('GET', '/usage', rotated.secret)).status, 200);

    // Rotation keeps the name, permissions and address list.
    const fenced = await cliJson(
      'key',
      'create',
      '--account',
      id,
      '--type',
      'secret',
      '--mode',
      'live',
      '--read-only',
      '--allow-ip',
      '127.0.0.1',
      '--name',
      'ci',
    );
    const again = await cliJson('key', 'rotate', fenced.key.id, '--grace-hours', '2');
    assert.equal(again.key.name, 'ci');
    assert.equal(again.key.read_only, true);
    assert.deepEqual(again.key.allowed_ips, ['127.0.0.1']);
    assert.ok(Math.abs(again.previous.expires_at - (Math.floor(Date.now() / 1000) + 2 * 3600)) < 60);
    assertError(await api('POST', '/templates', again.secret, { body: TEMPLATE('Rotated') }), 'forbidden');

    const text = await cli('key', 'rotate', rotated.key.id);
    assert.equal(text.code, 0, text.stderr);
    assert.equal((text.stdout.match(/\bsk_[0-9a-f]{40}\b/g) ?? []).length, 1, 'the new secret is printed once');
    assert.match(text.stdout, /keeps working until/);
    await cliFails(['key', 'rotate', oldId, '--grace-hours', '25'], /--grace-hours/);
    await cliFails(['key', 'rotate', oldId, '--grace-hours', 'soon'], /--grace-hours/);
  });

  test('key rotate --grace-hours 0 and key revoke stop a key at once (revoke also ends a grace period)', async () => {
    const { id, keys } = await newAccount();
    const skId = await keyIdOf(id, keys.secret_live);
    const immediate = await cliJson('key', 'rotate', skId, '--grace-hours', '0');
    assert.equal(immediate.previous.state, 'expired');
    catchUp();
    assertError(await api('GET', '/usage', keys.secret_live), 'invalid_api_key');
    assert.equal((await api('GET', '/usage', immediate.secret)).status, 200);
    await cliFails(['key', 'rotate', skId], /no longer valid/);

    const revoked = await cliJson('key', 'revoke', immediate.key.id);
    assert.equal(revoked.key.state, 'revoked');
    assert.ok(!('secret' in revoked));
    catchUp();
    assertError(await api('GET', '/usage', immediate.secret), 'invalid_api_key');
    const twice = await cliJson('key', 'revoke', immediate.key.id);
    assert.equal(twice.key.revoked_at, revoked.key.revoked_at, 'revoking again keeps the first time');
    await cliFails(['key', 'set', immediate.key.id, '--clear-ips'], /no longer works/);

    // A rotated key in its 24-hour grace period, revoked: stops at once; its successor keeps working.
    const testId = await keyIdOf(id, keys.secret_test);
    const rotated = await cliJson('key', 'rotate', testId);
    catchUp();
    assert.equal((await api('GET', '/usage', keys.secret_test)).status, 200);
    const text = await cli('key', 'revoke', testId);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /Revoked/);
    assert.doesNotMatch(text.stdout, /\b(?:sk|pk)_(?:test_)?[0-9a-f]{40}\b/);
    catchUp();
    assertError(await api('GET', '/usage', keys.secret_test), 'invalid_api_key');
    assert.equal((await api('GET', '/usage', rotated.secret)).status, 200);

    const states = Object.fromEntries((await cliJson('key', 'list', '--account', id)).keys.map((k: Json) => [k.id, k.state]));
    assert.equal(states[skId], 'expired');
    assert.equal(states[immediate.key.id], 'revoked');
    assert.equal(states[testId], 'revoked');
    assert.equal(states[rotated.key.id], 'active');
  });

  test('the CLI works while the server is busy on the same data directory', async () => {
    const { id, keys } = await newAccount();
    const load = Array.from({ length: 30 }, () => api('GET', '/usage', keys.secret_live));
    const [created, set, ...responses] = await Promise.all([
      cli('key', 'create', '--account', id, '--type', 'secret', '--mode', 'live', '--json'),
      cli('account', 'set', id, '--wallet-topup', '1', '--json'),
      ...load,
      api('POST', '/templates', keys.secret_live, { body: TEMPLATE('Busy 1') }),
      api('POST', '/templates', keys.secret_live, { body: TEMPLATE('Busy 2') }),
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(set.code, 0, set.stderr);
    for (const r of responses) assert.ok(r.status === 200 || r.status === 201, r.text);
    const secret = JSON.parse(created.stdout).secret;
    assert.equal((await api('GET', '/usage', secret)).status, 200);
    assert.equal((await api('GET', '/usage', keys.secret_live)).body.balance.wallet.amount, 1);
  });

  test(
    'a command waits while another process holds the write lock longer than the server would (5 s), instead of failing "database is locked"',
    { skip: onPostgres && "SQLite's database lock (PostgreSQL locks rows)" },
    async () => {
      const holder = new SQLite(databasePath(dataDir));
      holder.exec('BEGIN IMMEDIATE');
      const created = cli('account', 'create', '--name', 'Patient Trading', '--json');
      // The command is up in about 2 s; with the server's 5 s it would give up well before the lock is let go.
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      holder.exec('ROLLBACK');
      holder.close();
      const r = await created;
      assert.equal(r.code, 0, r.stderr);
      const { account } = JSON.parse(r.stdout);
      assert.equal((await cliJson('account', 'show', account.id)).account.name, 'Patient Trading');
    },
  );

  test('--help and the store commands start without the PDF, PKI and S3 code; a command that needs it loads it when it runs', async () => {
    // The child prints, as it exits, the CommonJS modules it loaded: pdf-lib, @peculiar/x509 and the AWS SDK are
    // (pkijs, an ES module, comes with @peculiar/x509's users in sealing/pki).
    const trace =
      'data:text/javascript,import{createRequire}from"node:module";const r=createRequire("/");' +
      'process.on("exit",()=>process.stderr.write("\\nLOADED "+JSON.stringify(Object.keys(r.cache))))';
    const heavy = /\/node_modules\/(pdf-lib|@peculiar\/x509|@aws-sdk\/client-s3)\//;
    const heavyLoadedBy = async (...args: string[]): Promise<string[]> => {
      const r = await cliWith(['--import', trace], ...args);
      const loaded = /\nLOADED (.*)$/.exec(r.stderr);
      assert.ok(loaded, `no module list from tawqi ${args.join(' ')}: ${r.stderr}`);
      return [...new Set((JSON.parse(loaded[1]!) as string[]).flatMap((file) => heavy.exec(file)?.[1] ?? []))].sort();
    };
    const { id } = await newAccount();
    const [help, list, keys, verify] = await Promise.all([
      heavyLoadedBy('--help'),
      heavyLoadedBy('account', 'list', '--json'),
      heavyLoadedBy('key', 'list', '--account', id),
      heavyLoadedBy('verify', path.join(dataDir, 'no-such.pdf')),
    ]);
    assert.deepEqual(help, []);
    assert.deepEqual(list, []);
    assert.deepEqual(keys, []);
    // The trace sees them when they are loaded: verify brings the validator (PDF and PKI code).
    assert.deepEqual(verify, ['@peculiar/x509', 'pdf-lib']);
  });

  test('--help works for every command and lists --json', async () => {
    const leaves = [
      ['account', 'create'],
      ['account', 'show'],
      ['account', 'list'],
      ['account', 'set'],
      ['account', 'notices'],
      ['account', 'log'],
      ['key', 'create'],
      ['key', 'list'],
      ['key', 'rotate'],
      ['key', 'revoke'],
      ['key', 'set'],
    ];
    const groups = [[], ['account'], ['key']];
    const results = await Promise.all([...groups, ...leaves].map((words) => cli(...words, '--help')));
    results.forEach((r, i) => {
      const words = [...groups, ...leaves][i]!;
      assert.equal(r.code, 0, `${words.join(' ')} --help: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^Usage: tawqi${words.length ? ' ' + words.join(' ') : ''}\\b`));
      if (i >= groups.length) assert.match(r.stdout, /--json/);
    });
    const set = results[groups.length + 3]!.stdout;
    for (const flag of [
      '--plan',
      '--plan-expires',
      '--kyb',
      '--balance',
      '--wallet-topup',
      '--accept-domain',
      '--team-email',
      '--team-phone',
      '--version-pin',
      '--whatsapp',
    ]) {
      assert.ok(set.includes(flag), `account set --help mentions ${flag}`);
    }
    assert.match(results[1]!.stdout, /create/);
    assert.match(results[2]!.stdout, /rotate/);
  });

  test('every command answers --json with one parseable object', async () => {
    const { id, keys } = await newAccount();
    const skId = await keyIdOf(id, keys.secret_live);
    const outputs = {
      show: await cliJson('account', 'show', id),
      list: await cliJson('account', 'list'),
      set: await cliJson('account', 'set', id, '--kyb', 'approved'),
      notices: await cliJson('account', 'notices', id),
      log: await cliJson('account', 'log', id),
      keyCreate: await cliJson('key', 'create', '--account', id, '--type', 'publishable', '--mode', 'test', '--allowed-origin', ORIGIN),
      keyList: await cliJson('key', 'list', '--account', id),
      keySet: await cliJson('key', 'set', skId, '--name', 'renamed'),
      keyRotate: await cliJson('key', 'rotate', skId),
    };
    const keyRevoke = await cliJson('key', 'revoke', outputs.keyRotate.key.id);
    assert.deepEqual(Object.keys(outputs.show).sort(), ['account', 'keys', 'ledger']);
    assert.ok(Array.isArray(outputs.list.accounts));
    assert.equal(outputs.set.account.id, id);
    assert.deepEqual(outputs.notices, { notices: [] });
    assert.deepEqual(outputs.log, { requests: [] });
    assert.deepEqual(Object.keys(outputs.keyCreate).sort(), ['key', 'secret']);
    assert.match(outputs.keyCreate.secret, KEY_FORMATS.publishable_test);
    assert.equal(outputs.keyList.keys.length, 5);
    assert.equal(outputs.keySet.key.name, 'renamed');
    assert.deepEqual(Object.keys(outputs.keyRotate).sort(), ['key', 'previous', 'secret']);
    assert.equal(outputs.keyRotate.key.name, 'renamed');
    assert.deepEqual(Object.keys(keyRevoke), ['key']);
    assert.equal(keyRevoke.key.state, 'revoked');
  });
});
