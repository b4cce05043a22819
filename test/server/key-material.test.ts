/**
 * Server secrets and PKI keys (issue 13, point 2). On PostgreSQL they live in the database, each
 * secret and private key sealed with TAWQI_MASTER_KEY (server/src/masterKey.ts, services/keyMaterial.ts);
 * on SQLite they stay files under DATA_DIR (sealing-pki.test.ts covers those). Here: the key's format
 * and the sealing itself, `tawqi secrets new-master-key`, the start refusing without the key or with
 * the wrong one, nothing secret in the clear in the database, a restart reusing the PKI, shared
 * revocations, and three server processes starting at once on a fresh database ending with one PKI.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createPrivateKey, createPublicKey, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import * as x509 from '@peculiar/x509';
import { sql } from 'kysely';
import { ManualClock } from '../../server/src/clock.js';
import { ConfigError, configSchema, loadConfig, parseMasterKey } from '../../server/src/config.js';
import { MasterKey, MasterKeyError, masterKeyFor } from '../../server/src/masterKey.js';
import { crlDer, loadOrCreatePki, revokeCertificate } from '../../server/src/sealing/pki/index.js';
import { startServer, type RunningServer } from '../../server/src/server.js';
import { createOperatorIfEmpty } from '../../server/src/services/accounts.js';
import { databasePkiStorage, loadDatabaseSecrets } from '../../server/src/services/keyMaterial.js';
import { openStore, type Store } from '../../server/src/store/db.js';
import { runCli, type CliRun } from '../support/cli.js';
import { createTestDatabase, dropTestDatabase, onPostgres, TEST_MASTER_KEY } from '../support/database.js';
import { spawnServer } from '../support/serverProcess.js';

const PUBLIC_URL = 'http://sign.example.test';
const PG_ONLY = { skip: !onPostgres && 'runs with TAWQI_TEST_DATABASE=postgres (SQLite keeps the keys as files under DATA_DIR)' };
const KEY_NAMES = ['ca', 'console_key', 'document_key', 'evidence', 'link_key', 'ocsp', 'seal', 'tsa'];

const tempDir = (prefix: string) => mkdtempSync(path.join(tmpdir(), `tawqi-keys-${prefix}-`));
const pkcs8 = (key: KeyObject): Buffer => key.export({ format: 'der', type: 'pkcs8' });
/** The private scalar or seed of an EC or Ed25519 key (what a leak would be made of). */
const rawPrivate = (key: KeyObject): Buffer => Buffer.from(key.export({ format: 'jwk' }).d!, 'base64url');

describe('TAWQI_MASTER_KEY: format and sealing', () => {
  const bytes = randomBytes(32);

  test('64 hex digits or base64 / base64url of 32 bytes are accepted; anything else is refused naming the setting, never showing the value', () => {
    for (const text of [
      bytes.toString('hex'),
      bytes.toString('hex').toUpperCase(),
      bytes.toString('base64'),
      bytes.toString('base64').replace(/=$/, ''),
      bytes.toString('base64url'),
    ]) {
      assert.deepEqual(parseMasterKey(text), bytes, text);
      assert.equal(loadConfig({ TAWQI_MASTER_KEY: text }).TAWQI_MASTER_KEY, text);
    }
    const b64 = bytes.toString('base64');
    const refused = [
      'hunter2',
      bytes.toString('hex').slice(1),
      `${bytes.toString('hex')}00`,
      randomBytes(31).toString('base64'),
      randomBytes(33).toString('base64'),
      '0'.repeat(64),
      // The same 32 bytes with a non-canonical last character (its unused low bits set).
      `${b64.slice(0, 42)}${String.fromCharCode(b64.charCodeAt(42) ^ 1)}=`,
    ];
    for (const text of refused) {
      assert.equal(parseMasterKey(text), null, text);
      assert.throws(
        () => loadConfig({ TAWQI_MASTER_KEY: text }),
        (e: unknown) => e instanceof ConfigError && e.message.includes('TAWQI_MASTER_KEY') && !e.message.includes(text),
        text,
      );
    }
  });

  test('required with DATABASE_URL (refused naming it); not used on SQLite', () => {
    const url = 'postgres://tawqi@127.0.0.1:5432/tawqi';
    assert.throws(
      () => masterKeyFor(loadConfig({ DATABASE_URL: url })),
      (e: unknown) => e instanceof ConfigError && /TAWQI_MASTER_KEY: required with DATABASE_URL/.test(e.message),
    );
    assert.ok(masterKeyFor(loadConfig({ DATABASE_URL: url, TAWQI_MASTER_KEY: bytes.toString('hex') })) instanceof MasterKey);
    assert.equal(masterKeyFor(loadConfig({ TAWQI_MASTER_KEY: bytes.toString('hex') })), null);
    assert.ok('TAWQI_MASTER_KEY' in configSchema.shape);
  });

  test('AES-256-GCM: version 1 and key id up front, a random nonce per value, bound to its row name; another key or row does not open it', () => {
    const key = new MasterKey(bytes);
    const secret = randomBytes(32);
    const sealed = key.seal(secret, 'link_key');
    assert.equal(sealed[0], 1, 'version byte');
    assert.deepEqual(sealed.subarray(1, 9), key.id, 'key id');
    assert.equal(sealed.length, 1 + 8 + 12 + 32 + 16);
    assert.equal(sealed.includes(secret), false);
    assert.notDeepEqual(key.seal(secret, 'link_key'), sealed, 'a fresh nonce each time');
    assert.deepEqual(key.open(sealed, 'link_key'), secret);

    assert.throws(
      () => key.open(sealed, 'document_key'),
      (e: unknown) => e instanceof MasterKeyError && /belongs to another row/.test(e.message),
    );
    const flipped = Buffer.from(sealed);
    flipped[20]! ^= 1;
    assert.throws(() => key.open(flipped, 'link_key'), /TAWQI_MASTER_KEY does not decrypt the stored keys/);
    const other = new MasterKey(randomBytes(32));
    assert.throws(
      () => other.open(sealed, 'link_key'),
      (e: unknown) =>
        e instanceof MasterKeyError && /does not decrypt the stored keys: they were encrypted with another master key/.test(e.message),
    );
    // A key id changed to the other key's still fails: the header is part of the authenticated data.
    const relabelled = Buffer.from(sealed);
    other.id.copy(relabelled, 1);
    assert.throws(() => other.open(relabelled, 'link_key'), /altered or belongs to another row/);
  });
});

/** Run the CLI from source with exactly these settings (none of the test process's own). */
function cli(settings: Record<string, string>, ...args: string[]): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(configSchema.shape)) delete env[name];
  return runCli({ ...env, ...settings }, ...args);
}

describe('tawqi secrets new-master-key', () => {
  test('prints a fresh key of 32 bytes as hex and nothing else (--json: one object); the setting accepts it', async () => {
    const [one, two, json] = await Promise.all([
      cli({}, 'secrets', 'new-master-key'),
      cli({}, 'secrets', 'new-master-key'),
      cli({}, 'secrets', 'new-master-key', '--json'),
    ]);
    for (const r of [one, two, json]) assert.equal(r.code, 0, r.stderr);
    assert.match(one.stdout, /^[0-9a-f]{64}\n$/);
    assert.equal(one.stderr, '');
    assert.notEqual(one.stdout, two.stdout, 'random each time');
    const parsed = JSON.parse(json.stdout) as { master_key: string };
    assert.deepEqual(Object.keys(parsed), ['master_key']);
    assert.match(parsed.master_key, /^[0-9a-f]{64}$/);
    assert.equal(parseMasterKey(one.stdout.trim())?.length, 32);
  });
});

describe('key material on PostgreSQL', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  /** A fresh database and data directory; both removed at the end. */
  async function freshInstallation(): Promise<{ url: string; dataDir: string }> {
    const url = await createTestDatabase();
    const dataDir = tempDir('pg');
    cleanups.push(() => dropTestDatabase(url));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    return { url, dataDir };
  }

  const start = (dataDir: string, url: string, key: string | undefined, clock = new ManualClock()): Promise<RunningServer> =>
    startServer(
      loadConfig({
        DATA_DIR: dataDir,
        DATABASE_URL: url,
        ...(key === undefined ? {} : { TAWQI_MASTER_KEY: key }),
        PORT: '0',
        HOST: '127.0.0.1',
        TAWQI_LOG_LEVEL: 'silent',
        TAWQI_PUBLIC_URL: PUBLIC_URL,
      }),
      { clock, manualJobs: true },
    );

  test(
    'postgres only: the secrets and keys are stored sealed (no PEM, no raw key bytes), certificates in the clear; no files',
    PG_ONLY,
    async () => {
      const { url, dataDir } = await freshInstallation();
      const s = await start(dataDir, url, TEST_MASTER_KEY);
      try {
        const { pki, secrets } = s.ctx;
        const rows = await s.ctx.store.db.selectFrom('server_keys').selectAll().orderBy('name').execute();
        assert.deepEqual(
          rows.map((r) => r.name),
          KEY_NAMES,
        );
        const master = new MasterKey(Buffer.from(TEST_MASTER_KEY, 'hex'));
        const leafKeys: Record<string, KeyObject> = {
          seal: pki.builtInSeal.privateKey,
          tsa: pki.tsa.privateKey,
          ocsp: pki.ocsp.privateKey,
        };
        for (const row of rows) {
          const stored = Buffer.from(row.encrypted_secret);
          assert.equal(stored.includes('PRIVATE KEY'), false, `${row.name}: no PEM`);
          assert.equal(stored[0], 1, `${row.name}: sealed, version 1`);
          const plain = master.open(stored, row.name);
          assert.equal(stored.includes(plain), false, `${row.name}: the plaintext is not in the row`);
          if (row.name === 'link_key' || row.name === 'document_key' || row.name === 'console_key') {
            const expected = { link_key: secrets.linkKey, document_key: secrets.documentKey, console_key: secrets.consoleKey }[row.name];
            assert.deepEqual(plain, expected);
            assert.equal(row.certificate, null);
            continue;
          }
          const key = createPrivateKey({ key: plain, format: 'der', type: 'pkcs8' });
          assert.equal(stored.includes(rawPrivate(key)), false, `${row.name}: the raw private key is not in the row`);
          if (row.name === 'evidence') {
            assert.equal(createPublicKey(key).export({ format: 'pem', type: 'spki' }), pki.evidence.publicKeyPem);
            assert.equal(row.certificate, null);
          } else if (row.name === 'ca') {
            assert.deepEqual(pkcs8(key), pkcs8(pki.caPrivateKey));
            assert.deepEqual(Buffer.from(row.certificate!), Buffer.from(pki.ca.certificate), 'the CA certificate in the clear');
          } else {
            assert.deepEqual(pkcs8(key), pkcs8(leafKeys[row.name]!));
            assert.ok(new X509Certificate(Buffer.from(row.certificate!)).verify(createPublicKey(pki.caPrivateKey)));
          }
        }
        const issued = await s.ctx.store.db.selectFrom('pki_certificates').select('serial').orderBy('serial').execute();
        assert.deepEqual(
          issued.map((r) => r.serial).sort(),
          [pki.builtInSeal, pki.tsa, pki.ocsp].map((c) => serialOf(c.certificate)).sort(),
        );
        assert.equal(existsSync(path.join(dataDir, 'pki')), false, 'no DATA_DIR/pki');
        assert.equal(existsSync(path.join(dataDir, 'secrets.json')), false, 'no secrets.json');
      } finally {
        await s.close();
      }
    },
  );

  test(
    'postgres only: a restart with the same key reuses the PKI and secrets; without it, or with another key, the start is refused clearly',
    PG_ONLY,
    async () => {
      const { url, dataDir } = await freshInstallation();
      const clock = new ManualClock();
      const identity = (s: RunningServer) => ({
        ca: Buffer.from(s.ctx.pki.ca.certificate).toString('base64'),
        seal: Buffer.from(s.ctx.pki.seal.certificate).toString('base64'),
        tsa: s.ctx.pki.tsa.serialHex,
        ocsp: s.ctx.pki.ocsp.serialHex,
        evidence: s.ctx.pki.evidence.keyId,
        linkKey: s.ctx.secrets.linkKey.toString('hex'),
        documentKey: s.ctx.secrets.documentKey.toString('hex'),
      });
      const first = await start(dataDir, url, TEST_MASTER_KEY, clock);
      const before = identity(first);
      await first.close();
      clock.advanceSeconds(86400);
      const again = await start(dataDir, url, TEST_MASTER_KEY, clock);
      assert.deepEqual(identity(again), before, 'the same PKI and secrets after a restart');
      await again.close();

      await assert.rejects(
        start(dataDir, url, undefined, clock),
        (e: unknown) => e instanceof ConfigError && /TAWQI_MASTER_KEY: required/.test(e.message),
      );
      const other = randomBytes(32).toString('hex');
      await assert.rejects(
        start(dataDir, url, other, clock),
        (e: unknown) =>
          e instanceof ConfigError &&
          /^Invalid setting:\n {2}TAWQI_MASTER_KEY does not decrypt the stored keys/.test(e.message) &&
          !e.message.includes(other) &&
          !e.message.includes(TEST_MASTER_KEY),
      );
      // The refused starts changed nothing: the right key still opens everything.
      const third = await start(dataDir, url, TEST_MASTER_KEY, clock);
      assert.deepEqual(identity(third), before);
      await third.close();
    },
  );

  test('postgres only: a sealed key copied into another row is refused at start', PG_ONLY, async () => {
    const { url, dataDir } = await freshInstallation();
    const s = await start(dataDir, url, TEST_MASTER_KEY);
    await s.close();
    const store = await openStore(dataDir, { databaseUrl: url });
    try {
      // Someone with write access to the database swaps the seal's key for the CA's.
      await sql`UPDATE server_keys SET encrypted_secret = (SELECT encrypted_secret FROM server_keys WHERE name = 'ca') WHERE name = 'seal'`.execute(
        store.db,
      );
    } finally {
      await store.close();
    }
    await assert.rejects(
      start(dataDir, url, TEST_MASTER_KEY),
      /TAWQI_MASTER_KEY does not decrypt the stored keys: the stored value "seal" was altered/,
    );
  });

  /** Stores of their own (own pools): to PostgreSQL, separate processes. */
  async function stores(url: string, n: number): Promise<Store[]> {
    const opened = await Promise.all(Array.from({ length: n }, () => openStore('/nonexistent', { databaseUrl: url, poolSize: 2 })));
    cleanups.push(() => Promise.all(opened.map((o) => o.close())).then(() => undefined));
    return opened;
  }

  test(
    'postgres only: three stores creating the PKI and secrets at the same moment all end with the first one stored',
    PG_ONLY,
    async () => {
      const { url } = await freshInstallation();
      const master = new MasterKey(Buffer.from(TEST_MASTER_KEY, 'hex'));
      const clock = new ManualClock();
      const three = await stores(url, 3);
      const pkis = await Promise.all(three.map((st) => loadOrCreatePki(databasePkiStorage(st, master, clock), clock, PUBLIC_URL)));
      const secrets = await Promise.all(three.map((st) => loadDatabaseSecrets(st, master, clock)));
      for (const pki of pkis.slice(1)) {
        assert.deepEqual(Buffer.from(pki.ca.certificate), Buffer.from(pkis[0]!.ca.certificate));
        assert.equal(pki.evidence.keyId, pkis[0]!.evidence.keyId);
        assert.deepEqual(Buffer.from(pki.seal.certificate), Buffer.from(pkis[0]!.seal.certificate));
      }
      for (const s of secrets.slice(1)) assert.deepEqual(s, secrets[0]);
      const db = three[0]!.db;
      assert.equal((await db.selectFrom('server_keys').select('name').execute()).length, KEY_NAMES.length);
      assert.equal((await db.selectFrom('pki_certificates').select('serial').execute()).length, 3, "only the winner's leaf certificates");
    },
  );

  test(
    'postgres only: a revocation made by one process is seen by the others (OCSP, CRL) and its replacement seal is taken, not made again',
    PG_ONLY,
    async () => {
      const { url } = await freshInstallation();
      const master = new MasterKey(Buffer.from(TEST_MASTER_KEY, 'hex'));
      const clock = new ManualClock(Date.now());
      const [a, b] = await stores(url, 2);
      const one = await loadOrCreatePki(databasePkiStorage(a!, master, clock), clock, PUBLIC_URL);
      const two = await loadOrCreatePki(databasePkiStorage(b!, master, clock), clock, PUBLIC_URL);
      const oldSeal = one.seal.certificate;
      const serial = serialOf(oldSeal);
      await revokeCertificate(one, oldSeal, { reason: 'keyCompromise' });
      assert.notDeepEqual(Buffer.from(one.seal.certificate), Buffer.from(oldSeal), 'the revoking process replaced its seal');

      const crl = new x509.X509Crl(await crlDer(two));
      assert.deepEqual(
        crl.entries.map((e) => e.serialNumber.toLowerCase()),
        [serial],
        "the other process's CRL lists it",
      );
      await two.maintain({ force: true });
      assert.deepEqual(Buffer.from(two.seal.certificate), Buffer.from(one.seal.certificate), 'the other process took the replacement');
      assert.deepEqual(pkcs8(two.seal.privateKey), pkcs8(one.seal.privateKey));
      const revoked = await a!.db
        .selectFrom('pki_certificates')
        .select(['serial', 'revocation_reason'])
        .where('revoked_at', 'is not', null)
        .execute();
      assert.deepEqual(revoked, [{ serial, revocation_reason: 'keyCompromise' }]);
      assert.equal(
        (await a!.db.selectFrom('pki_certificates').select('serial').execute()).length,
        4,
        'one replacement certificate, not two',
      );
    },
  );

  test(
    'postgres only: three stores making the operator account at the same moment make one; a later start makes none',
    PG_ONLY,
    async () => {
      const { url } = await freshInstallation();
      const clock = new ManualClock();
      const three = await stores(url, 3);
      const made = await Promise.all(three.map((st) => createOperatorIfEmpty(st, clock, 'SAR')));
      assert.equal(made.filter((m) => m !== null).length, 1, 'one of the three made it');
      const accounts = await three[0]!.db.selectFrom('accounts').select('name').execute();
      assert.deepEqual(
        accounts.map((a) => a.name),
        ['Operator'],
      );
      assert.equal(await createOperatorIfEmpty(three[1]!, clock, 'SAR'), null, 'the database has an account now');
      const keys = await three[0]!.db.selectFrom('api_keys').select('id').execute();
      assert.equal(keys.length, 4, "the winner's four keys only");
    },
  );

  test(
    'postgres only: three server processes started at once on a fresh database serve one PKI and make one operator account',
    PG_ONLY,
    async () => {
      const { url } = await freshInstallation();
      const procs: ChildProcess[] = [];
      cleanups.push(() => procs.forEach((p) => p.exitCode === null && p.signalCode === null && p.kill('SIGKILL')));
      const bases = await Promise.all(
        [0, 1, 2].map(async () => {
          const dataDir = tempDir('proc');
          cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
          const { proc, base } = await spawnServer({
            DATA_DIR: dataDir,
            DATABASE_URL: url,
            TAWQI_MASTER_KEY: TEST_MASTER_KEY,
            TAWQI_PUBLIC_URL: PUBLIC_URL,
          });
          procs.push(proc);
          return base;
        }),
      );
      const described = await Promise.all(bases.map(async (base) => (await (await fetch(`${base}/pki`)).json()) as PkiInfo));
      for (const d of described.slice(1)) {
        assert.equal(d.ca.sha256_fingerprint, described[0]!.ca.sha256_fingerprint, 'the same CA');
        assert.equal(d.evidence_key.key_id, described[0]!.evidence_key.key_id, 'the same evidence key');
        assert.equal(d.seal.sha256_fingerprint, described[0]!.seal.sha256_fingerprint, 'the same seal');
      }
      const store = (await stores(url, 1))[0]!;
      const names = await store.db.selectFrom('server_keys').select('name').orderBy('name').execute();
      assert.deepEqual(
        names.map((n) => n.name),
        KEY_NAMES,
        'one of each',
      );
      const ca = await store.db.selectFrom('server_keys').select('certificate').where('name', '=', 'ca').executeTakeFirstOrThrow();
      assert.equal(new X509Certificate(Buffer.from(ca.certificate!)).fingerprint256, described[0]!.ca.sha256_fingerprint);
      assert.equal(
        (await store.db.selectFrom('pki_certificates').select('serial').execute()).length,
        3,
        "only the winner's leaf certificates",
      );
      const accounts = await store.db.selectFrom('accounts').select(['id', 'name']).execute();
      assert.deepEqual(
        accounts.map((a) => a.name),
        ['Operator'],
        'one operator account, made by one of the three',
      );
      const exits = procs.map((p) => new Promise<number | null>((resolve) => p.once('exit', (code) => resolve(code))));
      for (const p of procs) p.kill('SIGTERM');
      assert.deepEqual(await Promise.all(exits), [0, 0, 0]);
    },
  );
});

interface PkiInfo {
  ca: { sha256_fingerprint: string };
  seal: { sha256_fingerprint: string };
  evidence_key: { key_id: string };
}

const serialOf = (der: Uint8Array): string => new X509Certificate(Buffer.from(der)).serialNumber.toLowerCase().replace(/^(00)+/, '');
