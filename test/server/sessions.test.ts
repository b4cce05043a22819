/**
 * POST /sessions (spec 4.2, 7): created and sent with the latest published version of a workflow;
 * every override and its limits, every refused field, the template and document rules, vendor_data,
 * and each session error of part 7 provoked in Arabic and English with nothing created or charged.
 * (Delivery failures: sessions-delivery.test.ts; the object and lists: sessions-objects.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ErrorCode } from '../../shared/src/errors.js';
import { TEMPLATE_LIBRARY } from '../../server/src/domain/templateLibrary.js';
import { issueKey } from '../../server/src/services/accounts.js';
import {
  archiveWorkflow,
  changeWorkflow,
  createWorkflow,
  publishWorkflow,
  type WorkflowPatch,
} from '../../server/src/services/workflows.js';
import { getAccount, updateAccount } from '../../server/src/store/accounts.js';
import { assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type CallResult, type TestServer } from '../support/server.js';

const DAY = 86400;
const TEMPLATE = {
  title: 'Supply contract',
  language: 'en',
  body: 'Supply for {{client}} from {{start_date}}. {{note}}',
  fields: [
    { key: 'client', label: 'Client', required: true },
    { key: 'start_date', label: 'Start', type: 'date' },
    { key: 'note', label: 'Note' },
  ],
};

interface Acct {
  id: string;
  keys: Awaited<ReturnType<TestServer['account']>>['keys'];
  team: string[];
  templateId: string;
  otherTemplateId: string;
}

let serial = 0;

describe('POST /sessions', () => {
  let s: TestServer;
  let a: Acct;
  before(async () => {
    s = await startTestServer({ TAWQI_RATE_LIMIT: '100000', TAWQI_IP_RATE_LIMIT: '100000' });
    a = await account();
  });
  after(() => s.close());

  async function account(overrides: Parameters<TestServer['account']>[0] = {}): Promise<Acct> {
    const n = ++serial;
    const owner = `owner${n}@acme.test`;
    const acct = await s.account({ ownerEmail: owner, plan: 'enterprise', balanceSends: 1000, walletMinor: 100_000, ...overrides });
    const team = [owner, `member${n}@acme.test`, `second${n}@acme.test`];
    await updateAccount(s.ctx.store.db, acct.id, { team_emails: team, team_phones: ['+201001234567'], accepted_domains: ['example.com'] });
    const t1 = await s.call('POST', '/templates', { key: acct.keys.secret_test, body: TEMPLATE });
    const t2 = await s.call('POST', '/templates', {
      key: acct.keys.secret_test,
      body: { ...TEMPLATE, title: 'Other contract', body: 'Other for {{client}}.', fields: [TEMPLATE.fields[0]] },
    });
    assert.equal(t1.status, 201, t1.text);
    return { ...acct, team, templateId: t1.body.id, otherTemplateId: t2.body.id };
  }

  const workflow = async (acct: Acct, patch: WorkflowPatch = {}, publish = true) =>
    (
      await createWorkflow(
        s.ctx.store,
        s.clock,
        acct.id,
        `Flow ${++serial}`,
        { template_id: acct.templateId, document_mode: 'fixed', ...patch },
        publish,
      )
    ).workflow.id;
  const post = (key: string, body: unknown, prefix = '/api/v1', headers: Record<string, string> = {}) =>
    s.call('POST', '/sessions', { key, body, prefix, headers });
  const signer = (extra: Record<string, unknown> = {}) => ({
    name: 'Layla Hassan',
    email: 'layla@client.example',
    fields: { client: 'Acme' },
    ...extra,
  });
  const now = () => Math.floor(s.clock.nowMs() / 1000);

  async function count(table: 'signature_requests' | 'ledger' | 'messages' | 'events' | 'sessions', accountId: string): Promise<number> {
    const row = await s.ctx.store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
  async function snapshot(accountId: string) {
    const acct = (await getAccount(s.ctx.store.db, accountId))!;
    return {
      requests: await count('signature_requests', accountId),
      sessions: await count('sessions', accountId),
      ledger: await count('ledger', accountId),
      messages: await count('messages', accountId),
      events: await count('events', accountId),
      balance: acct.balance_sends,
      wallet: acct.wallet_minor,
    };
  }
  /** Provoke in both languages; check the param; nothing created or charged. */
  async function refused(key: string, body: unknown, code: ErrorCode, param: string | null, acct: Acct = a): Promise<CallResult> {
    const before = await snapshot(acct.id);
    const r = await assertErrorBothLanguages((prefix) => post(key, body, prefix), code);
    assert.equal(r.body.error.param, param, `param of ${code}: ${r.text}`);
    assert.deepEqual(await snapshot(acct.id), before, `${code}: nothing created or charged`);
    return r;
  }
  async function created(key: string, body: unknown): Promise<CallResult> {
    const r = await post(key, body);
    assert.equal(r.status, 201, r.text);
    return r;
  }
  const getRequest = async (key: string, id: string) => (await s.call('GET', `/signature_requests/${id}`, { key })).body;

  test('creates and sends with the latest published version; working changes wait for the next publish', async () => {
    const wf = await workflow(a, { language: 'en', expires_in: 3 });
    const v1 = await created(a.keys.secret_live, { workflow_id: wf, signers: [signer()] });
    assert.equal(v1.body.status, 'sent');
    assert.equal(v1.body.workflow_version, 1);
    assert.equal(v1.body.expires_at, now() + 3 * DAY);
    assert.equal((await getRequest(a.keys.secret_live, v1.body.id)).language, 'en');

    await changeWorkflow(s.ctx.store, s.clock, wf, { language: 'ar', expires_in: 12 });
    const still = await created(a.keys.secret_live, { workflow_id: wf, signers: [signer()] });
    assert.equal(still.body.workflow_version, 1, 'an unpublished change is not used');
    assert.equal(still.body.expires_at, now() + 3 * DAY);

    await publishWorkflow(s.ctx.store, s.clock, wf);
    const v2 = await created(a.keys.secret_live, { workflow_id: wf, signers: [signer()] });
    assert.equal(v2.body.workflow_version, 2);
    assert.equal(v2.body.expires_at, now() + 12 * DAY);
    const r = await getRequest(a.keys.secret_live, v2.body.id);
    assert.equal(r.language, 'ar');
    assert.equal(r.workflow_id, wf);
    assert.equal(r.workflow_version, 2);
    assert.equal(r.channel, 'email');
    assert.equal(r.source.template_id, a.templateId, 'the fixed template');
    const invitation = await s.ctx.store.db
      .selectFrom('messages')
      .selectAll()
      .where('signature_request_id', '=', v2.body.id)
      .executeTakeFirstOrThrow();
    assert.equal(invitation.kind, 'invitation');
    assert.equal(invitation.recipient, 'layla@client.example');
  });

  test('base defaults (4.2): simple (ses), email, 7 days, Arabic, no ID attachment, no cc, no access code', async () => {
    const r = await created(a.keys.secret_live, { workflow_id: 'wf_default', template_id: a.templateId, signers: [signer()] });
    assert.equal(r.body.workflow_id, 'wf_default');
    assert.equal(r.body.workflow_version, 1);
    assert.equal(r.body.channel, 'email');
    assert.equal(r.body.expires_at, now() + 7 * DAY);
    const sr = await getRequest(a.keys.secret_live, r.body.id);
    assert.equal(sr.legal_level, 'ses');
    assert.equal(sr.language, 'ar');
    assert.equal(sr.signers[0].method, 'draw');
    const row = await s.ctx.store.db
      .selectFrom('sessions')
      .selectAll()
      .where('signature_request_id', '=', r.body.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(row.settings), {
      signature_method: 'simple',
      cc: [],
      require_id_attachment: false,
      require_access_code: false,
    });
  });

  test('every override applies to that request only, within its limits', async () => {
    const wf = await workflow(a, { cc: ['legal@acme.test'], return_url: 'https://app.example.com/done' });
    const r = await created(a.keys.secret_live, {
      workflow_id: wf,
      signers: [signer()],
      signature_method: 'identity',
      channel: 'link',
      cc: ['a@acme.test', 'b@acme.test'],
      require_id_attachment: true,
      expires_in: 30,
      language: 'en',
      return_url: 'https://portal.example.com/back',
    });
    const sr = await getRequest(a.keys.secret_live, r.body.id);
    assert.equal(sr.legal_level, 'aes', 'identity → aes');
    assert.equal(sr.require_identity, true);
    assert.equal(sr.signers[0].require_identity, true);
    assert.equal(sr.channel, 'link');
    assert.equal(sr.language, 'en');
    assert.equal(sr.expires_at, now() + 30 * DAY);
    assert.equal(r.body.return_url, 'https://portal.example.com/back');
    const row = await s.ctx.store.db
      .selectFrom('sessions')
      .selectAll()
      .where('signature_request_id', '=', r.body.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(row.settings), {
      signature_method: 'identity',
      cc: ['a@acme.test', 'b@acme.test'],
      require_id_attachment: true,
      require_access_code: false,
    });

    // The workflow itself is unchanged for the next request.
    const next = await created(a.keys.secret_live, { workflow_id: wf, signers: [signer()] });
    const plain = await getRequest(a.keys.secret_live, next.body.id);
    assert.equal(plain.legal_level, 'ses');
    assert.equal(plain.channel, 'email');
    assert.equal(next.body.return_url, 'https://app.example.com/done', 'the workflow return_url');
    assert.equal(next.body.expires_at, now() + 7 * DAY);
    const nextRow = await s.ctx.store.db
      .selectFrom('sessions')
      .selectAll()
      .where('signature_request_id', '=', next.body.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(nextRow.settings).cc, ['legal@acme.test']);

    // An empty return_url removes the workflow's URL for this request; token → qes with method token.
    const bare = await created(a.keys.secret_live, {
      workflow_id: wf,
      signers: [signer()],
      return_url: '',
      signature_method: 'token',
      expires_in: 1,
      cc: Array.from({ length: 20 }, (_, i) => `cc${i}@acme.test`),
    });
    assert.equal('return_url' in bare.body, false);
    const token = await getRequest(a.keys.secret_live, bare.body.id);
    assert.equal(token.legal_level, 'qes');
    assert.equal(token.signers[0].method, 'token');
    assert.equal(bare.body.expires_at, now() + 1 * DAY);
  });

  test('invalid_override: each refused field, a signer’s method and require_identity, and invalid override values (param names the field)', async () => {
    const wf = await workflow(a);
    const base = { workflow_id: wf, signers: [signer()] };
    const refusedFields: [string, unknown][] = [
      ['ordered', true],
      ['reminders', { enabled: true }],
      ['require_access_code', true],
      ['send', false],
      ['legal_level', 'aes'],
      ['require_identity', true],
      ['source', { type: 'template', template_id: a.templateId }],
      ['document', { mode: 'fixed' }],
      ['format', 'pades-lt'],
      ['success_url', 'https://app.example.com/ok'],
    ];
    for (const [field, value] of refusedFields) await refused(a.keys.secret_live, { ...base, [field]: value }, 'invalid_override', field);
    await refused(a.keys.secret_live, { ...base, signers: [signer({ method: 'token' })] }, 'invalid_override', 'signers[0].method');
    await refused(
      a.keys.secret_live,
      { ...base, signers: [signer(), signer({ require_identity: true })] },
      'invalid_override',
      'signers[1].require_identity',
    );
    const badValues: [string, unknown, string?][] = [
      ['signature_method', 'biometric'],
      ['channel', 'sms'],
      ['cc', Array.from({ length: 21 }, (_, i) => `cc${i}@acme.test`)],
      ['cc', ['not-an-address'], 'cc[0]'],
      ['cc', 'legal@acme.test'],
      ['require_id_attachment', 'yes'],
      ['expires_in', 0],
      ['expires_in', 31],
      ['expires_in', 1.5],
      ['language', 'fr'],
      ['return_url', 'http://app.example.com/back'],
      ['return_url', 'not a url'],
    ];
    for (const [field, value, param] of badValues)
      await refused(a.keys.secret_live, { ...base, [field]: value }, 'invalid_override', param ?? field);
  });

  test('template and document rules: fixed template, per-request template, default template, document_id (a text contract of the account)', async () => {
    const fixed = await workflow(a);
    await refused(
      a.keys.secret_live,
      { workflow_id: fixed, template_id: a.otherTemplateId, signers: [signer()] },
      'invalid_override',
      'template_id',
    );
    await refused(
      a.keys.secret_live,
      { workflow_id: fixed, document_id: a.otherTemplateId, signers: [signer()] },
      'invalid_override',
      'document_id',
    );

    const perRequest = await workflow(a, { document_mode: 'per_request', template_id: null });
    await refused(a.keys.secret_live, { workflow_id: perRequest, signers: [signer()] }, 'parameter_missing', 'template_id');
    await refused(
      a.keys.secret_live,
      { workflow_id: perRequest, template_id: 'tpl_missing', signers: [signer()] },
      'invalid_request',
      'template_id',
    );
    await refused(
      a.keys.secret_live,
      { workflow_id: perRequest, document_id: 'tpl_missing', signers: [signer()] },
      'invalid_request',
      'document_id',
    );
    await refused(
      a.keys.secret_live,
      { workflow_id: perRequest, document_id: 'tpl_nda_en', signers: [signer()] },
      'invalid_request',
      'document_id',
    );
    await refused(
      a.keys.secret_live,
      { workflow_id: perRequest, template_id: a.templateId, document_id: a.otherTemplateId, signers: [signer()] },
      'invalid_request',
      'document_id',
    );
    const other = await account();
    await refused(
      a.keys.secret_live,
      { workflow_id: perRequest, template_id: other.templateId, signers: [signer()] },
      'invalid_request',
      'template_id',
    );

    const byTemplate = await created(a.keys.secret_live, { workflow_id: perRequest, template_id: a.otherTemplateId, signers: [signer()] });
    assert.equal((await getRequest(a.keys.secret_live, byTemplate.body.id)).source.template_id, a.otherTemplateId);
    const nda = TEMPLATE_LIBRARY.find((t) => t.id === 'tpl_nda_en')!;
    const ndaFields = Object.fromEntries(
      nda.fields.filter((f) => f.required).map((f) => [f.key, f.type === 'date' ? '2026-09-01' : f.type === 'number' ? '2' : 'Acme']),
    );
    const library = await created(a.keys.secret_live, {
      workflow_id: perRequest,
      template_id: 'tpl_nda_en',
      signers: [signer({ fields: {} })],
      fields: ndaFields,
    });
    assert.equal((await getRequest(a.keys.secret_live, library.body.id)).source.template_id, 'tpl_nda_en');
    const byDocument = await created(a.keys.secret_live, { workflow_id: perRequest, document_id: a.otherTemplateId, signers: [signer()] });
    assert.equal((await getRequest(a.keys.secret_live, byDocument.body.id)).source.template_id, a.otherTemplateId);

    const withDefault = await workflow(a, { document_mode: 'per_request', template_id: a.otherTemplateId });
    const byDefault = await created(a.keys.secret_live, { workflow_id: withDefault, signers: [signer()] });
    assert.equal((await getRequest(a.keys.secret_live, byDefault.body.id)).source.template_id, a.otherTemplateId);
    const overridden = await created(a.keys.secret_live, { workflow_id: withDefault, template_id: a.templateId, signers: [signer()] });
    assert.equal((await getRequest(a.keys.secret_live, overridden.body.id)).source.template_id, a.templateId);
  });

  test('title, fields and metadata as on signature requests; field values checked against the template', async () => {
    const wf = await workflow(a);
    const r = await created(a.keys.secret_live, {
      workflow_id: wf,
      title: 'Supply 2026',
      metadata: { order: '77' },
      fields: { client: 'Top level', start_date: '2026-09-01' },
      signers: [signer({ fields: { note: 'mine' } })],
    });
    const sr = await getRequest(a.keys.secret_live, r.body.id);
    assert.equal(sr.title, 'Supply 2026');
    assert.deepEqual(sr.metadata, { order: '77' });
    assert.deepEqual(sr.signers[0].fields, { client: 'Top level', start_date: '2026-09-01', note: 'mine' });
    await refused(
      a.keys.secret_live,
      { workflow_id: wf, signers: [signer({ fields: {} })] },
      'parameter_missing',
      'signers[0].fields.client',
    );
    await refused(
      a.keys.secret_live,
      { workflow_id: wf, fields: { start_date: '2026-02-30' }, signers: [signer()] },
      'parameter_invalid',
      'fields.start_date',
    );
    await refused(a.keys.secret_live, { workflow_id: wf, fields: { nope: 'x' }, signers: [signer()] }, 'parameter_unknown', 'fields.nope');
    await refused(a.keys.secret_live, { workflow_id: wf, title: '', signers: [signer()] }, 'parameter_invalid', 'title');
  });

  test('vendor_data: up to 190 characters, returned in the object; invalid → invalid_request', async () => {
    const wf = await workflow(a);
    const ok = await created(a.keys.secret_live, { workflow_id: wf, vendor_data: 'v'.repeat(190), signers: [signer()] });
    assert.equal(ok.body.vendor_data, 'v'.repeat(190));
    await refused(
      a.keys.secret_live,
      { workflow_id: wf, vendor_data: 'v'.repeat(191), signers: [signer()] },
      'invalid_request',
      'vendor_data',
    );
    await refused(a.keys.secret_live, { workflow_id: wf, vendor_data: 42, signers: [signer()] }, 'invalid_request', 'vendor_data');
  });

  test('parameter_missing: workflow_id or signers', async () => {
    await refused(a.keys.secret_live, { signers: [signer()] }, 'parameter_missing', 'workflow_id');
    await refused(a.keys.secret_live, { workflow_id: 'wf_default', template_id: a.templateId }, 'parameter_missing', 'signers');
  });

  test('workflow_not_found: unknown id, another account’s workflow', async () => {
    await refused(a.keys.secret_live, { workflow_id: 'wf_doesnotexist', signers: [signer()] }, 'workflow_not_found', 'workflow_id');
    const other = await account();
    const theirs = await workflow(other);
    await refused(a.keys.secret_live, { workflow_id: theirs, signers: [signer()] }, 'workflow_not_found', 'workflow_id');
    await refused(a.keys.secret_live, { workflow_id: 17, signers: [signer()] }, 'workflow_not_found', 'workflow_id');
  });

  test('workflow_not_live: unpublished, archived, or its fixed template unset', async () => {
    const draft = await workflow(a, {}, false);
    await refused(a.keys.secret_live, { workflow_id: draft, signers: [signer()] }, 'workflow_not_live', 'workflow_id');
    const archived = await workflow(a);
    await archiveWorkflow(s.ctx.store, s.clock, archived);
    await refused(a.keys.secret_live, { workflow_id: archived, signers: [signer()] }, 'workflow_not_live', 'workflow_id');
    const unset = await workflow(a, { document_mode: 'fixed', template_id: null });
    await refused(a.keys.secret_live, { workflow_id: unset, signers: [signer()] }, 'workflow_not_live', 'workflow_id');
    // Publishing again brings an archived workflow back.
    await publishWorkflow(s.ctx.store, s.clock, archived);
    await created(a.keys.secret_live, { workflow_id: archived, signers: [signer()] });
  });

  test('invalid_signer: missing or invalid signer data, contacts per channel, access codes, more than five', async () => {
    const wf = await workflow(a);
    const cases: [unknown, string][] = [
      [[], 'signers'],
      ['Layla', 'signers'],
      [[signer(), signer(), signer(), signer(), signer(), signer()], 'signers'],
      [[{ email: 'x@client.example', fields: { client: 'A' } }], 'signers[0].name'],
      [[signer({ name: '  ' })], 'signers[0].name'],
      [[signer({ email: 'nope' })], 'signers[0].email'],
      [[signer({ phone: '01001234567' })], 'signers[0].phone'],
      [[signer({ phone: '+20 100 123 4567' })], 'signers[0].phone'],
      [[signer({ access_code: '123' })], 'signers[0].access_code'],
      [[signer({ access_code: 'x'.repeat(33) })], 'signers[0].access_code'],
      [[signer({ shoe_size: 42 })], 'signers[0].shoe_size'],
      [[signer(), 'second'], 'signers[1]'],
      [[{ name: 'No Email', phone: '+201001234567', fields: { client: 'A' } }], 'signers[0].email'],
    ];
    for (const [signers, param] of cases) await refused(a.keys.secret_live, { workflow_id: wf, signers }, 'invalid_signer', param);
    const six = await post(a.keys.secret_live, { workflow_id: wf, signers: Array.from({ length: 6 }, () => signer()) });
    assert.equal(six.body.error.max_signers, 5);

    // WhatsApp needs a number; link needs an email or a number.
    await refused(
      a.keys.secret_test,
      { workflow_id: wf, channel: 'whatsapp', signers: [signer({ email: a.team[1] })] },
      'invalid_signer',
      'signers[0].phone',
    );
    await refused(
      a.keys.secret_live,
      { workflow_id: wf, channel: 'link', signers: [{ name: 'Nobody', fields: { client: 'A' } }] },
      'invalid_signer',
      'signers[0].email',
    );

    // A workflow that requires an access code: every signer needs one.
    const coded = await workflow(a, { require_access_code: true });
    await refused(
      a.keys.secret_live,
      { workflow_id: coded, signers: [signer({ access_code: 'abcd' }), signer()] },
      'invalid_signer',
      'signers[1].access_code',
    );
    const ok = await created(a.keys.secret_live, {
      workflow_id: coded,
      signers: [signer({ access_code: 'abcd' }), signer({ access_code: 'x'.repeat(32) })],
    });
    const stored = await s.ctx.store.db
      .selectFrom('signers')
      .select('access_code_hash')
      .where('signature_request_id', '=', ok.body.id)
      .execute();
    assert.ok(
      stored.every((x) => x.access_code_hash !== null && !x.access_code_hash.includes('abcd')),
      'access codes are stored hashed',
    );
  });

  test('channel_unavailable: WhatsApp in live mode while not enabled (account off, or platform without WhatsApp)', async () => {
    const wf = await workflow(a, { channel: 'whatsapp' });
    const phoneSigner = [{ name: 'Omar', phone: '+201001234567', fields: { client: 'A' } }];
    await refused(a.keys.secret_live, { workflow_id: wf, signers: phoneSigner }, 'channel_unavailable', 'channel');
    await updateAccount(s.ctx.store.db, a.id, { whatsapp_enabled: true });
    try {
      // The account has it on, but this platform has no WhatsApp settings.
      await refused(a.keys.secret_live, { workflow_id: wf, signers: phoneSigner }, 'channel_unavailable', 'channel');
      await refused(
        a.keys.secret_live,
        { workflow_id: 'wf_default', template_id: a.templateId, channel: 'whatsapp', signers: phoneSigner },
        'channel_unavailable',
        'channel',
      );
    } finally {
      await updateAccount(s.ctx.store.db, a.id, { whatsapp_enabled: false });
    }
    // Test mode: WhatsApp is simulated, so the channel is available (every signer still needs an email).
    const t = await created(a.keys.secret_test, {
      workflow_id: wf,
      signers: [{ name: 'Omar', phone: '+201001234567', email: a.team[1], fields: { client: 'A' } }],
    });
    assert.equal(t.body.channel, 'whatsapp');
  });

  test('domain_not_accepted: a return_url override, or the workflow’s, outside the accepted domains', async () => {
    const wf = await workflow(a, { return_url: 'https://app.example.com/done' });
    await refused(
      a.keys.secret_live,
      { workflow_id: wf, signers: [signer()], return_url: 'https://evil.test/back' },
      'domain_not_accepted',
      'return_url',
    );
    const b = await account();
    const theirs = await workflow(b, { return_url: 'https://app.example.com/done' });
    await updateAccount(s.ctx.store.db, b.id, { accepted_domains: ['other.test'] });
    await refused(b.keys.secret_live, { workflow_id: theirs, signers: [signer()] }, 'domain_not_accepted', 'return_url', b);
    // Removing the URL for this request avoids it.
    await created(b.keys.secret_live, { workflow_id: theirs, signers: [signer()], return_url: '' });
  });

  test('insufficient_balance: checked before creation; no request, no charge', async () => {
    const poor = await account({ balanceSends: 0, walletMinor: 500 });
    const wf = await workflow(poor);
    const r = await refused(poor.keys.secret_live, { workflow_id: wf, signers: [signer()] }, 'insufficient_balance', null, poor);
    assert.deepEqual(r.body.error.required, { amount: 6, currency: 'EGP' });
    assert.deepEqual(r.body.error.available, { amount: 5, currency: 'EGP' });
  });

  test('secret key only: publishable keys get 403 forbidden; a read-only key may read but not create', async () => {
    const wf = await workflow(a);
    const body = { workflow_id: wf, signers: [signer()] };
    for (const key of [a.keys.publishable_live, a.keys.publishable_test]) {
      await refused(key, body, 'forbidden', null);
      await assertErrorBothLanguages((prefix) => s.call('GET', '/sessions', { key, prefix }), 'forbidden');
    }
    const readOnly = await issueKey(s.ctx.store.db, s.clock, a.id, 'secret', 'live', { name: 'reader', readOnly: true });
    await refused(readOnly.secret, body, 'forbidden', null);
    const made = await created(a.keys.secret_live, body);
    const read = await s.call('GET', `/sessions/${made.body.id}`, { key: readOnly.secret });
    assert.equal(read.status, 200, read.text);
    assert.equal((await s.call('GET', '/sessions', { key: readOnly.secret })).status, 200);
  });

  test('plans in live mode: custom workflows need Business; the default workflow works on every plan; Enterprise features of a workflow; test keys unlock them', async () => {
    const starter = await account({ plan: 'starter' });
    const custom = await workflow(starter);
    const r = await refused(
      starter.keys.secret_live,
      { workflow_id: custom, signers: [signer()] },
      'plan_feature_unavailable',
      'workflow_id',
      starter,
    );
    assert.equal(r.body.error.feature, 'custom_workflows');
    assert.equal(r.body.error.required_plan, 'business');
    const byDefault = await created(starter.keys.secret_live, {
      workflow_id: 'wf_default',
      template_id: starter.templateId,
      signers: [signer()],
    });
    assert.equal(byDefault.body.workflow_id, 'wf_default');
    await created(starter.keys.secret_test, { workflow_id: custom, signers: [signer({ email: starter.team[1] })] });

    const business = await account({ plan: 'business' });
    const wf = await workflow(business);
    const enterprise: [Record<string, unknown>, string, string][] = [
      [{ signature_method: 'token' }, 'signature_method', 'qes'],
      [{ require_id_attachment: true }, 'require_id_attachment', 'signer_attachments'],
      [{ signers: [signer({ access_code: 'abcd' })] }, 'signers[0].access_code', 'access_code'],
    ];
    for (const [extra, param, feature] of enterprise) {
      const e = await refused(
        business.keys.secret_live,
        { workflow_id: wf, signers: [signer()], ...extra },
        'plan_feature_unavailable',
        param,
        business,
      );
      assert.equal(e.body.error.feature, feature);
      assert.equal(e.body.error.required_plan, 'enterprise');
    }
    const ordered = await workflow(starter, {}, true);
    await changeWorkflow(s.ctx.store, s.clock, ordered, { ordered: true });
    await publishWorkflow(s.ctx.store, s.clock, ordered);
    await updateAccount(s.ctx.store.db, starter.id, { plan: 'business' });
    await created(starter.keys.secret_live, { workflow_id: ordered, signers: [signer(), signer()] });
  });

  test('live gates first: no plan → 402 plan_required', async () => {
    const none = await account({ plan: 'none', planExpiresAt: null });
    await refused(
      none.keys.secret_live,
      { workflow_id: 'wf_default', template_id: none.templateId, signers: [signer()] },
      'plan_required',
      null,
      none,
    );
  });

  test('test mode: signers of the account or its team, with an email', async () => {
    const wf = await workflow(a);
    await refused(a.keys.secret_test, { workflow_id: wf, signers: [signer()] }, 'test_recipient_not_allowed', 'signers[0].email');
    await refused(
      a.keys.secret_test,
      { workflow_id: wf, channel: 'link', signers: [{ name: 'Phone only', phone: '+201001234567', fields: { client: 'A' } }] },
      'test_email_required',
      'signers[0].email',
    );
    const ok = await created(a.keys.secret_test, { workflow_id: wf, signers: [signer({ email: a.team[1] })] });
    assert.equal(ok.body.livemode, false);
    assert.equal(ok.body.cost.amount, 0);
  });

  test('idempotent: the same Idempotency-Key replays the 201; one request, one charge', async () => {
    const acct = await account({ balanceSends: 0, walletMinor: 10_000 });
    const wf = await workflow(acct);
    const body = { workflow_id: wf, vendor_data: 'once', signers: [signer()] };
    const first = await post(acct.keys.secret_live, body, '/api/v1', { 'idempotency-key': 'sess-1' });
    assert.equal(first.status, 201, first.text);
    const again = await post(acct.keys.secret_live, body, '/api/v1', { 'idempotency-key': 'sess-1' });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal(await count('sessions', acct.id), 1);
    assert.equal((await getAccount(s.ctx.store.db, acct.id))!.wallet_minor, 10_000 - 600, 'charged once (one overage send)');
    const reused = await s.call('POST', '/signature_requests', {
      key: acct.keys.secret_live,
      headers: { 'idempotency-key': 'sess-1' },
      body: {},
    });
    assert.equal(reused.body.error.code, 'idempotency_key_reused');
  });
});
