/**
 * Qualified signatures with a token, at the page API (signing-page/API.md, token calls), with a
 * SOFTWARE signer standing in for the desktop agent: keys and certificates from a throwaway openssl
 * PKI (test/support/pkiFixture.ts), the detached CMS built with pkijs exactly as the agent builds it
 * (signed attributes content-type, message-digest, signing-certificate-v2; no signing-time) and
 * signed with node:crypto. Independent verifiers check the final PDF: pdfsig with an NSS database
 * trusting the test root, qpdf, `openssl cms -verify` on each CMS, `openssl ts -verify` on each
 * signature timestamp.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { encodeSignTicketPayload, joinSignTicket, splitSignTicket, type SignTicketPayload } from '../../shared/src/agentProtocol.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import { documentTimestampsOf, verifyDocumentTimestamp } from '../support/documentTimestamps.js';
import { assertError } from '../support/envelope.js';
import { qpdfCheck } from '../support/pdfTools.js';
import { createPkiFixture, type PkiFixture } from '../support/pkiFixture.js';
import {
  agentCms,
  b64,
  issueLeaf,
  sha256,
  signaturesOf,
  SIGNING_EXT,
  timestampOf,
  untrustedRoot,
  type TokenKey,
} from '../support/qesSoftSigner.js';
import { startTestServer, type CallResult, type TestServer } from '../support/server.js';
import { lastOtp, PageClient, pngDataUrl } from '../support/signing.js';
import { NDA_FIELDS } from '../support/ndaFields.js';

const execFileAsync = promisify(execFile);
const TEAM = ['owner@example.com', 'rana@example.com', 'karim@example.com', 'mona@example.com'];

/** PageClient answers as a CallResult, for assertError. */
const asCall = (r: { status: number; body: unknown; headers: Headers }): CallResult =>
  ({ ...r, text: JSON.stringify(r.body) }) as CallResult;

describe('qualified signatures with a token (page API, software signer)', () => {
  let s: TestServer;
  let keys: TestServer['keys'];
  let pki: PkiFixture;
  let work: string;
  let rsaSigner: TokenKey;
  let ecSigner: TokenKey;
  let noSigningKu: TokenKey;
  let shortLived: TokenKey;
  let foreign: TokenKey;

  before(async () => {
    pki = createPkiFixture('rsa');
    work = mkdtempSync(path.join(tmpdir(), 'tawqi-qes-'));
    const issuing = { pem: pki.issuingCa.pemFile, key: pki.issuingCa.keyFile };
    const chain = [pki.issuingCa.der, pki.root.der];
    rsaSigner = { der: pki.seal.der, chain, key: createPrivateKey(readFileSync(pki.seal.keyFile)), rsa: true };
    ecSigner = issueLeaf(pki.dir, 'token-ec', 'ec', SIGNING_EXT, issuing, chain);
    noSigningKu = issueLeaf(
      pki.dir,
      'token-encrypt',
      'ec',
      'basicConstraints = critical, CA:FALSE\nkeyUsage = critical, keyEncipherment, keyAgreement',
      issuing,
      chain,
    );
    shortLived = issueLeaf(pki.dir, 'token-short', 'ec', SIGNING_EXT, issuing, chain, 1);
    // A CA nobody configured: a self-signed root and a leaf under it.
    const other = untrustedRoot(pki.dir);
    foreign = issueLeaf(pki.dir, 'token-foreign', 'ec', SIGNING_EXT, other, [other.der]);

    s = await startTestServer({
      TAWQI_QES_TRUSTED_ROOTS: pki.caFile,
      TAWQI_AGENT_DOWNLOAD_URL: 'https://downloads.example.com/tawqi-agent',
    });
    // NSS checks OCSP freshness against the real time: run the injected clock at the real time.
    s.clock.set(Date.now());
    const acct = await s.account({ ownerEmail: TEAM[0], plan: 'enterprise', balanceSends: 1000, walletMinor: 1_000_000 });
    await updateAccount(s.ctx.store.db, acct.id, { team_emails: TEAM });
    keys = acct.keys;
    writeFileSync(path.join(work, 'tawqi-ca.pem'), s.ctx.pki.ca.pem);
    writeFileSync(
      path.join(work, 'tawqi-tsa.pem'),
      `-----BEGIN CERTIFICATE-----\n${b64(s.ctx.pki.tsa.certificate).replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE-----\n`,
    );
  });
  after(async () => {
    await s?.close();
    pki?.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** A qes request (live) with token signers, signing in order. */
  async function createRequest(
    signers: number,
    extra: Record<string, unknown> = {},
  ): Promise<{ id: string; signers: { id: string; signing_url: string | null }[] }> {
    const r = await s.call('POST', '/signature_requests', {
      key: keys.secret_live,
      body: {
        title: 'اتفاقية عدم إفصاح',
        legal_level: 'qes',
        ordered: true,
        source: { type: 'template', template_id: 'tpl_nda_ar' },
        signers: TEAM.slice(1, 1 + signers).map((email, i) => ({ name: `Signer ${i + 1}`, email, fields: i === 0 ? NDA_FIELDS : {} })),
        ...extra,
      },
    });
    assert.equal(r.status, 201, r.text);
    return r.body;
  }

  /** Open the signer's link and get to the review step (view, one-time code). */
  async function toReview(signer: { id: string; signing_url: string | null }, requestId?: string): Promise<PageClient> {
    // A later signer of an ordered request gets its link once invited.
    const url =
      signer.signing_url ??
      (await s.call('GET', `/signature_requests/${requestId}`, { key: keys.secret_live })).body.signers.find(
        (x: { id: string }) => x.id === signer.id,
      ).signing_url;
    const page = await PageClient.open(url);
    await page.call('POST', '/view');
    await page.call('POST', '/otp/send');
    const st = await page.call('POST', '/otp/verify', { code: await lastOtp(s, signer.id) });
    assert.equal(st.body.step, 'review', JSON.stringify(st.body));
    return page;
  }

  const prepare = (page: PageClient, signer: Pick<TokenKey, 'der' | 'chain'>) =>
    page.call('POST', '/token/prepare', { certificate: b64(signer.der), chain: signer.chain.map(b64) });

  const preview = (ticket: string) => fetch(`${s.url}/sign/api/token/preview`, { headers: { authorization: `Bearer ${ticket}` } });

  async function signWith(page: PageClient, signer: TokenKey) {
    const prepared = await prepare(page, signer);
    assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
    const done = await page.call('POST', '/token/complete', {
      cms: b64(agentCms(signer, Buffer.from(prepared.body.digest, 'hex'))),
      ticket: prepared.body.ticket,
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.step, 'signed');
    return prepared.body as { ticket: string; digest: string; preview_url: string; expires_at: number; cert_sha256: string };
  }

  const pdfsig = async (file: string, nssDir: string): Promise<string> =>
    execFileAsync('pdfsig', ['-nssdir', nssDir, file], { encoding: 'utf8' }).then(
      (r) => r.stdout,
      (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
    );

  test('prepare → preview → complete: a ticket the agent can verify, page 1 as PNG, the signer signed, draw refused', async () => {
    const sr = await createRequest(1, { format: 'pades-t' });
    const page = await toReview(sr.signers[0]!);
    const st = await page.call('GET', '/state');
    assert.deepEqual(st.body.token, {
      agent_ports: [38611, 38612, 38613, 38614],
      protocol_versions: [1],
      download_url: 'https://downloads.example.com/tawqi-agent',
    });
    assert.match(
      page.headers.get('content-security-policy')!,
      /connect-src 'self' ws:\/\/127\.0\.0\.1:38611 ws:\/\/127\.0\.0\.1:38612 ws:\/\/127\.0\.0\.1:38613 ws:\/\/127\.0\.0\.1:38614;/,
    );

    // A token signer cannot sign with a drawing.
    const drawn = asCall(await page.call('POST', '/sign', { signature: pngDataUrl(), consent: true }));
    assertError(drawn, 'invalid_state');
    assert.equal(drawn.body.error.reason, 'method_token');

    const prepared = await prepare(page, ecSigner);
    assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
    const { ticket, digest, preview_url, expires_at, cert_sha256 } = prepared.body;
    assert.equal(preview_url, `${s.url}/sign/api/token/preview`);
    assert.equal(cert_sha256, sha256(ecSigner.der).toString('hex'));
    // The ticket: Ed25519 by the key published at /pki/evidence-key.pem, over the first part's ASCII bytes.
    const split = splitSignTicket(ticket);
    const payload = split.payload as SignTicketPayload;
    const published = await (await fetch(`${s.url}/pki/evidence-key.pem`)).text();
    writeFileSync(path.join(work, 'evidence.pub'), published);
    writeFileSync(path.join(work, 'ticket.part'), split.signedPart);
    writeFileSync(path.join(work, 'ticket.sig'), split.signature);
    const verified = execFileSync(
      'openssl',
      [
        'pkeyutl',
        '-verify',
        '-pubin',
        '-inkey',
        path.join(work, 'evidence.pub'),
        '-rawin',
        '-in',
        path.join(work, 'ticket.part'),
        '-sigfile',
        path.join(work, 'ticket.sig'),
      ],
      { encoding: 'utf8' },
    );
    assert.match(verified, /Signature Verified Successfully/);
    assert.equal(payload.v, 1);
    assert.equal(payload.typ, 'tawqi-sign-ticket');
    assert.equal(payload.iss, new URL(s.url).origin);
    assert.equal(payload.request_id, sr.id);
    assert.equal(payload.signer_id, sr.signers[0]!.id);
    assert.equal(payload.title, 'اتفاقية عدم إفصاح');
    assert.ok(payload.pages >= 2, 'contract and certificate pages');
    assert.equal(payload.digest_alg, 'sha-256');
    assert.equal(payload.digest, digest);
    assert.equal(payload.cert_sha256, cert_sha256);
    assert.equal(payload.exp, expires_at);
    assert.ok(payload.exp - payload.iat <= 300 && payload.exp > payload.iat);
    assert.ok(payload.jti.length >= 16);

    const png = await preview(ticket);
    assert.equal(png.status, 200);
    assert.equal(png.headers.get('content-type'), 'image/png');
    assert.equal(
      Buffer.from(await png.arrayBuffer())
        .subarray(0, 8)
        .toString('hex'),
      '89504e470d0a1a0a',
    );
    const noAuth = await fetch(`${s.url}/sign/api/token/preview`);
    assert.equal(noAuth.status, 401);
    assert.equal(((await noAuth.json()) as { error: { code: string } }).error.code, 'ticket_invalid');

    const done = await page.call('POST', '/token/complete', { cms: b64(agentCms(ecSigner, Buffer.from(digest, 'hex'))), ticket });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.step, 'signed');
    const request = await s.call('GET', `/signature_requests/${sr.id}`, { key: keys.secret_live });
    assert.equal(request.body.status, 'completed');
    assert.equal(request.body.signers[0].status, 'signed');

    // The same ticket again: refused at preview and at complete (the signer's new page, too).
    const replayPreview = await preview(ticket);
    assert.equal(replayPreview.status, 401);
    assert.equal(((await replayPreview.json()) as { error: { reason: string } }).error.reason, 'used');
    const again = await PageClient.open(sr.signers[0]!.signing_url!);
    const replay = asCall(
      await again.call('POST', '/token/complete', { cms: b64(agentCms(ecSigner, Buffer.from(digest, 'hex'))), ticket }),
    );
    assertError(replay, 'ticket_invalid');
    assert.equal(replay.body.error.reason, 'used');

    // pades-t: the final PDF is the token-signed one, with a signature timestamp and no DSS.
    await s.jobs.runDue();
    const res = await fetch(`${s.url}/api/v1/signature_requests/${sr.id}/download/pdf`, {
      headers: { authorization: `Bearer ${keys.secret_live}` },
    });
    assert.equal(res.status, 200);
    const pdf = new Uint8Array(await res.arrayBuffer());
    assert.doesNotMatch(Buffer.from(pdf).toString('latin1'), /\/DSS/);
    const sigs = signaturesOf(pdf);
    assert.equal(sigs.length, 1);
    assert.equal(sha256(sigs[0]!.signedBytes).toString('hex'), digest);
    timestampOf(sigs[0]!.cms);
    writeFileSync(path.join(work, 'one.pdf'), pdf);
    const out = await pdfsig(path.join(work, 'one.pdf'), pki.nssDir);
    assert.match(out, /Signature Validation: Signature is Valid\./, out);
    assert.match(out, /Certificate Validation: Certificate is Trusted\./, out);
  });

  test('two token signers (RSA, then EC): two incremental signatures, both valid (pdfsig, openssl cms, openssl ts); pades-lt DSS', async () => {
    const sr = await createRequest(2);
    assert.equal((await s.call('GET', `/signature_requests/${sr.id}`, { key: keys.secret_live })).body.format, 'pades-lt');
    const first = await toReview(sr.signers[0]!);
    const one = await signWith(first, rsaSigner);
    const second = await toReview(sr.signers[1]!, sr.id);
    const two = await signWith(second, ecSigner);
    assert.notEqual(one.digest, two.digest);

    const request = await s.call('GET', `/signature_requests/${sr.id}`, { key: keys.secret_live });
    assert.equal(request.body.status, 'completed');
    await s.jobs.runDue();
    const download = await s.call('GET', `/signature_requests/${sr.id}/download`, { key: keys.secret_live });
    assert.equal(download.body.pdf_status, 'ready', JSON.stringify(download.body));
    const res = await fetch(`${s.url}/api/v1/signature_requests/${sr.id}/download/pdf`, {
      headers: { authorization: `Bearer ${keys.secret_live}` },
    });
    const pdf = new Uint8Array(await res.arrayBuffer());
    assert.equal((await qpdfCheck(pdf)).ok, true);
    const raw = Buffer.from(pdf).toString('latin1');
    assert.match(raw, /\/DSS/);
    assert.match(raw, /\/OCSPs/);
    assert.match(raw, /\/CRLs/);

    // B-LTA: after the two signatures and the /DSS, a document timestamp over the whole file.
    const all = signaturesOf(pdf);
    assert.equal(all.length, 3);
    const [stamp, ...more] = documentTimestampsOf(pdf);
    assert.ok(stamp && more.length === 0);
    assert.deepEqual(stamp.byteRange, all[2]!.byteRange);
    assert.equal(stamp.byteRange[2] + stamp.byteRange[3], pdf.byteLength);
    assert.ok(raw.lastIndexOf('/DSS') < raw.lastIndexOf('/DocTimeStamp'));
    const stampCheck = verifyDocumentTimestamp(stamp, { caFile: path.join(work, 'tawqi-ca.pem') });
    assert.ok(stampCheck.ok, stampCheck.output);

    // The first signature covers a prefix of the file (later revisions are appended); the second the rest.
    const sigs = all.slice(0, 2);
    assert.equal(sha256(sigs[0]!.signedBytes).toString('hex'), one.digest);
    assert.equal(sha256(sigs[1]!.signedBytes).toString('hex'), two.digest);
    assert.ok(sigs[0]!.byteRange[2] + sigs[0]!.byteRange[3] < sigs[1]!.byteRange[2] + sigs[1]!.byteRange[3]);

    const file = path.join(work, 'two.pdf');
    writeFileSync(file, pdf);
    const out = await pdfsig(file, pki.nssDir);
    assert.equal(out.match(/Signature Validation: Signature is Valid\./g)?.length, 2, out);
    assert.equal(out.match(/Certificate Validation: Certificate is Trusted\./g)?.length, 2, out);
    assert.equal(out.match(/Signature Type: unknown/g)?.length, 1, out); // the document timestamp (poppler 22.12)
    assert.match(out, /Signature Type: ETSI\.CAdES\.detached/);
    assert.match(out, /Tawqi Test Seal \(RSA\)/);
    assert.match(out, /token-ec/);

    for (const [i, sig] of sigs.entries()) {
      writeFileSync(path.join(work, `sig${i}.der`), sig.cms);
      writeFileSync(path.join(work, `signed${i}.bin`), sig.signedBytes);
      const cms = await execFileAsync(
        'openssl',
        [
          'cms',
          '-verify',
          '-binary',
          '-inform',
          'DER',
          '-in',
          path.join(work, `sig${i}.der`),
          '-content',
          path.join(work, `signed${i}.bin`),
          '-CAfile',
          pki.caFile,
          '-purpose',
          'any',
          '-out',
          '/dev/null',
        ],
        { encoding: 'utf8' },
      );
      assert.match(cms.stderr, /Verification successful/, cms.stderr);
      const printed = execFileSync('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', path.join(work, `sig${i}.der`)], {
        encoding: 'utf8',
      });
      assert.match(printed, /id-smime-aa-signingCertificateV2/);
      const { token, signatureValue } = timestampOf(sig.cms);
      writeFileSync(path.join(work, `ts${i}.tst`), token);
      const ts = await execFileAsync(
        'openssl',
        [
          'ts',
          '-verify',
          '-token_in',
          '-in',
          path.join(work, `ts${i}.tst`),
          '-digest',
          sha256(signatureValue).toString('hex'),
          '-CAfile',
          path.join(work, 'tawqi-ca.pem'),
          '-untrusted',
          path.join(work, 'tawqi-tsa.pem'),
        ],
        { encoding: 'utf8' },
      ).then(
        (r) => r.stdout + r.stderr,
        (e: { stdout?: string; stderr?: string }) => `${e.stdout}${e.stderr}`,
      );
      assert.match(ts, /Verification: OK/, ts);
    }

    // A flipped byte in the first revision breaks the first signature.
    const flipped = Buffer.from(pdf);
    flipped[300] = flipped[300]! ^ 0x01;
    writeFileSync(path.join(work, 'flipped.pdf'), flipped);
    assert.match(await pdfsig(path.join(work, 'flipped.pdf'), pki.nssDir), /Digest Mismatch|Signature is Invalid|signature is not valid/i);
  });

  test('certificates refused at prepare: no signing key usage, expired, untrusted root, not DER; and only at the review step', async () => {
    const sr = await createRequest(1);
    const early = await PageClient.open(sr.signers[0]!.signing_url!);
    const tooEarly = asCall(await prepare(early, ecSigner));
    assertError(tooEarly, 'invalid_state');
    assert.equal(tooEarly.body.error.reason, 'otp');

    const page = await toReview(sr.signers[0]!);
    const refused = async (signer: Pick<TokenKey, 'der' | 'chain'>, reason: string) => {
      const r = asCall(await prepare(page, signer));
      assertError(r, 'certificate_invalid');
      assert.equal(r.body.error.param, 'certificate');
      assert.equal(r.body.error.reason, reason, r.text);
    };
    await refused(noSigningKu, 'not_signing');
    await refused(foreign, 'untrusted');
    await refused({ der: ecSigner.der, chain: [] }, 'untrusted'); // the issuing CA is needed for the path
    const later = s.clock.nowMs();
    s.clock.set(later + 2 * 86400_000);
    try {
      // (The link's page session lasts 12 hours: open the link again, the code stays verified.)
      const reopened = await PageClient.open(sr.signers[0]!.signing_url!);
      const expired = asCall(await prepare(reopened, shortLived));
      assertError(expired, 'certificate_invalid');
      assert.equal(expired.body.error.reason, 'expired');
    } finally {
      s.clock.set(later);
    }
    const garbage = asCall(await page.call('POST', '/token/prepare', { certificate: 'bm90IGEgY2VydGlmaWNhdGU=' }));
    assertError(garbage, 'parameter_invalid');
    assert.equal(garbage.body.error.param, 'certificate');
  });

  test('check: prepare’s verdict on each listed certificate (ok, not_signing, untrusted, expired, malformed) in the request’s language, changing nothing: an open ticket stays good', async () => {
    const sr = await createRequest(1);
    const early = await PageClient.open(sr.signers[0]!.signing_url!);
    const tooEarly = asCall(await early.call('POST', '/token/check', { certificates: [{ certificate: b64(ecSigner.der) }] }));
    assertError(tooEarly, 'invalid_state');
    assert.equal(tooEarly.body.error.reason, 'otp');

    const page = await toReview(sr.signers[0]!);
    const asked = (signers: Pick<TokenKey, 'der' | 'chain'>[]) =>
      signers.map((k) => ({ certificate: b64(k.der), chain: k.chain.map(b64) }));
    // An open ticket before the check: the check must not void it (a new prepare would).
    const prepared = await prepare(page, rsaSigner);
    assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
    const rowBefore = await s.ctx.store.db.selectFrom('qes_prepared').selectAll().where('signer_id', '=', sr.signers[0]!.id).execute();

    const r = await page.call('POST', '/token/check', {
      certificates: [
        ...asked([ecSigner, noSigningKu, foreign, { der: ecSigner.der, chain: [] }]),
        { certificate: 'bm90IGEgY2VydGlmaWNhdGU=' },
      ],
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const verdicts = r.body.certificates as { cert_sha256: string | null; ok: boolean; reason: string | null; message: string | null }[];
    assert.deepEqual(
      verdicts.map((v) => [v.cert_sha256, v.ok, v.reason]),
      [
        [sha256(ecSigner.der).toString('hex'), true, null],
        [sha256(noSigningKu.der).toString('hex'), false, 'not_signing'],
        [sha256(foreign.der).toString('hex'), false, 'untrusted'],
        [sha256(ecSigner.der).toString('hex'), false, 'untrusted'],
        [null, false, 'malformed'],
      ],
    );
    // The request is in Arabic: so are the reasons (prepare's own texts).
    assert.equal(verdicts[1]!.message, 'هذه الشهادة غير مخصصة للتوقيع (استخدام المفتاح).');
    assert.equal(verdicts[2]!.message, 'هذه الشهادة غير صادرة عن جهة تصديق موثوقة.');
    assert.equal(verdicts[0]!.message, null);

    // Time moves: the short-lived certificate is refused as expired, as prepare would.
    const later = s.clock.nowMs();
    s.clock.set(later + 2 * 86400_000);
    try {
      const reopened = await PageClient.open(sr.signers[0]!.signing_url!);
      const expired = await reopened.call('POST', '/token/check', { certificates: asked([shortLived]) });
      assert.equal(expired.body.certificates[0].reason, 'expired');
      assert.equal(expired.body.certificates[0].message, 'انتهت صلاحية هذه الشهادة.');
    } finally {
      s.clock.set(later);
    }

    // Bad bodies are refused in the envelope; no page token, no answer.
    assertError(asCall(await page.call('POST', '/token/check', { certificates: [] })), 'parameter_invalid');
    const anonymous = await fetch(`${s.url}/sign/api/token/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ certificates: asked([ecSigner]) }),
    });
    assert.equal(anonymous.status, 401);

    // Nothing was stored or replaced: the prepared signature is the same, and its ticket completes.
    const rowAfter = await s.ctx.store.db.selectFrom('qes_prepared').selectAll().where('signer_id', '=', sr.signers[0]!.id).execute();
    assert.deepEqual(rowAfter, rowBefore);
    const done = await page.call('POST', '/token/complete', {
      cms: b64(agentCms(rsaSigner, Buffer.from(prepared.body.digest, 'hex'))),
      ticket: prepared.body.ticket,
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.step, 'signed');
  });

  test('tickets and CMS refused: another certificate, a digest that does not match, forged, expired and superseded tickets', async () => {
    const sr = await createRequest(1);
    const page = await toReview(sr.signers[0]!);
    const prepared = (await prepare(page, rsaSigner)).body as { ticket: string; digest: string };
    const digest = Buffer.from(prepared.digest, 'hex');

    // The ticket is for the RSA certificate; the CMS is made with the EC one.
    const other = asCall(await page.call('POST', '/token/complete', { cms: b64(agentCms(ecSigner, digest)), ticket: prepared.ticket }));
    assertError(other, 'cms_invalid');
    assert.equal(other.body.error.param, 'cms');
    assert.equal(other.body.error.reason, 'certificate_mismatch');
    // A CMS over another document version.
    const wrongDigest = asCall(
      await page.call('POST', '/token/complete', { cms: b64(agentCms(rsaSigner, sha256('another document'))), ticket: prepared.ticket }),
    );
    assertError(wrongDigest, 'cms_invalid');
    assert.equal(wrongDigest.body.error.reason, 'digest_mismatch');
    assert.match(wrongDigest.body.error.message, /[\u0600-\u06FF]/);
    // The EC key signing attributes that name the RSA certificate: the signature does not verify.
    const badSignature = asCall(
      await page.call('POST', '/token/complete', {
        cms: b64(agentCms({ ...ecSigner, rsa: true }, digest, { certificate: rsaSigner.der })),
        ticket: prepared.ticket,
      }),
    );
    assertError(badSignature, 'cms_invalid');
    assert.equal(badSignature.body.error.reason, 'signature_invalid', badSignature.text);
    const notDer = asCall(await page.call('POST', '/token/complete', { cms: '!!!', ticket: prepared.ticket }));
    assertError(notDer, 'parameter_invalid');

    // Forged tickets: a changed payload under the server's signature; a payload signed by another key.
    const split = splitSignTicket(prepared.ticket);
    const payload = split.payload as SignTicketPayload;
    const changed = encodeSignTicketPayload({ ...payload, digest: sha256('x').toString('hex') });
    const tampered = joinSignTicket(changed, split.signature);
    const stranger = generateKeyPairSync('ed25519').privateKey;
    const foreignTicket = joinSignTicket(changed, new Uint8Array(sign(null, Buffer.from(changed, 'ascii'), stranger)));
    for (const forged of [tampered, foreignTicket]) {
      const r = await preview(forged);
      assert.equal(r.status, 401);
      const body = (await r.json()) as { error: { code: string; reason: string } };
      assert.equal(body.error.code, 'ticket_invalid');
      assert.equal(body.error.reason, 'signature');
      const c = asCall(await page.call('POST', '/token/complete', { cms: b64(agentCms(rsaSigner, digest)), ticket: forged }));
      assertError(c, 'ticket_invalid');
      assert.equal(c.body.error.reason, 'signature');
    }
    assert.equal((await preview('not-a-ticket')).status, 401);

    // A new prepare replaces the ticket: the old one is unknown now.
    const renewed = (await prepare(page, rsaSigner)).body as { ticket: string; digest: string };
    const superseded = asCall(
      await page.call('POST', '/token/complete', { cms: b64(agentCms(rsaSigner, digest)), ticket: prepared.ticket }),
    );
    assertError(superseded, 'ticket_invalid');
    assert.equal(superseded.body.error.reason, 'unknown');

    // Expired: five minutes and a second later, at preview and at complete.
    const now = s.clock.nowMs();
    s.clock.set(now + 301_000);
    try {
      const late = await preview(renewed.ticket);
      assert.equal(late.status, 401);
      assert.equal(((await late.json()) as { error: { reason: string } }).error.reason, 'expired');
      const c = asCall(
        await page.call('POST', '/token/complete', {
          cms: b64(agentCms(rsaSigner, Buffer.from(renewed.digest, 'hex'))),
          ticket: renewed.ticket,
        }),
      );
      assertError(c, 'ticket_invalid');
      assert.equal(c.body.error.reason, 'expired');
    } finally {
      s.clock.set(now);
    }
    // Nothing was signed by any of this.
    const request = await s.call('GET', `/signature_requests/${sr.id}`, { key: keys.secret_live });
    assert.notEqual(request.body.signers[0].status, 'signed');
    // And the right CMS for the open ticket still completes.
    const ok = await page.call('POST', '/token/complete', {
      cms: b64(agentCms(rsaSigner, Buffer.from(renewed.digest, 'hex'))),
      ticket: renewed.ticket,
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.step, 'signed');
  });
});
