import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { updateAccount } from '../../server/src/store/accounts.js';
import { assertError } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { lastOtp, PageClient, pngDataUrl } from '../support/signing.js';

const TEAM = ['owner@example.com', 'sara@example.com', 'omar@example.com'];

async function makeTemplate(s: TestServer, key: string): Promise<string> {
  const r = await s.call('POST', '/templates', {
    key,
    body: {
      title: `Agreement ${Math.random()}`,
      language: 'en',
      body: 'Agreement with {{client}} for {{amount}}.',
      fields: [
        { key: 'client', label: 'Client', required: true },
        { key: 'amount', label: 'Amount', type: 'number' },
      ],
    },
  });
  assert.equal(r.status, 201, r.text);
  return r.body.id;
}

describe('the signer journey over the page API', () => {
  let s: TestServer;
  let keys: TestServer['keys'];
  let accountId: string;
  let template: string;
  before(async () => {
    s = await startTestServer();
    const acct = await s.account({ ownerEmail: TEAM[0], plan: 'enterprise', balanceSends: 100, walletMinor: 100_000 });
    await updateAccount(s.ctx.store.db, acct.id, { team_emails: TEAM, accepted_domains: ['example.com'] });
    keys = acct.keys;
    accountId = acct.id;
    template = await makeTemplate(s, keys.secret_test);
  });
  after(() => s.close());

  const create = async (
    extra: Record<string, unknown> = {},
    signers: Record<string, unknown>[] = [{ name: 'Sara', email: TEAM[1], fields: { client: 'Acme', amount: '100' } }],
    key = keys.secret_test,
  ) => {
    const r = await s.call('POST', '/signature_requests', {
      key,
      body: { title: 'Service <b>deal</b>', source: { type: 'template', template_id: template }, signers, ...extra },
    });
    assert.equal(r.status, 201, r.text);
    return r.body;
  };
  const eventsOf = async (id: string, key = keys.secret_test) =>
    (await s.call('GET', `/events?signature_request=${id}&limit=100`, { key })).body.data.map((e: { type: string }) => e.type).reverse();

  test('open → code → review → sign: the server enforces each step and the request completes', async () => {
    const sr = await create();
    const page = await PageClient.open(sr.signers[0].signing_url);
    assert.match(page.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    assert.match(page.html, /<html lang="en" dir="ltr">/);

    let st = await page.call('GET', '/state');
    assert.equal(st.status, 200);
    assert.equal(st.body.step, 'otp');
    assert.equal(st.body.livemode, false);
    assert.equal(st.body.document, null, 'no document before the code');
    assert.equal(st.body.otp.destination, 's***@example.com');

    // Skipping ahead is refused by the server.
    const early = await page.call('POST', '/sign', { signature: pngDataUrl(), consent: true });
    assert.equal(early.status, 409);
    assert.equal(early.body.error.code, 'invalid_state');

    st = await page.call('POST', '/view');
    st = await page.call('POST', '/view');
    assert.deepEqual(await eventsOf(sr.id), ['signature_request.sent', 'signer.sent', 'signature_request.viewed', 'signer.viewed']);

    st = await page.call('POST', '/otp/send');
    assert.equal(st.body.otp.sent, true);
    const resend = await page.call('POST', '/otp/send');
    assert.equal(resend.status, 429);
    assert.equal(resend.body.error.code, 'otp_too_soon');
    const code = await lastOtp(s, sr.signers[0].id);
    const wrong = await page.call('POST', '/otp/verify', { code: code === '000000' ? '111111' : '000000' });
    assert.equal(wrong.body.error.code, 'otp_invalid');
    assert.equal(wrong.body.error.attempts_left, 4);
    assert.doesNotMatch(wrong.body.error.message, /[\u0600-\u06FF]/, 'the page API answers in the request language');
    st = await page.call('POST', '/otp/verify', { code });
    assert.equal(st.status, 200, JSON.stringify(st.body));
    assert.equal(st.body.step, 'review');
    assert.equal(st.body.document.text, 'Agreement with Acme for 100.');

    const noConsent = await page.call('POST', '/sign', { signature: pngDataUrl(), consent: false });
    assert.equal(noConsent.body.error.code, 'parameter_invalid');
    const notPng = await page.call('POST', '/sign', {
      signature: 'data:image/png;base64,' + Buffer.from('<svg/>').toString('base64'),
      consent: true,
    });
    assert.equal(notPng.body.error.code, 'parameter_invalid');
    assert.equal(notPng.body.error.param, 'signature');

    st = await page.call('POST', '/sign', { signature: pngDataUrl(), consent: true }, { 'user-agent': 'JourneyTest/1.0' });
    assert.equal(st.status, 200, JSON.stringify(st.body));
    assert.equal(st.body.step, 'signed');
    const after = await s.call('GET', `/signature_requests/${sr.id}`, { key: keys.secret_test });
    assert.equal(after.body.status, 'completed');
    assert.match(after.body.reference, /^REF-/);
    assert.deepEqual((await eventsOf(sr.id)).slice(4), ['signer.otp_verified', 'signer.signed', 'signature_request.completed']);
    const signed = (await s.call('GET', '/events?type=signer.signed', { key: keys.secret_test })).body.data[0];
    assert.equal(signed.request.user_agent, 'JourneyTest/1.0');

    // The page session ended with the signature; a reopened link shows the final state and accepts nothing.
    const stale = await page.call('GET', '/state');
    assert.equal(stale.status, 401);
    assert.equal(stale.body.error.code, 'page_session_invalid');
    const again = await PageClient.open(sr.signers[0].signing_url);
    assert.equal((await again.call('GET', '/state')).body.step, 'signed');
    assert.equal((await again.call('POST', '/decline', {})).status, 409);
  });

  test('the one-time code locks after five wrong attempts and expires after ten minutes', async () => {
    const sr = await create();
    const page = await PageClient.open(sr.signers[0].signing_url);
    await page.call('POST', '/otp/send');
    const code = await lastOtp(s, sr.signers[0].id);
    const bad = code === '999999' ? '888888' : '999999';
    for (let i = 4; i >= 1; i--) assert.equal((await page.call('POST', '/otp/verify', { code: bad })).body.error.attempts_left, i);
    const locked = await page.call('POST', '/otp/verify', { code: bad });
    assert.equal(locked.status, 403);
    assert.equal(locked.body.error.code, 'otp_locked');
    assert.equal(
      (await page.call('POST', '/otp/verify', { code })).body.error.code,
      'otp_locked',
      'even the right code is refused once locked',
    );
    s.clock.advanceSeconds(60);
    await page.call('POST', '/otp/send');
    const fresh = await lastOtp(s, sr.signers[0].id);
    s.clock.advanceSeconds(600);
    assert.equal((await page.call('POST', '/otp/verify', { code: fresh })).body.error.code, 'otp_expired');
    await page.call('POST', '/otp/send');
    assert.equal((await page.call('POST', '/otp/verify', { code: await lastOtp(s, sr.signers[0].id) })).body.step, 'review');
  });

  test('access code: asked before anything else, limited attempts, never stored or sent in clear', async () => {
    const sr = await create({}, [{ name: 'Sara', email: TEAM[1], fields: { client: 'Acme' }, access_code: 'Secret-42' }]);
    const page = await PageClient.open(sr.signers[0].signing_url);
    assert.equal((await page.call('GET', '/state')).body.step, 'access_code');
    assert.equal((await page.call('POST', '/otp/send')).status, 409);
    const wrong = await page.call('POST', '/access_code', { code: 'nope' });
    assert.equal(wrong.body.error.code, 'access_code_invalid');
    assert.equal(wrong.body.error.attempts_left, 4);
    const ok = await page.call('POST', '/access_code', { code: 'Secret-42' });
    assert.equal(ok.body.step, 'otp');
    // Past the step, a code is not taken again (no attempt used, nothing granted).
    const again = await page.call('POST', '/access_code', { code: 'Secret-42' });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.reason, 'otp');
    const dump =
      JSON.stringify(await s.ctx.store.db.selectFrom('messages').selectAll().execute()) +
      JSON.stringify(await s.ctx.store.db.selectFrom('signers').selectAll().execute());
    assert.ok(!dump.includes('Secret-42'));
    // A new page load asks again; five wrong codes lock it.
    const other = await PageClient.open(sr.signers[0].signing_url);
    assert.equal((await other.call('GET', '/state')).body.step, 'access_code');
    for (let i = 0; i < 3; i++) await other.call('POST', '/access_code', { code: 'bad' });
    const locked = await other.call('POST', '/access_code', { code: 'bad' });
    assert.equal(locked.body.error.code, 'access_code_locked');
    assert.equal((await other.call('POST', '/access_code', { code: 'Secret-42' })).body.error.code, 'access_code_locked');
  });

  test('concurrent guesses cannot pass the attempt limit (access code and one-time code): the attempt is taken before the check', async () => {
    const sr = await create({}, [{ name: 'Sara', email: TEAM[1], fields: { client: 'Acme' }, access_code: 'Secret-42' }]);
    const page = await PageClient.open(sr.signers[0].signing_url);
    const guesses = await Promise.all(Array.from({ length: 8 }, (_, i) => page.call('POST', '/access_code', { code: `wrong-${i}` })));
    const codes = guesses.map((g) => g.body.error.code).sort();
    assert.deepEqual(
      codes,
      [...Array(4).fill('access_code_invalid'), ...Array(4).fill('access_code_locked')],
      'four refused with attempts left, the fifth locks, the rest find it locked',
    );
    assert.deepEqual(
      guesses
        .filter((g) => g.body.error.code === 'access_code_invalid')
        .map((g) => g.body.error.attempts_left)
        .sort(),
      [1, 2, 3, 4],
    );
    assert.equal(
      (await page.call('POST', '/access_code', { code: 'Secret-42' })).body.error.code,
      'access_code_locked',
      'the right code comes too late',
    );

    const other = await create();
    const otpPage = await PageClient.open(other.signers[0].signing_url);
    await otpPage.call('POST', '/otp/send');
    const code = await lastOtp(s, other.signers[0].id);
    const bad = (n: number) => String((Number(code) + 1 + n) % 1_000_000).padStart(6, '0');
    const tries = await Promise.all(Array.from({ length: 8 }, (_, i) => otpPage.call('POST', '/otp/verify', { code: bad(i) })));
    assert.deepEqual(tries.map((t) => t.body.error.code).sort(), [...Array(4).fill('otp_invalid'), ...Array(4).fill('otp_locked')]);
    assert.equal((await otpPage.call('POST', '/otp/verify', { code })).body.error.code, 'otp_locked');
  });

  test('a right code gives its attempt back: wrong, right, and the count stays at one', async () => {
    const sr = await create({}, [{ name: 'Sara', email: TEAM[1], fields: { client: 'Acme' }, access_code: 'Secret-42' }]);
    const page = await PageClient.open(sr.signers[0].signing_url);
    assert.equal((await page.call('POST', '/access_code', { code: 'nope' })).body.error.attempts_left, 4);
    assert.equal((await page.call('POST', '/access_code', { code: 'Secret-42' })).body.step, 'otp');
    const row = await s.ctx.store.db
      .selectFrom('signers')
      .select('access_attempts')
      .where('id', '=', sr.signers[0].id)
      .executeTakeFirstOrThrow();
    assert.equal(row.access_attempts, 1);
  });

  /** Open each signer's page and pass its code step (the test helper runs the page's own passOtp). */
  const pagesPastCode = (sr: { signers: { id: string; signing_url: string }[] }, key = keys.secret_test) =>
    Promise.all(
      sr.signers.map(async (signer) => {
        const page = await PageClient.open(signer.signing_url);
        const passed = await s.call('POST', `/test_helpers/signers/${signer.id}/verify_otp`, { key });
        assert.equal(passed.status, 200, passed.text);
        return page;
      }),
    );

  test('signers of one request signing at the same moment, one of them twice: three signatures, one completion, one seal', async () => {
    const sr = await create({}, [
      { name: 'Sara', email: TEAM[1], fields: { client: 'Acme' } },
      { name: 'Omar', email: TEAM[2], fields: {} },
      { name: 'Owner', email: TEAM[0], fields: {} },
    ]);
    const pages = await pagesPastCode(sr);
    const sign = (page: PageClient) => page.call('POST', '/sign', { signature: pngDataUrl(), consent: true });
    const answers = await Promise.all([...pages.map(sign), sign(pages[0]!)]);
    // The other two signers sign once each; of the first signer's two signs, one signs and the
    // other is refused, whichever way the race goes: its session was ended by the sign, or it got
    // in before that commit and finds its signer signed, or the request already completed by then.
    const show = JSON.stringify(answers.map((a) => a.body));
    assert.deepEqual([answers[1]!.status, answers[2]!.status], [200, 200], show);
    const [firstSigner, again] = [answers[0]!, answers[3]!];
    assert.deepEqual(
      [firstSigner.status, again.status].filter((status) => status === 200),
      [200],
      show,
    );
    const second = firstSigner.status === 200 ? again : firstSigner;
    const refusal = `${second.status} ${second.body.error?.code} ${second.body.error?.reason ?? ''}`.trim();
    assert.ok(
      ['401 page_session_invalid', '409 invalid_state already_finished', '409 invalid_state request_not_open'].includes(refusal),
      refusal,
    );
    const r = await s.call('GET', `/signature_requests/${sr.id}`, { key: keys.secret_test });
    assert.equal(r.body.status, 'completed');
    assert.deepEqual(
      r.body.signers.map((x: { status: string }) => x.status),
      ['signed', 'signed', 'signed'],
    );
    const types = await eventsOf(sr.id);
    assert.equal(types.filter((t: string) => t === 'signer.signed').length, 3);
    assert.equal(types.filter((t: string) => t === 'signature_request.completed').length, 1);
    assert.equal(types.filter((t: string) => t === 'signature_request.partially_signed').length, 2);
    const db = s.ctx.store.db;
    const sealed = await db.selectFrom('sealed_documents').select('reference').where('signature_request_id', '=', sr.id).execute();
    assert.deepEqual(sealed, [{ reference: r.body.reference }]);
    const seals = await db.selectFrom('jobs').select('id').where('dedupe_key', '=', `seal:${sr.id}`).execute();
    assert.equal(seals.length, 1);
  });

  test('sixteen requests of one account signed at the same moment all complete, each with its own completion', async () => {
    // An account of its own: sixteen test-mode creates would use most of the shared account's day (20).
    const other = await s.account({ ownerEmail: TEAM[0], plan: 'enterprise' });
    await updateAccount(s.ctx.store.db, other.id, { team_emails: TEAM, accepted_domains: ['example.com'] });
    const key = other.keys.secret_test;
    const otherTemplate = await makeTemplate(s, key);
    const source = { type: 'template', template_id: otherTemplate };
    const requests = await Promise.all(
      Array.from({ length: 16 }, () => create({ source }, [{ name: 'Sara', email: TEAM[1], fields: { client: 'Acme' } }], key)),
    );
    const pages = (await Promise.all(requests.map((sr) => pagesPastCode(sr, key)))).map(([page]) => page!);
    const answers = await Promise.all(pages.map((page) => page.call('POST', '/sign', { signature: pngDataUrl(), consent: true })));
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(16).fill(200),
      JSON.stringify(answers.filter((a) => a.status !== 200).map((a) => a.body)),
    );
    for (const sr of requests) {
      const r = await s.call('GET', `/signature_requests/${sr.id}`, { key });
      assert.equal(r.body.status, 'completed');
      assert.deepEqual((await eventsOf(sr.id, key)).slice(-2), ['signer.signed', 'signature_request.completed']);
    }
  });

  test('decline with a reason stops the request; the other signer sees a closed page', async () => {
    const sr = await create({}, [
      { name: 'Sara', email: TEAM[1], fields: { client: 'Acme' } },
      { name: 'Omar', email: TEAM[2], fields: {} },
    ]);
    const page = await PageClient.open(sr.signers[0].signing_url);
    const st = await page.call('POST', '/decline', { reason: 'Wrong <amount>' });
    assert.equal(st.body.step, 'declined');
    const r = await s.call('GET', `/signature_requests/${sr.id}`, { key: keys.secret_test });
    assert.equal(r.body.status, 'declined');
    assert.equal(r.body.signers[0].decline_reason, 'Wrong <amount>');
    const otherPage = await PageClient.open(sr.signers[1].signing_url);
    const other = await otherPage.call('GET', '/state');
    assert.equal(other.body.step, 'closed');
    assert.equal(other.body.closed_reason, 'declined');
    assert.equal((await otherPage.call('POST', '/otp/send')).status, 409);
  });

  test('ordered: a link opened out of turn shows not_your_turn; canceled and expired requests are closed', async () => {
    const sr = await create({ ordered: true }, [
      { name: 'Sara', email: TEAM[1], fields: { client: 'Acme' } },
      { name: 'Omar', email: TEAM[2], fields: {} },
    ]);
    // The second signer has no link yet; a link forged from the first's is invalid.
    assert.equal(sr.signers[1].signing_url, null);
    const forged = await fetch(sr.signers[0].signing_url.replace(sr.signers[0].id, sr.signers[1].id));
    assert.equal(forged.status, 404);
    assert.match(await forged.text(), /not valid|غير صالح/);
    await s.call('POST', `/signature_requests/${sr.id}/cancel`, { key: keys.secret_test });
    const page = await PageClient.open(sr.signers[0].signing_url);
    const st = await page.call('GET', '/state');
    assert.equal(st.body.step, 'closed');
    assert.equal(st.body.closed_reason, 'canceled');
  });

  test('identity on the page (test mode): the step blocks signing until the simulation approves; decline blocks, a later approval resumes', async () => {
    const sr = await create({ legal_level: 'aes', format: 'pades-lt' });
    const page = await PageClient.open(sr.signers[0].signing_url);
    await page.call('POST', '/otp/send');
    let st = await page.call('POST', '/otp/verify', { code: await lastOtp(s, sr.signers[0].id) });
    assert.equal(st.body.step, 'identity');
    assert.equal(st.body.document, null);
    assert.equal((await page.call('POST', '/sign', { signature: pngDataUrl(), consent: true })).status, 409);
    const started = await page.call('POST', '/identity/start', { return_url: 'https://evil.example.net/' });
    assert.equal(started.status, 200);
    assert.match(started.body.url, /\/identity\/simulate\//);
    assert.doesNotMatch(decodeURIComponent(started.body.url), /evil/, 'no open redirect');
    st = await page.call('POST', '/identity/simulate', { decision: 'decline' });
    assert.equal(st.body.step, 'identity_declined');
    assert.equal((await page.call('POST', '/sign', { signature: pngDataUrl(), consent: true })).status, 409);
    st = await page.call('POST', '/identity/simulate', { decision: 'approve' });
    assert.equal(st.body.step, 'review');
    st = await page.call('POST', '/sign', { signature: pngDataUrl(), consent: true });
    assert.equal(st.body.step, 'signed');
    const types = await eventsOf(sr.id);
    assert.ok(types.includes('signer.identity_declined') && types.includes('signer.identity_verified'));
    assert.ok(types.indexOf('signer.identity_declined') < types.indexOf('signer.identity_verified'));
  });

  test('page API calls without the page token are refused (CSRF guard)', async () => {
    const res = await fetch(`${s.url}/sign/api/state`);
    assert.equal(res.status, 401);
    const body = await res.json();
    assertError({ status: res.status, headers: res.headers, body, text: JSON.stringify(body) }, 'page_session_invalid');
    // A cross-site form can only send text/plain or form bodies: refused before anything else.
    const forged = await fetch(`${s.url}/sign/api/decline`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    assert.equal(forged.status, 415);
    const untokened = await fetch(`${s.url}/sign/api/decline`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(untokened.status, 401);
  });

  test('signing sessions: 30 minutes, one signer, embedded (frame-ancestors = allowed origins) or redirect back with parameters', async () => {
    await updateAccount(s.ctx.store.db, accountId, { allowed_origins: ['https://app.example.com'] });
    const sr = await create();
    const signer = sr.signers[0].id;
    const sess = await s.call('POST', `/signers/${signer}/signing_session`, { key: keys.secret_test, body: {} });
    assert.equal(sess.status, 200, sess.text);
    assert.equal(sess.body.object, 'signing_session');
    assert.equal(sess.body.signer, signer);
    assert.equal(sess.body.expires_at, Math.floor(s.clock.nowMs() / 1000) + 1800);
    const framed = await PageClient.open(sess.body.signing_url, { referer: 'https://app.example.com/contracts' });
    assert.match(framed.headers.get('content-security-policy')!, /frame-ancestors https:\/\/app\.example\.com/);
    assert.deepEqual((await framed.call('GET', '/state')).body.embed, { origin: 'https://app.example.com' });

    const redirect = await s.call('POST', `/signers/${signer}/signing_session`, {
      key: keys.secret_test,
      body: { mode: 'redirect', return_url: 'https://app.example.com/done' },
    });
    const rp = await PageClient.open(redirect.body.signing_url);
    assert.match(rp.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
    await rp.call('POST', '/otp/send');
    await rp.call('POST', '/otp/verify', { code: await lastOtp(s, signer) });
    const done = await rp.call('POST', '/sign', { signature: pngDataUrl(), consent: true });
    const url = new URL(done.body.finish.redirect_url);
    assert.equal(url.origin + url.pathname, 'https://app.example.com/done');
    assert.equal(url.searchParams.get('session_id'), sr.id);
    assert.equal(url.searchParams.get('signer_id'), signer);
    assert.equal(url.searchParams.get('status'), 'completed');
    // Signing ended both sessions.
    assert.equal((await framed.call('GET', '/state')).status, 401);
    assert.equal((await fetch(sess.body.signing_url)).status, 404);

    const bad = await s.call('POST', `/signers/${signer}/signing_session`, {
      key: keys.secret_test,
      body: { return_url: 'https://evil.example.net/' },
    });
    assert.equal(bad.status, 409, 'a finished signer gets no session');
    const sr2 = await create();
    const dom = await s.call('POST', `/signers/${sr2.signers[0].id}/signing_session`, {
      key: keys.secret_test,
      body: { return_url: 'https://evil.example.net/' },
    });
    assertError(dom, 'domain_not_accepted');
    const s2 = await s.call('POST', `/signers/${sr2.signers[0].id}/signing_session`, { key: keys.secret_test, body: {} });
    s.clock.advanceSeconds(1801);
    assert.equal((await fetch(s2.body.signing_url)).status, 404, 'expired after 30 minutes');
  });

  test('an embedded session pinned to one origin may be framed by that origin only, while it stays allowed', async () => {
    const app = 'https://app.example.com';
    const shop = 'https://shop.example.com';
    await updateAccount(s.ctx.store.db, accountId, { allowed_origins: [app, shop] });
    const ancestors = (page: PageClient) => /frame-ancestors ([^;]+)/.exec(page.headers.get('content-security-policy')!)![1];
    const session = async (body: Record<string, unknown> = {}) => {
      const sr = await create();
      const r = await s.call('POST', `/signers/${sr.signers[0].id}/signing_session`, { key: keys.secret_test, body });
      assert.equal(r.status, 200, r.text);
      return r.body.signing_url as string;
    };

    // Given at creation: that origin alone, whatever the Referer.
    const given = await session({ embed_origin: shop });
    const first = await PageClient.open(given, { referer: `${app}/x` });
    assert.equal(ancestors(first), shop);
    assert.deepEqual((await first.call('GET', '/state')).body.embed, { origin: shop });

    // Pinned by the first open's Referer: a later open from the other allowed origin may not frame it.
    const byReferer = await session();
    assert.equal(ancestors(await PageClient.open(byReferer, { referer: `${app}/contracts/7` })), app);
    const again = await PageClient.open(byReferer, { referer: `${shop}/` });
    assert.equal(ancestors(again), app);
    assert.deepEqual((await again.call('GET', '/state')).body.embed, { origin: app });

    // No usable Referer and two allowed origins: either may frame it, and no origin gets messages.
    const unpinned = await session();
    const open = await PageClient.open(unpinned);
    assert.equal(ancestors(open), `${app} ${shop}`);
    assert.equal((await open.call('GET', '/state')).body.embed, null);

    // The pinned origin is no longer allowed: nobody may frame the session.
    await updateAccount(s.ctx.store.db, accountId, { allowed_origins: [app] });
    assert.equal(ancestors(await PageClient.open(given)), "'none'");
    await updateAccount(s.ctx.store.db, accountId, { allowed_origins: [] });
  });

  test('success_url and cancel_url with {signature_request} replaced', async () => {
    const sr = await create();
    const signer = sr.signers[0].id;
    const sess = await s.call('POST', `/signers/${signer}/signing_session`, {
      key: keys.secret_test,
      body: {
        mode: 'redirect',
        success_url: 'https://app.example.com/ok/{signature_request}',
        cancel_url: 'https://app.example.com/no/{signature_request}',
      },
    });
    const p = await PageClient.open(sess.body.signing_url);
    const declined = await p.call('POST', '/decline', { reason: 'no' });
    assert.equal(declined.body.finish.redirect_url, `https://app.example.com/no/${sr.id}`);
  });

  test('live: return_url on a signing session needs the Business plan', async () => {
    const starter = await s.account({ ownerEmail: TEAM[0], plan: 'starter', balanceSends: 10 });
    await updateAccount(s.ctx.store.db, starter.id, { accepted_domains: ['example.com'] });
    const tpl = await makeTemplate(s, starter.keys.secret_live);
    const r = await s.call('POST', '/signature_requests', {
      key: starter.keys.secret_live,
      body: { source: { type: 'template', template_id: tpl }, signers: [{ name: 'Z', email: 'z@example.com', fields: { client: 'x' } }] },
    });
    const gated = await s.call('POST', `/signers/${r.body.signers[0].id}/signing_session`, {
      key: starter.keys.secret_live,
      body: { mode: 'redirect', return_url: 'https://app.example.com/x' },
    });
    assertError(gated, 'plan_feature_unavailable');
    assert.equal(gated.body.error.required_plan, 'business');
    assert.equal(
      (await s.call('POST', `/signers/${r.body.signers[0].id}/signing_session`, { key: starter.keys.secret_live, body: {} })).status,
      200,
    );
  });
});
