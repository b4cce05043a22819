/**
 * File storage (issue 13, point 3): one contract run against every backend — the DATA_DIR folder
 * and an S3 bucket on a real S3-compatible server on 127.0.0.1 (test/support/s3Peer.ts) — then a
 * server with TAWQI_STORAGE=s3 that completes and seals a request, and the settings a start refuses.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../server/src/config.js';
import { sealedPdfKey } from '../../server/src/domain/fileKeys.js';
import { startServer } from '../../server/src/server.js';
import { openStore } from '../../server/src/store/db.js';
import {
  DatabaseStorage,
  FileKeyError,
  fileStorageFromConfig,
  FolderStorage,
  type FileStorage,
} from '../../server/src/store/files/index.js';
import { dropDatabaseOf, onPostgres, storeOptions, TEST_DATABASE } from '../support/database.js';
import { startS3Peer, type S3Peer } from '../support/s3Peer.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { signAll } from '../support/signing.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const tempDir = (prefix: string) => mkdtempSync(path.join(tmpdir(), prefix));

/** Every file under a folder, as relative paths with '/' (sorted). */
function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((p) => statSync(path.join(root, p)).isFile())
    .map((p) => p.split(path.sep).join('/'))
    .sort();
}

interface Backend {
  files: FileStorage;
  /** What the backend holds, by its own names (relative paths, object keys), read without the port. */
  stored(): Promise<string[]>;
  /** The name the backend keeps a key under. */
  nameOf(key: string): string;
  cleanup(): Promise<void>;
}

const BACKENDS: { name: string; open(): Promise<Backend> }[] = [
  {
    name: 'folder (DATA_DIR)',
    open: async () => {
      const dir = tempDir('tawqi-files-');
      return {
        files: fileStorageFromConfig(loadConfig({ DATA_DIR: dir })),
        stored: async () => filesUnder(dir),
        nameOf: (key) => key,
        cleanup: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    // The default with DATABASE_URL; the class runs on either engine, so the contract runs on the suite's engine.
    name: `database (files table, ${TEST_DATABASE})`,
    open: async () => {
      const dir = tempDir('tawqi-files-db-');
      const store = await openStore(dir, await storeOptions(dir));
      return {
        files: new DatabaseStorage(store.db, () => 1_750_000_000),
        stored: async () => (await store.db.selectFrom('files').select('key').execute()).map((r) => r.key),
        nameOf: (key) => key,
        cleanup: async () => {
          await store.close();
          await dropDatabaseOf(dir);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  ...['', 'tawqi/prod/'].map((prefix) => ({
    name: `s3 (local S3-compatible server${prefix ? `, prefix ${prefix}` : ''})`,
    open: async (): Promise<Backend> => {
      const peer = await startS3Peer();
      const files = fileStorageFromConfig(loadConfig(peer.env(prefix ? { TAWQI_S3_PREFIX: prefix } : {})));
      return {
        files,
        stored: () => peer.keys(),
        nameOf: (key) => prefix + key,
        cleanup: async () => {
          await files.close();
          await peer.close();
        },
      };
    },
  })),
];

const REFUSED_KEYS = [
  '',
  'documents',
  'documents/',
  '/documents/a.pdf',
  'documents//a.pdf',
  'documents/../secrets.json',
  '../documents/a.pdf',
  'documents/./a.pdf',
  'documents/.a.pdf',
  'documents\\a.pdf',
  'documents/a b.pdf',
  'documents/a\n.pdf',
  'documents/ä.pdf',
  'documents/a%2F.pdf',
  'documents/a?.pdf',
  `documents/${'a'.repeat(520)}.pdf`,
  // Not a file collection: the folder backend shares DATA_DIR with these.
  'secrets.json',
  'tawqi.sqlite',
  'pki/ca.key',
  'other/a.pdf',
];

for (const backend of BACKENDS) {
  describe(`file storage contract: ${backend.name}`, () => {
    let b: Backend;
    before(async () => {
      b = await backend.open();
      await b.files.check();
    });
    after(() => b?.cleanup());

    test('put then get gives the same bytes, kept by the backend under the key', async () => {
      const key = 'documents/sr_0AbCdEf123.pdf';
      const bytes = new TextEncoder().encode('%PDF-1.7 the sealed one');
      await b.files.put(key, bytes);
      assert.deepEqual(await b.files.get(key), Buffer.from(bytes));
      assert.ok((await b.stored()).includes(b.nameOf(key)), `${b.nameOf(key)} in ${JSON.stringify(await b.stored())}`);
    });

    test('a missing key: get gives null, delete is fine', async () => {
      assert.equal(await b.files.get('documents/sr_missing.pdf'), null);
      assert.equal(await b.files.get('documents/nested/deeper/sr_missing.pdf'), null);
      await b.files.delete('documents/sr_missing.pdf');
    });

    test('a put over a key replaces its bytes', async () => {
      const key = 'documents/sr_overwrite.pdf';
      await b.files.put(key, Buffer.from('first version, longer than the second'));
      await b.files.put(key, Buffer.from('second'));
      assert.equal((await b.files.get(key))?.toString(), 'second');
    });

    test('delete removes the file', async () => {
      const key = 'documents/sub/sr_delete.pdf';
      await b.files.put(key, Buffer.from('x'));
      await b.files.delete(key);
      assert.equal(await b.files.get(key), null);
      assert.ok(!(await b.stored()).includes(b.nameOf(key)));
    });

    test('keys outside the grammar are refused by every method before anything is stored', async () => {
      const before = await b.stored();
      for (const key of REFUSED_KEYS) {
        const named = `${JSON.stringify(key)} should be refused`;
        await assert.rejects(b.files.put(key, Buffer.from('no')), FileKeyError, named);
        await assert.rejects(b.files.get(key), FileKeyError, named);
        await assert.rejects(b.files.delete(key), FileKeyError, named);
      }
      assert.deepEqual(await b.stored(), before);
      // The grammar allows ids, dots, dashes, underscores and sub-folders.
      await b.files.put('documents/2026/sr_A-b_c.1.pdf', Buffer.from('ok'));
      assert.equal((await b.files.get('documents/2026/sr_A-b_c.1.pdf'))?.toString(), 'ok');
    });

    test('a 5 MB file round-trips byte for byte', async () => {
      const bytes = randomBytes(5 * 1024 * 1024);
      await b.files.put('documents/sr_large.pdf', bytes);
      const back = await b.files.get('documents/sr_large.pdf');
      assert.equal(back?.byteLength, bytes.byteLength);
      assert.equal(sha256(back!), sha256(bytes));
    });
  });
}

describe('folder backend: the layout of an existing installation, atomic writes', () => {
  let dir: string;
  let files: FolderStorage;
  before(() => {
    dir = tempDir('tawqi-folder-');
    files = new FolderStorage(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a sealed PDF is DATA_DIR/documents/<id>.pdf: one written before this port is read as is', async () => {
    mkdirSync(path.join(dir, 'documents'));
    writeFileSync(path.join(dir, 'documents', 'sr_older.pdf'), 'sealed by an older version');
    assert.equal((await files.get(sealedPdfKey('sr_older')))?.toString(), 'sealed by an older version');
    await files.put(sealedPdfKey('sr_newer'), Buffer.from('new'));
    assert.deepEqual(filesUnder(dir), ['documents/sr_newer.pdf', 'documents/sr_older.pdf'], 'no temporary file is left');
    assert.equal(statSync(path.join(dir, 'documents', 'sr_newer.pdf')).mode & 0o777, 0o600);
  });

  test('a put that cannot be renamed into place fails and leaves no temporary file', async () => {
    mkdirSync(path.join(dir, 'documents', 'sr_blocked.pdf'), { recursive: true });
    await assert.rejects(files.put(sealedPdfKey('sr_blocked'), Buffer.from('x')), /EISDIR|EEXIST|ENOTEMPTY/);
    assert.deepEqual(
      readdirSync(path.join(dir, 'documents')).filter((n) => n.includes('sr_blocked')),
      ['sr_blocked.pdf'],
    );
    await assert.rejects(files.get(sealedPdfKey('sr_blocked')), /EISDIR/, 'a directory is not a missing file');
  });
});

describe('s3 backend: objects, metadata and errors', () => {
  let peer: S3Peer;
  before(async () => {
    peer = await startS3Peer();
  });
  after(() => peer?.close());

  test('an object carries its SHA-256 as metadata and a content type', async () => {
    const files = fileStorageFromConfig(loadConfig(peer.env({ TAWQI_S3_PREFIX: 'meta' })));
    const bytes = Buffer.from('%PDF-1.7 metadata');
    await files.put('documents/sr_meta.pdf', bytes);
    const object = await peer.object('meta/documents/sr_meta.pdf');
    assert.deepEqual(object?.bytes, bytes);
    assert.equal(object?.metadata.sha256, sha256(bytes));
    assert.equal(object?.contentType, 'application/pdf');
    await files.close();
  });

  test('a wrong secret or a missing bucket is an error, never a missing file; check() names the settings', async () => {
    const wrongSecret = fileStorageFromConfig(loadConfig(peer.env({ TAWQI_S3_SECRET_ACCESS_KEY: 'not-the-secret' })));
    const noBucket = fileStorageFromConfig(loadConfig(peer.env({ TAWQI_S3_BUCKET: 'no-such-bucket' })));
    for (const [files, code] of [
      [wrongSecret, 'SignatureDoesNotMatch'],
      [noBucket, 'NoSuchBucket'],
    ] as const) {
      await assert.rejects(files.get('documents/sr_any.pdf'), { name: code });
      await assert.rejects(files.put('documents/sr_any.pdf', Buffer.from('x')), { name: code });
      await assert.rejects(files.check(), new RegExp(`TAWQI_S3_BUCKET.*TAWQI_S3_ENDPOINT.*${code}`));
      await files.close();
    }
    assert.deepEqual(await peer.keys(), ['meta/documents/sr_meta.pdf'], 'nothing was written');
  });

  test('the description names bucket, prefix and endpoint but never a credential', () => {
    const files = fileStorageFromConfig(loadConfig(peer.env({ TAWQI_S3_PREFIX: 'tawqi/' })));
    assert.equal(files.description, `s3 bucket ${peer.bucket} prefix tawqi/ at ${peer.endpoint}`);
    assert.doesNotMatch(files.description, /S3RVER/);
  });
});

/** Complete and seal one request on `s`; the download's answer and bytes. */
async function sealOne(s: TestServer): Promise<{ id: string; downloaded: Buffer; sha256Header: string | null; pdfSha256: string }> {
  const owner = 'owner@example.com';
  const acct = await s.account({ ownerEmail: owner, plan: 'enterprise', balanceSends: 10, walletMinor: 1_000_000 });
  const tpl = await s.call('POST', '/templates', {
    key: acct.keys.secret_live,
    body: { title: 'Storage', language: 'en', body: 'Agreed.', fields: [] },
  });
  assert.equal(tpl.status, 201, tpl.text);
  const created = await s.call('POST', '/signature_requests', {
    key: acct.keys.secret_live,
    body: {
      title: 'Stored in S3',
      source: { type: 'template', template_id: tpl.body.id },
      signers: [{ name: 'Ali Hassan', email: owner }],
    },
  });
  assert.equal(created.status, 201, created.text);
  const id = created.body.id as string;
  await signAll(
    s,
    created.body.signers.map((x: { id: string }) => x.id),
    { ip: '198.51.100.9', user_agent: 'StorageTest/1.0' },
  );
  assert.equal((await s.call('GET', `/signature_requests/${id}/download`, { key: acct.keys.secret_live })).body.pdf_status, 'pending');
  await s.jobs.runDue();

  const d = await s.call('GET', `/signature_requests/${id}/download`, { key: acct.keys.secret_live });
  assert.equal(d.body.pdf_status, 'ready', d.text);
  const res = await fetch(`${s.url}/api/v1/signature_requests/${id}/download/pdf`, {
    headers: { authorization: `Bearer ${acct.keys.secret_live}` },
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/pdf');
  const downloaded = Buffer.from(await res.arrayBuffer());
  assert.equal(downloaded.subarray(0, 5).toString(), '%PDF-');

  return { id, downloaded, sha256Header: res.headers.get('x-file-sha256'), pdfSha256: d.body.pdf_sha256 };
}

describe(`the default storage of a server on ${TEST_DATABASE}`, () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s?.close());

  test(
    onPostgres ? 'PostgreSQL: final PDFs go to the files table, nothing under DATA_DIR' : 'SQLite: final PDFs go to DATA_DIR/documents',
    async () => {
      const { id, downloaded, sha256Header, pdfSha256 } = await sealOne(s);
      assert.equal(sha256Header, pdfSha256);
      assert.equal(sha256(downloaded), pdfSha256);
      const row = await s.ctx.store.db.selectFrom('files').selectAll().where('key', '=', `documents/${id}.pdf`).executeTakeFirst();
      if (onPostgres) {
        assert.ok(row, 'a files row under the key');
        assert.deepEqual(Buffer.from(row.bytes), downloaded);
        assert.equal(row.sha256, pdfSha256);
        assert.equal(Number(row.size), downloaded.length);
        assert.equal(existsSync(path.join(s.dataDir, 'documents')), false, 'nothing under DATA_DIR/documents');
      } else {
        assert.equal(row, undefined, 'no files row');
        assert.deepEqual(readFileSync(path.join(s.dataDir, 'documents', `${id}.pdf`)), downloaded);
      }
    },
  );

  test('TAWQI_STORAGE=postgres needs DATABASE_URL', () => {
    assert.throws(
      () => loadConfig({ TAWQI_STORAGE: 'postgres' }),
      (err: unknown) =>
        err instanceof ConfigError && /TAWQI_STORAGE: postgres keeps files in the database of DATABASE_URL/.test(err.message),
    );
    assert.equal(loadConfig({ TAWQI_STORAGE: 'postgres', DATABASE_URL: 'postgres://db.example/tawqi' }).TAWQI_STORAGE, 'postgres');
  });
});

describe('a server with TAWQI_STORAGE=s3', () => {
  let peer: S3Peer;
  let s: TestServer;
  before(async () => {
    peer = await startS3Peer();
    s = await startTestServer(peer.env());
  });
  after(async () => {
    await s?.close();
    await peer?.close();
  });

  test('a completed request is sealed into the bucket; the download is the object, byte for byte, and DATA_DIR has no documents/', async () => {
    const { id, downloaded, sha256Header, pdfSha256 } = await sealOne(s);
    const object = await peer.object(`documents/${id}.pdf`);
    assert.ok(object, `documents/${id}.pdf in the bucket: ${JSON.stringify(await peer.keys())}`);
    assert.deepEqual(downloaded, object.bytes);
    assert.equal(sha256Header, sha256(object.bytes));
    assert.equal(sha256Header, pdfSha256);
    assert.equal(object.metadata.sha256, pdfSha256);
    assert.equal(existsSync(path.join(s.dataDir, 'documents')), false, 'nothing under DATA_DIR/documents');
  });
});

describe('file-storage settings', () => {
  const refused: [string, Record<string, string>, RegExp][] = [
    ['s3 without a bucket', { TAWQI_STORAGE: 's3' }, /TAWQI_S3_BUCKET: needed with TAWQI_STORAGE=s3/],
    ['an unknown backend', { TAWQI_STORAGE: 'tape' }, /TAWQI_STORAGE/],
    ['a bucket without TAWQI_STORAGE=s3', { TAWQI_S3_BUCKET: 'b' }, /TAWQI_S3_BUCKET: only used with TAWQI_STORAGE=s3/],
    ['half a key pair', { TAWQI_STORAGE: 's3', TAWQI_S3_BUCKET: 'b', TAWQI_S3_ACCESS_KEY_ID: 'AKIA' }, /TAWQI_S3_SECRET_ACCESS_KEY/],
    [
      'plain http to another host',
      { TAWQI_STORAGE: 's3', TAWQI_S3_BUCKET: 'b', TAWQI_S3_ENDPOINT: 'http://minio.internal:9000' },
      /TAWQI_S3_ENDPOINT: must be https/,
    ],
    ['a prefix with ..', { TAWQI_STORAGE: 's3', TAWQI_S3_BUCKET: 'b', TAWQI_S3_PREFIX: 'a/../b' }, /TAWQI_S3_PREFIX/],
  ];
  for (const [name, env, message] of refused) {
    test(`refused: ${name}`, () => {
      assert.throws(
        () => loadConfig(env),
        (err: unknown) => err instanceof ConfigError && message.test(err.message),
      );
    });
  }

  test('accepted: folder by default; s3 with https, loopback http, or http on a closed network', () => {
    assert.equal(loadConfig({}).TAWQI_STORAGE, undefined);
    assert.match(fileStorageFromConfig(loadConfig({ DATA_DIR: '/srv/tawqi' })).description, /^folder \/srv\/tawqi$/);
    const s3 = { TAWQI_STORAGE: 's3', TAWQI_S3_BUCKET: 'b' };
    assert.equal(loadConfig({ ...s3, TAWQI_S3_ENDPOINT: 'https://s3.example.com' }).TAWQI_S3_REGION, 'us-east-1');
    assert.doesNotThrow(() => loadConfig({ ...s3, TAWQI_S3_ENDPOINT: 'http://127.0.0.1:9000' }));
    assert.doesNotThrow(() => loadConfig({ ...s3, TAWQI_S3_ENDPOINT: 'http://minio:9000', TAWQI_ALLOW_INSECURE_HTTP: 'true' }));
    assert.equal(loadConfig({ ...s3, TAWQI_S3_PREFIX: 'tawqi/prod/' }).TAWQI_S3_PREFIX, 'tawqi/prod');
    assert.equal(fileStorageFromConfig(loadConfig(s3)).description, 's3 bucket b at AWS us-east-1');
  });

  test('a start against a bucket that does not answer stops with a ConfigError before DATA_DIR is touched', async () => {
    const peer = await startS3Peer();
    const dataDir = tempDir('tawqi-nobucket-');
    try {
      const config = loadConfig({
        ...peer.env({ TAWQI_S3_BUCKET: 'missing-bucket' }),
        DATA_DIR: dataDir,
        PORT: '0',
        TAWQI_LOG_LEVEL: 'silent',
      });
      await assert.rejects(
        startServer(config),
        (err: unknown) => err instanceof ConfigError && /TAWQI_STORAGE: s3 bucket missing-bucket .*NoSuchBucket/.test(err.message),
      );
      assert.deepEqual(readdirSync(dataDir), [], 'no database, secrets or pki created');
    } finally {
      await peer.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
