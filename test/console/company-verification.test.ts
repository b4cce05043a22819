/**
 * Company verification (issue 16 point 3, spec part 5) over real HTTP: the owner uploads company
 * documents and takes the representative through the identity check (the simulation: no provider
 * is configured), submits; live keys answer 403 kyb_required until the operator, in the admin
 * console, downloads the documents (the same bytes) and approves. A rejection carries a reason the
 * owner reads, and the owner submits again. Wrong file types and oversized files are refused in
 * both languages; roles and audit entries are checked. The configured engine (SQLite or PostgreSQL).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/envelope.js';
import { CONSOLE_TEST_ENV, ConsoleClient, consoleUser, signedInClient, type ConsoleAnswer } from '../support/consoleClient.js';
import { startTestServer, type TestServer } from '../support/server.js';

const MAX_BYTES = 64 * 1024;
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n% commercial register extract\n'), Buffer.alloc(2000, 0x41), Buffer.from('\n%%EOF\n')]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(500, 7)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(700, 3)]);

let s: TestServer;
let operator: ConsoleClient;
const OPERATOR = 'ops@tawqi.example';

const signedIn = (email: string, lang?: 'en') => signedInClient(s, email, lang);

/** A new unverified account (business plan) with its owner signed in. */
async function newCompany(slug: string) {
  const account = await s.account({ name: `${slug} Co`, kyb: 'none', ownerEmail: `owner@${slug}.example` });
  await consoleUser(s, account.id, `owner@${slug}.example`, 'owner');
  return { ...account, owner: await signedIn(`owner@${slug}.example`) };
}

/** Upload a file's bytes as the body (the console's upload: any Content-Type, the type read from the bytes). */
async function upload(c: ConsoleClient, bytes: Buffer, fileName: string, contentType = 'application/octet-stream'): Promise<ConsoleAnswer> {
  const headers: Record<string, string> = { cookie: `tawqi_console=${c.cookie}`, 'x-csrf-token': c.csrf!, 'content-type': contentType };
  if (c.lang === 'en') headers['accept-language'] = 'en';
  const res = await fetch(`${s.url}/console/api/company_verification/documents?file_name=${encodeURIComponent(fileName)}`, {
    method: 'POST',
    headers,
    body: bytes,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

async function download(c: ConsoleClient, path: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(`${s.url}/console/api${path}`, { headers: { cookie: `tawqi_console=${c.cookie}` } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The representative's check through the simulation page, as the representative's browser does it. */
async function representativeCheck(c: ConsoleClient, name: string, decision: 'approve' | 'decline'): Promise<string> {
  const started = await c.call('POST', '/company_verification/representative', { body: { name } });
  assert.equal(started.status, 201, started.text);
  assert.equal(started.body.simulated, true);
  const url = new URL(started.body.url);
  assert.equal(url.origin, new URL(s.url).origin);
  const page = await fetch(url);
  assert.equal(page.status, 200);
  assert.ok((await page.text()).includes(name), 'the page names the representative');
  const form = new URLSearchParams({ token: url.searchParams.get('token')!, decision, return_url: url.searchParams.get('return_url')! });
  const done = await fetch(url.origin + url.pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url.origin },
    body: form,
  });
  assert.equal(done.status, 200, await done.text());
  return started.body.verification_id;
}

/** A live-mode write: 201 once verified, 403 kyb_required before. */
const liveTemplate = (key: string, title: string) =>
  s.call('POST', '/templates', { key, body: { title, language: 'en', body: 'Hello.', fields: [] } });

async function auditOf(c: ConsoleClient, path = '/audit_log?limit=100') {
  const r = await c.call('GET', path);
  assert.equal(r.status, 200, r.text);
  return r.body.data as {
    action: string;
    actor: string;
    target: string | null;
    account_id: string | null;
    detail: Record<string, unknown>;
  }[];
}

before(async () => {
  s = await startTestServer({
    ...CONSOLE_TEST_ENV,
    TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: '1000',
    TAWQI_COMPANY_DOCUMENT_MAX_BYTES: String(MAX_BYTES),
  });
  await consoleUser(s, null, OPERATOR, 'operator');
  operator = await signedIn(OPERATOR);
});
after(() => s.close());

describe('company verification: owner, operator, live keys', () => {
  test('upload, representative check, submit; 403 kyb_required; the operator downloads the same bytes and approves; the live key works', async () => {
    const a = await newCompany('acme');
    const none = await a.owner.call('GET', '/company_verification');
    assert.equal(none.status, 200, none.text);
    assert.equal(none.body.status, 'none');
    assert.equal(none.body.submission, null);
    assert.deepEqual(none.body.limits, {
      max_document_bytes: MAX_BYTES,
      max_documents: 10,
      accepted_types: ['application/pdf', 'image/png', 'image/jpeg'],
    });

    const pdf = await upload(a.owner, PDF, 'السجل التجاري.pdf', 'application/pdf');
    assert.equal(pdf.status, 201, pdf.text);
    assert.equal(pdf.body.content_type, 'application/pdf');
    assert.equal(pdf.body.file_name, 'السجل التجاري.pdf');
    assert.equal(pdf.body.size, PDF.length);
    // A PNG sent with a wrong Content-Type and name is still a PNG: the bytes decide.
    const png = await upload(a.owner, PNG, 'tax-card.pdf', 'application/pdf');
    assert.equal(png.status, 201, png.text);
    assert.equal(png.body.content_type, 'image/png');

    assertError(await liveTemplate(a.keys.secret_live, 'Before'), 'kyb_required');
    const notYet = await a.owner.call('POST', '/company_verification/submit', { body: {} });
    assertError(notYet, 'invalid_state');
    assert.equal(notYet.body.error.reason, 'representative_not_approved');

    const idv = await representativeCheck(a.owner, 'Mona Adel', 'approve');
    const ready = await a.owner.call('GET', '/company_verification');
    assert.equal(ready.body.representative.status, 'approved');
    assert.equal(ready.body.representative.verification_id, idv);
    assert.equal(ready.body.representative.simulated, true);
    assert.equal(ready.body.can_submit, true);
    const submitted = await a.owner.call('POST', '/company_verification/submit', { body: {} });
    assert.equal(submitted.status, 200, submitted.text);
    assert.equal(submitted.body.status, 'pending');
    assert.equal(submitted.body.editable, false);
    assertError(await liveTemplate(a.keys.secret_live, 'Pending'), 'kyb_required');
    assertError(await upload(a.owner, JPEG, 'late.jpg'), 'invalid_state');
    // The representative's check is not a signer's: the public API does not show it.
    assertError(await s.call('GET', `/identity_verifications/${idv}`, { key: a.keys.secret_test }), 'not_found');

    const queue = await operator.call('GET', '/admin/company_verifications');
    assert.equal(queue.status, 200, queue.text);
    const item = queue.body.data.find((r: { account: { id: string } }) => r.account.id === a.id);
    assert.equal(item.status, 'pending');
    assert.equal(item.account.name, 'acme Co');
    assert.equal(item.representative.status, 'approved');
    assert.equal(item.document_count, 2);
    const detail = await operator.call('GET', `/admin/company_verifications/${item.id}`);
    assert.deepEqual(
      detail.body.documents.map((d: { id: string }) => d.id),
      [pdf.body.id, png.body.id],
    );
    const file = await download(operator, `/admin/company_verifications/${item.id}/documents/${pdf.body.id}`);
    assert.equal(file.status, 200);
    assert.ok(file.bytes.equals(PDF), 'the same bytes');
    assert.equal(file.headers.get('content-type'), 'application/pdf');
    assert.match(file.headers.get('content-disposition')!, /^attachment; filename="kybd_\w+\.pdf"; filename\*=UTF-8''%D8%A7/);
    assert.equal(file.headers.get('x-content-type-options'), 'nosniff');
    const own = await download(a.owner, `/company_verification/documents/${png.body.id}`);
    assert.ok(own.bytes.equals(PNG));

    const approved = await operator.call('POST', `/admin/company_verifications/${item.id}/approve`, { body: {} });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.status, 'approved');
    assert.equal(approved.body.account.kyb_status, 'approved');
    const made = await liveTemplate(a.keys.secret_live, 'After');
    assert.equal(made.status, 201, made.text);
    assert.equal((await a.owner.call('GET', '/company_verification')).body.status, 'approved');
    assert.equal((await s.call('GET', '/usage', { key: a.keys.secret_live })).body.company_verification, 'approved');
    assertError(await operator.call('POST', `/admin/company_verifications/${item.id}/approve`, { body: {} }), 'invalid_state');

    const entries = await auditOf(a.owner);
    const actions = entries.map((e) => e.action);
    for (const action of [
      'company_document.uploaded',
      'company_verification.representative_started',
      'company_verification.submitted',
      'admin.company_document_downloaded',
      'admin.company_verification_approved',
    ])
      assert.ok(actions.includes(action), action);
    const decision = entries.find((e) => e.action === 'admin.company_verification_approved')!;
    assert.equal(decision.actor, OPERATOR);
    assert.equal(decision.target, a.id);
    assert.equal(decision.detail.company_verification, item.id);
    const operatorLog = await auditOf(operator, '/admin/audit_log?limit=100');
    assert.ok(operatorLog.some((e) => e.action === 'admin.company_verification_approved' && e.target === a.id && e.actor === OPERATOR));
    assert.ok(!operatorLog.some((e) => e.action === 'company_document.uploaded'), "the operator-wide view holds operators' actions");
  });

  test('a rejection carries the reason to the owner (both languages); the owner replaces a document and submits again', async () => {
    const b = await newCompany('beta');
    const first = await upload(b.owner, PDF, 'register.pdf');
    await upload(b.owner, JPEG, 'blurry.jpg');
    await representativeCheck(b.owner, 'Karim Nabil', 'approve');
    assert.equal((await b.owner.call('POST', '/company_verification/submit', { body: {} })).status, 200);
    const queue = await operator.call('GET', '/admin/company_verifications?limit=100');
    const round = queue.body.data.find((r: { account: { id: string } }) => r.account.id === b.id);
    assertError(await operator.call('POST', `/admin/company_verifications/${round.id}/reject`, { body: {} }), 'parameter_missing');
    const reason = 'The tax card photo is unreadable; upload a clear scan.';
    const rejected = await operator.call('POST', `/admin/company_verifications/${round.id}/reject`, { body: { reason } });
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal(rejected.body.status, 'rejected');

    const seen = await b.owner.call('GET', '/company_verification');
    assert.equal(seen.body.status, 'rejected');
    assert.equal(seen.body.submission.rejection_reason, reason);
    assert.equal(seen.body.editable, true);
    const en = await signedIn('owner@beta.example', 'en');
    assert.equal((await en.call('GET', '/company_verification')).body.submission.rejection_reason, reason);
    assertError(await liveTemplate(b.keys.secret_live, 'Rejected'), 'kyb_required');

    const blurry = seen.body.documents.find((d: { file_name: string }) => d.file_name === 'blurry.jpg');
    assert.equal((await b.owner.call('DELETE', `/company_verification/documents/${blurry.id}`)).status, 204);
    await upload(b.owner, PNG, 'tax-card.png');
    // The approved representative check carries over to the new round.
    const again = await b.owner.call('POST', '/company_verification/submit', { body: {} });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.status, 'pending');
    assert.equal(again.body.submission.rejection_reason, null);
    assert.deepEqual(
      again.body.documents.map((d: { file_name: string }) => d.file_name),
      ['register.pdf', 'tax-card.png'],
    );

    const next = await operator.call('GET', '/admin/company_verifications?limit=100');
    const statuses = next.body.data.map((r: { status: string }) => r.status);
    assert.equal(statuses.lastIndexOf('pending'), statuses.filter((x: string) => x === 'pending').length - 1, 'pending first');
    const resubmitted = next.body.data.find(
      (r: { account: { id: string }; status: string }) => r.account.id === b.id && r.status === 'pending',
    );
    assert.notEqual(resubmitted.id, round.id, 'a new round');
    const old = await operator.call('GET', `/admin/company_verifications/${round.id}`);
    assert.equal(old.body.decision_reason, reason, 'the rejected round keeps its reason and documents');
    assert.equal(old.body.documents.length, 2);
    assert.equal((await download(operator, `/admin/company_verifications/${round.id}/documents/${blurry.id}`)).status, 200);
    assert.equal((await download(operator, `/admin/company_verifications/${resubmitted.id}/documents/${blurry.id}`)).status, 404);
    assert.equal((await operator.call('POST', `/admin/company_verifications/${resubmitted.id}/approve`, { body: {} })).status, 200);
    assert.equal((await liveTemplate(b.keys.secret_live, 'Now')).status, 201);
    assert.ok(first.body.id);
  });

  test('a wrong file type and an oversized file are refused with clear errors, in Arabic and in English', async () => {
    const c = await newCompany('gamma');
    const en = await signedIn('owner@gamma.example', 'en');
    const text = Buffer.from('MZ this is an executable renamed to look like a PDF');
    const ar = await upload(c.owner, text, 'register.pdf', 'application/pdf');
    assertError(ar, 'parameter_invalid');
    assert.equal(ar.body.error.param, 'file');
    assert.match(ar.body.error.message, /PDF/);
    const enType = await upload(en, text, 'register.pdf', 'application/pdf');
    assertError(enType, 'parameter_invalid', 'en');
    assert.equal(enType.body.error.message, 'The file is not a PDF, PNG or JPEG (its content was checked, not its name).');

    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MAX_BYTES, 0x20)]);
    const tooBig = await upload(c.owner, big, 'big.pdf');
    assertError(tooBig, 'request_too_large');
    assert.equal(tooBig.body.error.max_bytes, MAX_BYTES);
    assert.match(tooBig.body.error.message, /64/);
    const enBig = await upload(en, big, 'big.pdf');
    assertError(enBig, 'request_too_large', 'en');
    assert.equal(enBig.body.error.message, `The file is larger than 64 KB (${MAX_BYTES} bytes).`);
    assertError(await upload(c.owner, Buffer.alloc(0), 'empty.pdf'), 'parameter_missing');
    assert.deepEqual((await c.owner.call('GET', '/company_verification')).body.documents, [], 'nothing kept');

    await upload(c.owner, PDF, 'register.pdf');
    await representativeCheck(c.owner, 'Laila Hassan', 'decline');
    const declined = await en.call('POST', '/company_verification/submit', { body: {} });
    assertError(declined, 'invalid_state', 'en');
    assert.equal(declined.body.error.message, "The representative's identity check must be approved before submitting.");
  });

  test('roles: every user of the account reads the state; only the owner acts; the operator has no account page', async () => {
    const d = await newCompany('delta');
    for (const role of ['admin', 'developer', 'viewer'] as const) {
      await consoleUser(s, d.id, `${role}@delta.example`, role);
      const c = await signedIn(`${role}@delta.example`);
      const read = await c.call('GET', '/company_verification');
      assert.equal(read.status, 200, `${role} reads`);
      assert.equal(read.body.status, 'none');
      assertError(await c.call('POST', '/company_verification/representative', { body: { name: 'X Y' } }), 'forbidden');
      assertError(await upload(c, PDF, 'r.pdf'), 'forbidden');
      assertError(await c.call('POST', '/company_verification/submit', { body: {} }), 'forbidden');
      assertError(await c.call('DELETE', '/company_verification/documents/kybd_x'), 'forbidden');
    }
    assertError(await operator.call('GET', '/company_verification'), 'forbidden');
    assertError(await upload(operator, PDF, 'r.pdf'), 'forbidden');
    assertError(await new ConsoleClient(s.url).call('GET', '/company_verification'), 'console_session_required');
    // Another account's document is not found; a verified account's owner cannot start again.
    const mine = await upload(d.owner, PDF, 'r.pdf');
    const other = await newCompany('epsilon');
    assert.equal((await download(other.owner, `/company_verification/documents/${mine.body.id}`)).status, 404);
    const verified = await s.account({ name: 'Old Co', ownerEmail: 'owner@old.example' });
    await consoleUser(s, verified.id, 'owner@old.example', 'owner');
    const oldOwner = await signedIn('owner@old.example');
    assert.equal((await oldOwner.call('GET', '/company_verification')).body.status, 'approved');
    assertError(await upload(oldOwner, PDF, 'r.pdf'), 'invalid_state');
  });
});
