/**
 * Identity verification through the real server (spec 1.3, 2.2, 3.2, 5, 6.3): the test-mode
 * simulation page (Approve / Decline), the live generic provider driven by a local HTTP peer that
 * speaks its protocol (hosted verification + signed callbacks), review states, the name match
 * with its hold / record modes and POST /signers/{id}/identity_match, and
 * GET /identity_verifications/{id}.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../server/src/config.js';
import type { SignerTrigger } from '../../server/src/domain/requestStates.js';
import { ApiError } from '../../server/src/errors.js';
import { GenericProvider } from '../../server/src/identity/genericProvider.js';
import { CallbackRejected, ProviderUnavailable, signPayload, verifySignature } from '../../server/src/identity/provider.js';
import { simulateIdentityDecision, startIdentityVerification } from '../../server/src/services/identity.js';
import { applySignerMove } from '../../server/src/services/signerActions.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import { getVerification } from '../../server/src/store/identityVerifications.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { signProviderPayload, startIdentityProvider, type IdentityProviderPeer } from '../support/identityProvider.js';
import { startTestServer, type CallResult, type TestServer } from '../support/server.js';

const TEAM = ['amira@example.com', 'bassem@example.com', 'carla@example.com'];
const WHERE = { ip: '203.0.113.7', user_agent: 'identity-test' };
const LIMITS = { TAWQI_RATE_LIMIT: '100000', TAWQI_IP_RATE_LIMIT: '100000' };
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

type Keys = TestServer['keys'];
interface Acct {
  id: string;
  keys: Keys;
  template: string;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('identity verification (spec 3.2)', () => {
  let s: TestServer;
  let peer: IdentityProviderPeer;
  let n = 0;

  before(async () => {
    peer = await startIdentityProvider();
    s = await startTestServer({
      ...LIMITS,
      TAWQI_IDENTITY_PROVIDER_URL: peer.url,
      TAWQI_IDENTITY_PROVIDER_KEY: peer.apiKey,
      TAWQI_IDENTITY_CALLBACK_SECRET: peer.callbackSecret,
    });
    peer.now = () => now();
  });
  after(async () => {
    await s.close();
    await peer.close();
  });

  const now = () => Math.floor(s.clock.nowMs() / 1000);

  /** A fresh account (business plan, verified, wallet for identity charges) with the TEAM emails and a template. */
  async function account(): Promise<Acct> {
    const acct = await s.account({ ownerEmail: TEAM[0], walletMinor: 100_000 });
    await s.ctx.store.tx((trx) => updateAccount(trx, acct.id, { team_emails: TEAM }));
    const tpl = await s.call('POST', '/templates', {
      key: acct.keys.secret_live,
      body: {
        title: `Identity ${++n}`,
        language: 'en',
        body: 'Agreed, {{party}}.',
        fields: [{ key: 'party', label: 'Party', required: false }],
      },
    });
    assert.equal(tpl.status, 201, tpl.text);
    return { ...acct, template: tpl.body.id };
  }

  /** An aes request (identity for every signer), sent at once; returns the request. */
  async function aesRequest(a: Acct, key: string, names: string[] = ['Amira Saleh'], extra: Record<string, unknown> = {}): Promise<Json> {
    const r = await s.call('POST', '/signature_requests', {
      key,
      body: {
        title: 'Lease',
        source: { type: 'template', template_id: a.template },
        legal_level: 'aes',
        signers: names.map((name, i) => ({ name, email: TEAM[i] })),
        ...extra,
      },
    });
    assert.equal(r.status, 201, r.text);
    for (const signer of r.body.signers) assert.equal(signer.identity.status, 'required');
    return r.body;
  }

  const move = (signerId: string, trigger: Exclude<SignerTrigger, 'invite'>) =>
    s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, signerId, trigger, WHERE));

  /** The service call must be refused with 409 invalid_state and this reason, in both languages. */
  async function refused(work: () => Promise<unknown>, reason: string): Promise<void> {
    await assert.rejects(work, (err: unknown) => {
      assert.ok(err instanceof ApiError, String(err));
      assert.equal(err.code, 'invalid_state');
      assert.equal(err.extra.reason, reason);
      assert.ok(err.detail?.en && err.detail.ar, 'the refusal has a message in both languages');
      return true;
    });
  }

  /** Event types of a request, oldest first. */
  async function eventTypes(key: string, requestId: string): Promise<string[]> {
    const r = await s.call('GET', `/events?signature_request=${requestId}&limit=100`, { key });
    assert.equal(r.status, 200, r.text);
    return r.body.data.map((e: { type: string }) => e.type).reverse();
  }

  async function eventsOf(key: string, requestId: string, type: string): Promise<Json[]> {
    const r = await s.call('GET', `/events?signature_request=${requestId}&type=${type}&limit=100`, { key });
    assert.equal(r.status, 200, r.text);
    return r.body.data;
  }

  const identityEvents = async (key: string, requestId: string) =>
    (await eventTypes(key, requestId)).filter((t) => t.startsWith('signer.identity'));

  const getSigner = async (key: string, id: string) => {
    const r = await s.call('GET', `/signers/${id}`, { key });
    assert.equal(r.status, 200, r.text);
    return r.body;
  };

  const getVerificationApi = async (key: string, id: string) => {
    const r = await s.call('GET', `/identity_verifications/${id}`, { key });
    assert.equal(r.status, 200, r.text);
    return r.body;
  };

  /** A page of this server, outside /api/v1. */
  async function page(method: string, url: string, opts: { form?: Record<string, string>; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...opts.headers };
    let body: string | undefined;
    if (opts.form) {
      body = new URLSearchParams(opts.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(url.startsWith('http') ? url : `${s.url}${url}`, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let json: Json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: json } as CallResult;
  }

  /** The hidden form fields and the action of a simulation page. */
  function formOf(html: string): { action: string; fields: Record<string, string> } {
    const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
    assert.ok(action, 'the page has a POST form');
    const fields: Record<string, string> = {};
    for (const m of html.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)) fields[m[1]!] = m[2]!.replace(/&amp;/g, '&');
    return { action, fields };
  }

  /** Open the simulation page from its URL and press a button. */
  async function pressOnPage(url: string, decision: 'approve' | 'decline', documentName?: string) {
    const shown = await page('GET', url);
    assert.equal(shown.status, 200, shown.text);
    const { action, fields } = formOf(shown.text);
    const form: Record<string, string> = { ...fields, decision };
    if (documentName !== undefined) form.document_name = documentName;
    return page('POST', action, { form });
  }

  // -------------------------------------------------------------------------------------------
  describe('test mode: the simulation page', () => {
    test('approve on the page → signer.identity_verified once; signing becomes possible', async () => {
      const a = await account();
      const sr = await aesRequest(a, a.keys.secret_test);
      assert.equal(sr.livemode, false);
      const signerId = sr.signers[0].id;

      await refused(() => startIdentityVerification(s.ctx, signerId), 'otp_required');
      await move(signerId, 'otp_verified');
      await refused(() => move(signerId, 'sign'), 'identity_required');

      const started = await startIdentityVerification(s.ctx, signerId, { returnUrl: 'https://shop.example.com/after?x=1&y=2' });
      assert.match(started.verificationId, /^idv_\w{24}$/);
      const url = new URL(started.url);
      assert.equal(url.origin, s.url);
      assert.equal(url.pathname, `/identity/simulate/${started.verificationId}`);
      assert.match(url.searchParams.get('token') ?? '', /^\d+\.[\w-]{43}$/);
      assert.equal(url.searchParams.get('return_url'), 'https://shop.example.com/after?x=1&y=2');
      assert.equal(peer.requests.length, 0, 'test mode never calls the provider');

      // The signer points at its verification; its identity status is still required.
      const pending = await getSigner(a.keys.secret_test, signerId);
      assert.deepEqual(pending.identity, {
        status: 'required',
        provider: 'simulation',
        level: 'document_liveness',
        verification_id: started.verificationId,
        name_match: null,
      });
      const v0 = await getVerificationApi(a.keys.secret_test, started.verificationId);
      assert.equal(v0.status, 'pending');
      assert.equal(v0.completed_at, null);

      // The page: bilingual, escaped, protected.
      const shown = await page('GET', started.url);
      assert.equal(shown.status, 200);
      assert.match(shown.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
      assert.match(shown.headers.get('content-security-policy') ?? '', /default-src 'none'.*form-action 'self'.*frame-ancestors 'none'/);
      assert.equal(shown.headers.get('referrer-policy'), 'same-origin');
      assert.equal(shown.headers.get('cache-control'), 'no-store');
      assert.match(shown.text, /<html lang="ar" dir="rtl">/);
      assert.match(shown.text, /محاكاة التحقق من الهوية/);
      assert.match(shown.text, /Identity verification simulation/);
      assert.match(shown.text, /Amira Saleh/);
      assert.match(shown.text, /value="approve">اعتماد · <span lang="en">Approve<\/span>/);
      assert.match(shown.text, /value="decline">رفض · <span lang="en">Decline<\/span>/);
      assert.doesNotMatch(shown.text, /<script/i);
      const { action, fields } = formOf(shown.text);
      assert.equal(action, `/identity/simulate/${started.verificationId}`, 'the form posts to the same origin');
      assert.equal(fields.token, url.searchParams.get('token'));
      assert.equal(fields.return_url, 'https://shop.example.com/after?x=1&y=2');

      const done = await page('POST', action, { form: { ...fields, decision: 'approve' } });
      assert.equal(done.status, 200, done.text);
      assert.match(done.text, /اعتُمد التحقق من الهوية/);
      assert.match(done.text, /The identity verification was approved/);
      assert.match(done.text, /<a href="https:\/\/shop\.example\.com\/after\?x=1&amp;y=2">/);

      const signer = await getSigner(a.keys.secret_test, signerId);
      assert.equal(signer.status, 'identity_verified');
      assert.deepEqual(signer.identity, {
        status: 'approved',
        provider: 'simulation',
        level: 'document_liveness',
        verification_id: started.verificationId,
        name_match: { state: 'match', sent_name: 'Amira Saleh', document_name: 'Amira Saleh' },
      });
      assert.deepEqual(await identityEvents(a.keys.secret_test, sr.id), ['signer.identity_verified']);
      const [evt] = await eventsOf(a.keys.secret_test, sr.id, 'signer.identity_verified');
      assert.equal(evt.livemode, false);
      assert.equal(evt.data.object.id, signerId);
      assert.equal(evt.data.object.identity.status, 'approved');

      const v = await getVerificationApi(a.keys.secret_test, started.verificationId);
      assert.deepEqual(Object.keys(v).sort(), [
        'completed_at',
        'created_at',
        'id',
        'level',
        'livemode',
        'name_match',
        'object',
        'provider',
        'signature_request',
        'signer',
        'status',
        'updated_at',
      ]);
      assert.equal(v.object, 'identity_verification');
      assert.equal(v.status, 'approved');
      assert.equal(v.provider, 'simulation');
      assert.equal(v.signer, signerId);
      assert.equal(v.signature_request, sr.id);
      assert.equal(v.livemode, false);
      assert.equal(v.completed_at, now());
      assert.deepEqual(v.name_match, {
        state: 'match',
        sent_name: 'Amira Saleh',
        document_name: 'Amira Saleh',
        document_type: 'simulated_id',
        document_last4: '0000',
        mode: null,
        decision: null,
        decided_at: null,
      });

      // The same button again: already decided (HTML for a browser, the envelope for JSON clients).
      const again = await page('POST', action, { form: { ...fields, decision: 'decline' } });
      assert.equal(again.status, 409);
      assert.match(again.text, /هذا التحقق من الهوية له نتيجة بالفعل/);
      assert.match(again.text, /This identity verification already has a result/);
      await assertErrorBothLanguages(
        (prefix) =>
          page('POST', action, {
            form: { ...fields, decision: 'decline' },
            headers: { accept: 'application/json', ...(prefix.startsWith('/en') ? { 'accept-language': 'en' } : {}) },
          }),
        'invalid_state',
      );
      const reopened = await page('GET', started.url);
      assert.equal(reopened.status, 200);
      assert.match(reopened.text, /The identity verification was approved/);
      assert.doesNotMatch(reopened.text, /<form/, 'a decided verification has no buttons');
      assert.deepEqual(await identityEvents(a.keys.secret_test, sr.id), ['signer.identity_verified'], 'nothing fired twice');

      await move(signerId, 'sign');
      assert.equal((await getSigner(a.keys.secret_test, signerId)).status, 'signed');
    });

    test('decline → signer.identity_declined and signing refused; a later verification can still be approved', async () => {
      const a = await account();
      const sr = await aesRequest(a, a.keys.secret_test);
      const signerId = sr.signers[0].id;
      await move(signerId, 'otp_verified');
      const first = await startIdentityVerification(s.ctx, signerId);
      const declined = await pressOnPage(first.url, 'decline');
      assert.equal(declined.status, 200);
      assert.match(declined.text, /The identity verification was declined/);
      assert.match(declined.text, /You can close this page/);

      let signer = await getSigner(a.keys.secret_test, signerId);
      assert.equal(signer.status, 'otp_verified');
      assert.equal(signer.identity.status, 'declined');
      await refused(() => move(signerId, 'sign'), 'identity_declined');
      assert.deepEqual(await identityEvents(a.keys.secret_test, sr.id), ['signer.identity_declined']);
      assert.equal((await getVerificationApi(a.keys.secret_test, first.verificationId)).status, 'declined');

      // "declined: unless a later verification is approved" (spec 3.2)
      const second = await startIdentityVerification(s.ctx, signerId);
      assert.notEqual(second.verificationId, first.verificationId);
      const result = await simulateIdentityDecision(s.ctx, signerId, 'approve');
      assert.equal(result.outcome, 'applied');
      assert.equal(result.event, 'signer.identity_verified');
      signer = await getSigner(a.keys.secret_test, signerId);
      assert.equal(signer.identity.status, 'approved');
      assert.equal(signer.identity.verification_id, second.verificationId);
      assert.equal((await getVerificationApi(a.keys.secret_test, first.verificationId)).status, 'declined', 'the first keeps its result');
      assert.deepEqual(await identityEvents(a.keys.secret_test, sr.id), ['signer.identity_declined', 'signer.identity_verified']);
      await move(signerId, 'sign');
    });

    test('starting twice resumes the same pending verification; start is refused where identity cannot start', async () => {
      const a = await account();
      const sr = await aesRequest(a, a.keys.secret_test, ['Amira Saleh', 'Bassem Nour'], { ordered: true });
      const [first, second] = sr.signers.map((x: Json) => x.id);
      await move(first, 'otp_verified');
      const one = await startIdentityVerification(s.ctx, first);
      const two = await startIdentityVerification(s.ctx, first);
      assert.equal(two.verificationId, one.verificationId);
      const count = await s.ctx.store.db.selectFrom('identity_verifications').select('id').where('signer_id', '=', first).execute();
      assert.equal(count.length, 1);

      await refused(() => startIdentityVerification(s.ctx, second), 'not_your_turn');
      await simulateIdentityDecision(s.ctx, one.verificationId, 'approve');
      await refused(() => startIdentityVerification(s.ctx, first), 'identity_not_startable');
      await assert.rejects(
        () => startIdentityVerification(s.ctx, first, { returnUrl: 'javascript:alert(1)' }),
        (err: unknown) => err instanceof ApiError && err.code === 'parameter_invalid',
      );
      await assert.rejects(
        () => startIdentityVerification(s.ctx, 'sgr_unknown'),
        (err: unknown) => err instanceof ApiError && err.code === 'not_found',
      );

      // A signer without identity (ses request) and a closed request.
      const ses = await s.call('POST', '/signature_requests', {
        key: a.keys.secret_test,
        body: {
          title: 'Simple',
          source: { type: 'template', template_id: a.template },
          signers: [{ name: 'Amira Saleh', email: TEAM[0] }],
        },
      });
      assert.equal(ses.status, 201, ses.text);
      await move(ses.body.signers[0].id, 'otp_verified');
      await refused(() => startIdentityVerification(s.ctx, ses.body.signers[0].id), 'identity_not_required');
      const closed = await aesRequest(a, a.keys.secret_test);
      await move(closed.signers[0].id, 'otp_verified');
      const canceled = await s.call('POST', `/signature_requests/${closed.id}/cancel`, { key: a.keys.secret_test });
      assert.equal(canceled.status, 200, canceled.text);
      await refused(() => startIdentityVerification(s.ctx, closed.signers[0].id), 'request_not_open');
    });

    test('a name typed on the simulation page tries the name match in test mode (hold by default)', async () => {
      const a = await account();
      const sr = await aesRequest(a, a.keys.secret_test, ['Amira Saleh']);
      const signerId = sr.signers[0].id;
      await move(signerId, 'otp_verified');
      const started = await startIdentityVerification(s.ctx, signerId);
      const done = await pressOnPage(started.url, 'approve', 'أميرة صالح');
      assert.equal(done.status, 200, done.text);
      const signer = await getSigner(a.keys.secret_test, signerId);
      assert.equal(signer.identity.status, 'match_hold');
      const [hold] = await eventsOf(a.keys.secret_test, sr.id, 'signer.identity_match_hold');
      assert.deepEqual(hold.data.object.identity_match, {
        sent_name: 'Amira Saleh',
        document_name: 'أميرة صالح',
        document_type: 'simulated_id',
        document_last4: '0000',
      });
    });

    test('the simulation page escapes a hostile signer name', async () => {
      const a = await account();
      const hostile = '<script>alert(1)</script>" onfocus="alert(2)';
      const sr = await aesRequest(a, a.keys.secret_test, [hostile]);
      const signerId = sr.signers[0].id;
      await move(signerId, 'otp_verified');
      const started = await startIdentityVerification(s.ctx, signerId);
      const shown = await page('GET', started.url);
      assert.equal(shown.status, 200);
      assert.doesNotMatch(shown.text, /<script/i);
      assert.doesNotMatch(shown.text, /" onfocus="/);
      assert.match(shown.text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot; onfocus=&quot;alert\(2\)/);
      assert.match(
        shown.text,
        /value="&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot; onfocus=&quot;alert\(2\)"/,
        'escaped inside the attribute too',
      );
      // Pressing Approve keeps the name exactly: a match, not a mismatch.
      await pressOnPage(started.url, 'approve');
      const signer = await getSigner(a.keys.secret_test, signerId);
      assert.equal(signer.identity.status, 'approved');
      assert.equal(signer.identity.name_match.document_name, hostile);
    });

    test('the page is only usable by the signer: forged, expired or foreign tokens, cross-site posts, unknown or live ids are refused', async () => {
      const a = await account();
      const sr = await aesRequest(a, a.keys.secret_test, ['Amira Saleh', 'Bassem Nour']);
      const [aId, bId] = sr.signers.map((x: Json) => x.id);
      await move(aId, 'otp_verified');
      await move(bId, 'otp_verified');
      const mine = await startIdentityVerification(s.ctx, aId);
      const other = await startIdentityVerification(s.ctx, bId);
      const token = new URL(mine.url).searchParams.get('token')!;
      const otherToken = new URL(other.url).searchParams.get('token')!;
      const path = `/identity/simulate/${mine.verificationId}`;
      const json = (prefix: string): Record<string, string> => ({
        accept: 'application/json',
        ...(prefix.startsWith('/en') ? { 'accept-language': 'en' } : {}),
      });

      const forged = `${token.split('.')[0]}.${'A'.repeat(43)}`;
      for (const bad of [forged, otherToken, '', 'nonsense', `${Number(token.split('.')[0]) + 10}.${token.split('.')[1]}`]) {
        const r = await assertErrorBothLanguages(
          (prefix) => page('GET', `${path}?token=${encodeURIComponent(bad)}`, { headers: json(prefix) }),
          'forbidden',
        );
        assert.equal(r.body.error.param, 'token');
        await assertErrorBothLanguages(
          (prefix) => page('POST', path, { form: { token: bad, decision: 'approve' }, headers: json(prefix) }),
          'forbidden',
        );
      }
      // A return URL that was not signed with the token.
      await assertErrorBothLanguages(
        (prefix) =>
          page('GET', `${path}?token=${token}&return_url=${encodeURIComponent('https://evil.example/')}`, { headers: json(prefix) }),
        'forbidden',
      );
      // The browser view of a refusal: an HTML page in both languages.
      const html = await page('GET', `${path}?token=${forged}`);
      assert.equal(html.status, 403);
      assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(html.text, /رابط التحقق هذا غير صالح أو منتهي الصلاحية/);
      assert.match(html.text, /This verification link is not valid or has expired/);

      // A cross-site POST with the right token is still refused (defence in depth).
      await assertErrorBothLanguages(
        (prefix) =>
          page('POST', path, { form: { token, decision: 'approve' }, headers: { ...json(prefix), origin: 'https://evil.example' } }),
        'forbidden',
      );
      await assertErrorBothLanguages(
        (prefix) =>
          page('POST', path, { form: { token, decision: 'approve' }, headers: { ...json(prefix), 'sec-fetch-site': 'cross-site' } }),
        'forbidden',
      );
      await assertErrorBothLanguages(
        (prefix) => page('POST', path, { form: { token, decision: 'approve' }, headers: { ...json(prefix), origin: 'null' } }),
        'forbidden',
      );
      // Malformed posts.
      await assertErrorBothLanguages(
        (prefix) => page('POST', path, { form: { decision: 'approve' }, headers: json(prefix) }),
        'parameter_missing',
      );
      await assertErrorBothLanguages(
        (prefix) => page('POST', path, { form: { token, decision: 'maybe' }, headers: json(prefix) }),
        'parameter_invalid',
      );
      // Unknown verification.
      await assertErrorBothLanguages(
        (prefix) => page('GET', `/identity/simulate/idv_unknown?token=${token}`, { headers: json(prefix) }),
        'not_found',
      );

      // Nothing changed.
      assert.equal((await getSigner(a.keys.secret_test, aId)).identity.status, 'required');
      assert.deepEqual(await identityEvents(a.keys.secret_test, sr.id), []);

      // A same-origin POST with the right token works.
      const ok = await page('POST', path, {
        form: { token, decision: 'approve' },
        headers: { origin: s.url, 'sec-fetch-site': 'same-origin' },
      });
      assert.equal(ok.status, 200, ok.text);

      // The link expires after an hour.
      s.clock.advanceSeconds(3601);
      await assertErrorBothLanguages(
        (prefix) => page('GET', `/identity/simulate/${other.verificationId}?token=${otherToken}`, { headers: json(prefix) }),
        'forbidden',
      );
      const fresh = await startIdentityVerification(s.ctx, bId);
      assert.equal(fresh.verificationId, other.verificationId, 'a new link for the same verification');
      assert.equal((await page('GET', fresh.url)).status, 200);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('live mode: the generic provider', () => {
    async function liveStarted(names: string[] = ['Amira Saleh'], returnUrl: string | null = 'https://shop.example.com/back') {
      const a = await account();
      const sr = await aesRequest(a, a.keys.secret_live, names);
      const signerId = sr.signers[0].id;
      await move(signerId, 'otp_verified');
      const started = await startIdentityVerification(s.ctx, signerId, { returnUrl });
      const session = peer.sessionFor(started.verificationId);
      assert.ok(session, 'the provider has a session for our reference');
      return { a, sr, signerId, started, session, key: a.keys.secret_live };
    }

    test('start opens a hosted verification with the bearer key and returns its URL; in_review → resubmission → approved', async () => {
      const before = peer.requests.length;
      const { sr, signerId, started, session, key } = await liveStarted();
      assert.equal(started.url, `${peer.url}/verify/${session.id}`);
      const sent = peer.requests.slice(before);
      assert.equal(sent.length, 1);
      assert.equal(sent[0]!.authorization, `Bearer ${peer.apiKey}`);
      assert.deepEqual(sent[0]!.body, {
        reference: started.verificationId,
        expected_name: 'Amira Saleh',
        level: 'document_liveness',
        callback_url: `${s.url}/identity/callbacks/generic`,
        return_url: 'https://shop.example.com/back',
      });
      const v0 = await getVerificationApi(key, started.verificationId);
      assert.equal(v0.provider, 'generic');
      assert.equal(v0.livemode, true);
      assert.equal(v0.status, 'pending');
      const stored = await s.ctx.store.tx((trx) => getVerification(trx, started.verificationId));
      assert.equal(stored!.provider_reference, session.id);

      const review = await peer.callback(session.id, 'in_review');
      assert.equal(review.status, 200, review.text);
      assert.deepEqual(review.body, { received: true, outcome: 'applied', status: 'in_review' });
      let signer = await getSigner(key, signerId);
      assert.equal(signer.identity.status, 'in_review');
      assert.equal(signer.status, 'otp_verified');
      await refused(() => move(signerId, 'sign'), 'identity_in_review');
      await refused(() => startIdentityVerification(s.ctx, signerId), 'identity_in_review');

      s.clock.advanceSeconds(600);
      const redo = await peer.callback(session.id, 'resubmission_requested');
      assert.equal(redo.status, 200, redo.text);
      assert.equal((await getSigner(key, signerId)).identity.status, 'resubmission_requested');
      await refused(() => move(signerId, 'sign'), 'identity_required');
      // The signer goes back to the same provider session.
      const resumed = await startIdentityVerification(s.ctx, signerId, { returnUrl: 'https://shop.example.com/back' });
      assert.equal(resumed.verificationId, started.verificationId);
      assert.equal(resumed.url, started.url);
      assert.equal(session.opened, 2);
      assert.equal(peer.sessions.size >= 1, true);

      await peer.callback(session.id, 'in_review');
      s.clock.advanceSeconds(600);
      const ok = await peer.callback(session.id, 'approved', {
        document: { name: 'AMIRA  SALEH', type: 'passport', number_last4: 'A1234' },
      });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.outcome, 'applied');

      signer = await getSigner(key, signerId);
      assert.equal(signer.status, 'identity_verified');
      assert.deepEqual(signer.identity, {
        status: 'approved',
        provider: 'generic',
        level: 'document_liveness',
        verification_id: started.verificationId,
        name_match: { state: 'match', sent_name: 'Amira Saleh', document_name: 'AMIRA  SALEH' },
      });
      assert.deepEqual(await identityEvents(key, sr.id), [
        'signer.identity_in_review',
        'signer.identity_resubmission_requested',
        'signer.identity_in_review',
        'signer.identity_verified',
      ]);
      const v = await getVerificationApi(key, started.verificationId);
      assert.equal(v.status, 'approved');
      assert.equal(v.completed_at, now());
      assert.equal(v.updated_at, now());
      assert.ok(v.created_at < v.completed_at);
      assert.equal(v.name_match.document_type, 'passport');
      assert.equal(v.name_match.document_last4, '1234', 'only the last four characters are kept');
      assert.doesNotMatch(JSON.stringify(v), /A1234/);

      await move(signerId, 'sign');
      const done = await s.call('GET', `/signature_requests/${sr.id}`, { key });
      assert.equal(done.body.status, 'completed');
    });

    test('a forged, tampered, unsigned, stale or future callback is refused (400) and changes nothing', async () => {
      const { sr, signerId, started, session, key } = await liveStarted();
      const before = await eventTypes(key, sr.id);
      const lang = (prefix: string): Record<string, string> => (prefix.startsWith('/en') ? { 'accept-language': 'en' } : {});
      const cases: [string, Parameters<IdentityProviderPeer['callback']>[2]][] = [
        ['signature_invalid', { secret: 'not-the-shared-secret-at-all' }],
        ['signature_invalid', { tamper: (b) => b.replace('"approved"', '"declined"') }],
        ['signature_missing', { signatureHeader: null }],
        ['signature_missing', { signatureHeader: 'garbage' }],
        ['signature_missing', { signatureHeader: `t=${now()}` }],
        ['timestamp_stale', { timestamp: now() - 301 }],
        ['timestamp_stale', { timestamp: now() + 301 }],
      ];
      for (const [reason, opts] of cases) {
        const r = await assertErrorBothLanguages(
          (prefix) => peer.callback(session.id, 'approved', { ...opts, headers: lang(prefix) }),
          'parameter_invalid',
        );
        assert.equal(r.body.error.reason, reason, JSON.stringify(opts));
        assert.equal(r.body.error.param, 'X-Provider-Signature');
      }
      // A well-signed body that is not a result.
      const t = now();
      const junk = JSON.stringify({ id: session.id, status: 'maybe' });
      const bad = await assertErrorBothLanguages(
        (prefix) =>
          fetch(session.callback_url, {
            method: 'POST',
            headers: { 'x-provider-signature': signProviderPayload(peer.callbackSecret, t, junk), ...lang(prefix) },
            body: junk,
          }).then(toCall),
        'parameter_invalid',
      );
      assert.equal(bad.body.error.reason, 'body_invalid');

      assert.deepEqual(await eventTypes(key, sr.id), before, 'no event');
      assert.equal((await getSigner(key, signerId)).identity.status, 'required');
      assert.equal((await getVerificationApi(key, started.verificationId)).status, 'pending');

      // Inside the tolerance (300 s) the same result is accepted.
      const edge = await peer.callback(session.id, 'approved', {
        timestamp: now() - 300,
        document: { name: 'Amira Saleh', type: 'national_id', number_last4: '9876' },
      });
      assert.equal(edge.status, 200, edge.text);
      assert.equal((await getSigner(key, signerId)).identity.status, 'approved');
    });

    test('a repeated callback emits no duplicate event; a result after the final one is ignored; unknown ids are 404', async () => {
      const { sr, signerId, session, key } = await liveStarted();
      const doc = { name: 'Amira Saleh', type: 'national_id', number_last4: '4321' };
      assert.equal((await peer.callback(session.id, 'in_review')).body.outcome, 'applied');
      assert.equal((await peer.callback(session.id, 'in_review')).body.outcome, 'duplicate');
      assert.equal((await peer.callback(session.id, 'approved', { document: doc })).body.outcome, 'applied');
      const again = await peer.callback(session.id, 'approved', { document: doc, omitReference: true });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, { received: true, outcome: 'duplicate', status: 'approved' });
      const late = await peer.callback(session.id, 'declined');
      assert.deepEqual(late.body, { received: true, outcome: 'ignored', status: 'approved' });
      assert.deepEqual(await identityEvents(key, sr.id), ['signer.identity_in_review', 'signer.identity_verified']);
      assert.equal((await getSigner(key, signerId)).identity.status, 'approved');

      // A signed callback for a session we never opened, and an adapter we do not run.
      const body = JSON.stringify({ id: 'pv_nobody', status: 'approved' });
      const lang = (prefix: string): Record<string, string> => (prefix.startsWith('/en') ? { 'accept-language': 'en' } : {});
      await assertErrorBothLanguages(
        (prefix) =>
          fetch(session.callback_url, {
            method: 'POST',
            headers: { 'x-provider-signature': signProviderPayload(peer.callbackSecret, now(), body), ...lang(prefix) },
            body,
          }).then(toCall),
        'not_found',
      );
      await assertErrorBothLanguages(
        (prefix) =>
          fetch(`${s.url}/identity/callbacks/other`, {
            method: 'POST',
            headers: { 'x-provider-signature': signProviderPayload(peer.callbackSecret, now(), body), ...lang(prefix) },
            body,
          }).then(toCall),
        'not_found',
      );
    });

    test('in_review → declined → signer.identity_declined; signing refused', async () => {
      const { sr, signerId, session, key } = await liveStarted();
      await peer.callback(session.id, 'in_review');
      await peer.callback(session.id, 'declined');
      assert.deepEqual(await identityEvents(key, sr.id), ['signer.identity_in_review', 'signer.identity_declined']);
      await refused(() => move(signerId, 'sign'), 'identity_declined');
      // A result not allowed from pending (resubmission before review) is ignored.
      const other = await liveStarted();
      const r = await peer.callback(other.session.id, 'resubmission_requested');
      assert.deepEqual(r.body, { received: true, outcome: 'ignored', status: 'pending' });
      assert.deepEqual(await identityEvents(other.key, other.sr.id), []);
    });

    test('a provider failure is a retryable error; the retry resumes the same verification', async () => {
      const a = await account();
      const sr = await aesRequest(a, a.keys.secret_live);
      const signerId = sr.signers[0].id;
      await move(signerId, 'otp_verified');
      peer.failNext(1, 503);
      await assert.rejects(
        () => startIdentityVerification(s.ctx, signerId),
        (err: unknown) => {
          assert.ok(err instanceof ApiError);
          assert.equal(err.code, 'identity_provider_unavailable');
          return true;
        },
      );
      const retried = await startIdentityVerification(s.ctx, signerId);
      const count = await s.ctx.store.db.selectFrom('identity_verifications').select('id').where('signer_id', '=', signerId).execute();
      assert.deepEqual(
        count.map((r) => r.id),
        [retried.verificationId],
      );
      assert.ok(peer.sessionFor(retried.verificationId));
    });

    test('the adapter: a wrong bearer key or an unreachable provider is ProviderUnavailable; signatures are checked with the injected clock', async () => {
      const wrong = new GenericProvider({ baseUrl: peer.url, apiKey: 'wrong', callbackSecret: 'x'.repeat(16), clock: s.clock });
      const input = { reference: 'idv_x', expectedName: 'A', level: 'document_liveness', callbackUrl: `${s.url}/cb`, returnUrl: null };
      await assert.rejects(() => wrong.createVerification(input), ProviderUnavailable);
      assert.equal(peer.requests.at(-1)!.status, 401);
      const nowhere = new GenericProvider({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', callbackSecret: 'x'.repeat(16), clock: s.clock });
      await assert.rejects(() => nowhere.createVerification(input), ProviderUnavailable);

      const body = Buffer.from('{"a":1}');
      const header = signPayload('secret-secret-secret', now(), body);
      assert.doesNotThrow(() => verifySignature('secret-secret-secret', header, body, s.clock));
      // Two v1 values (secret rotation): either may match.
      const rotated = `${header},v1=${'0'.repeat(64)}`;
      assert.doesNotThrow(() => verifySignature('secret-secret-secret', rotated, body, s.clock));
      assert.throws(
        () => verifySignature('other-secret-secret', header, body, s.clock),
        (e: unknown) => e instanceof CallbackRejected && e.reason === 'signature_invalid',
      );
      s.clock.advanceSeconds(301);
      assert.throws(
        () => verifySignature('secret-secret-secret', header, body, s.clock),
        (e: unknown) => e instanceof CallbackRejected && e.reason === 'timestamp_stale',
      );
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('name match: hold, decision, record', () => {
    async function heldSigner(documentName = 'Amira Salah') {
      const a = await account();
      const sr = await aesRequest(a, a.keys.secret_live, ['أميرة صالح']);
      const signerId = sr.signers[0].id;
      await move(signerId, 'otp_verified');
      const started = await startIdentityVerification(s.ctx, signerId);
      const r = await peer.callback(started.verificationId, 'approved', {
        document: { name: documentName, type: 'national_id', number_last4: '29001011234567' },
      });
      assert.equal(r.status, 200, r.text);
      return { a, sr, signerId, started, key: a.keys.secret_live };
    }

    test('a mismatch holds signing: signer.identity_match_hold with both names, document type and last four digits', async () => {
      const { sr, signerId, started, key } = await heldSigner();
      const signer = await getSigner(key, signerId);
      assert.equal(signer.status, 'otp_verified');
      assert.equal(signer.identity.status, 'match_hold');
      assert.deepEqual(signer.identity.name_match, { state: 'mismatch', sent_name: 'أميرة صالح', document_name: 'Amira Salah' });
      await refused(() => move(signerId, 'sign'), 'identity_match_hold');
      assert.deepEqual(await identityEvents(key, sr.id), ['signer.identity_match_hold']);
      const [hold] = await eventsOf(key, sr.id, 'signer.identity_match_hold');
      assert.deepEqual(hold.data.object.identity_match, {
        sent_name: 'أميرة صالح',
        document_name: 'Amira Salah',
        document_type: 'national_id',
        document_last4: '4567',
      });
      assert.doesNotMatch(JSON.stringify(hold), /29001011234567/, 'never the full document number');
      const v = await getVerificationApi(key, started.verificationId);
      assert.equal(v.status, 'approved');
      assert.deepEqual(v.name_match, {
        state: 'mismatch',
        sent_name: 'أميرة صالح',
        document_name: 'Amira Salah',
        document_type: 'national_id',
        document_last4: '4567',
        mode: 'hold',
        decision: null,
        decided_at: null,
      });
      const row = await s.ctx.store.db
        .selectFrom('identity_verifications')
        .selectAll()
        .where('id', '=', started.verificationId)
        .executeTakeFirstOrThrow();
      assert.doesNotMatch(JSON.stringify(row), /29001011234567/, 'the store never holds the full number');
    });

    test('POST /signers/{id}/identity_match approve → signer.identity_match_decided (approved); signing resumes', async () => {
      const { sr, signerId, started, key } = await heldSigner();
      s.clock.advanceSeconds(60);
      const r = await s.call('POST', `/signers/${signerId}/identity_match`, { key, body: { decision: 'approve' } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.object, 'signer');
      assert.equal(r.body.id, signerId);
      assert.equal(r.body.status, 'identity_verified');
      assert.equal(r.body.identity.status, 'approved');
      assert.deepEqual(r.body.identity.name_match, { state: 'mismatch', sent_name: 'أميرة صالح', document_name: 'Amira Salah' });
      assert.deepEqual(await identityEvents(key, sr.id), ['signer.identity_match_hold', 'signer.identity_match_decided']);
      const [decided] = await eventsOf(key, sr.id, 'signer.identity_match_decided');
      assert.deepEqual(decided.data.object.identity_match, {
        decision: 'approved',
        sent_name: 'أميرة صالح',
        document_name: 'Amira Salah',
        document_type: 'national_id',
        document_last4: '4567',
      });
      const v = await getVerificationApi(key, started.verificationId);
      assert.equal(v.name_match.decision, 'approved');
      assert.equal(v.name_match.decided_at, now());

      // Deciding again: the signer is no longer held.
      const again = await assertErrorBothLanguages(
        (prefix) => s.call('POST', `/signers/${signerId}/identity_match`, { key, body: { decision: 'reject' }, prefix }),
        'invalid_state',
      );
      assert.equal(again.body.error.reason, 'not_on_hold');
      await move(signerId, 'sign');
      assert.equal((await getSigner(key, signerId)).status, 'signed');
    });

    test('reject → signer.identity_match_decided (rejected); signing stops for that signer', async () => {
      const { sr, signerId, key } = await heldSigner();
      const r = await s.call('POST', `/signers/${signerId}/identity_match`, { key, body: { decision: 'reject' } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.identity.status, 'match_rejected');
      assert.equal(r.body.status, 'otp_verified');
      const [decided] = await eventsOf(key, sr.id, 'signer.identity_match_decided');
      assert.equal(decided.data.object.identity_match.decision, 'rejected');
      await refused(() => move(signerId, 'sign'), 'identity_match_rejected');
      await refused(() => startIdentityVerification(s.ctx, signerId), 'identity_not_startable');
    });

    test('with the account set to record (tawqi account set --identity-match record): no hold, the mismatch is recorded', async () => {
      const a = await account();
      const cli = await runCli('account', 'set', a.id, '--identity-match', 'record', '--json');
      assert.equal(cli.code, 0, cli.stderr);
      assert.equal(JSON.parse(cli.stdout).account.identity_match_mode, 'record');
      const sr = await aesRequest(a, a.keys.secret_live, ['Ali Hassan']);
      const signerId = sr.signers[0].id;
      await move(signerId, 'otp_verified');
      const started = await startIdentityVerification(s.ctx, signerId);
      await peer.callback(started.verificationId, 'approved', { document: { name: 'Hassan Ali', type: 'passport', number_last4: '7788' } });
      const signer = await getSigner(a.keys.secret_live, signerId);
      assert.equal(signer.status, 'identity_verified');
      assert.equal(signer.identity.status, 'approved');
      assert.deepEqual(signer.identity.name_match, { state: 'mismatch', sent_name: 'Ali Hassan', document_name: 'Hassan Ali' });
      assert.deepEqual(await identityEvents(a.keys.secret_live, sr.id), ['signer.identity_verified']);
      const [verified] = await eventsOf(a.keys.secret_live, sr.id, 'signer.identity_verified');
      assert.deepEqual(verified.data.object.identity_match, {
        sent_name: 'Ali Hassan',
        document_name: 'Hassan Ali',
        document_type: 'passport',
        document_last4: '7788',
      });
      const v = await getVerificationApi(a.keys.secret_live, started.verificationId);
      assert.equal(v.name_match.state, 'mismatch');
      assert.equal(v.name_match.mode, 'record');
      assert.equal(v.name_match.decision, null);
      const notHeld = await assertErrorBothLanguages(
        (prefix) =>
          s.call('POST', `/signers/${signerId}/identity_match`, { key: a.keys.secret_live, body: { decision: 'approve' }, prefix }),
        'invalid_state',
      );
      assert.equal(notHeld.body.error.reason, 'not_on_hold');
      await move(signerId, 'sign');

      const back = await runCli('account', 'set', a.id, '--identity-match', 'maybe');
      assert.equal(back.code, 1);
      assert.match(back.stderr, /--identity-match/);
    });

    test('POST /signers/{id}/identity_match: body errors, another account or mode, publishable keys', async () => {
      const { a, signerId, key } = await heldSigner();
      const stranger = await account();
      const path = `/signers/${signerId}/identity_match`;
      const missing = await assertErrorBothLanguages((prefix) => s.call('POST', path, { key, body: {}, prefix }), 'parameter_missing');
      assert.equal(missing.body.error.param, 'decision');
      const invalid = await assertErrorBothLanguages(
        (prefix) => s.call('POST', path, { key, body: { decision: 'approved' }, prefix }),
        'parameter_invalid',
      );
      assert.equal(invalid.body.error.param, 'decision');
      await assertErrorBothLanguages(
        (prefix) => s.call('POST', path, { key, body: { decision: 'approve', note: 'x' }, prefix }),
        'parameter_unknown',
      );
      await assertErrorBothLanguages(
        (prefix) => s.call('POST', path, { key: stranger.keys.secret_live, body: { decision: 'approve' }, prefix }),
        'not_found',
      );
      await assertErrorBothLanguages(
        (prefix) => s.call('POST', path, { key: a.keys.secret_test, body: { decision: 'approve' }, prefix }),
        'not_found',
      );
      await assertErrorBothLanguages(
        (prefix) => s.call('POST', '/signers/sgr_unknown/identity_match', { key, body: { decision: 'approve' }, prefix }),
        'not_found',
      );
      await assertErrorBothLanguages(
        (prefix) =>
          s.call('POST', path, {
            key: a.keys.publishable_live,
            body: { decision: 'approve' },
            prefix,
            headers: { origin: 'https://shop.example.com' },
          }),
        'forbidden',
      );
      assert.equal((await getSigner(key, signerId)).identity.status, 'match_hold', 'still held');
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('GET /identity_verifications/{id}', () => {
    test('scoped to the key’s account and mode: 404 otherwise; publishable keys refused', async () => {
      const a = await account();
      const sr = await aesRequest(a, a.keys.secret_test);
      await move(sr.signers[0].id, 'otp_verified');
      const started = await startIdentityVerification(s.ctx, sr.signers[0].id);
      const stranger = await account();
      const path = `/identity_verifications/${started.verificationId}`;
      await getVerificationApi(a.keys.secret_test, started.verificationId);
      await assertErrorBothLanguages((prefix) => s.call('GET', path, { key: a.keys.secret_live, prefix }), 'not_found');
      await assertErrorBothLanguages((prefix) => s.call('GET', path, { key: stranger.keys.secret_test, prefix }), 'not_found');
      await assertErrorBothLanguages(
        (prefix) => s.call('GET', '/identity_verifications/idv_unknown', { key: a.keys.secret_test, prefix }),
        'not_found',
      );
      await assertErrorBothLanguages(
        (prefix) => s.call('GET', path, { key: a.keys.publishable_test, prefix, headers: { origin: 'https://shop.example.com' } }),
        'forbidden',
      );
      const noKey = await s.call('GET', path);
      assertError(noKey, 'api_key_missing');
    });

    test('is documented in the OpenAPI document with the identity_match decision field', async () => {
      const doc = (await s.call('GET', '/openapi.json')).body;
      assert.ok(doc.paths['/identity_verifications/{id}'].get);
      const post = doc.paths['/signers/{id}/identity_match'].post;
      const schema = post.requestBody.content['application/json'].schema;
      assert.deepEqual(schema.required, ['decision']);
      assert.deepEqual(schema.properties.decision.enum, ['approve', 'reject']);
    });
  });

  function runCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: s.dataDir };
    delete env.NODE_TEST_CONTEXT;
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--conditions=tawqi-source', '--import', 'tsx', 'server/src/cli/main.ts', ...args],
        { cwd: ROOT, env, encoding: 'utf8' },
        (err, stdout, stderr) => {
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
        },
      );
    });
  }
});

describe('identity settings', () => {
  test('the three provider settings go together; the URL must be https except on loopback', () => {
    const base = { DATA_DIR: '/tmp/x' };
    assert.throws(
      () => loadConfig({ ...base, TAWQI_IDENTITY_PROVIDER_URL: 'https://idp.example.com' }),
      (e: unknown) => e instanceof ConfigError && /must be set together/.test(e.message),
    );
    assert.throws(
      () =>
        loadConfig({
          ...base,
          TAWQI_IDENTITY_PROVIDER_URL: 'http://idp.example.com',
          TAWQI_IDENTITY_PROVIDER_KEY: 'k',
          TAWQI_IDENTITY_CALLBACK_SECRET: 's'.repeat(16),
        }),
      (e: unknown) => e instanceof ConfigError && /TAWQI_IDENTITY_PROVIDER_URL/.test(e.message),
    );
    assert.throws(
      () =>
        loadConfig({
          ...base,
          TAWQI_IDENTITY_PROVIDER_URL: 'https://idp.example.com',
          TAWQI_IDENTITY_PROVIDER_KEY: 'k',
          TAWQI_IDENTITY_CALLBACK_SECRET: 'short',
        }),
      (e: unknown) => e instanceof ConfigError && /TAWQI_IDENTITY_CALLBACK_SECRET/.test(e.message),
    );
    const ok = loadConfig({
      ...base,
      TAWQI_IDENTITY_PROVIDER_URL: 'http://127.0.0.1:4000',
      TAWQI_IDENTITY_PROVIDER_KEY: 'k',
      TAWQI_IDENTITY_CALLBACK_SECRET: 's'.repeat(16),
    });
    assert.equal(ok.TAWQI_IDENTITY_PROVIDER_URL, 'http://127.0.0.1:4000');
    assert.equal(loadConfig(base).TAWQI_IDENTITY_PROVIDER_URL, undefined);
  });

  test('without a provider, live verification cannot start (400 invalid_request) and test mode still works', async () => {
    const s = await startTestServer(LIMITS);
    try {
      const a = await s.account({ ownerEmail: TEAM[0], walletMinor: 100_000 });
      const tpl = await s.call('POST', '/templates', {
        key: a.keys.secret_live,
        body: { title: 'No provider', language: 'en', body: 'Agreed.' },
      });
      assert.equal(tpl.status, 201, tpl.text);
      const make = async (key: string) => {
        const r = await s.call('POST', '/signature_requests', {
          key,
          body: {
            source: { type: 'template', template_id: tpl.body.id },
            legal_level: 'aes',
            signers: [{ name: 'Amira', email: TEAM[0] }],
          },
        });
        assert.equal(r.status, 201, r.text);
        const id = r.body.signers[0].id as string;
        await s.ctx.store.tx((trx) => applySignerMove(s.ctx, trx, id, 'otp_verified', WHERE));
        return id;
      };
      const live = await make(a.keys.secret_live);
      await assert.rejects(
        () => startIdentityVerification(s.ctx, live),
        (err: unknown) => err instanceof ApiError && err.code === 'invalid_request' && /TAWQI_IDENTITY_PROVIDER_URL/.test(err.detail!.en),
      );
      const callback = await fetch(`${s.url}/identity/callbacks/generic`, { method: 'POST', body: '{}' });
      assert.equal(callback.status, 404);
      const test = await make(a.keys.secret_test);
      const started = await startIdentityVerification(s.ctx, test);
      assert.match(started.url, /\/identity\/simulate\/idv_/);
    } finally {
      await s.close();
    }
  });
});

async function toCall(res: Response): Promise<CallResult> {
  const text = await res.text();
  let body: Json;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}
