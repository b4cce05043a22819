/**
 * The built-in PKI (server/src/sealing/pki): files and permissions, restart, re-issue, and every
 * protocol checked by the real verifier — `openssl ts -verify` for RFC 3161 over HTTP, `openssl ocsp`
 * against POST /pki/ocsp, `openssl crl` for the CRL, `openssl pkeyutl` for the Ed25519 evidence key,
 * `openssl dgst` for the seal — plus an operator's PKCS#12 seal and an external TSA.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash, createPublicKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../server/src/clock.js';
import { ConfigError, loadConfig } from '../../server/src/config.js';
import { startServer } from '../../server/src/server.js';
import {
  crlDer,
  filePkiStorage,
  loadOrCreatePki,
  loadPkcs12,
  ocspResponseFor,
  Pkcs12Error,
  readTimeStampToken,
  revokeCertificate,
  timestamp,
  timestampData,
  tokenFromResponse,
  TimestampError,
} from '../../server/src/sealing/pki/index.js';
import { TSA_POLICY_OID } from '@tawqi/shared/cms';
import { startTestServer, type TestServer } from '../support/server.js';
import { databaseEnv } from '../support/database.js';

const FIXED_URL = 'http://sign.example.test';

function tempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), `tawqi-pki-${prefix}-`));
}

interface Run {
  status: number | null;
  out: string;
}

/** Run openssl; `out` is stdout and stderr together (openssl prints verdicts on either). */
function openssl(args: string[], cwd: string): Run {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

/** The same, without blocking the event loop: for commands that talk to the server in this process. */
function opensslOnline(args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, out });
    });
  });
}

function pem(der: Uint8Array): string {
  return new X509Certificate(Buffer.from(der)).toString();
}

function fingerprint(file: string): string {
  return new X509Certificate(readFileSync(file)).fingerprint256;
}

const mode = (file: string) => statSync(file).mode & 0o777;

async function post(url: string, type: string, body: Uint8Array): Promise<{ status: number; type: string | null; body: Uint8Array }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': type }, body: Buffer.from(body) });
  return { status: res.status, type: res.headers.get('content-type'), body: new Uint8Array(await res.arrayBuffer()) };
}

describe('built-in PKI: files (DATA_DIR/pki, as SQLite installations keep it), restart, re-issue', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  test('first start creates DATA_DIR/pki (0700) with keys 0600 and certificates; a restart loads the same ones', async () => {
    const dataDir = tempDir('files');
    dirs.push(dataDir);
    const clock = new ManualClock();
    const pki = await loadOrCreatePki(filePkiStorage(dataDir), clock, FIXED_URL);
    const dir = path.join(dataDir, 'pki');
    assert.equal(mode(dir), 0o700);
    for (const key of ['ca.key.pem', 'seal.key.pem', 'tsa.key.pem', 'ocsp.key.pem', 'evidence.key.pem']) {
      assert.equal(mode(path.join(dir, key)), 0o600, key);
      assert.match(readFileSync(path.join(dir, key), 'utf8'), /^-----BEGIN PRIVATE KEY-----/, `${key} is PKCS#8 PEM`);
    }
    for (const cert of ['ca.pem', 'seal.pem', 'tsa.pem', 'ocsp.pem'])
      assert.match(readFileSync(path.join(dir, cert), 'utf8'), /^-----BEGIN CERTIFICATE-----/, cert);
    assert.match(readFileSync(path.join(dir, 'evidence.pub.pem'), 'utf8'), /^-----BEGIN PUBLIC KEY-----/);
    assert.equal(readdirSync(dataDir).filter((n) => n.includes('.tmp')).length, 0, 'no temporary folder left behind');

    // Validity: CA 10 years, leaves 3 years, from the clock's now.
    const now = new Date(clock.nowMs());
    const ca = new X509Certificate(readFileSync(path.join(dir, 'ca.pem')));
    const seal = new X509Certificate(readFileSync(path.join(dir, 'seal.pem')));
    assert.equal(new Date(ca.validFrom).getTime(), now.getTime());
    assert.equal(new Date(ca.validTo).getUTCFullYear(), now.getUTCFullYear() + 10);
    assert.equal(new Date(seal.validFrom).getTime(), now.getTime());
    assert.equal(new Date(seal.validTo).getUTCFullYear(), now.getUTCFullYear() + 3);
    assert.ok(seal.checkIssued(ca) && seal.verify(ca.publicKey));
    assert.equal(pki.seal.builtIn, true);
    assert.deepEqual(
      pki.seal.chain.map((c) => Buffer.from(c)),
      [Buffer.from(ca.raw)],
    );

    const before = Object.fromEntries(['ca.pem', 'seal.pem', 'tsa.pem', 'ocsp.pem'].map((f) => [f, fingerprint(path.join(dir, f))]));
    clock.advanceSeconds(86400);
    const again = await loadOrCreatePki(filePkiStorage(dataDir), clock, FIXED_URL);
    const afterRestart = Object.fromEntries(['ca.pem', 'seal.pem', 'tsa.pem', 'ocsp.pem'].map((f) => [f, fingerprint(path.join(dir, f))]));
    assert.deepEqual(afterRestart, before, 'same certificates after a restart');
    assert.equal(again.evidence.keyId, pki.evidence.keyId, 'same evidence key');
    assert.equal(again.evidence.publicKeyPem, pki.evidence.publicKeyPem);
  });

  test('a new public URL re-issues the seal and TSA certificates for the same keys; the old ones stay known to OCSP', async () => {
    const dataDir = tempDir('url');
    dirs.push(dataDir);
    // openssl checks OCSP response times against the real clock.
    const clock = new ManualClock(Date.now());
    const pki = await loadOrCreatePki(filePkiStorage(dataDir), clock, FIXED_URL);
    const oldSeal = pki.seal.certificate;
    const oldSpki = new X509Certificate(Buffer.from(oldSeal)).publicKey.export({ format: 'der', type: 'spki' });
    assert.match(pem(oldSeal), /BEGIN CERTIFICATE/);
    const text1 = openssl(['x509', '-noout', '-text', '-in', path.join(dataDir, 'pki', 'seal.pem')], dataDir).out;
    assert.match(text1, /OCSP - URI:http:\/\/sign\.example\.test\/pki\/ocsp/);

    await pki.setPublicUrl('https://other.example.test/');
    const newSeal = new X509Certificate(Buffer.from(pki.seal.certificate));
    assert.notEqual(newSeal.fingerprint256, new X509Certificate(Buffer.from(oldSeal)).fingerprint256);
    assert.deepEqual(newSeal.publicKey.export({ format: 'der', type: 'spki' }), oldSpki, 'same key, new certificate');
    const text2 = openssl(['x509', '-noout', '-text', '-in', path.join(dataDir, 'pki', 'seal.pem')], dataDir).out;
    assert.match(text2, /OCSP - URI:https:\/\/other\.example\.test\/pki\/ocsp/);
    assert.match(text2, /CA Issuers - URI:https:\/\/other\.example\.test\/pki\/ca\.cer/);
    assert.match(text2, /URI:https:\/\/other\.example\.test\/pki\/crl/);
    assert.match(openssl(['x509', '-noout', '-text', '-in', path.join(dataDir, 'pki', 'tsa.pem')], dataDir).out, /other\.example\.test/);

    // Both the superseded and the current seal answer "good".
    const dir = path.join(dataDir, 'pki');
    writeFileSync(path.join(dataDir, 'old-seal.pem'), pem(oldSeal));
    for (const [name, der] of [
      ['old', oldSeal],
      ['new', pki.seal.certificate],
    ] as const) {
      writeFileSync(path.join(dataDir, `${name}.ocsp`), await ocspResponseFor(pki, der));
      writeFileSync(path.join(dataDir, `${name}.pem`), pem(der));
      const r = openssl(
        [
          'ocsp',
          '-respin',
          `${name}.ocsp`,
          '-issuer',
          path.join(dir, 'ca.pem'),
          '-cert',
          `${name}.pem`,
          '-CAfile',
          path.join(dir, 'ca.pem'),
          '-attime',
          String(Math.floor(clock.nowMs() / 1000)),
        ],
        dataDir,
      );
      assert.match(r.out, /Response verify OK/, r.out);
      assert.match(r.out, new RegExp(`${name}\\.pem: good`), r.out);
    }
  });

  test('leaf certificates are renewed 30 days before they expire; the TSA certificate has critical EKU timeStamping', async () => {
    const dataDir = tempDir('renew');
    dirs.push(dataDir);
    const clock = new ManualClock();
    const pki = await loadOrCreatePki(filePkiStorage(dataDir), clock, FIXED_URL);
    const tsaText = openssl(['x509', '-noout', '-text', '-in', path.join(dataDir, 'pki', 'tsa.pem')], dataDir).out;
    assert.match(tsaText, /X509v3 Extended Key Usage: critical\n\s+Time Stamping\n/);
    assert.match(tsaText, /X509v3 Key Usage: critical\n\s+Digital Signature\n/);
    assert.match(tsaText, /Subject: .*CN = "?Tawqi TSA \(built-in, not publicly trusted\)/);
    const sealText = openssl(['x509', '-noout', '-text', '-in', path.join(dataDir, 'pki', 'seal.pem')], dataDir).out;
    assert.match(sealText, /X509v3 Key Usage: critical\n\s+Digital Signature, Non Repudiation\n/);
    assert.match(sealText, /Subject: .*CN = "?Tawqi seal \(built-in, not publicly trusted\)/);
    const ocspText = openssl(['x509', '-noout', '-text', '-in', path.join(dataDir, 'pki', 'ocsp.pem')], dataDir).out;
    assert.match(ocspText, /OCSP Signing/);
    assert.match(ocspText, /OCSP No Check/);
    const caText = openssl(['x509', '-noout', '-text', '-in', path.join(dataDir, 'pki', 'ca.pem')], dataDir).out;
    assert.match(caText, /CA:TRUE/);
    assert.match(caText, /Certificate Sign, CRL Sign/);
    assert.match(caText, /ASN1 OID: prime256v1/);
    const v = openssl(
      [
        'verify',
        '-attime',
        String(Math.floor(clock.nowMs() / 1000)),
        '-CAfile',
        'pki/ca.pem',
        'pki/seal.pem',
        'pki/tsa.pem',
        'pki/ocsp.pem',
      ],
      dataDir,
    );
    assert.equal(v.status, 0, v.out);

    const oldTsa = pki.tsa.serialHex;
    clock.advanceSeconds((3 * 365 - 20) * 86400);
    await pki.maintain();
    assert.notEqual(pki.tsa.serialHex, oldTsa, 'renewed');
    assert.ok(pki.tsa.notAfter.getTime() > clock.nowMs() + 2 * 365 * 86400_000);
  });

  test('the seal signs with ECDSA P-256 / SHA-256 (DER signature), verified by openssl dgst', async () => {
    const dataDir = tempDir('seal');
    dirs.push(dataDir);
    const pki = await loadOrCreatePki(filePkiStorage(dataDir), new ManualClock(), FIXED_URL);
    const data = new TextEncoder().encode('signed attributes go here');
    writeFileSync(path.join(dataDir, 'data'), data);
    writeFileSync(path.join(dataDir, 'sig'), pki.seal.sign(data, 'SHA-256'));
    writeFileSync(path.join(dataDir, 'pub.pem'), createPublicKey(pki.seal.privateKey).export({ format: 'pem', type: 'spki' }));
    assert.equal(pki.seal.signatureAlgorithm.name, 'ecdsa-with-SHA256');
    assert.equal(pki.seal.signatureAlgorithm.oid, '1.2.840.10045.4.3.2');
    const r = openssl(['dgst', '-sha256', '-verify', 'pub.pem', '-signature', 'sig', 'data'], dataDir);
    assert.match(r.out, /Verified OK/, r.out);
  });

  test('the evidence key signs with Ed25519, verified by openssl pkeyutl', async () => {
    const dataDir = tempDir('evidence');
    dirs.push(dataDir);
    const pki = await loadOrCreatePki(filePkiStorage(dataDir), new ManualClock(), FIXED_URL);
    const record = new TextEncoder().encode('{"record":"raw"}');
    writeFileSync(path.join(dataDir, 'record'), record);
    writeFileSync(path.join(dataDir, 'record.sig'), pki.evidence.sign(record));
    writeFileSync(path.join(dataDir, 'evidence.pem'), pki.evidence.publicKeyPem);
    assert.equal(pki.evidence.publicKeyRaw.length, 32);
    const r = openssl(
      ['pkeyutl', '-verify', '-pubin', '-inkey', 'evidence.pem', '-rawin', '-in', 'record', '-sigfile', 'record.sig'],
      dataDir,
    );
    assert.match(r.out, /Signature Verified Successfully/, r.out);
    writeFileSync(path.join(dataDir, 'record'), new TextEncoder().encode('{"record":"changed"}'));
    assert.doesNotMatch(
      openssl(['pkeyutl', '-verify', '-pubin', '-inkey', 'evidence.pem', '-rawin', '-in', 'record', '-sigfile', 'record.sig'], dataDir).out,
      /Verified Successfully/,
    );
  });

  test('a missing CA key stops the start with the file name', async () => {
    const dataDir = tempDir('broken');
    dirs.push(dataDir);
    await loadOrCreatePki(filePkiStorage(dataDir), new ManualClock(), FIXED_URL);
    rmSync(path.join(dataDir, 'pki', 'ca.key.pem'));
    await assert.rejects(loadOrCreatePki(filePkiStorage(dataDir), new ManualClock(), FIXED_URL), /ca\.key\.pem is missing/);
  });
});

describe('built-in PKI over HTTP (real server, real openssl)', () => {
  let s: TestServer;
  let work: string;

  before(async () => {
    s = await startTestServer();
    // openssl checks OCSP and CRL times against the real clock: run the server's clock at real time.
    s.clock.set(Date.now());
    work = tempDir('http');
    for (const name of ['ca.pem', 'tsa.pem', 'seal.pem']) {
      const res = await fetch(`${s.url}/pki/${name}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/x-pem-file');
      writeFileSync(path.join(work, name), await res.text());
    }
    writeFileSync(path.join(work, 'contract.txt'), 'عقد إيجار — lease agreement\n');
  });
  after(async () => {
    await s?.close();
    rmSync(work, { recursive: true, force: true });
  });

  test('startServer made the PKI (SQLite: under DATA_DIR; PostgreSQL: in the database) and names the listen address in the certificates', async () => {
    if (s.ctx.store.dialect === 'sqlite') {
      assert.ok(existsSync(path.join(s.dataDir, 'pki', 'ca.key.pem')));
      assert.equal(readFileSync(path.join(work, 'ca.pem'), 'utf8'), readFileSync(path.join(s.dataDir, 'pki', 'ca.pem'), 'utf8'));
    } else {
      assert.equal(existsSync(path.join(s.dataDir, 'pki')), false, 'no PKI files on PostgreSQL');
      const ca = await s.ctx.store.db.selectFrom('server_keys').select('certificate').where('name', '=', 'ca').executeTakeFirstOrThrow();
      assert.equal(readFileSync(path.join(work, 'ca.pem'), 'utf8'), pem(ca.certificate!));
    }
    const text = openssl(['x509', '-noout', '-text', '-in', 'seal.pem'], work).out;
    assert.ok(text.includes(`OCSP - URI:${s.url}/pki/ocsp`), text);
    assert.ok(text.includes(`URI:${s.url}/pki/crl`), text);
  });

  test('POST /tsa answers an openssl TimeStampReq; openssl ts -verify says OK, and fails for a tampered file', async () => {
    let r = openssl(['ts', '-query', '-data', 'contract.txt', '-sha256', '-cert', '-out', 'req.tsq'], work);
    assert.equal(r.status, 0, r.out);
    const res = await post(`${s.url}/tsa`, 'application/timestamp-query', readFileSync(path.join(work, 'req.tsq')));
    assert.equal(res.status, 200);
    assert.equal(res.type, 'application/timestamp-reply');
    writeFileSync(path.join(work, 'resp.tsr'), res.body);

    r = openssl(['ts', '-reply', '-in', 'resp.tsr', '-text'], work);
    assert.match(r.out, /Status: Granted\./, r.out);
    assert.ok(r.out.includes(`Policy OID: ${TSA_POLICY_OID}`), r.out);
    assert.match(r.out, /Hash Algorithm: sha256/);
    assert.match(r.out, /Accuracy: 0x01 seconds/);
    assert.match(r.out, /Nonce: 0x[0-9A-F]+/);

    r = openssl(['ts', '-verify', '-data', 'contract.txt', '-in', 'resp.tsr', '-CAfile', 'ca.pem', '-untrusted', 'tsa.pem'], work);
    assert.match(r.out, /Verification: OK/, r.out);
    r = openssl(['ts', '-verify', '-queryfile', 'req.tsq', '-in', 'resp.tsr', '-CAfile', 'ca.pem', '-untrusted', 'tsa.pem'], work);
    assert.match(r.out, /Verification: OK/, r.out);

    writeFileSync(path.join(work, 'tampered.txt'), 'عقد إيجار — lease agreement!\n');
    r = openssl(['ts', '-verify', '-data', 'tampered.txt', '-in', 'resp.tsr', '-CAfile', 'ca.pem', '-untrusted', 'tsa.pem'], work);
    assert.notEqual(r.status, 0);
    assert.match(r.out, /Verification: FAILED/, r.out);
    assert.match(r.out, /message imprint mismatch/, r.out);
  });

  test('genTime follows the injected clock; serial numbers increase', async () => {
    const first = readTimeStampToken(await timestampData(s.ctx.pki, new Uint8Array([1, 2, 3])));
    assert.equal(first.genTime.getTime(), s.clock.nowMs());
    const second = readTimeStampToken(await timestampData(s.ctx.pki, new Uint8Array([1, 2, 3])));
    assert.ok(BigInt(`0x${second.serialHex}`) > BigInt(`0x${first.serialHex}`), 'same millisecond, larger serial');
    s.clock.advanceSeconds(90);
    const third = readTimeStampToken(await timestampData(s.ctx.pki, new Uint8Array([1, 2, 3])));
    assert.equal(third.genTime.getTime(), first.genTime.getTime() + 90_000);
    assert.ok(BigInt(`0x${third.serialHex}`) > BigInt(`0x${second.serialHex}`));
    assert.equal(third.policy, TSA_POLICY_OID);

    // Over HTTP too: openssl shows the clock's time.
    s.clock.set(Date.UTC(2026, 10, 22, 8, 30, 15, 250));
    const q = openssl(['ts', '-query', '-data', 'contract.txt', '-sha512', '-out', 'req512.tsq'], work);
    assert.equal(q.status, 0, q.out);
    const res = await post(`${s.url}/tsa`, 'application/timestamp-query', readFileSync(path.join(work, 'req512.tsq')));
    writeFileSync(path.join(work, 'resp512.tsr'), res.body);
    const text = openssl(['ts', '-reply', '-in', 'resp512.tsr', '-text'], work).out;
    assert.match(text, /Time stamp: Nov 22 08:30:15\.25 2026 GMT/, text);
    assert.match(text, /Hash Algorithm: sha512/);
    // No -cert in the query: the token carries no certificate, openssl needs it given.
    const v = openssl(['ts', '-verify', '-data', 'contract.txt', '-in', 'resp512.tsr', '-CAfile', 'ca.pem', '-untrusted', 'tsa.pem'], work);
    assert.match(v.out, /Verification: OK/, v.out);
    s.clock.set(Date.now());
  });

  test('timestamp() takes a messageImprint, nonce and certReq; the token embeds the TSA certificate when asked', async () => {
    const digest = createHash('sha256').update('document bytes').digest();
    const resp = await timestamp(s.ctx.pki, { hashAlgorithm: 'SHA-256', hashedMessage: digest }, { nonce: 123456789n, certReq: true });
    const info = readTimeStampToken(resp);
    assert.equal(info.nonce, 123456789n);
    assert.deepEqual(Buffer.from(info.hashedMessage), digest);
    assert.equal(info.hashAlgorithm, '2.16.840.1.101.3.4.2.1');
    const token = tokenFromResponse(resp);
    writeFileSync(path.join(work, 'token.der'), token);
    writeFileSync(path.join(work, 'doc.bin'), 'document bytes');
    // The token alone (no -untrusted): its embedded TSA certificate chains to the CA.
    const r = openssl(['ts', '-verify', '-data', 'doc.bin', '-in', 'token.der', '-token_in', '-CAfile', 'ca.pem'], work);
    assert.match(r.out, /Verification: OK/, r.out);
    // By OID too.
    const byOid = readTimeStampToken(await timestamp(s.ctx.pki, { hashAlgorithm: '2.16.840.1.101.3.4.2.1', hashedMessage: digest }));
    assert.deepEqual(Buffer.from(byOid.hashedMessage), digest);
    await assert.rejects(timestamp(s.ctx.pki, { hashAlgorithm: 'SHA-256', hashedMessage: new Uint8Array(5) }), TimestampError);
    await assert.rejects(timestamp(s.ctx.pki, { hashAlgorithm: 'MD5', hashedMessage: new Uint8Array(16) }), TimestampError);
  });

  test('bad time-stamp queries get a rejection reply; a wrong Content-Type gets the error envelope', async () => {
    const garbage = await post(`${s.url}/tsa`, 'application/timestamp-query', new TextEncoder().encode('not DER'));
    assert.equal(garbage.status, 200);
    writeFileSync(path.join(work, 'rejected.tsr'), garbage.body);
    let text = openssl(['ts', '-reply', '-in', 'rejected.tsr', '-text'], work).out;
    assert.match(text, /Status: Rejected/, text);
    assert.match(text, /the data submitted has the wrong format/, text);
    assert.throws(() => tokenFromResponse(garbage.body), TimestampError);

    const q = openssl(['ts', '-query', '-data', 'contract.txt', '-sha256', '-tspolicy', '1.2.3.4', '-out', 'policy.tsq'], work);
    assert.equal(q.status, 0, q.out);
    const policy = await post(`${s.url}/tsa`, 'application/timestamp-query', readFileSync(path.join(work, 'policy.tsq')));
    writeFileSync(path.join(work, 'policy.tsr'), policy.body);
    text = openssl(['ts', '-reply', '-in', 'policy.tsr', '-text'], work).out;
    assert.match(text, /Status: Rejected/, text);
    assert.match(text, /the requested TSA policy is not supported by the TSA/, text);

    const ours = openssl(['ts', '-query', '-data', 'contract.txt', '-sha256', '-tspolicy', TSA_POLICY_OID, '-out', 'ours.tsq'], work);
    assert.equal(ours.status, 0, ours.out);
    const granted = await post(`${s.url}/tsa`, 'application/timestamp-query', readFileSync(path.join(work, 'ours.tsq')));
    assert.equal(readTimeStampToken(granted.body).policy, TSA_POLICY_OID, 'asking for our own policy is granted');

    const q1 = openssl(['ts', '-query', '-data', 'contract.txt', '-sha1', '-out', 'sha1.tsq'], work);
    assert.equal(q1.status, 0, q1.out);
    const sha1 = await post(`${s.url}/tsa`, 'application/timestamp-query', readFileSync(path.join(work, 'sha1.tsq')));
    writeFileSync(path.join(work, 'sha1.tsr'), sha1.body);
    assert.match(openssl(['ts', '-reply', '-in', 'sha1.tsr', '-text'], work).out, /unrecognized or unsupported algorithm identifier/);

    const wrongType = await fetch(`${s.url}/tsa`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(wrongType.status, 400);
    const envelope = (await wrongType.json()) as { error: { code: string; param: string } };
    assert.equal(envelope.error.code, 'parameter_invalid');
    assert.equal(envelope.error.param, 'Content-Type');
    const get = await fetch(`${s.url}/tsa`);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
  });

  test('OCSP: openssl ocsp gets "good" for the seal with "Response verify OK", over POST and GET', async () => {
    let r = await opensslOnline(
      ['ocsp', '-issuer', 'ca.pem', '-cert', 'seal.pem', '-url', `${s.url}/pki/ocsp`, '-CAfile', 'ca.pem', '-resp_text'],
      work,
    );
    assert.match(r.out, /Response verify OK/, r.out);
    assert.match(r.out, /seal\.pem: good/, r.out);
    assert.match(r.out, /OCSP Nonce:/, 'the nonce is echoed');
    assert.match(r.out, /Responder Id: [0-9A-F]{40}/, 'responder named by key hash');

    // RFC 6960 A.1 GET: the base64 of the DER request in the path.
    r = openssl(['ocsp', '-issuer', 'ca.pem', '-cert', 'seal.pem', '-no_nonce', '-reqout', 'req.ocsp'], work);
    assert.equal(r.status, 0, r.out);
    const b64 = readFileSync(path.join(work, 'req.ocsp')).toString('base64');
    const res = await fetch(`${s.url}/pki/ocsp/${encodeURIComponent(b64)}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/ocsp-response');
    writeFileSync(path.join(work, 'get.ocsp'), new Uint8Array(await res.arrayBuffer()));
    r = openssl(['ocsp', '-respin', 'get.ocsp', '-issuer', 'ca.pem', '-cert', 'seal.pem', '-CAfile', 'ca.pem'], work);
    assert.match(r.out, /Response verify OK/, r.out);
    assert.match(r.out, /seal\.pem: good/, r.out);
    // Clients that leave '/' and '+' of the base64 unencoded are understood too.
    const raw = await fetch(`${s.url}/pki/ocsp/${b64}`);
    writeFileSync(path.join(work, 'get-raw.ocsp'), new Uint8Array(await raw.arrayBuffer()));
    assert.match(
      openssl(['ocsp', '-respin', 'get-raw.ocsp', '-issuer', 'ca.pem', '-cert', 'seal.pem', '-CAfile', 'ca.pem'], work).out,
      /seal\.pem: good/,
    );

    // A serial the CA never issued is "unknown"; a malformed request gets malformedRequest.
    r = await opensslOnline(['ocsp', '-issuer', 'ca.pem', '-serial', '0x1234', '-url', `${s.url}/pki/ocsp`, '-CAfile', 'ca.pem'], work);
    assert.match(r.out, /0x1234: unknown/, r.out);
    const bad = await post(`${s.url}/pki/ocsp`, 'application/ocsp-request', new Uint8Array([1, 2, 3]));
    assert.equal(bad.status, 200);
    assert.deepEqual([...bad.body], [0x30, 0x03, 0x0a, 0x01, 0x01]);
  });

  test('ocspResponseFor(pki, cert) gives a DER response openssl accepts (no HTTP)', async () => {
    writeFileSync(path.join(work, 'direct.ocsp'), await ocspResponseFor(s.ctx.pki, s.ctx.pki.seal.certificate));
    const r = openssl(
      ['ocsp', '-respin', 'direct.ocsp', '-issuer', 'ca.pem', '-cert', 'seal.pem', '-CAfile', 'ca.pem', '-resp_text'],
      work,
    );
    assert.match(r.out, /Response verify OK/, r.out);
    assert.match(r.out, /seal\.pem: good/, r.out);
    await assert.rejects(ocspResponseFor(s.ctx.pki, s.ctx.pki.ca.certificate), /not issued by the built-in CA/);
  });

  test('CRL: GET /pki/crl is DER signed by the CA (openssl crl: verify OK), nextUpdate 7 days on', async () => {
    const res = await fetch(`${s.url}/pki/crl`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pkix-crl');
    const der = new Uint8Array(await res.arrayBuffer());
    writeFileSync(path.join(work, 'crl.der'), der);
    const r = openssl(['crl', '-inform', 'DER', '-in', 'crl.der', '-CAfile', 'ca.pem', '-noout'], work);
    assert.match(r.out, /verify OK/, r.out);
    const text = openssl(['crl', '-inform', 'DER', '-in', 'crl.der', '-noout', '-text'], work).out;
    assert.match(text, /No Revoked Certificates/, text);
    assert.match(text, /X509v3 CRL Number/);
    const last = /Last Update: (.+)\n/.exec(text)![1]!;
    const next = /Next Update: (.+)\n/.exec(text)![1]!;
    assert.equal(new Date(next).getTime() - new Date(last).getTime(), 7 * 86400_000);
    assert.deepEqual(Buffer.from(await crlDer(s.ctx.pki)), Buffer.from(der), 'crlDer(pki) is the served CRL');
  });

  test('revocation: OCSP says revoked (with the reason), the CRL lists it, and the seal is replaced', async () => {
    const oldSeal = s.ctx.pki.seal.certificate;
    const serial = new X509Certificate(Buffer.from(oldSeal)).serialNumber;
    writeFileSync(path.join(work, 'old-seal.pem'), pem(oldSeal));
    const rev = await revokeCertificate(s.ctx.pki, oldSeal, { reason: 'keyCompromise' });
    assert.equal(rev.reason, 'keyCompromise');
    assert.deepEqual(await revokeCertificate(s.ctx.pki, serial), rev, 'revoking twice keeps the first record');
    await assert.rejects(revokeCertificate(s.ctx.pki, 'abcdef'), /has not issued/);

    let r = await opensslOnline(
      ['ocsp', '-issuer', 'ca.pem', '-cert', 'old-seal.pem', '-url', `${s.url}/pki/ocsp`, '-CAfile', 'ca.pem'],
      work,
    );
    assert.match(r.out, /Response verify OK/, r.out);
    assert.match(r.out, /old-seal\.pem: revoked/, r.out);
    assert.match(r.out, /Reason: keyCompromise/, r.out);

    const newSeal = s.ctx.pki.seal.certificate;
    assert.notDeepEqual(Buffer.from(newSeal), Buffer.from(oldSeal));
    assert.notDeepEqual(
      new X509Certificate(Buffer.from(newSeal)).publicKey.export({ format: 'der', type: 'spki' }),
      new X509Certificate(Buffer.from(oldSeal)).publicKey.export({ format: 'der', type: 'spki' }),
      'a revoked seal gets a new key',
    );
    writeFileSync(path.join(work, 'new-seal.pem'), pem(newSeal));
    r = await opensslOnline(['ocsp', '-issuer', 'ca.pem', '-cert', 'new-seal.pem', '-url', `${s.url}/pki/ocsp`, '-CAfile', 'ca.pem'], work);
    assert.match(r.out, /new-seal\.pem: good/, r.out);

    const res = await fetch(`${s.url}/pki/crl`);
    writeFileSync(path.join(work, 'crl2.der'), new Uint8Array(await res.arrayBuffer()));
    assert.match(openssl(['crl', '-inform', 'DER', '-in', 'crl2.der', '-CAfile', 'ca.pem', '-noout'], work).out, /verify OK/);
    const text = openssl(['crl', '-inform', 'DER', '-in', 'crl2.der', '-noout', '-text'], work).out;
    assert.ok(text.toUpperCase().includes(`SERIAL NUMBER: ${serial.toUpperCase()}`), text);
    assert.match(text, /Key Compromise/);
  });

  test('publication: CA as PEM and DER, the evidence key, and GET /pki marked built-in and not publicly trusted', async () => {
    const cer = await fetch(`${s.url}/pki/ca.cer`);
    assert.equal(cer.headers.get('content-type'), 'application/pkix-cert');
    assert.deepEqual(Buffer.from(await cer.arrayBuffer()), Buffer.from(s.ctx.pki.ca.certificate));
    const key = await fetch(`${s.url}/pki/evidence-key.pem`);
    const keyPem = await key.text();
    assert.equal(keyPem, s.ctx.pki.evidence.publicKeyPem);
    assert.equal(createPublicKey(keyPem).asymmetricKeyType, 'ed25519');

    const info = (await (await fetch(`${s.url}/pki`)).json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.equal(info.object, 'pki');
    assert.match(info.notice, /not publicly trusted/);
    assert.equal(info.ca.built_in, true);
    assert.equal(info.ca.publicly_trusted, false);
    assert.equal(info.ca.sha256_fingerprint, fingerprint(path.join(work, 'ca.pem')));
    const fpOut = openssl(['x509', '-in', 'ca.pem', '-noout', '-fingerprint', '-sha256'], work).out;
    assert.ok(fpOut.includes(info.ca.sha256_fingerprint), fpOut);
    assert.equal(info.seal.built_in, true);
    assert.equal(info.seal.publicly_trusted, false);
    assert.match(info.seal.subject, /Tawqi seal \(built-in, not publicly trusted\)/);
    assert.equal(info.tsa.url, `${s.url}/tsa`);
    assert.equal(info.tsa.policy, TSA_POLICY_OID);
    assert.equal(info.ocsp.url, `${s.url}/pki/ocsp`);
    assert.equal(info.crl.url, `${s.url}/pki/crl`);
    assert.equal(info.evidence_key.algorithm, 'Ed25519');
    assert.equal(info.evidence_key.key_id, s.ctx.pki.evidence.keyId);
    assert.equal(info.evidence_key.pem_url, `${s.url}/pki/evidence-key.pem`);
  });
});

describe('server restart with a fixed TAWQI_PUBLIC_URL', () => {
  test('the same CA, seal, TSA and evidence key after a restart', async () => {
    const dataDir = tempDir('restart');
    const config = loadConfig({
      DATA_DIR: dataDir,
      ...(await databaseEnv(dataDir)),
      PORT: '0',
      HOST: '127.0.0.1',
      TAWQI_LOG_LEVEL: 'silent',
      TAWQI_PUBLIC_URL: FIXED_URL,
    });
    try {
      const clock = new ManualClock();
      const one = await startServer(config, { clock, manualJobs: true });
      const first = {
        ca: one.ctx.pki.ca.serialHex,
        seal: one.ctx.pki.seal.certificate,
        tsa: one.ctx.pki.tsa.serialHex,
        evidence: one.ctx.pki.evidence.keyId,
      };
      await one.close();
      clock.advanceSeconds(3600);
      const two = await startServer(config, { clock, manualJobs: true });
      const second = {
        ca: two.ctx.pki.ca.serialHex,
        seal: two.ctx.pki.seal.certificate,
        tsa: two.ctx.pki.tsa.serialHex,
        evidence: two.ctx.pki.evidence.keyId,
      };
      writeFileSync(path.join(dataDir, 'seal-now.pem'), pem(two.ctx.pki.seal.certificate));
      const text = openssl(['x509', '-noout', '-text', '-in', 'seal-now.pem'], dataDir).out;
      await two.close();
      assert.deepEqual(second, first);
      assert.match(text, /OCSP - URI:http:\/\/sign\.example\.test\/pki\/ocsp/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('operator replacements', () => {
  let work: string;
  let tsaServer: TestServer;
  before(async () => {
    work = tempDir('operator');
    // An operator CA and seal made with openssl, exported as PKCS#12 the way OpenSSL 3 does by default.
    const steps: string[][] = [
      ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'opca.key'],
      ['req', '-x509', '-new', '-key', 'opca.key', '-subj', '/O=Operator/CN=Operator CA', '-days', '3650', '-out', 'opca.pem'],
      ['genrsa', '-out', 'seal.key', '2048'],
      ['req', '-new', '-key', 'seal.key', '-subj', '/O=Operator/CN=Operator seal', '-out', 'seal.csr'],
    ];
    for (const args of steps) assert.equal(openssl(args, work).status, 0, args.join(' '));
    writeFileSync(path.join(work, 'ext.cnf'), 'keyUsage=critical,digitalSignature,nonRepudiation\n');
    let r = openssl(
      [
        'x509',
        '-req',
        '-in',
        'seal.csr',
        '-CA',
        'opca.pem',
        '-CAkey',
        'opca.key',
        '-CAcreateserial',
        '-days',
        '1825',
        '-extfile',
        'ext.cnf',
        '-out',
        'seal.pem',
      ],
      work,
    );
    assert.equal(r.status, 0, r.out);
    r = openssl(
      [
        'pkcs12',
        '-export',
        '-inkey',
        'seal.key',
        '-in',
        'seal.pem',
        '-certfile',
        'opca.pem',
        '-passout',
        'pass:correct horse',
        '-out',
        'seal.p12',
      ],
      work,
    );
    assert.equal(r.status, 0, r.out);
    tsaServer = await startTestServer();
  });
  after(async () => {
    await tsaServer?.close();
    rmSync(work, { recursive: true, force: true });
  });

  test('loadPkcs12 reads the key, certificate and chain; a wrong password is refused', async () => {
    const p12 = await loadPkcs12(path.join(work, 'seal.p12'), 'correct horse');
    assert.equal(p12.privateKey.asymmetricKeyType, 'rsa');
    assert.equal(new X509Certificate(Buffer.from(p12.certificate)).fingerprint256, fingerprint(path.join(work, 'seal.pem')));
    assert.deepEqual(
      p12.chain.map((c) => new X509Certificate(Buffer.from(c)).fingerprint256),
      [fingerprint(path.join(work, 'opca.pem'))],
    );
    await assert.rejects(loadPkcs12(path.join(work, 'seal.p12'), 'wrong'), Pkcs12Error);
    await assert.rejects(loadPkcs12(path.join(work, 'missing.p12'), 'x'), Pkcs12Error);
  });

  test('TAWQI_SEAL_P12: the server seals with the operator certificate (RSA PKCS#1 v1.5), built_in false', async () => {
    // The operator certificate starts now (real time): run the server's clock from now.
    const dataDir = tempDir('p12-server');
    const config = loadConfig({
      DATA_DIR: dataDir,
      ...(await databaseEnv(dataDir)),
      PORT: '0',
      HOST: '127.0.0.1',
      TAWQI_LOG_LEVEL: 'silent',
      TAWQI_SEAL_P12: path.join(work, 'seal.p12'),
      TAWQI_SEAL_P12_PASSWORD: 'correct horse',
    });
    const s = await startServer(config, { clock: new ManualClock(Date.now()), manualJobs: true });
    try {
      const seal = s.ctx.pki.seal;
      assert.equal(seal.builtIn, false);
      assert.equal(seal.signatureAlgorithm.name, 'sha256WithRSAEncryption');
      assert.equal(new X509Certificate(Buffer.from(seal.certificate)).fingerprint256, fingerprint(path.join(work, 'seal.pem')));
      const data = new TextEncoder().encode('to be sealed');
      writeFileSync(path.join(work, 'data'), data);
      writeFileSync(path.join(work, 'sig'), seal.sign(data));
      writeFileSync(path.join(work, 'seal.pub'), createPublicKey(seal.privateKey).export({ format: 'pem', type: 'spki' }));
      assert.match(openssl(['dgst', '-sha256', '-verify', 'seal.pub', '-signature', 'sig', 'data'], work).out, /Verified OK/);
      assert.equal(s.ctx.pki.builtInSeal.builtIn, true, 'the built-in seal still exists');
      const info = (await (await fetch(`${s.url}/pki`)).json()) as {
        seal: { built_in: boolean; publicly_trusted: boolean | null; chain_length: number };
      };
      assert.equal(info.seal.built_in, false);
      assert.equal(info.seal.publicly_trusted, null);
      assert.equal(info.seal.chain_length, 1);
      assert.match(JSON.stringify(info), /"built_in":true/, 'the CA, TSA and OCSP stay built-in');
    } finally {
      await s.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('TAWQI_SEAL_P12 settings are checked at start', async () => {
    assert.throws(
      () => loadConfig({ TAWQI_SEAL_P12: path.join(work, 'seal.p12') }),
      (e: Error) => e instanceof ConfigError && /TAWQI_SEAL_P12 and TAWQI_SEAL_P12_PASSWORD/.test(e.message),
    );
    const dataDir = tempDir('p12-wrong');
    try {
      const config = loadConfig({
        DATA_DIR: dataDir,
        ...(await databaseEnv(dataDir)),
        PORT: '0',
        HOST: '127.0.0.1',
        TAWQI_LOG_LEVEL: 'silent',
        TAWQI_SEAL_P12: path.join(work, 'seal.p12'),
        TAWQI_SEAL_P12_PASSWORD: 'wrong',
      });
      await assert.rejects(
        startServer(config, { clock: new ManualClock(Date.now()), manualJobs: true }),
        (e: Error) => e instanceof ConfigError && /TAWQI_SEAL_P12: cannot open/.test(e.message),
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    assert.throws(() => loadConfig({ TAWQI_TSA_URL: 'ftp://tsa.example.test' }), ConfigError);
  });

  test('TAWQI_TSA_URL: timestamp() posts to the external TSA and returns its verified reply', async () => {
    tsaServer.clock.set(Date.now());
    const s = await startTestServer({ TAWQI_TSA_URL: `${tsaServer.url}/tsa` });
    try {
      const resp = await timestampData(s.ctx.pki, new TextEncoder().encode('externally stamped'));
      writeFileSync(path.join(work, 'ext.tsr'), resp);
      writeFileSync(path.join(work, 'ext.txt'), 'externally stamped');
      writeFileSync(path.join(work, 'tsa-ca.pem'), tsaServer.ctx.pki.ca.pem);
      const r = openssl(['ts', '-verify', '-data', 'ext.txt', '-in', 'ext.tsr', '-CAfile', 'tsa-ca.pem'], work);
      assert.match(r.out, /Verification: OK/, r.out);
      // Signed by the external TSA, not by this server's own.
      writeFileSync(path.join(work, 'own-ca.pem'), s.ctx.pki.ca.pem);
      assert.match(
        openssl(['ts', '-verify', '-data', 'ext.txt', '-in', 'ext.tsr', '-CAfile', 'own-ca.pem'], work).out,
        /Verification: FAILED/,
      );
      const info = (await (await fetch(`${s.url}/pki`)).json()) as { tsa: { external_url: string } };
      assert.equal(info.tsa.external_url, `${tsaServer.url}/tsa`);
    } finally {
      await s.close();
    }
    const extDir = tempDir('ext');
    const unreachable = await loadOrCreatePki(filePkiStorage(extDir), new ManualClock(), FIXED_URL, { tsaUrl: 'http://127.0.0.1:9/tsa' });
    await assert.rejects(timestampData(unreachable, new Uint8Array([1])), /unreachable/);
    rmSync(extDir, { recursive: true, force: true });
  });
});
