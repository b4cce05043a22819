/**
 * PAdES B-LTA: the document timestamp (server/src/sealing/pades/documentTimestamp.ts) on a PDF
 * signed with the openssl-made fixture PKI (test/support/pkiFixture.ts), checked by real tools:
 * `qpdf --check`, poppler's `pdfsig` (22.12 lists an ETSI.RFC3161 field as "Signature Type: unknown"
 * and cannot validate it, so the timestamp is checked by `openssl ts -verify -data` over its byte
 * range), and byte comparisons of the earlier revisions.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { X509Certificate, createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName } from 'pdf-lib';
import { appendDocumentTimestamp, lastDocumentTimestamp, signPades } from '../../server/src/sealing/pades/index.js';
import { documentTimestampsOf, verifyDocumentTimestamp } from '../support/documentTimestamps.js';
import { qpdfCheck } from '../support/pdfTools.js';
import { createPkiFixture, makeTestPdf, type PkiFixture } from '../support/pkiFixture.js';
import { loadConfig } from '../../server/src/config.js';
import { sealedPdfKey } from '../../server/src/domain/fileKeys.js';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { NDA_FIELDS } from '../support/ndaFields.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { pngDataUrl } from '../support/signing.js';

const execFileAsync = promisify(execFile);
const ORIGIN = { ip: '198.51.100.7', user_agent: 'LtaTest/1.0' };

function pdfsig(file: string, nssDir: string): string[] {
  const result = spawnSync('pdfsig', ['-nssdir', nssDir, file], { encoding: 'utf8' });
  return `${result.stdout}${result.stderr}`.split(/^Signature #\d+:$/m).slice(1);
}

const trailerId = (pdf: Uint8Array): string | undefined => {
  const text = Buffer.from(pdf).toString('latin1');
  return [...text.matchAll(/\/ID\s*\[\s*(<[0-9A-Fa-f]+>\s*<[0-9A-Fa-f]+>)\s*\]/g)].at(-1)?.[1];
};

describe('PAdES B-LTA document timestamp', () => {
  let ec: PkiFixture;
  let work: string;
  let lt: Uint8Array;

  before(async () => {
    ec = createPkiFixture('ec');
    work = mkdtempSync(path.join(tmpdir(), 'tawqi-lta-'));
    // A trailer /ID (pdf-lib writes none; PDF/A needs one): the updates must carry it on.
    const unsigned = await PDFDocument.load(await makeTestPdf(2, { classicXref: true }));
    const id = PDFHexString.of('0123456789ABCDEF0123456789ABCDEF');
    unsigned.context.trailerInfo.ID = unsigned.context.obj([id, id]);
    lt = await signPades(await unsigned.save({ useObjectStreams: false }), {
      signer: ec.signer,
      timestamp: ec.timestamp,
      level: 'B-LT',
      revocation: ec.revocation,
      signingTime: new Date(Math.ceil(Date.now() / 1000) * 1000),
    });
  });
  after(() => {
    ec.close();
    rmSync(work, { recursive: true, force: true });
  });

  test('an incremental DocTimeStamp: earlier bytes and /ID kept; qpdf, pdfsig and openssl ts -verify over its byte range accept it', async () => {
    const lta = await appendDocumentTimestamp(lt, ec.timestamp);
    assert.deepEqual(Buffer.from(lta.subarray(0, lt.byteLength)), Buffer.from(lt), 'the B-LT file is a prefix');
    assert.ok(trailerId(lt));
    assert.equal(trailerId(lta), trailerId(lt), 'the trailer /ID is kept');
    const check = await qpdfCheck(lta);
    assert.ok(check.ok, check.out);

    const [stamp, ...more] = documentTimestampsOf(lta);
    assert.ok(stamp);
    assert.equal(more.length, 0);
    // It covers the whole file but its own token: everything before it, the /DSS included.
    assert.equal(stamp.byteRange[0], 0);
    assert.equal(stamp.byteRange[2] + stamp.byteRange[3], lta.byteLength);
    assert.ok(stamp.byteRange[1] > lt.byteLength);
    const verified = verifyDocumentTimestamp(stamp, { caFile: ec.caFile, untrustedFile: ec.untrustedFile });
    assert.ok(verified.ok, verified.output);

    const doc = await PDFDocument.load(lta, { updateMetadata: false });
    const sig = doc.context
      .enumerateIndirectObjects()
      .map(([, object]) => object)
      .find((o): o is PDFDict => o instanceof PDFDict && o.get(PDFName.of('Type')) === PDFName.of('DocTimeStamp'));
    assert.ok(sig, 'a /Type /DocTimeStamp dictionary');
    assert.equal(sig.get(PDFName.of('SubFilter')), PDFName.of('ETSI.RFC3161'));
    assert.equal(sig.get(PDFName.of('Filter')), PDFName.of('Adobe.PPKLite'));

    const file = path.join(work, 'lta.pdf');
    writeFileSync(file, lta);
    const [signature, timestamp] = pdfsig(file, ec.nssDir);
    assert.match(signature ?? '', /Signature Validation: Signature is Valid\./);
    assert.match(signature ?? '', /Certificate Validation: Certificate is Trusted\./);
    // What poppler 22.12 prints for an ETSI.RFC3161 field: listed, with the TSA as signer, unverified.
    assert.match(timestamp ?? '', /Signature Field Name: Signature2/);
    assert.match(timestamp ?? '', /Signer Certificate Common Name: Tawqi Test TSA/);
    assert.match(timestamp ?? '', /Signature Type: unknown/);
    assert.match(timestamp ?? '', /Total document signed/);
  });

  test('a flipped byte in the covered range: openssl ts -verify fails', async () => {
    const lta = await appendDocumentTimestamp(lt, ec.timestamp);
    const [stamp] = documentTimestampsOf(lta);
    assert.ok(stamp);
    stamp.covered[stamp.covered.length - 100]! ^= 0x01;
    const verified = verifyDocumentTimestamp(stamp, { caFile: ec.caFile, untrustedFile: ec.untrustedFile });
    assert.equal(verified.ok, false, verified.output);
  });

  test('a second document timestamp chains after the first; lastDocumentTimestamp reads the last', async () => {
    const one = await appendDocumentTimestamp(lt, ec.timestamp);
    const two = await appendDocumentTimestamp(one, ec.timestamp);
    assert.deepEqual(Buffer.from(two.subarray(0, one.byteLength)), Buffer.from(one));
    assert.ok((await qpdfCheck(two)).ok);
    const stamps = documentTimestampsOf(two);
    assert.equal(stamps.length, 2);
    for (const stamp of stamps) assert.ok(verifyDocumentTimestamp(stamp, { caFile: ec.caFile, untrustedFile: ec.untrustedFile }).ok);
    const last = lastDocumentTimestamp(two);
    assert.ok(last);
    assert.deepEqual(Buffer.from(last.token), stamps[1]!.token);
    assert.deepEqual(Buffer.from(last.certificates[0]!), Buffer.from(ec.tsa.der), 'the TSA certificate first');
    assert.equal(lastDocumentTimestamp(lt), null);
  });

  test('a token larger than the room: placed with room for it', async () => {
    const lta = await appendDocumentTimestamp(lt, ec.timestamp, { placeholderBytes: 256 });
    const [stamp] = documentTimestampsOf(lta);
    assert.ok(stamp);
    assert.ok(verifyDocumentTimestamp(stamp, { caFile: ec.caFile, untrustedFile: ec.untrustedFile }).ok);
  });
});

test('TAWQI_ARCHIVE_RENEW_DAYS: 180 days by default; a window beyond a year (the built-in TSA re-issues 400 days before its end) stops the start', () => {
  assert.equal(loadConfig({}).TAWQI_ARCHIVE_RENEW_DAYS, 180);
  assert.equal(loadConfig({ TAWQI_ARCHIVE_RENEW_DAYS: '365' }).TAWQI_ARCHIVE_RENEW_DAYS, 365);
  for (const bad of ['366', '0', 'soon']) assert.throws(() => loadConfig({ TAWQI_ARCHIVE_RENEW_DAYS: bad }), /TAWQI_ARCHIVE_RENEW_DAYS/);
});

/**
 * The sealing job's pades-lt output and the archive renewal job, on a real server with the built-in
 * PKI: NSS and openssl trust its CA; the renewal is reached by moving the injected clock.
 */
describe('pades-lt sealing (B-LTA) and the archive renewal job', () => {
  let s: TestServer;
  let key: string;
  let work: string;
  let nssDir: string;
  let caFile: string;
  before(async () => {
    s = await startTestServer({ TAWQI_ARCHIVE_RENEW_DAYS: '180' });
    // NSS checks OCSP freshness against the real time: the clock starts at the real time.
    s.clock.set(Date.now());
    const account = await s.account({ ownerEmail: 'owner@example.com', plan: 'enterprise', balanceSends: 100, walletMinor: 1_000_000 });
    key = account.keys.secret_live;
    work = mkdtempSync(path.join(tmpdir(), 'tawqi-lta-seal-'));
    caFile = path.join(work, 'ca.pem');
    writeFileSync(caFile, s.ctx.pki.ca.pem);
    nssDir = path.join(work, 'nss');
    execFileSync('mkdir', ['-p', nssDir]);
    execFileSync('certutil', ['-N', '-d', `sql:${nssDir}`, '--empty-password']);
    execFileSync('certutil', ['-A', '-d', `sql:${nssDir}`, '-n', 'tawqi-ca', '-t', 'CT,C,C', '-i', caFile]);
  });
  after(async () => {
    await s.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** An aes request (format pades-lt by default) signed by its one signer, then sealed. */
  async function sealedAesRequest(apiKey = key): Promise<string> {
    const created = await s.call('POST', '/signature_requests', {
      key: apiKey,
      body: {
        title: 'اتفاقية عدم إفصاح',
        legal_level: 'aes',
        source: { type: 'template', template_id: 'tpl_nda_ar' },
        signers: [{ name: 'علي حسن', email: 'owner@example.com', fields: NDA_FIELDS }],
      },
    });
    assert.equal(created.status, 201, created.text);
    const signerId = created.body.signers[0].id as string;
    for (const move of ['otp_verified', 'identity_verified', 'sign'] as const) {
      const extra = move === 'identity_verified' ? { identity: { provider: 'simulation' } } : undefined;
      if (move === 'sign')
        await s.ctx.store.db.updateTable('signers').set({ signature_image: pngDataUrl() }).where('id', '=', signerId).execute();
      await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signerId, move, ORIGIN, extra));
    }
    await s.jobs.runDue();
    return created.body.id as string;
  }

  const download = async (id: string): Promise<{ bytes: Uint8Array; sha: string | null; listed: string }> => {
    const res = await fetch(`${s.url}/api/v1/signature_requests/${id}/download/pdf`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200);
    const listed = (await s.call('GET', `/signature_requests/${id}/download`, { key })).body.pdf_sha256 as string;
    return { bytes: new Uint8Array(await res.arrayBuffer()), sha: res.headers.get('x-file-sha256'), listed };
  };
  const sealedRow = (id: string) =>
    s.ctx.store.db.selectFrom('sealed_documents').selectAll().where('signature_request_id', '=', id).executeTakeFirstOrThrow();
  const pdfsigAsync = (file: string): Promise<string[]> =>
    execFileAsync('pdfsig', ['-nssdir', `sql:${nssDir}`, file], { encoding: 'utf8' }).then((r) =>
      `${r.stdout}${r.stderr}`.split(/^Signature #\d+:$/m).slice(1),
    );
  const ocspCount = async (pdf: Uint8Array): Promise<number> => {
    const doc = await PDFDocument.load(pdf, { updateMetadata: false });
    return doc.catalog.lookup(PDFName.of('DSS'), PDFDict).lookup(PDFName.of('OCSPs'), PDFArray).size();
  };

  test('the sealed PDF: signature, /DSS with the seal’s and the TSA’s validation data, document timestamp; pdfsig and openssl ts accept it', async () => {
    const id = await sealedAesRequest();
    const { bytes, sha, listed } = await download(id);
    assert.equal(sha, createHash('sha256').update(bytes).digest('hex'));
    assert.equal(listed, sha);
    assert.ok((await qpdfCheck(bytes)).ok);
    const text = Buffer.from(bytes).toString('latin1');
    // Three revisions: the signed rendering, the /DSS, the document timestamp.
    assert.equal([...text.matchAll(/%%EOF/g)].length, 3);
    assert.ok(text.lastIndexOf('/DSS') < text.lastIndexOf('/DocTimeStamp'));
    // OCSP responses for the seal and for the TSA certificate.
    assert.equal(await ocspCount(bytes), 2);

    const [stamp] = documentTimestampsOf(bytes);
    assert.ok(stamp);
    assert.equal(stamp.byteRange[2] + stamp.byteRange[3], bytes.byteLength);
    const verified = verifyDocumentTimestamp(stamp, { caFile });
    assert.ok(verified.ok, verified.output);

    const file = path.join(work, 'sealed.pdf');
    writeFileSync(file, bytes);
    const [signature, timestamp] = await pdfsigAsync(file);
    assert.match(signature ?? '', /Signature Type: ETSI\.CAdES\.detached/);
    assert.match(signature ?? '', /Signature Validation: Signature is Valid\./);
    assert.match(signature ?? '', /Certificate Validation: Certificate is Trusted\./);
    assert.match(timestamp ?? '', /Signature Type: unknown/);
    assert.match(timestamp ?? '', /Total document signed/);

    const row = await sealedRow(id);
    assert.equal(row.timestamp_expires_at, Math.floor(s.ctx.pki.tsa.notAfter.getTime() / 1000));
  });

  test('renewal: due within TAWQI_ARCHIVE_RENEW_DAYS, a /DSS and a second document timestamp appended; not again until the next window', async () => {
    const id = await sealedAesRequest();
    const first = await download(id);
    const expiresAt = (await sealedRow(id)).timestamp_expires_at!;

    // Not due yet: a look changes nothing.
    await s.jobs.runDue();
    assert.equal((await download(id)).sha, first.sha);

    // 181 days before the end: still not due. 179 days before: due.
    s.clock.set((expiresAt - 181 * 86400) * 1000);
    await s.jobs.runDue();
    assert.equal((await download(id)).sha, first.sha);
    s.clock.set((expiresAt - 179 * 86400) * 1000);
    await s.jobs.runDue();
    const renewed = await download(id);
    assert.notEqual(renewed.sha, first.sha);
    assert.equal(renewed.sha, createHash('sha256').update(renewed.bytes).digest('hex'));
    assert.equal(renewed.listed, renewed.sha, 'pdf_sha256 follows the file');
    assert.deepEqual(
      Buffer.from(renewed.bytes.subarray(0, first.bytes.byteLength)),
      Buffer.from(first.bytes),
      'earlier revisions unchanged',
    );
    assert.ok((await qpdfCheck(renewed.bytes)).ok);

    // The new /DSS carries OCSP for the first document timestamp's TSA certificate; then the new timestamp.
    const tail = Buffer.from(renewed.bytes.subarray(first.bytes.byteLength)).toString('latin1');
    assert.ok(tail.indexOf('/DSS') >= 0 && tail.indexOf('/DSS') < tail.indexOf('/DocTimeStamp'));
    assert.equal(await ocspCount(renewed.bytes), 3);
    const stamps = documentTimestampsOf(renewed.bytes);
    assert.equal(stamps.length, 2);
    const now = Math.floor(s.clock.nowMs() / 1000);
    for (const stamp of stamps) {
      const verified = verifyDocumentTimestamp(stamp, { caFile, attime: now });
      assert.ok(verified.ok, verified.output);
    }
    const row = await sealedRow(id);
    assert.ok(row.timestamp_expires_at! > now + 365 * 86400, 'the new timestamp’s TSA certificate is a re-issued one');
    assert.equal(row.archive_retry_at, null);
    assert.deepEqual(JSON.parse(row.earlier_pdf_sha256), [first.sha], 'the verification page still knows the file as first sealed');

    // Not again: an hour later, and 100 days later.
    s.clock.advanceSeconds(3601);
    await s.jobs.runDue();
    s.clock.advanceSeconds(100 * 86400);
    await s.jobs.runDue();
    assert.equal((await download(id)).sha, renewed.sha);

    // The signature still verifies (pdfsig asks this server's OCSP: back at the real time for NSS).
    s.clock.set(Date.now());
    const file = path.join(work, 'renewed.pdf');
    writeFileSync(file, renewed.bytes);
    const reports = await pdfsigAsync(file);
    assert.equal(reports.length, 3);
    assert.match(reports[0] ?? '', /Signature Validation: Signature is Valid\./);
    assert.match(reports[0] ?? '', /Certificate Validation: Certificate is Trusted\./);
    assert.match(reports[2] ?? '', /Signature Field Name: Signature3/);
  });
  // Last: the moves of the clock leave the PKI with certificates issued in the future (for pdfsig at the real time).
  test('a renewal that fails (the stored file is gone) is tried again a day later, not at every look', async () => {
    const id = await sealedAesRequest();
    const expiresAt = (await sealedRow(id)).timestamp_expires_at!;
    const key = sealedPdfKey(id);
    const bytes = (await s.ctx.files.get(key))!;
    await s.ctx.files.delete(key);
    try {
      s.clock.set((expiresAt - 179 * 86400) * 1000);
      await s.jobs.runDue();
      const failedAt = Math.floor(s.clock.nowMs() / 1000);
      assert.equal((await sealedRow(id)).archive_retry_at, failedAt + 86400);
      // The file is back: an hour later the document is still waiting; a day later it is renewed.
      await s.ctx.files.put(key, bytes);
      s.clock.advanceSeconds(3601);
      await s.jobs.runDue();
      assert.equal((await sealedRow(id)).timestamp_expires_at, expiresAt);
      s.clock.advanceSeconds(86400);
      await s.jobs.runDue();
      const row = await sealedRow(id);
      assert.ok(row.timestamp_expires_at! > expiresAt, 'renewed');
      assert.equal(row.archive_retry_at, null);
      assert.equal(documentTimestampsOf((await s.ctx.files.get(key))!).length, 2);
    } finally {
      s.clock.set(Date.now());
    }
  });

  // After the others: it moves the clock to the last year of the CA, issuing certificates there.
  test("near the CA's end a new token's TSA certificate would not end later: the file is not rewritten, tried again a day later", async () => {
    const caEnd = Math.floor(new Date(new X509Certificate(s.ctx.pki.ca.pem).validTo).getTime() / 1000);
    try {
      // 300 days before the CA's end the TSA is re-issued (it is due 400 days before its end) and capped at the CA's end.
      s.clock.set((caEnd - 300 * 86400) * 1000);
      // An account of that year (the first one's subscription year is long over by then).
      const later = await s.account({ ownerEmail: 'later@example.com', plan: 'enterprise', balanceSends: 10, walletMinor: 1_000_000 });
      const id = await sealedAesRequest(later.keys.secret_live);
      const key = sealedPdfKey(id);
      const sealed = (await sealedRow(id)).timestamp_expires_at!;
      assert.equal(sealed, caEnd, "the document timestamp's TSA certificate ends with the CA");
      const bytes = Buffer.from((await s.ctx.files.get(key))!);

      // Due (179 days before its end); the TSA cannot get a later certificate: nothing stored, a retry tomorrow.
      s.clock.set((sealed - 179 * 86400) * 1000);
      await s.jobs.runDue();
      const triedAt = Math.floor(s.clock.nowMs() / 1000);
      const row = await sealedRow(id);
      assert.equal(row.archive_retry_at, triedAt + 86400);
      assert.equal(row.timestamp_expires_at, sealed);
      assert.deepEqual(JSON.parse(row.earlier_pdf_sha256), []);
      assert.deepEqual(Buffer.from((await s.ctx.files.get(key))!), bytes, 'the stored file is not rewritten');

      // An hour later: not tried (the retry time stands). A day later: tried again, same outcome, the next retry a day on.
      s.clock.advanceSeconds(3601);
      await s.jobs.runDue();
      assert.equal((await sealedRow(id)).archive_retry_at, triedAt + 86400);
      s.clock.advanceSeconds(86400);
      await s.jobs.runDue();
      const again = await sealedRow(id);
      assert.equal(again.archive_retry_at, Math.floor(s.clock.nowMs() / 1000) + 86400);
      assert.deepEqual(Buffer.from((await s.ctx.files.get(key))!), bytes);
      assert.equal(documentTimestampsOf(bytes).length, 1);
    } finally {
      s.clock.set(Date.now());
    }
  });
});
