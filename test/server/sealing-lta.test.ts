/**
 * PAdES B-LTA: the document timestamp (server/src/sealing/pades/documentTimestamp.ts) on a PDF
 * signed with the openssl-made fixture PKI (test/support/pkiFixture.ts), checked by real tools:
 * `qpdf --check`, poppler's `pdfsig` (22.12 lists an ETSI.RFC3161 field as "Signature Type: unknown"
 * and cannot validate it, so the timestamp is checked by `openssl ts -verify -data` over its byte
 * range), and byte comparisons of the earlier revisions.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PDFDict, PDFDocument, PDFHexString, PDFName } from 'pdf-lib';
import { appendDocumentTimestamp, lastDocumentTimestamp, signPades } from '../../server/src/sealing/pades/index.js';
import { documentTimestampsOf, verifyDocumentTimestamp } from '../support/documentTimestamps.js';
import { qpdfCheck } from '../support/pdfTools.js';
import { createPkiFixture, makeTestPdf, type PkiFixture } from '../support/pkiFixture.js';

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
    stamp.covered[stamp.covered.length - 100] ^= 0x01;
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
