/**
 * Start-up, settings and transport: the real entry point (`server/src/main.ts`, what `npm start`
 * runs after building) as a child process; the config schema; HTTPS with TLS 1.2 minimum; and
 * X-Forwarded-For/-Proto believed only from TAWQI_TRUSTED_PROXIES.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { configSchema, ConfigError, loadConfig } from '../../server/src/config.js';
import { checkTransport } from '../../server/src/server.js';
import { issueKey } from '../../server/src/services/accounts.js';
import { listRequestLog } from '../../server/src/store/requestLog.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { call, startTestServer, type TestServer } from '../support/server.js';
import { databaseEnv, onPostgres } from '../support/database.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = ['--conditions=tawqi-source', '--import', 'tsx', 'server/src/main.ts'];
// Starting from source through tsx compiles the server first: under a loaded machine (CI runs both
// engines' suites) that alone took ~29 s, so the bound is generous. It bounds a wait, it measures nothing.
const START_TIMEOUT_MS = 90_000;
const KEY_PATTERNS = {
  secret_live: /sk_[0-9a-f]{40}/g,
  publishable_live: /pk_[0-9a-f]{40}/g,
  secret_test: /sk_test_[0-9a-f]{40}/g,
  publishable_test: /pk_test_[0-9a-f]{40}/g,
} as const;
const ANY_KEY = /(sk|pk)_(test_)?[0-9a-f]{40}/;

// ---------------------------------------------------------------------------------------------
// Child-process helpers: every wait is bounded, every child is killed in `after`.
// ---------------------------------------------------------------------------------------------

interface Child {
  proc: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: Child[] = [];

function killAll(): void {
  for (const c of children) {
    if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  }
}

/** The environment of the test process without any Tawqi setting, plus the given ones. */
function childEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(configSchema.shape)) delete env[name];
  return { ...env, TAWQI_LOG_LEVEL: 'silent', ...settings };
}

function spawnEntry(settings: Record<string, string>): Child {
  const proc = spawn(process.execPath, ENTRY, { cwd: ROOT, env: childEnv(settings), stdio: ['ignore', 'pipe', 'pipe'] });
  const child: Child = {
    proc,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal }))),
  };
  proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => (child.stdout += chunk));
  proc.stderr!.setEncoding('utf8').on('data', (chunk: string) => (child.stderr += chunk));
  children.push(child);
  return child;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string, child?: Child): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`timed out after ${ms} ms waiting for ${what}` + (child ? `\nstdout: ${child.stdout}\nstderr: ${child.stderr}` : '')),
        ),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Resolve when stdout matches `pattern`; reject if the child exits first or the time runs out. */
function waitForStdout(child: Child, pattern: RegExp, ms = START_TIMEOUT_MS): Promise<void> {
  const seen = new Promise<void>((resolve, reject) => {
    const check = () => {
      if (pattern.test(child.stdout)) {
        cleanup();
        resolve();
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`exited with ${code} before printing ${pattern}\nstdout: ${child.stdout}\nstderr: ${child.stderr}`));
    };
    const cleanup = () => {
      child.proc.stdout!.off('data', check);
      child.proc.off('exit', onExit);
    };
    child.proc.stdout!.on('data', check);
    child.proc.once('exit', onExit);
    check();
  });
  return withTimeout(seen, ms, `${pattern}`, child);
}

function waitForExit(child: Child, ms = START_TIMEOUT_MS) {
  return withTimeout(child.exited, ms, 'the process to exit', child);
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function matches(text: string, pattern: RegExp): string[] {
  return [...text.matchAll(pattern)].map((m) => m[0]);
}

// ---------------------------------------------------------------------------------------------

describe('npm start: the entry point as a real process', () => {
  const dirs: string[] = [];
  const tempDir = (prefix: string) => {
    const d = mkdtempSync(path.join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
  after(() => {
    killAll();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('first start on an empty DATA_DIR creates the operator and prints its four keys once; a restart prints none and the keys still work', async () => {
    const dataDir = tempDir('tawqi-start-');
    const port = await freePort();
    const settings = { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ...(await databaseEnv(dataDir)) };
    const base = `http://127.0.0.1:${port}`;
    const listening = new RegExp(`^Tawqi API listening at ${base.replace(/[.]/g, '\\.')}/api/v1$`, 'm');

    const first = spawnEntry(settings);
    await waitForStdout(first, listening);
    const keys = {
      secret_live: matches(first.stdout, KEY_PATTERNS.secret_live),
      publishable_live: matches(first.stdout, KEY_PATTERNS.publishable_live),
      secret_test: matches(first.stdout, KEY_PATTERNS.secret_test),
      publishable_test: matches(first.stdout, KEY_PATTERNS.publishable_test),
    };
    for (const [name, found] of Object.entries(keys)) assert.equal(found.length, 1, `${name} printed once:\n${first.stdout}`);
    const sk = keys.secret_live[0]!;
    if (onPostgres) assert.equal(existsSync(path.join(dataDir, 'tawqi.sqlite')), false, 'with DATABASE_URL there is no SQLite file');
    else assert.ok(existsSync(path.join(dataDir, 'tawqi.sqlite')), 'the SQLite file lives at DATA_DIR/tawqi.sqlite');

    const usage = await call(base, 'GET', '/usage', { key: sk });
    assert.equal(usage.status, 200, usage.text);
    assert.equal(usage.body.livemode, true);
    assert.equal(usage.body.plan.name, 'business');
    assert.equal(usage.body.plan.status, 'active');
    assert.equal(usage.body.company_verification, 'approved');
    assert.equal(usage.body.currency, 'EGP');
    const test = await call(base, 'GET', '/', { key: keys.secret_test[0]! });
    assert.equal(test.status, 200);
    assert.equal(test.body.livemode, false);
    // The live operator passes the live gates: it can create a template at once.
    const created = await call(base, 'POST', '/templates', { key: sk, body: { title: 'Operator contract', body: 'Agreed.' } });
    assert.equal(created.status, 201, created.text);

    first.proc.kill('SIGTERM');
    const stopped = await waitForExit(first);
    assert.deepEqual(stopped, { code: 0, signal: null }, `SIGTERM should exit 0; stderr: ${first.stderr}`);

    const second = spawnEntry(settings);
    await waitForStdout(second, listening);
    assert.doesNotMatch(second.stdout, ANY_KEY, 'no key is printed on a later start');
    assert.doesNotMatch(second.stdout, /first start/);
    const again = await call(base, 'GET', '/usage', { key: sk });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.plan.name, 'business');
    const kept = await call(base, 'GET', `/templates/${created.body.id}`, { key: sk });
    assert.equal(kept.status, 200, 'data survives the restart');
    assert.equal((await call(base, 'GET', '/', { key: keys.secret_test[0]! })).status, 200);
    second.proc.kill('SIGTERM');
    assert.equal((await waitForExit(second)).code, 0);
  });

  const refused: { name: string; env: Record<string, string>; names: string[] }[] = [
    { name: 'PORT=notaport', env: { PORT: 'notaport' }, names: ['PORT'] },
    { name: 'PORT=70000', env: { PORT: '70000' }, names: ['PORT'] },
    { name: 'TAWQI_LOG_LEVEL=loud', env: { TAWQI_LOG_LEVEL: 'loud' }, names: ['TAWQI_LOG_LEVEL'] },
    {
      name: 'TAWQI_TLS_CERT without TAWQI_TLS_KEY',
      env: { TAWQI_TLS_CERT: '/nowhere/cert.pem' },
      names: ['TAWQI_TLS_CERT', 'TAWQI_TLS_KEY'],
    },
    { name: 'HOST=0.0.0.0 over plain HTTP', env: { HOST: '0.0.0.0' }, names: ['HOST'] },
    { name: 'DATABASE_URL=mysql://…', env: { DATABASE_URL: 'mysql://db.example/tawqi' }, names: ['DATABASE_URL'] },
    { name: 'TAWQI_PG_POOL_SIZE=0', env: { TAWQI_PG_POOL_SIZE: '0' }, names: ['TAWQI_PG_POOL_SIZE'] },
    { name: 'TAWQI_STORAGE=s3 without TAWQI_S3_BUCKET', env: { TAWQI_STORAGE: 's3' }, names: ['TAWQI_S3_BUCKET'] },
    { name: 'TAWQI_MASTER_KEY=not-a-key', env: { TAWQI_MASTER_KEY: 'not-a-key' }, names: ['TAWQI_MASTER_KEY'] },
    // Refused before any connection: the address needs no server behind it.
    {
      name: 'DATABASE_URL without TAWQI_MASTER_KEY',
      env: { DATABASE_URL: 'postgres://tawqi@127.0.0.1:9/tawqi' },
      names: ['TAWQI_MASTER_KEY', 'tawqi secrets new-master-key'],
    },
  ];
  for (const c of refused) {
    test(`a bad setting stops the start with exit 1 naming it: ${c.name}`, async () => {
      const dataDir = tempDir('tawqi-bad-');
      const child = spawnEntry({ DATA_DIR: dataDir, PORT: String(await freePort()), HOST: '127.0.0.1', ...c.env });
      const { code } = await waitForExit(child);
      assert.equal(code, 1, `stdout: ${child.stdout}\nstderr: ${child.stderr}`);
      for (const name of c.names) assert.ok(child.stderr.includes(name), `stderr should name ${name}: ${child.stderr}`);
      assert.doesNotMatch(child.stdout, /listening/);
      assert.doesNotMatch(child.stdout, ANY_KEY);
      assert.equal(existsSync(path.join(dataDir, 'tawqi.sqlite')), false, 'nothing is created before the settings are valid');
    });
  }
});

describe('config: one zod schema for every setting', () => {
  test('safe defaults with an empty environment', () => {
    const c = loadConfig({});
    assert.equal(c.PORT, 8080);
    assert.equal(c.HOST, '127.0.0.1');
    assert.equal(c.DATA_DIR, './data');
    assert.equal(c.TAWQI_CURRENCY, 'EGP');
    assert.deepEqual(c.TAWQI_TRUSTED_PROXIES, []);
    assert.equal(c.TAWQI_ALLOW_INSECURE_HTTP, false);
    assert.equal(c.TAWQI_TLS_CERT, undefined);
    assert.equal(c.TAWQI_TLS_KEY, undefined);
    assert.equal(c.TAWQI_LOG_LEVEL, 'info');
    assert.equal(c.TAWQI_DEFAULT_VERSION, '2026-07-01');
    assert.equal(c.DATABASE_URL, undefined, 'SQLite under DATA_DIR unless DATABASE_URL is set');
    assert.equal(c.TAWQI_PG_POOL_SIZE, 10);
    assert.doesNotThrow(() => checkTransport(c), 'the defaults pass the transport rule');
  });

  test('values are parsed; empty values count as unset; unrelated variables are ignored', () => {
    const c = loadConfig({
      PORT: '9090',
      HOST: '::1',
      DATA_DIR: '/var/lib/tawqi',
      TAWQI_CURRENCY: 'SAR',
      TAWQI_TRUSTED_PROXIES: '10.0.0.1, 192.168.0.0/16,,',
      TAWQI_ALLOW_INSECURE_HTTP: '1',
      TAWQI_LOG_LEVEL: '',
      SOMETHING_ELSE: 'x',
      DATABASE_URL: 'postgresql://tawqi:s%40cret@db.internal:5432/tawqi',
      TAWQI_PG_POOL_SIZE: '25',
    });
    assert.equal(c.DATABASE_URL, 'postgresql://tawqi:s%40cret@db.internal:5432/tawqi');
    assert.equal(c.TAWQI_PG_POOL_SIZE, 25);
    assert.equal(c.PORT, 9090);
    assert.equal(c.HOST, '::1');
    assert.equal(c.DATA_DIR, '/var/lib/tawqi');
    assert.equal(c.TAWQI_CURRENCY, 'SAR');
    assert.deepEqual(c.TAWQI_TRUSTED_PROXIES, ['10.0.0.1', '192.168.0.0/16']);
    assert.equal(c.TAWQI_ALLOW_INSECURE_HTTP, true);
    assert.equal(c.TAWQI_LOG_LEVEL, 'info');
    assert.equal('SOMETHING_ELSE' in c, false);
  });

  test('a bad value throws a ConfigError naming the variable', () => {
    const bad: [Record<string, string>, string][] = [
      [{ PORT: 'notaport' }, 'PORT'],
      [{ PORT: '-1' }, 'PORT'],
      [{ TAWQI_LOG_LEVEL: 'loud' }, 'TAWQI_LOG_LEVEL'],
      [{ TAWQI_CURRENCY: 'egp' }, 'TAWQI_CURRENCY'],
      [{ TAWQI_ALLOW_INSECURE_HTTP: 'yes' }, 'TAWQI_ALLOW_INSECURE_HTTP'],
      [{ TAWQI_PUBLIC_URL: 'not a url' }, 'TAWQI_PUBLIC_URL'],
      [{ TAWQI_DEFAULT_VERSION: 'July' }, 'TAWQI_DEFAULT_VERSION'],
      [{ TAWQI_TLS_KEY: '/k.pem' }, 'TAWQI_TLS_CERT'],
      [{ DATABASE_URL: 'sqlite:///var/lib/tawqi.db' }, 'DATABASE_URL'],
      [{ DATABASE_URL: 'postgres://' }, 'DATABASE_URL'],
      [{ TAWQI_PG_POOL_SIZE: 'many' }, 'TAWQI_PG_POOL_SIZE'],
      [{ TAWQI_MASTER_KEY: 'a'.repeat(63) }, 'TAWQI_MASTER_KEY'],
      [{ TAWQI_MASTER_KEY: '0'.repeat(64) }, 'TAWQI_MASTER_KEY'],
    ];
    for (const [env, name] of bad) {
      assert.throws(
        () => loadConfig(env),
        (err: unknown) => err instanceof ConfigError && err.message.includes(name),
        `${JSON.stringify(env)} should be refused naming ${name}`,
      );
    }
  });

  test('transport: plain HTTP only on loopback unless TLS, trusted proxies or an explicit override', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1'])
      assert.doesNotThrow(() => checkTransport(loadConfig({ HOST: host })), host);
    for (const host of ['0.0.0.0', '::', '192.168.1.10']) {
      assert.throws(
        () => checkTransport(loadConfig({ HOST: host })),
        (err: unknown) => err instanceof ConfigError && err.message.includes('HOST'),
        host,
      );
    }
    const open = { HOST: '0.0.0.0' };
    assert.doesNotThrow(() => checkTransport(loadConfig({ ...open, TAWQI_TLS_CERT: '/c.pem', TAWQI_TLS_KEY: '/k.pem' })));
    assert.doesNotThrow(() => checkTransport(loadConfig({ ...open, TAWQI_TRUSTED_PROXIES: '10.0.0.1' })));
    assert.doesNotThrow(() => checkTransport(loadConfig({ ...open, TAWQI_ALLOW_INSECURE_HTTP: 'true' })));
    assert.throws(() => checkTransport(loadConfig({ ...open, TAWQI_ALLOW_INSECURE_HTTP: 'false' })), ConfigError);
  });
});

// ---------------------------------------------------------------------------------------------

interface TlsResult {
  status: number;
  protocol: string | null;
  body: string;
}

function httpsGet(url: string, opts: https.RequestOptions): Promise<TlsResult> {
  return withTimeout(
    new Promise<TlsResult>((resolve, reject) => {
      const req = https.request(url, { agent: false, ...opts }, (res) => {
        const protocol = (res.socket as tls.TLSSocket).getProtocol();
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, protocol, body }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    }),
    10_000,
    `GET ${url}`,
  );
}

describe('HTTPS served by the server itself (TLS 1.2 minimum)', () => {
  let s: TestServer;
  let certDir: string;
  let cert: Buffer;

  before(async () => {
    certDir = mkdtempSync(path.join(tmpdir(), 'tawqi-tls-'));
    const certFile = path.join(certDir, 'cert.pem');
    const keyFile = path.join(certDir, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore', timeout: 30_000 },
    );
    cert = readFileSync(certFile);
    s = await startTestServer({ TAWQI_TLS_CERT: certFile, TAWQI_TLS_KEY: keyFile });
  });
  after(async () => {
    await s?.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('the server listens on https and answers over TLS 1.2 or 1.3', async () => {
    assert.match(s.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const r = await httpsGet(`${s.url}/api/v1/`, { ca: cert, headers: { authorization: `Bearer ${s.keys.secret_live}` } });
    assert.equal(r.status, 200, r.body);
    assert.equal(JSON.parse(r.body).object, 'service');
    assert.ok(r.protocol === 'TLSv1.2' || r.protocol === 'TLSv1.3', `negotiated ${r.protocol}`);
    const twelve = await httpsGet(`${s.url}/api/v1/`, {
      ca: cert,
      maxVersion: 'TLSv1.2',
      headers: { authorization: `Bearer ${s.keys.secret_live}` },
    });
    assert.equal(twelve.status, 200);
    assert.equal(twelve.protocol, 'TLSv1.2', 'TLS 1.2 is accepted');
  });

  test('a client limited to TLS 1.1 or below fails the handshake', async () => {
    await assert.rejects(
      httpsGet(`${s.url}/api/v1/`, {
        ca: cert,
        minVersion: 'TLSv1',
        maxVersion: 'TLSv1.1',
        // Let the client offer TLS 1.0/1.1 at all under OpenSSL 3, so the refusal is the server's.
        ciphers: 'DEFAULT@SECLEVEL=0',
        headers: { authorization: `Bearer ${s.keys.secret_live}` },
      }),
      (err: NodeJS.ErrnoException) => {
        // The server answers the TLS 1.1 ClientHello with a protocol_version alert (70).
        assert.equal(err.code, 'EPROTO', `${err.code}: ${err.message}`);
        assert.match(err.message, /alert protocol version/);
        return true;
      },
    );
  });

  test('plain HTTP to the HTTPS port gets no API answer', async () => {
    const port = new URL(s.url).port;
    const r = await withTimeout(
      fetch(`http://127.0.0.1:${port}/api/v1/`, { headers: { authorization: `Bearer ${s.keys.secret_live}` } }).then(
        (res) => res.status,
        () => 'refused' as const,
      ),
      10_000,
      'plain HTTP to the TLS port',
    );
    assert.notEqual(r, 200);
  });
});

// ---------------------------------------------------------------------------------------------

describe('X-Forwarded-For/-Proto: believed only from TAWQI_TRUSTED_PROXIES', () => {
  let direct: TestServer;
  let proxied: TestServer;
  before(async () => {
    direct = await startTestServer();
    proxied = await startTestServer({ TAWQI_TRUSTED_PROXIES: '127.0.0.1' });
  });
  after(async () => {
    await direct?.close();
    await proxied?.close();
  });

  const keyAllowing = async (s: TestServer, ip: string) => {
    const acct = await s.account();
    const issued = await s.ctx.store.tx((trx) => issueKey(trx, s.clock, acct.id, 'secret', 'live', { allowedIps: [ip] }));
    return { accountId: acct.id, secret: issued.secret };
  };

  test('with no trusted proxies, X-Forwarded-For cannot claim an allowed address', async () => {
    const k = await keyAllowing(direct, '10.9.9.9');
    await assertErrorBothLanguages(
      (prefix) => direct.call('GET', '/', { key: k.secret, prefix, headers: { 'x-forwarded-for': '10.9.9.9' } }),
      'ip_not_allowed',
    );
    assertError(await direct.call('GET', '/', { key: k.secret }), 'ip_not_allowed');
    await direct.ctx.requestLog.flush();
    const log = await listRequestLog(direct.ctx.store.db, k.accountId, { filter: { code: 'ip_not_allowed' } });
    assert.ok(log.length >= 1);
    assert.ok(
      log.every((e) => e.ip === '127.0.0.1'),
      'the real peer address is recorded, not the claimed one',
    );
  });

  test('with no trusted proxies, X-Forwarded-Proto is ignored: plain HTTP from loopback is allowed whatever it claims', async () => {
    const r = await direct.call('GET', '/', { key: direct.keys.secret_live, headers: { 'x-forwarded-proto': 'http' } });
    assert.equal(r.status, 200);
    const plain = await direct.call('GET', '/usage', { key: direct.keys.secret_live });
    assert.equal(plain.status, 200);
  });

  test('from a trusted proxy, X-Forwarded-For gives the client address', async () => {
    const k = await keyAllowing(proxied, '10.9.9.9');
    const r = await proxied.call('GET', '/', { key: k.secret, headers: { 'x-forwarded-for': '10.9.9.9', 'x-forwarded-proto': 'https' } });
    assert.equal(r.status, 200, r.text);
    // The right-most address that is not a trusted proxy is the client: a spoofed left part does not help.
    assertError(
      await proxied.call('GET', '/', {
        key: k.secret,
        headers: { 'x-forwarded-for': '10.9.9.9, 203.0.113.5', 'x-forwarded-proto': 'https' },
      }),
      'ip_not_allowed',
    );
    assertError(
      await proxied.call('GET', '/', { key: k.secret, headers: { 'x-forwarded-for': '10.9.9.8', 'x-forwarded-proto': 'https' } }),
      'ip_not_allowed',
    );
    await proxied.ctx.requestLog.flush();
    const log = await listRequestLog(proxied.ctx.store.db, k.accountId, { filter: { code: 'ip_not_allowed' } });
    assert.deepEqual(log.map((e) => e.ip).sort(), ['10.9.9.8', '203.0.113.5']);
  });

  test('from a trusted proxy, X-Forwarded-Proto: http gives 403 https_required; https passes', async () => {
    await assertErrorBothLanguages(
      (prefix) =>
        proxied.call('GET', '/', {
          key: proxied.keys.secret_live,
          prefix,
          headers: { 'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'http' },
        }),
      'https_required',
    );
    // Refused before authentication: the same holds without any key.
    assertError(await proxied.call('GET', '/usage', { headers: { 'x-forwarded-proto': 'http' } }), 'https_required');
    const ok = await proxied.call('GET', '/', {
      key: proxied.keys.secret_live,
      headers: { 'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'https' },
    });
    assert.equal(ok.status, 200, ok.text);
  });

  test('a direct plain-HTTP request from loopback is allowed (development)', async () => {
    const r = await proxied.call('GET', '/usage', { key: proxied.keys.secret_live });
    assert.equal(r.status, 200);
    assert.match(proxied.url, /^http:\/\/127\.0\.0\.1:/);
  });
});
