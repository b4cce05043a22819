/**
 * Completion and sealing end to end (issue: completion and sealing): a real server completes
 * requests, the sealing job runs, and independent tools check the output: pdfsig with an NSS
 * database trusting our CA, qpdf, openssl cms / ts / pkeyutl.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import { getSigner, listSigners, signatureImagesOf, signersOf, signersOfMany } from '../../server/src/store/signatureRequests.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { pdfToText, qpdfCheck } from '../support/pdfTools.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { pngDataUrl } from '../support/signing.js';
import { NDA_FIELDS } from '../support/ndaFields.js';

const execFileAsync = promisify(execFile);
const OWNER = 'owner@example.com';
const ORIGIN = { ip: '198.51.100.7', user_agent: 'SealTest/1.0' };

describe('completion and sealing', () => {
  let s: TestServer;
  let keys: TestServer['keys'];
  let work: string;
  let nssDir: string;
  let accountId: string;
  before(async () => {
    s = await startTestServer();
    // NSS checks OCSP freshness against the real time: run the injected clock at the real time.
    s.clock.set(Date.now());
    const acct = await s.account({ ownerEmail: OWNER, plan: 'enterprise', balanceSends: 1000, walletMinor: 1_000_000 });
    await updateAccount(s.ctx.store.db, acct.id, { team_emails: [OWNER, 'second@example.com'] });
    keys = acct.keys;
    accountId = acct.id;
    work = mkdtempSync(path.join(tmpdir(), 'tawqi-seal-'));
    writeFileSync(path.join(work, 'ca.pem'), s.ctx.pki.ca.pem);
    nssDir = path.join(work, 'nss');
    execFileSync('mkdir', ['-p', nssDir]);
    execFileSync('certutil', ['-N', '-d', `sql:${nssDir}`, '--empty-password']);
    execFileSync('certutil', ['-A', '-d', `sql:${nssDir}`, '-n', 'tawqi-ca', '-t', 'CT,C,C', '-i', path.join(work, 'ca.pem')]);
  });
  after(async () => {
    await s.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** Create a request and drive every signer to a signature through the signer service. */
  async function complete(opts: { key?: string; level?: 'ses' | 'aes'; format?: string; signers?: number } = {}) {
    const key = opts.key ?? keys.secret_live;
    const signers = [
      { name: 'علي حسن', email: OWNER, fields: NDA_FIELDS },
      { name: 'Sara Adel', email: 'second@example.com', fields: {} },
    ].slice(0, opts.signers ?? 2);
    const r = await s.call('POST', '/signature_requests', {
      key,
      body: {
        title: 'اتفاقية عدم إفصاح',
        legal_level: opts.level ?? 'ses',
        ...(opts.format ? { format: opts.format } : {}),
        source: { type: 'template', template_id: 'tpl_nda_ar' },
        signers,
      },
    });
    assert.equal(r.status, 201, r.text);
    for (const signer of r.body.signers) {
      await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signer.id, 'otp_verified', ORIGIN));
      if (opts.level === 'aes')
        await s.ctx.store.tx((trx) =>
          applySignerMove(s.ctx, trx, signer.id, 'identity_verified', ORIGIN, { identity: { provider: 'simulation' } }),
        );
      await s.ctx.store.db.updateTable('signers').set({ signature_image: pngDataUrl() }).where('id', '=', signer.id).execute();
      await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signer.id, 'sign', ORIGIN));
    }
    return r.body.id as string;
  }

  const getPdf = async (id: string, key = keys.secret_live) => {
    const res = await fetch(`${s.url}/api/v1/signature_requests/${id}/download/pdf`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
  };
  // Asynchronous: pdfsig asks this very server for OCSP answers (the seal certificate's AIA).
  // (pdfsig exits non-zero for a file without signatures: its output still says why.)
  const pdfsig = async (file: string): Promise<string> =>
    execFileAsync('pdfsig', ['-nssdir', `sql:${nssDir}`, file], { encoding: 'utf8' }).then(
      (r) => r.stdout,
      (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
    );

  test('download: 400 before completion, pending then ready; X-File-Sha256 equals pdf_sha256', async () => {
    const draft = await s.call('POST', '/signature_requests', {
      key: keys.secret_live,
      body: { source: { type: 'template', template_id: 'tpl_nda_ar' }, signers: [{ name: 'A', email: OWNER, fields: NDA_FIELDS }] },
    });
    await assertErrorBothLanguages(
      (prefix) => s.call('GET', `/signature_requests/${draft.body.id}/download`, { key: keys.secret_live, prefix }),
      'request_not_completed',
    );
    assertError(
      await s.call('GET', `/signature_requests/${draft.body.id}/download/pdf`, { key: keys.secret_live }),
      'request_not_completed',
    );

    const id = await complete();
    const req = await s.call('GET', `/signature_requests/${id}`, { key: keys.secret_live });
    assert.match(req.body.reference, /^REF-[2-9A-HJ-NP-Z]{5}-[2-9A-HJ-NP-Z]{5}$/);
    assert.equal(req.body.download_url, `${s.url}/api/v1/signature_requests/${id}/download`);
    const pending = await s.call('GET', `/signature_requests/${id}/download`, { key: keys.secret_live });
    assert.equal(pending.body.pdf_status, 'pending');
    assert.equal(pending.body.pdf_url, null);
    await assertErrorBothLanguages(
      (prefix) => s.call('GET', `/signature_requests/${id}/download/pdf`, { key: keys.secret_live, prefix }),
      'pdf_not_ready',
    );

    await s.jobs.runDue();
    const ready = await s.call('GET', `/signature_requests/${id}/download`, { key: keys.secret_live });
    assert.equal(ready.body.pdf_status, 'ready');
    assert.equal(ready.body.reference, req.body.reference);
    const pdf = await getPdf(id);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    const sha = createHash('sha256').update(pdf.bytes).digest('hex');
    assert.equal(pdf.headers.get('x-file-sha256'), sha);
    assert.equal(ready.body.pdf_sha256, sha);
    assert.equal((await qpdfCheck(pdf.bytes)).ok, true);
    const text = await pdfToText(pdf.bytes);
    assert.ok(text.includes('شركة النيل للتجارة'), 'field values in the contract');
    assert.ok(text.includes(req.body.reference));
    assert.ok(text.includes('Sara Adel'));
    // platform-evidence (ses) embeds no PAdES signature.
    writeFileSync(path.join(work, 'ses.pdf'), pdf.bytes);
    assert.match(await pdfsig(path.join(work, 'ses.pdf')), /does not contain any signatures/);
  });

  test('pades-lt (aes default): pdfsig valid and trusted; openssl cms and ts verify; DSS; a flipped byte is a mismatch', async () => {
    const id = await complete({ level: 'aes' });
    assert.equal((await s.call('GET', `/signature_requests/${id}`, { key: keys.secret_live })).body.format, 'pades-lt');
    await s.jobs.runDue();
    const pdf = await getPdf(id);
    const file = path.join(work, 'lt.pdf');
    writeFileSync(file, pdf.bytes);
    assert.equal((await qpdfCheck(pdf.bytes)).ok, true);
    const out = await pdfsig(file);
    assert.match(out, /Signature Type: ETSI\.CAdES\.detached/);
    assert.match(out, /Signature Validation: Signature is Valid\./);
    assert.match(out, /Certificate Validation: Certificate is Trusted\./, out);
    const raw = Buffer.from(pdf.bytes).toString('latin1');
    assert.match(raw, /\/DSS/);
    assert.match(raw, /\/OCSPs/);
    assert.match(raw, /\/CRLs/);

    // The CMS and the signed bytes, checked by openssl.
    const br = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(raw)!;
    const [a, b, c, d] = br.slice(1).map(Number) as [number, number, number, number];
    const buf = Buffer.from(pdf.bytes);
    writeFileSync(path.join(work, 'signed.bin'), Buffer.concat([buf.subarray(a, a + b), buf.subarray(c, c + d)]));
    const hex = raw.slice(a + b + 1, c - 1).replace(/0+$/, '');
    writeFileSync(path.join(work, 'sig.der'), Buffer.from(hex.length % 2 ? hex + '0' : hex, 'hex'));
    const cms = spawnSync(
      'openssl',
      [
        'cms',
        '-verify',
        '-binary',
        '-inform',
        'DER',
        '-in',
        path.join(work, 'sig.der'),
        '-content',
        path.join(work, 'signed.bin'),
        '-CAfile',
        path.join(work, 'ca.pem'),
        '-purpose',
        'any',
        '-out',
        '/dev/null',
      ],
      { encoding: 'utf8' },
    );
    assert.match(cms.stderr, /Verification successful/, cms.stderr);
    const printed = execFileSync('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', path.join(work, 'sig.der')], {
      encoding: 'utf8',
    });
    assert.match(printed, /id-smime-aa-signingCertificateV2/);
    assert.match(printed, /id-smime-aa-timeStampToken/);
    // (No signing-time among the signed attributes: checked structurally in sealing-pades.test.ts;
    // the TSA's own token may carry one, so a text search here would be wrong.)

    const flipped = Buffer.from(pdf.bytes);
    flipped[a + 200] = flipped[a + 200]! ^ 0x01;
    writeFileSync(path.join(work, 'flipped.pdf'), flipped);
    assert.match(await pdfsig(path.join(work, 'flipped.pdf')), /Digest Mismatch|Signature is Invalid|signature is not valid/i);
  });

  test('pades-t carries a signature timestamp and no DSS', async () => {
    const id = await complete({ level: 'aes', format: 'pades-t', signers: 1 });
    await s.jobs.runDue();
    const pdf = await getPdf(id);
    const raw = Buffer.from(pdf.bytes).toString('latin1');
    assert.doesNotMatch(raw, /\/DSS/);
    writeFileSync(path.join(work, 't.pdf'), pdf.bytes);
    assert.match(await pdfsig(path.join(work, 't.pdf')), /Signature is Valid\./);
  });

  test("a signer's record, as the API, lists and moves read it, leaves the drawn signature on disk; the seal's read has it", async () => {
    const id = await complete();
    const db = s.ctx.store.db;
    const signers = await signersOf(db, id);
    const records = [
      ...signers,
      ...(await signersOfMany(db, [id])).get(id)!,
      (await getSigner(db, signers[0]!.id))!,
      ...(await listSigners(db, { accountId, livemode: true, signatureRequestId: id, limit: 10 })),
    ];
    assert.equal(records.length, 3 * signers.length + 1);
    for (const r of records) {
      assert.equal(r.status, 'signed');
      assert.ok(!('signature_image' in r), 'a signer record carries no signature image');
    }
    const images = await signatureImagesOf(db, id);
    assert.deepEqual([...images.keys()].sort(), signers.map((r) => r.id).sort());
    for (const image of images.values()) assert.equal(image, pngDataUrl());
  });

  test('evidence record (live): Ed25519 over record_raw verifies with openssl; the RFC 3161 token verifies over its SHA-256; events after sealing', async () => {
    const id = await complete();
    assertError(await s.call('GET', `/signature_requests/${id}/evidence`, { key: keys.secret_live }), 'not_found');
    const typesBefore = (await s.call('GET', `/events?signature_request=${id}`, { key: keys.secret_live })).body.data.map(
      (e: { type: string }) => e.type,
    );
    assert.ok(!typesBefore.includes('document.sealed'));
    await s.jobs.runDue();
    const ev = await s.call('GET', `/signature_requests/${id}/evidence`, { key: keys.secret_live });
    assert.equal(ev.status, 200);
    const record = JSON.parse(ev.body.record_raw);
    assert.equal(record.signature_request.id, id);
    assert.equal(record.document.hash_alg, 'hmac-sha256');
    assert.equal(record.signers.length, 2);
    assert.ok(record.events.length > 0);
    // Canonical: keys sorted, no white space.
    assert.equal(ev.body.record_raw, JSON.stringify(sortKeys(record)));
    // The drawn signatures reach the seal (read apart from the signers' records: signatureImagesOf).
    const drawn = createHash('sha256')
      .update(Buffer.from(pngDataUrl().split(',')[1]!, 'base64'))
      .digest('hex');
    for (const signer of record.signers) assert.equal(signer.signature_image_sha256, drawn);
    writeFileSync(path.join(work, 'record.json'), ev.body.record_raw);
    writeFileSync(path.join(work, 'record.sig'), Buffer.from(ev.body.signature.value, 'base64'));
    writeFileSync(path.join(work, 'evidence.pub'), ev.body.public_key);
    const v = spawnSync(
      'openssl',
      [
        'pkeyutl',
        '-verify',
        '-pubin',
        '-inkey',
        path.join(work, 'evidence.pub'),
        '-rawin',
        '-in',
        path.join(work, 'record.json'),
        '-sigfile',
        path.join(work, 'record.sig'),
      ],
      { encoding: 'utf8' },
    );
    assert.match(v.stdout + v.stderr, /Signature Verified Successfully/);
    writeFileSync(path.join(work, 'record.tst'), Buffer.from(ev.body.timestamp.token, 'base64'));
    writeFileSync(
      path.join(work, 'tsa.pem'),
      '-----BEGIN CERTIFICATE-----\n' +
        Buffer.from(s.ctx.pki.tsa.certificate).toString('base64').replace(/.{64}/g, '$&\n') +
        '\n-----END CERTIFICATE-----\n',
    );
    const digest = createHash('sha256').update(ev.body.record_raw).digest('hex');
    const ts = spawnSync(
      'openssl',
      [
        'ts',
        '-verify',
        '-token_in',
        '-in',
        path.join(work, 'record.tst'),
        '-digest',
        digest,
        '-CAfile',
        path.join(work, 'ca.pem'),
        '-untrusted',
        path.join(work, 'tsa.pem'),
      ],
      { encoding: 'utf8' },
    );
    assert.match(ts.stdout + ts.stderr, /Verification: OK/, ts.stdout + ts.stderr);
    const tampered = spawnSync(
      'openssl',
      [
        'pkeyutl',
        '-verify',
        '-pubin',
        '-inkey',
        path.join(work, 'evidence.pub'),
        '-rawin',
        '-in',
        path.join(work, 'sig.der'),
        '-sigfile',
        path.join(work, 'record.sig'),
      ],
      { encoding: 'utf8' },
    );
    assert.doesNotMatch(tampered.stdout, /Verified Successfully/);
    const types = (await s.call('GET', `/events?signature_request=${id}`, { key: keys.secret_live })).body.data.map(
      (e: { type: string }) => e.type,
    );
    assert.deepEqual(types.slice(0, 3), ['verification.created', 'document.sealed', 'signature_request.completed']);
  });

  test('verification: public, masked parties, intact; modified when the stored text changes; 404 for unknown; the HTML page', async () => {
    const id = await complete();
    await s.jobs.runDue();
    const reference = (await s.call('GET', `/signature_requests/${id}`, { key: keys.secret_live })).body.reference as string;
    const v = await s.call('GET', `/verifications/${reference}`, {});
    assert.equal(v.status, 200);
    assert.equal(v.body.object, 'verification');
    assert.equal(v.body.found, true);
    assert.equal(v.body.integrity, 'intact');
    assert.equal(v.body.test, false);
    assert.equal(v.body.document.hash_alg, 'hmac-sha256');
    assert.match(v.body.document.sha256, /^[0-9a-f]{64}$/);
    assert.deepEqual(
      v.body.parties.map((p: { name: string }) => p.name),
      ['ع*** ح***', 'S*** A***'],
    );
    assert.ok(!v.text.includes('Sara Adel') && !v.text.includes(OWNER));
    const page = await fetch(`${s.url}/verify/${reference}?lang=en`);
    const html = await page.text();
    assert.match(html, /data-integrity="intact"/);
    assert.match(html, /not publicly trusted/);
    const ar = await (await fetch(`${s.url}/verify/${reference}`)).text();
    assert.match(ar, /dir="rtl"/);

    await s.ctx.store.db.updateTable('sealed_documents').set({ document_text: 'changed' }).where('signature_request_id', '=', id).execute();
    assert.equal((await s.call('GET', `/verifications/${reference}`, {})).body.integrity, 'modified');
    await assertErrorBothLanguages((prefix) => s.call('GET', '/verifications/REF-22222-22222', { prefix }), 'not_found');
    assert.equal((await fetch(`${s.url}/verify/REF-22222-22222`)).status, 404);
  });

  test('test mode: watermark, no evidence record, no sealed events, the verification says test', async () => {
    const id = await complete({ key: keys.secret_test, signers: 1 });
    await s.jobs.runDue();
    const pdf = await getPdf(id, keys.secret_test);
    assert.equal(pdf.status, 200);
    assert.match(await pdfToText(pdf.bytes), /TEST|اختبار/);
    assertError(await s.call('GET', `/signature_requests/${id}/evidence`, { key: keys.secret_test }), 'not_found');
    const types = (await s.call('GET', `/events?signature_request=${id}`, { key: keys.secret_test })).body.data.map(
      (e: { type: string }) => e.type,
    );
    assert.ok(!types.includes('document.sealed') && !types.includes('verification.created'));
    const reference = (await s.call('GET', `/signature_requests/${id}`, { key: keys.secret_test })).body.reference;
    assert.equal((await s.call('GET', `/verifications/${reference}`, {})).body.test, true);
  });

  test('certificate alone (secret key) and the final document as HTML when the PDF is unavailable', async () => {
    const id = await complete();
    const cert = await fetch(`${s.url}/api/v1/signature_requests/${id}/certificate`, {
      headers: { authorization: `Bearer ${keys.secret_live}` },
    });
    assert.equal(cert.status, 200);
    const certText = await pdfToText(new Uint8Array(await cert.arrayBuffer()));
    assert.ok(certText.includes('198.51.100.7'), 'ip on the certificate');
    assert.ok(certText.includes('SealTest/1.0'), 'user agent on the certificate');
    // The seal job fails for good (its file cannot be written: the storage refuses the write, as a
    // full disk or an unreachable bucket would) → pdf_status unavailable; final_document_url still serves the document.
    await s.ctx.store.db
      .updateTable('jobs')
      .set({ attempts: 9 })
      .where('kind', '=', 'seal_request')
      .where('state', '=', 'pending')
      .execute();
    const storage = s.ctx.files;
    s.ctx.files = Object.assign(Object.create(storage) as typeof storage, {
      put: () => Promise.reject(new Error('ENOSPC: no space left on device')),
    });
    try {
      await s.jobs.runDue();
    } finally {
      s.ctx.files = storage;
    }
    const d = await s.call('GET', `/signature_requests/${id}/download`, { key: keys.secret_live });
    assert.equal(d.body.pdf_status, 'unavailable');
    assert.equal(d.body.pdf_url, null);
    assertError(await s.call('GET', `/signature_requests/${id}/download/pdf`, { key: keys.secret_live }), 'pdf_unavailable');
    assert.equal(d.body.final_document_url, `${s.url}/api/v1/signature_requests/${id}/document`);
    const html = await fetch(d.body.final_document_url, { headers: { authorization: `Bearer ${keys.secret_live}` } });
    assert.equal(html.status, 200);
    assert.match(await html.text(), /REF-/);
  });
});

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}
