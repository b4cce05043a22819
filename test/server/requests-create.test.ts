/**
 * POST /signature_requests (spec 4.1, 2.1, 2.2): the body and every rule on it, live gates and plan
 * features (nothing created or charged on refusal), test mode (part 5, part 8) and the
 * publishable-key quota on the real route (part 5 rule 5).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { PlanName } from '../../server/src/domain/plans.js';
import { issueKey } from '../../server/src/services/accounts.js';
import { verifyCodeAsync } from '../../server/src/services/codes.js';
import { hashAccessCodes } from '../../server/src/services/signatureRequests.js';
import { databasePath } from '../../server/src/store/db.js';
import { getAccount, updateAccount } from '../../server/src/store/accounts.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type CallResult, type TestServer } from '../support/server.js';
import { teamAccount, type TeamAccount } from '../support/teamAccount.js';

const DAY = 86400;

/** A small custom template: two required fields and one of each checked type. */
const TEMPLATE = {
  title: 'Service agreement',
  language: 'en',
  body: 'Between {{client_name}} from {{start_date}} for {{fee}}; notices to {{contact_email}}. {{note}}',
  fields: [
    { key: 'client_name', label: 'Client', type: 'text', required: true },
    { key: 'start_date', label: 'Start date', type: 'date', required: true },
    { key: 'fee', label: 'Fee', type: 'number' },
    { key: 'contact_email', label: 'Contact', type: 'email' },
    { key: 'note', label: 'Note', type: 'text' },
  ],
};
const FILLED = { client_name: 'Acme', start_date: '2026-08-01' };

type Setup = TeamAccount;

const setup = (s: TestServer, overrides: Parameters<TestServer['account']>[0] = {}): Promise<Setup> =>
  teamAccount(s, TEMPLATE, { members: 5, overrides });

const signer = (name: string, email: string, extra: Record<string, unknown> = {}) => ({ name, email, ...extra });

/** A valid body: the first signer fills the required fields. */
function body(a: Setup, signers: Record<string, unknown>[] = [signer('Layla Hassan', a.team[1]!)], extra: Record<string, unknown> = {}) {
  const withFields = signers.map((sg, i) => (i === 0 && !('fields' in sg) ? { ...sg, fields: FILLED } : sg));
  return { title: 'Consulting agreement', source: { type: 'template', template_id: a.templateId }, signers: withFields, ...extra };
}

const create = (s: TestServer, key: string, b: unknown, prefix = '/api/v1', headers: Record<string, string> = {}) =>
  s.call('POST', '/signature_requests', { key, body: b, prefix, headers });

async function count(s: TestServer, table: 'signature_requests' | 'ledger' | 'messages' | 'events', accountId: string): Promise<number> {
  const row = await s.ctx.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The state a refused request must leave untouched. */
async function snapshot(s: TestServer, accountId: string) {
  const account = (await getAccount(s.ctx.store.db, accountId))!;
  return {
    requests: await count(s, 'signature_requests', accountId),
    ledger: await count(s, 'ledger', accountId),
    messages: await count(s, 'messages', accountId),
    events: await count(s, 'events', accountId),
    balance: account.balance_sends,
    wallet: account.wallet_minor,
  };
}

/** Provoke an error in both languages, check its param, and check nothing was created or charged. */
async function refused(
  s: TestServer,
  a: Setup,
  key: string,
  b: unknown,
  code: Parameters<typeof assertErrorBothLanguages>[1],
  param: string | null,
): Promise<CallResult> {
  const before = await snapshot(s, a.id);
  const r = await assertErrorBothLanguages((prefix) => create(s, key, b, prefix), code);
  assert.equal(r.body.error.param, param, `param of ${code}: ${r.text}`);
  assert.deepEqual(await snapshot(s, a.id), before, `${code}: nothing created or charged`);
  return r;
}

const now = (s: TestServer): number => Math.floor(s.clock.nowMs() / 1000);

describe('POST /signature_requests: body of 4.1 and its rules', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ TAWQI_RATE_LIMIT: '100000', TAWQI_IP_RATE_LIMIT: '100000' });
  });
  after(() => s.close());

  test('a valid live request is created sent, with the fields of 2.1 and 2.2, and reads back by id', async () => {
    const a = await setup(s, { balanceSends: 10 });
    const r = await create(
      s,
      a.keys.secret_live,
      body(
        a,
        [
          signer('Layla Hassan', 'layla@client.example'),
          signer('Omar Said', 'omar@client.example', { phone: '+201001234567', fields: { note: 'second' } }),
        ],
        {
          metadata: { order: '42' },
        },
      ),
    );
    assert.equal(r.status, 201, r.text);
    const t = now(s);
    const sr = r.body;
    assert.match(sr.id, /^sr_/);
    assert.equal(sr.object, 'signature_request');
    assert.equal(sr.livemode, true);
    assert.equal(sr.status, 'sent');
    assert.equal(sr.title, 'Consulting agreement');
    assert.equal(sr.legal_level, 'ses');
    assert.equal(sr.format, 'platform-evidence');
    assert.deepEqual(sr.source, { type: 'template', template_id: a.templateId });
    assert.equal(sr.ordered, false);
    assert.equal(sr.require_identity, false);
    assert.equal(sr.reference, null);
    assert.deepEqual(sr.reminders, { enabled: false, interval_hours: 48, max: 3 });
    assert.equal(sr.expires_at, t + 30 * DAY, 'default life is 30 days');
    assert.equal(sr.completed_at, null);
    assert.equal(sr.download_url, null);
    assert.deepEqual(sr.metadata, { order: '42' });
    assert.equal(sr.created_at, t);
    assert.equal(sr.signers.length, 2);
    for (const [i, sg] of (sr.signers as Record<string, unknown>[]).entries()) {
      assert.match(String(sg.id), /^sgr_/);
      assert.equal(sg.object, 'signer');
      assert.equal(sg.type, 'individual');
      assert.equal(sg.method, 'draw');
      assert.equal(sg.require_identity, false);
      assert.equal(sg.order, i + 1);
      assert.equal(sg.status, 'sent');
      assert.match(String(sg.signing_url), /\/sign\/sgr_/, 'a secret key gets the signing links');
      assert.equal('access_code' in sg, false);
    }
    assert.equal(sr.signers[0].name, 'Layla Hassan');
    assert.equal(sr.signers[0].phone, null);
    assert.deepEqual(sr.signers[0].fields, FILLED);
    assert.equal(sr.signers[1].phone, '+201001234567');
    assert.deepEqual(sr.signers[1].fields, { note: 'second' });
    const got = await s.call('GET', `/signature_requests/${sr.id}`, { key: a.keys.secret_live });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, sr);
    // The title defaults to the template's.
    const untitled = await create(s, a.keys.secret_live, { ...body(a), title: undefined });
    assert.equal(untitled.body.title, TEMPLATE.title);
  });

  test('validation names the field in param: missing, unknown and invalid values; nothing is created', async () => {
    const a = await setup(s);
    const k = a.keys.secret_live;
    await refused(s, a, k, body(a, [signer('Layla', a.team[1]!), { email: a.team[2]! }]), 'parameter_missing', 'signers[1].name');
    await refused(s, a, k, body(a, [signer('Layla', a.team[1]!), signer('   ', a.team[2]!)]), 'parameter_invalid', 'signers[1].name');
    await refused(s, a, k, { ...body(a), colour: 'red' }, 'parameter_unknown', 'colour');
    await refused(s, a, k, body(a, [signer('Layla', a.team[1]!, { nickname: 'L' })]), 'parameter_unknown', 'signers[0].nickname');
    const { source: _source, ...noSource } = body(a);
    await refused(s, a, k, noSource, 'parameter_missing', 'source');
    const { signers: _signers, ...noSigners } = body(a);
    await refused(s, a, k, noSigners, 'parameter_missing', 'signers');
    await refused(s, a, k, body(a, []), 'parameter_invalid', 'signers');
    await refused(s, a, k, body(a, undefined, { legal_level: 'eidas' }), 'parameter_invalid', 'legal_level');
    await refused(s, a, k, body(a, [signer('Layla', 'not-an-email')]), 'parameter_invalid', 'signers[0].email');
    await refused(s, a, k, body(a, [{ name: 'Layla', phone: '01001234567' }]), 'parameter_invalid', 'signers[0].phone');
    await refused(
      s,
      a,
      k,
      body(a, undefined, { source: { type: 'template', template_id: 'tpl_missing' } }),
      'invalid_request',
      'source.template_id',
    );
    await refused(s, a, k, body(a, undefined, { workflow_id: 'wf_nope' }), 'workflow_not_found', 'workflow_id');
    assert.equal(
      (await create(s, k, body(a, undefined, { workflow_id: 'default' }))).status,
      201,
      'workflow_id default is accepted on every plan',
    );
  });

  test('signers: 1 to 5 live (400 too_many_signers, max_signers 5); a live signer needs an email or a phone', async () => {
    const a = await setup(s);
    const six = [1, 2, 3, 4, 5, 6].map((i) => signer(`Signer ${i}`, `s${i}@client.example`));
    const over = await refused(s, a, a.keys.secret_live, body(a, six), 'too_many_signers', 'signers');
    assert.equal(over.body.error.max_signers, 5);
    const five = await create(s, a.keys.secret_live, body(a, six.slice(0, 5)));
    assert.equal(five.status, 201, five.text);
    assert.equal(five.body.signers.length, 5);
    await refused(s, a, a.keys.secret_live, body(a, [{ name: 'No Contact' }]), 'parameter_missing', 'signers[0].email');
    // A WhatsApp-only live signer is accepted and invited on WhatsApp.
    const wa = await create(s, a.keys.secret_live, body(a, [{ name: 'Phone Only', phone: '+201001234567' }]));
    assert.equal(wa.status, 201, wa.text);
    const msgs = await s.ctx.store.db.selectFrom('messages').selectAll().where('signature_request_id', '=', wa.body.id).execute();
    assert.deepEqual(
      msgs.map((m) => [m.channel, m.recipient, m.kind]),
      [['whatsapp', '+201001234567', 'invitation']],
    );
  });

  test('test mode: 5 signers (test_signer_limit); each needs an email (test_email_required) of the account or a team member (test_recipient_not_allowed)', async () => {
    const a = await setup(s);
    const k = a.keys.secret_test;
    const six = a.team.map((e, i) => signer(`Member ${i}`, e));
    assert.equal(six.length, 6);
    const over = await refused(s, a, k, body(a, six), 'test_signer_limit', 'signers');
    assert.equal(over.body.error.max_signers, 5);
    assert.equal((await create(s, k, body(a, six.slice(0, 5)))).status, 201, 'five team members');
    await updateAccount(s.ctx.store.db, a.id, { team_phones: ['+201001234567'] });
    await refused(s, a, k, body(a, [{ name: 'Phone Only', phone: '+201001234567' }]), 'test_email_required', 'signers[0].email');
    await refused(s, a, k, body(a, [signer('Owner', a.owner), { name: 'No contact' }]), 'test_email_required', 'signers[1].email');
    await refused(
      s,
      a,
      k,
      body(a, [signer('Owner', a.owner), signer('Stranger', 'stranger@elsewhere.example')]),
      'test_recipient_not_allowed',
      'signers[1].email',
    );
    await refused(
      s,
      a,
      k,
      body(a, [signer('Owner', a.owner, { phone: '+201009999999' })]),
      'test_recipient_not_allowed',
      'signers[0].phone',
    );
    // The owner, a team member in another case, and a team phone are accepted.
    const ok = await create(
      s,
      k,
      body(a, [signer('Owner', a.owner, { phone: '+201001234567' }), signer('Member', a.team[3]!.toUpperCase())]),
    );
    assert.equal(ok.status, 201, ok.text);
    // A member removed from the team can no longer receive test requests.
    await updateAccount(s.ctx.store.db, a.id, { team_emails: [a.owner] });
    await refused(s, a, k, body(a, [signer('Former member', a.team[3]!)]), 'test_recipient_not_allowed', 'signers[0].email');
  });

  test('template fields: required fields, unknown keys and value types (date, number, email)', async () => {
    const a = await setup(s);
    const k = a.keys.secret_live;
    const missing = await refused(
      s,
      a,
      k,
      body(a, [signer('Layla', 'l@client.example', { fields: { client_name: 'Acme' } })]),
      'parameter_missing',
      'signers[0].fields.start_date',
    );
    assert.match(missing.body.error.message, /start_date/);
    await refused(
      s,
      a,
      k,
      body(a, [signer('Layla', 'l@client.example', { fields: { ...FILLED, client_name: '  ' } })]),
      'parameter_missing',
      'signers[0].fields.client_name',
    );
    await refused(
      s,
      a,
      k,
      body(a, [signer('Layla', 'l@client.example', { fields: { ...FILLED, colour: 'red' } })]),
      'parameter_unknown',
      'signers[0].fields.colour',
    );
    await refused(
      s,
      a,
      k,
      body(a, [signer('Layla', 'l@client.example', { fields: { ...FILLED, start_date: '01/08/2026' } })]),
      'parameter_invalid',
      'signers[0].fields.start_date',
    );
    await refused(
      s,
      a,
      k,
      body(a, [signer('Layla', 'l@client.example', { fields: { ...FILLED, start_date: '2026-02-30' } })]),
      'parameter_invalid',
      'signers[0].fields.start_date',
    );
    await refused(
      s,
      a,
      k,
      body(a, [signer('Layla', 'l@client.example', { fields: { ...FILLED, start_date: '2026-13-01' } })]),
      'parameter_invalid',
      'signers[0].fields.start_date',
    );
    await refused(
      s,
      a,
      k,
      body(a, [signer('Layla', 'l@client.example', { fields: { ...FILLED, fee: 'ten' } })]),
      'parameter_invalid',
      'signers[0].fields.fee',
    );
    await refused(
      s,
      a,
      k,
      body(a, [signer('Layla', 'l@client.example', { fields: { ...FILLED, contact_email: 'nobody' } })]),
      'parameter_invalid',
      'signers[0].fields.contact_email',
    );
    await refused(
      s,
      a,
      k,
      body(a, [signer('Layla', 'l@client.example', { fields: { ...FILLED, fee: 10 } })]),
      'parameter_invalid',
      'signers[0].fields.fee',
    );
    // Valid typed values; required values may come from any signer.
    const ok = await create(
      s,
      k,
      body(a, [
        signer('Layla', 'l@client.example', { fields: { client_name: 'Acme', fee: '1250.50', contact_email: 'legal@acme.example' } }),
        signer('Omar', 'o@client.example', { fields: { start_date: '2028-02-29', fee: '-3' } }),
      ]),
    );
    assert.equal(ok.status, 201, ok.text);
  });

  test('access codes are hashed off the event loop before the create transaction: one hash per distinct code, each verifiable', async () => {
    let turned = false;
    const pending = hashAccessCodes(['Kite9Plum', undefined, 'Kite9Plum', 'Wq4z']);
    setImmediate(() => (turned = true));
    const hashes = await pending;
    assert.equal(turned, true, 'the event loop turned while scrypt ran (thread pool, not the loop)');
    assert.deepEqual([...hashes.keys()], ['Kite9Plum', 'Wq4z']);
    assert.equal(await verifyCodeAsync('Kite9Plum', hashes.get('Kite9Plum')!), true);
    assert.equal(await verifyCodeAsync('Wq4z', hashes.get('Wq4z')!), true);
    assert.equal(await verifyCodeAsync('Wq4z', hashes.get('Kite9Plum')!), false);
    assert.equal((await hashAccessCodes([undefined])).size, 0);
  });

  test('access_code: 4 to 32 characters, stored hashed (scrypt), never in a response, event, message or the database file', async () => {
    const a = await setup(s, { plan: 'enterprise' });
    await refused(
      s,
      a,
      a.keys.secret_live,
      body(a, [signer('Layla', 'l@client.example', { access_code: 'abc' })]),
      'parameter_invalid',
      'signers[0].access_code',
    );
    await refused(
      s,
      a,
      a.keys.secret_live,
      body(a, [signer('Layla', 'l@client.example', { access_code: 'x'.repeat(33) })]),
      'parameter_invalid',
      'signers[0].access_code',
    );
    const code = 'Qz7Kite9Plum';
    const shortest = 'Wq4z';
    const longest = 'Vx' + 'k3'.repeat(15);
    assert.equal(longest.length, 32);
    const live = await create(
      s,
      a.keys.secret_live,
      body(a, [signer('Layla', 'l@client.example', { access_code: code }), signer('Omar', 'o@client.example', { access_code: shortest })]),
      '/api/v1',
      { 'idempotency-key': 'ac-1' },
    );
    assert.equal(live.status, 201, live.text);
    const test = await create(s, a.keys.secret_test, body(a, [signer('Owner', a.owner, { access_code: longest })]));
    assert.equal(test.status, 201, test.text);

    const rows = await s.ctx.store.db
      .selectFrom('signers')
      .select(['id', 'access_code_hash'])
      .where('signature_request_id', 'in', [live.body.id, test.body.id])
      .orderBy('position')
      .execute();
    const hashes = new Map(rows.map((r) => [r.id, r.access_code_hash]));
    for (const [sg, plain] of [
      [live.body.signers[0].id, code],
      [live.body.signers[1].id, shortest],
      [test.body.signers[0].id, longest],
    ] as const) {
      const hash = hashes.get(sg)!;
      assert.match(hash, /^scrypt\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
      assert.equal(hash.includes(plain), false);
      assert.equal(await verifyCodeAsync(plain, hash), true);
      assert.equal(await verifyCodeAsync(plain + 'x', hash), false);
    }

    const secrets = [code, longest];
    const views: CallResult[] = [
      live,
      test,
      await s.call('GET', `/signature_requests/${live.body.id}`, { key: a.keys.secret_live }),
      await s.call('GET', '/signature_requests', { key: a.keys.secret_live }),
      await s.call('GET', `/signers?signature_request=${live.body.id}`, { key: a.keys.secret_live }),
      await s.call('GET', `/signers/${live.body.signers[0].id}`, { key: a.keys.secret_live }),
      await s.call('GET', '/events?limit=100', { key: a.keys.secret_live }),
      await s.call('GET', '/events?limit=100', { key: a.keys.secret_test }),
      await create(s, a.keys.secret_live, {}, '/api/v1', { 'idempotency-key': 'ac-1' }),
    ];
    for (const v of views) {
      assert.ok(v.status < 300, v.text);
      for (const secret of secrets) assert.equal(v.text.includes(secret), false, `access code leaked in ${v.text.slice(0, 200)}`);
      assert.doesNotMatch(v.text, /access_code/);
    }
    assert.equal(views[8]!.headers.get('idempotent-replayed'), 'true');
    const events = await s.ctx.store.db.selectFrom('events').select('data').where('account_id', '=', a.id).execute();
    assert.ok(events.length >= 4);
    for (const e of events) for (const secret of secrets) assert.equal(e.data.includes(secret), false);
    const messages = await s.ctx.store.db.selectFrom('messages').selectAll().where('account_id', '=', a.id).execute();
    assert.equal(messages.length, 3, 'one invitation per signer');
    for (const m of messages) {
      for (const secret of [code, shortest, longest]) assert.equal(`${m.subject}\n${m.body}`.includes(secret), false);
      assert.match(m.body, /access code/, 'the invitation says a code will be asked, without the code');
    }
    s.ctx.store.raw.pragma('wal_checkpoint(TRUNCATE)');
    const file = readFileSync(databasePath(s.dataDir));
    for (const secret of [code, longest])
      assert.equal(file.includes(Buffer.from(secret)), false, 'no plaintext access code in the database');
  });

  test('method token only with legal_level qes; format defaults by level; PAdES refused on ses', async () => {
    const a = await setup(s, { plan: 'enterprise', walletMinor: 100_000 });
    const k = a.keys.secret_live;
    const one = (extra: Record<string, unknown>, sg: Record<string, unknown> = {}) =>
      body(a, [signer('Layla', 'l@client.example', sg)], extra);
    await refused(s, a, k, one({}, { method: 'token' }), 'parameter_invalid', 'signers[0].method');
    await refused(s, a, k, one({ legal_level: 'aes' }, { method: 'token' }), 'parameter_invalid', 'signers[0].method');
    await refused(s, a, k, one({ legal_level: 'qes' }, { method: 'draw' }), 'parameter_invalid', 'signers[0].method');
    await refused(s, a, k, one({}, { method: 'pen' }), 'parameter_invalid', 'signers[0].method');
    await refused(s, a, k, one({ format: 'pades-t' }), 'parameter_invalid', 'format');
    await refused(s, a, k, one({ format: 'pades-lt' }), 'parameter_invalid', 'format');
    await refused(s, a, k, one({ legal_level: 'aes', format: 'platform-evidence' }), 'parameter_invalid', 'format');
    await refused(s, a, k, one({ format: 'pdf' }), 'parameter_invalid', 'format');

    const ses = await create(s, k, one({}));
    assert.equal(ses.body.format, 'platform-evidence');
    assert.equal(ses.body.signers[0].method, 'draw');
    const aes = await create(s, k, one({ legal_level: 'aes' }));
    assert.equal(aes.status, 201, aes.text);
    assert.equal(aes.body.format, 'pades-lt');
    assert.equal(aes.body.require_identity, true);
    assert.equal(aes.body.signers[0].require_identity, true);
    assert.equal(aes.body.signers[0].identity.status, 'required');
    const aesT = await create(s, k, one({ legal_level: 'aes', format: 'pades-t' }));
    assert.equal(aesT.status, 201, aesT.text);
    assert.equal(aesT.body.format, 'pades-t');
    const qes = await create(s, k, one({ legal_level: 'qes' }));
    assert.equal(qes.status, 201, qes.text);
    assert.equal(qes.body.format, 'pades-lt');
    assert.equal(qes.body.signers[0].method, 'token', 'qes signs with a token by default');
    const qesToken = await create(s, k, one({ legal_level: 'qes', format: 'pades-t' }, { method: 'token' }));
    assert.equal(qesToken.status, 201, qesToken.text);
    assert.equal(qesToken.body.format, 'pades-t');
  });

  test('return_url, success_url, cancel_url: https only, on an accepted domain or its subdomains (400 domain_not_accepted)', async () => {
    const a = await setup(s);
    await updateAccount(s.ctx.store.db, a.id, { accepted_domains: ['example.com'] });
    const k = a.keys.secret_live;
    for (const f of ['return_url', 'success_url', 'cancel_url']) {
      await refused(s, a, k, body(a, undefined, { [f]: 'http://example.com/done' }), 'parameter_invalid', f);
      await refused(s, a, k, body(a, undefined, { [f]: 'not a url' }), 'parameter_invalid', f);
      await refused(s, a, k, body(a, undefined, { [f]: 'https://evil.test/done' }), 'domain_not_accepted', f);
      await refused(s, a, k, body(a, undefined, { [f]: 'https://evilexample.com/done' }), 'domain_not_accepted', f);
      await refused(s, a, k, body(a, undefined, { [f]: 'https://example.com.evil.test/done' }), 'domain_not_accepted', f);
    }
    const ok = await create(
      s,
      k,
      body(a, undefined, {
        return_url: 'https://example.com/back',
        success_url: 'https://app.example.com/ok',
        cancel_url: 'https://a.b.example.com/cancel',
      }),
    );
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.return_url, 'https://example.com/back');
    assert.equal(ok.body.success_url, 'https://app.example.com/ok');
    assert.equal(ok.body.cancel_url, 'https://a.b.example.com/cancel');
    // Test keys check the domain too.
    await refused(
      s,
      a,
      a.keys.secret_test,
      body(a, [signer('Owner', a.owner)], { return_url: 'https://evil.test/' }),
      'domain_not_accepted',
      'return_url',
    );
    // An account with no accepted domain accepts no URL.
    const b = await setup(s);
    await refused(
      s,
      b,
      b.keys.secret_live,
      body(b, undefined, { return_url: 'https://example.com/back' }),
      'domain_not_accepted',
      'return_url',
    );
  });

  test('plan features in live mode (4.1 rule 3): 403 plan_feature_unavailable with feature, required_plan and upgrade_url; nothing created or charged', async () => {
    const starter = await setup(s, { plan: 'starter', walletMinor: 50_000 });
    const business = await setup(s, { plan: 'business', walletMinor: 50_000 });
    for (const a of [starter, business]) await updateAccount(s.ctx.store.db, a.id, { accepted_domains: ['example.com'] });
    const cases: [Setup, Record<string, unknown>, Record<string, unknown>, string, string, PlanName][] = [
      [starter, { ordered: true }, {}, 'ordered', 'ordered', 'business'],
      [starter, { return_url: 'https://example.com/r' }, {}, 'return_url', 'return_url', 'business'],
      [starter, { success_url: 'https://example.com/s' }, {}, 'success_url', 'success_url', 'business'],
      [starter, { cancel_url: 'https://example.com/c' }, {}, 'cancel_url', 'cancel_url', 'business'],
      [starter, { legal_level: 'qes' }, {}, 'qes', 'legal_level', 'enterprise'],
      [business, { legal_level: 'qes' }, {}, 'qes', 'legal_level', 'enterprise'],
      [business, { legal_level: 'qes' }, { method: 'token' }, 'qes', 'legal_level', 'enterprise'],
      [business, {}, { method: 'token' }, 'method_token', 'signers[0].method', 'enterprise'],
      [business, {}, { access_code: 'open-sesame' }, 'access_code', 'signers[0].access_code', 'enterprise'],
    ];
    for (const [a, extra, sg, feature, param, plan] of cases) {
      const b = body(a, [signer('Layla', 'l@client.example', { fields: FILLED, ...sg })], extra);
      const r = await refused(s, a, a.keys.secret_live, b, 'plan_feature_unavailable', param);
      assert.equal(r.body.error.feature, feature);
      assert.equal(r.body.error.required_plan, plan);
      assert.equal(r.body.error.upgrade_url, '/console/billing');
    }
    // The features of its plan are available to a live business account.
    const ordered = await create(
      s,
      business.keys.secret_live,
      body(business, [signer('Layla', 'l@client.example'), signer('Omar', 'o@client.example')], {
        ordered: true,
        return_url: 'https://example.com/r',
        success_url: 'https://example.com/s',
        cancel_url: 'https://example.com/c',
      }),
    );
    assert.equal(ordered.status, 201, ordered.text);
    assert.equal(ordered.body.ordered, true);
    assert.deepEqual(
      ordered.body.signers.map((x: { status: string }) => x.status),
      ['sent', 'pending'],
      'ordered: the first signer is invited first',
    );
    assert.equal(ordered.body.signers[1].signing_url, null);
    // Test keys unlock every feature on any plan.
    for (const a of [starter, business]) {
      const unlocked = await create(
        s,
        a.keys.secret_test,
        body(a, [signer('Owner', a.owner, { method: 'token', access_code: 'open-sesame' }), signer('Member', a.team[1]!)], {
          legal_level: 'qes',
          ordered: true,
          return_url: 'https://example.com/r',
          success_url: 'https://example.com/s',
          cancel_url: 'https://example.com/c',
        }),
      );
      assert.equal(unlocked.status, 201, unlocked.text);
      assert.equal(unlocked.body.livemode, false);
      assert.equal(unlocked.body.legal_level, 'qes');
    }
  });

  test('live gates: 402 plan_required, 402 plan_expired, 403 kyb_required; nothing created; the test key is not gated', async () => {
    const cases = [
      {
        overrides: { plan: 'none' as const, planExpiresAt: null, walletMinor: 10_000 },
        code: 'plan_required' as const,
        field: 'upgrade_url',
        url: '/console/billing',
      },
      {
        overrides: { planExpiresAt: now(s) - 1, walletMinor: 10_000 },
        code: 'plan_expired' as const,
        field: 'upgrade_url',
        url: '/console/billing',
      },
      {
        overrides: { kyb: 'pending' as const, walletMinor: 10_000 },
        code: 'kyb_required' as const,
        field: 'verify_url',
        url: '/console/verification',
      },
    ];
    for (const c of cases) {
      const a = await setup(s, c.overrides);
      const r = await refused(s, a, a.keys.secret_live, body(a), c.code, null);
      assert.equal(r.body.error[c.field], c.url);
      const t = await create(s, a.keys.secret_test, body(a, [signer('Owner', a.owner)]));
      assert.equal(t.status, 201, t.text);
      assert.equal(t.body.livemode, false);
    }
  });

  test('expires_at: in the future and within 365 days; default 30 days', async () => {
    const a = await setup(s);
    const k = a.keys.secret_live;
    const t = now(s);
    await refused(s, a, k, body(a, undefined, { expires_at: t - 60 }), 'parameter_invalid', 'expires_at');
    await refused(s, a, k, body(a, undefined, { expires_at: t }), 'parameter_invalid', 'expires_at');
    await refused(s, a, k, body(a, undefined, { expires_at: t + 365 * DAY + 1 }), 'parameter_invalid', 'expires_at');
    await refused(s, a, k, body(a, undefined, { expires_at: '2026-12-31' }), 'parameter_invalid', 'expires_at');
    assert.equal((await create(s, k, body(a, undefined, { expires_at: t + 365 * DAY }))).body.expires_at, t + 365 * DAY);
    assert.equal((await create(s, k, body(a, undefined, { expires_at: t + 1 }))).body.expires_at, t + 1);
    assert.equal((await create(s, k, body(a))).body.expires_at, t + 30 * DAY);
  });
});

describe('test mode (spec part 5 and part 8)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ TAWQI_RATE_LIMIT: '100000', TAWQI_IP_RATE_LIMIT: '100000' });
  });
  after(() => s.close());

  test('livemode false in the object, events and messages; no charge; [TEST] invitations with the notice', async () => {
    const a = await setup(s, { balanceSends: 5, walletMinor: 1000 });
    const before = await snapshot(s, a.id);
    const r = await create(s, a.keys.secret_test, body(a, [signer('Owner', a.owner), signer('Member', a.team[1]!)], { language: 'ar' }));
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.livemode, false);
    assert.equal(r.body.cost, null);
    const got = await s.call('GET', `/signature_requests/${r.body.id}`, { key: a.keys.secret_test });
    assert.equal(got.body.livemode, false);
    // A test request is invisible to the live key and vice versa.
    assertError(await s.call('GET', `/signature_requests/${r.body.id}`, { key: a.keys.secret_live }), 'not_found');
    const events = await s.call('GET', `/events?signature_request=${r.body.id}`, { key: a.keys.secret_test });
    assert.deepEqual(events.body.data.map((e: { type: string }) => e.type).sort(), [
      'signature_request.sent',
      'signer.sent',
      'signer.sent',
    ]);
    for (const e of events.body.data) {
      assert.equal(e.livemode, false);
      if (e.data.object.object === 'signature_request') assert.equal(e.data.object.livemode, false);
    }
    const account = (await getAccount(s.ctx.store.db, a.id))!;
    assert.equal(account.balance_sends, before.balance);
    assert.equal(account.wallet_minor, before.wallet);
    assert.equal(await count(s, 'ledger', a.id), before.ledger, 'no ledger row for a test request');
    const msgs = await s.ctx.store.db
      .selectFrom('messages')
      .selectAll()
      .where('signature_request_id', '=', r.body.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      msgs.map((m) => m.recipient),
      [a.owner, a.team[1]],
    );
    for (const m of msgs) {
      assert.equal(m.livemode, 0);
      assert.equal(m.channel, 'email');
      assert.ok(m.subject.startsWith('[TEST] '), m.subject);
      assert.match(m.body, /هذه رسالة اختبار/);
    }
    const en = await create(s, a.keys.secret_test, body(a, [signer('Owner', a.owner)], { language: 'en' }));
    const [enMsg] = await s.ctx.store.db.selectFrom('messages').selectAll().where('signature_request_id', '=', en.body.id).execute();
    assert.ok(enMsg!.subject.startsWith('[TEST] Signature request: '), enMsg!.subject);
    assert.match(enMsg!.body, /This is a test message/);
    // Live invitations carry neither.
    const live = await create(s, a.keys.secret_live, body(a, [signer('Client', 'client@client.example')], { language: 'en' }));
    const [liveMsg] = await s.ctx.store.db.selectFrom('messages').selectAll().where('signature_request_id', '=', live.body.id).execute();
    assert.equal(liveMsg!.livemode, 1);
    assert.doesNotMatch(liveMsg!.subject, /\[TEST\]/);
    assert.doesNotMatch(liveMsg!.body, /test message/);
  });

  test('test_daily_limit: 20 requests a UTC day; the 21st gets 429 with Retry-After until midnight; the next day works', async () => {
    const a = await setup(s);
    s.clock.set((Math.floor(s.clock.nowMs() / 1000 / DAY) + 1) * DAY * 1000 + 22 * 3600 * 1000);
    for (let i = 0; i < 20; i++) {
      const r = await create(s, a.keys.secret_test, body(a, [signer('Owner', a.owner)], { send: i % 2 === 0 }));
      assert.equal(r.status, 201, `request ${i + 1}: ${r.text}`);
    }
    s.clock.advanceSeconds(1800);
    const over = await refused(s, a, a.keys.secret_test, body(a, [signer('Owner', a.owner)]), 'test_daily_limit', null);
    assert.equal(over.headers.get('retry-after'), String(5400));
    // Live requests are not counted against the test limit.
    assert.equal((await create(s, a.keys.secret_live, body(a))).status, 201);
    // Another account is not affected.
    const other = await setup(s);
    assert.equal((await create(s, other.keys.secret_test, body(other, [signer('Owner', other.owner)]))).status, 201);
    s.clock.advanceSeconds(5399);
    assertError(await create(s, a.keys.secret_test, body(a, [signer('Owner', a.owner)])), 'test_daily_limit');
    s.clock.advanceSeconds(1);
    assert.equal((await create(s, a.keys.secret_test, body(a, [signer('Owner', a.owner)]))).status, 201, 'a new UTC day');
  });

  test('test_email_limit: 50 emails a day (10 requests × 5 signers fit); the 51st invitation gets 429 and nothing is created', async () => {
    const a = await setup(s);
    s.clock.set((Math.floor(s.clock.nowMs() / 1000 / DAY) + 1) * DAY * 1000 + 8 * 3600 * 1000);
    const five = a.team.slice(0, 5).map((e, i) => signer(`Member ${i}`, e));
    // A draft sends no email, so it does not count.
    const draft = await create(s, a.keys.secret_test, body(a, five, { send: false }));
    assert.equal(draft.status, 201, draft.text);
    for (let i = 0; i < 10; i++) assert.equal((await create(s, a.keys.secret_test, body(a, five))).status, 201, `request ${i + 1}`);
    assert.equal(await count(s, 'messages', a.id), 50);
    const over = await refused(s, a, a.keys.secret_test, body(a, [signer('Owner', a.owner)]), 'test_email_limit', null);
    assert.equal(over.headers.get('retry-after'), String(16 * 3600));
    // Sending the draft would be five more emails: refused, and it stays a draft.
    await assertErrorBothLanguages(
      (prefix) => s.call('POST', `/signature_requests/${draft.body.id}/send`, { key: a.keys.secret_test, prefix }),
      'test_email_limit',
    );
    assert.equal((await s.call('GET', `/signature_requests/${draft.body.id}`, { key: a.keys.secret_test })).body.status, 'draft');
    // Refused requests did not use up the daily request count: 11 made, 9 drafts (no email) still fit.
    for (let i = 0; i < 9; i++)
      assert.equal(
        (await create(s, a.keys.secret_test, body(a, [signer('Owner', a.owner)], { send: false }))).status,
        201,
        `draft ${i + 1}`,
      );
    assertError(await create(s, a.keys.secret_test, body(a, [signer('Owner', a.owner)], { send: false })), 'test_daily_limit');
    s.clock.advanceSeconds(16 * 3600);
    assert.equal((await s.call('POST', `/signature_requests/${draft.body.id}/send`, { key: a.keys.secret_test })).status, 200, 'next day');
  });
});

describe('publishable-key quota on POST /signature_requests (part 5 rule 5)', () => {
  const ORIGIN = 'https://shop.example.com';
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ TAWQI_TRUSTED_PROXIES: '127.0.0.1' });
  });
  after(() => s.close());

  test('5 creations per hour per key and address, then 429 too_many_requests; nothing created by the refusal; masking after creation', async () => {
    const a = await setup(s);
    const pk = (await s.ctx.store.tx((trx) => issueKey(trx, s.clock, a.id, 'publishable', 'live', { allowedOrigins: [ORIGIN] }))).secret;
    s.clock.set(Math.ceil(s.clock.nowMs() / 3_600_000) * 3_600_000);
    const post = (ip: string, prefix = '/api/v1') =>
      create(s, pk, body(a, [signer('Visitor', 'visitor@client.example')]), prefix, { origin: ORIGIN, 'x-forwarded-for': ip });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await post('198.51.100.7');
      assert.equal(r.status, 201, `creation ${i + 1}: ${r.text}`);
      assert.equal(r.body.signers[0].signing_url, null, 'no link for a publishable key');
      assert.equal(r.body.signers[0].email, 'visitor@client.example', 'the creation response keeps the contact');
      ids.push(r.body.id);
    }
    s.clock.advanceSeconds(900);
    const before = await snapshot(s, a.id);
    const over = await assertErrorBothLanguages((prefix) => post('198.51.100.7', prefix), 'too_many_requests');
    assert.equal(over.headers.get('retry-after'), String(3600 - 900));
    assert.deepEqual(await snapshot(s, a.id), before, 'nothing created or charged');
    // Another visitor with the same key has its own quota; a secret key is not limited by it.
    assert.equal((await post('198.51.100.8')).status, 201);
    assert.equal((await create(s, a.keys.secret_live, body(a), '/api/v1', { 'x-forwarded-for': '198.51.100.7' })).status, 201);
    // Reads by id are not counted and are masked.
    const got = await s.call('GET', `/signature_requests/${ids[0]}`, {
      key: pk,
      headers: { origin: ORIGIN, 'x-forwarded-for': '198.51.100.7' },
    });
    assert.equal(got.status, 200);
    assert.equal(got.body.signers[0].email, 'v***@client.example');
    assert.equal(got.body.signers[0].signing_url, null);
    s.clock.advanceSeconds(2700);
    assert.equal((await post('198.51.100.7')).status, 201, 'a new hour');
  });
});
