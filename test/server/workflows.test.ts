/**
 * Workflows (spec 2.3, 4.1, 4.2): managed with `tawqi workflow create|update|publish|archive|list|show`
 * (run as a real process on the server's data directory), published versions read through GET /flows
 * and GET /flows/{id} (publishable keys allowed, read-only), and `workflow_id: default` on
 * POST /signature_requests applying the default workflow on every plan.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { issueKey } from '../../server/src/services/accounts.js';
import { updateAccount } from '../../server/src/store/accounts.js';
import { assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DAY = 86400;
const ORIGIN = 'https://shop.example.com';

describe('workflows', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ TAWQI_RATE_LIMIT: '100000', TAWQI_IP_RATE_LIMIT: '100000' });
  });
  after(() => s.close());

  function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: s.dataDir };
    delete env.NODE_TEST_CONTEXT;
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--conditions=tawqi-source', '--import', 'tsx', 'server/src/cli/main.ts', ...args],
        { cwd: ROOT, env, encoding: 'utf8' },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
      );
    });
  }
  async function cliJson(...args: string[]): Promise<Json> {
    const r = await cli(...args, '--json');
    assert.equal(r.code, 0, `tawqi ${args.join(' ')} failed: ${r.stderr}`);
    assert.equal(r.stderr, '');
    return JSON.parse(r.stdout);
  }
  async function cliFails(args: string[], pattern: RegExp): Promise<void> {
    const r = await cli(...args);
    assert.equal(r.code, 1, `expected exit 1 from tawqi ${args.join(' ')}: ${r.stdout}`);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, pattern);
  }

  async function account(overrides: Parameters<TestServer['account']>[0] = {}) {
    const acct = await s.account({ ownerEmail: 'owner@acme.test', plan: 'enterprise', ...overrides });
    await updateAccount(s.ctx.store.db, acct.id, { accepted_domains: ['example.com'] });
    const tpl = await s.call('POST', '/templates', {
      key: acct.keys.secret_test,
      body: {
        title: `Onboarding ${Math.random()}`,
        language: 'en',
        body: 'Welcome {{employee}}.',
        fields: [{ key: 'employee', label: 'Employee', required: true }],
      },
    });
    assert.equal(tpl.status, 201, tpl.text);
    return { ...acct, template: tpl.body.id as string };
  }
  const flows = async (key: string, path = '/flows', headers: Record<string, string> = {}) => s.call('GET', path, { key, headers });

  test('tawqi workflow create, publish, update, publish, show, archive; GET /flows shows only published versions', async () => {
    const a = await account();
    const listed = await cliJson('workflow', 'list', '--account', a.id);
    assert.deepEqual(
      listed.workflows.map((w: Json) => [w.id, w.status, w.version, w.default]),
      [['wf_default', 'published', 1, true]],
      'the default workflow exists on every account',
    );

    const created = await cliJson(
      'workflow',
      'create',
      '--account',
      a.id,
      '--name',
      'Employee onboarding',
      '--document',
      'fixed',
      '--template',
      a.template,
      '--signature-method',
      'identity',
      '--channel',
      'link',
      '--cc',
      'hr@acme.test',
      '--cc',
      'legal@acme.test',
      '--require-access-code',
      'on',
      '--expires-in',
      '14',
      '--language',
      'en',
      '--return-url',
      'https://app.example.com/done',
      '--ordered',
      'on',
      '--reminders',
      'on',
      '--reminder-interval',
      '24',
      '--reminder-max',
      '2',
    );
    const wf = created.workflow;
    assert.match(wf.id, /^wf_[0-9A-Za-z]{24}$/);
    assert.equal(wf.status, 'draft');
    assert.equal(wf.version, null);
    assert.deepEqual(wf.settings, {
      document: { mode: 'fixed', template_id: a.template },
      signature_method: 'identity',
      channel: 'link',
      cc: ['hr@acme.test', 'legal@acme.test'],
      require_id_attachment: false,
      require_access_code: true,
      expires_in: 14,
      language: 'en',
      return_url: 'https://app.example.com/done',
      ordered: true,
      reminders: { enabled: true, interval_hours: 24, max: 2 },
    });
    assert.deepEqual(
      (await flows(a.keys.secret_live)).body.data.map((w: Json) => w.id),
      ['wf_default'],
      'a draft is not shown',
    );
    await assertErrorBothLanguages((prefix) => s.call('GET', `/flows/${wf.id}`, { key: a.keys.secret_live, prefix }), 'not_found');

    const v1 = await cliJson('workflow', 'publish', wf.id);
    assert.equal(v1.workflow.status, 'published');
    assert.equal(v1.workflow.version, 1);
    assert.equal(v1.workflow.unpublished_changes, false);
    const shown = await flows(a.keys.secret_live, `/flows/${wf.id}`);
    assert.equal(shown.status, 200, shown.text);
    assert.deepEqual(shown.body, {
      id: wf.id,
      object: 'workflow',
      name: 'Employee onboarding',
      status: 'published',
      version: 1,
      default: false,
      document: { mode: 'fixed', template_id: a.template },
      signature_method: 'identity',
      legal_level: 'aes',
      channel: 'link',
      cc: ['hr@acme.test', 'legal@acme.test'],
      require_id_attachment: false,
      require_access_code: true,
      expires_in: 14,
      language: 'en',
      return_url: 'https://app.example.com/done',
      ordered: true,
      reminders: { enabled: true, interval_hours: 24, max: 2 },
      published_at: shown.body.published_at,
      created_at: wf.created_at,
    });

    const changed = await cliJson('workflow', 'update', wf.id, '--expires-in', '20', '--clear-cc', '--name', 'Onboarding v2');
    assert.equal(changed.workflow.unpublished_changes, true);
    assert.equal(changed.workflow.settings.expires_in, 20);
    const stillV1 = (await flows(a.keys.secret_live, `/flows/${wf.id}`)).body;
    assert.equal(stillV1.version, 1);
    assert.equal(stillV1.expires_in, 14, 'an update waits for the next publish');
    const v2 = await cliJson('workflow', 'publish', wf.id);
    assert.equal(v2.workflow.version, 2);
    const now2 = (await flows(a.keys.secret_live, `/flows/${wf.id}`)).body;
    assert.deepEqual([now2.version, now2.expires_in, now2.cc, now2.name], [2, 20, [], 'Onboarding v2']);

    const show = await cliJson('workflow', 'show', wf.id);
    assert.deepEqual(
      show.workflow.versions.map((v: Json) => [v.version, v.settings.expires_in]),
      [
        [2, 20],
        [1, 14],
      ],
    );
    const text = await cli('workflow', 'list', '--account', a.id);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`${wf.id} +published +v2 +link +identity +"Onboarding v2"`));

    const all = (await flows(a.keys.secret_live)).body;
    assert.deepEqual(
      all.data.map((w: Json) => w.id),
      ['wf_default', wf.id],
    );
    assert.equal(all.has_more, false);
    const paged = (await flows(a.keys.secret_live, '/flows?limit=1')).body;
    assert.deepEqual([paged.data.length, paged.has_more, paged.next_cursor], [1, true, 'wf_default']);
    assert.deepEqual(
      (await flows(a.keys.secret_live, '/flows?limit=1&starting_after=wf_default')).body.data.map((w: Json) => w.id),
      [wf.id],
    );

    const archived = await cliJson('workflow', 'archive', wf.id);
    assert.equal(archived.workflow.status, 'archived');
    assert.deepEqual(
      (await flows(a.keys.secret_live)).body.data.map((w: Json) => w.id),
      ['wf_default'],
    );
    await assertErrorBothLanguages((prefix) => s.call('GET', `/flows/${wf.id}`, { key: a.keys.secret_live, prefix }), 'not_found');
    const back = await cliJson('workflow', 'publish', wf.id);
    assert.deepEqual([back.workflow.status, back.workflow.version], ['published', 3]);
  });

  test('the CLI refuses bad settings and the built-in default workflow', async () => {
    const a = await account();
    // Independent refusals, run side by side.
    await Promise.all([
      cliFails(['workflow', 'create', '--account', a.id, '--name', 'X', '--template', 'tpl_nothere'], /No template tpl_nothere/),
      cliFails(['workflow', 'create', '--account', a.id, '--name', 'X', '--expires-in', '31'], /1 to 30/),
      cliFails(['workflow', 'create', '--account', a.id, '--name', 'X', '--channel', 'sms'], /Allowed choices are email, whatsapp, link/),
      cliFails(['workflow', 'create', '--account', a.id, '--name', 'X', '--return-url', 'http://app.example.com'], /https URL/),
      cliFails(['workflow', 'create', '--account', 'acct_nope', '--name', 'X'], /No account acct_nope/),
      cliFails(
        [
          'workflow',
          'create',
          '--account',
          a.id,
          '--name',
          'X',
          ...Array.from({ length: 21 }, (_, i) => ['--cc', `c${i}@acme.test`]).flat(),
        ],
        /cc/,
      ),
      ...['publish', 'archive'].map((verb) => cliFails(['workflow', verb, 'wf_default'], /built in/)),
      cliFails(['workflow', 'update', 'wf_default', '--language', 'en'], /built in/),
      cliFails(['workflow', 'show', 'wf_default'], /--account/),
      cliFails(['workflow', 'publish', 'wf_nothere'], /No workflow wf_nothere/),
    ]);
    const def = await cliJson('workflow', 'show', 'wf_default', '--account', a.id);
    assert.equal(def.workflow.default, true);
    assert.deepEqual(def.workflow.settings, {
      document: { mode: 'per_request', default_template_id: null },
      signature_method: 'simple',
      channel: 'email',
      cc: [],
      require_id_attachment: false,
      require_access_code: false,
      expires_in: 7,
      language: 'ar',
      return_url: null,
      ordered: false,
      reminders: { enabled: false, interval_hours: 48, max: 3 },
    });
    const made = await cliJson('workflow', 'create', '--account', a.id, '--name', 'Published at once', '--publish');
    assert.deepEqual([made.workflow.status, made.workflow.version], ['published', 1]);
  });

  test('GET /flows with a publishable key: allowed, cc masked; writes are refused (403 forbidden)', async () => {
    const a = await account();
    await cliJson('workflow', 'create', '--account', a.id, '--name', 'Copied', '--cc', 'hr@acme.test', '--publish');
    const pk = await issueKey(s.ctx.store.db, s.clock, a.id, 'publishable', 'live', { allowedOrigins: [ORIGIN] });
    const r = await flows(pk.secret, '/flows', { origin: ORIGIN });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data[1].cc, ['h***@acme.test']);
    const one = await flows(pk.secret, `/flows/${r.body.data[1].id}`, { origin: ORIGIN });
    assert.equal(one.status, 200);
    for (const method of ['POST', 'DELETE']) {
      await assertErrorBothLanguages(
        (prefix) => s.call(method, `/flows/${r.body.data[1].id}`, { key: pk.secret, prefix, headers: { origin: ORIGIN }, body: {} }),
        'forbidden',
      );
    }
    await assertErrorBothLanguages(
      (prefix) => s.call('POST', '/flows', { key: pk.secret, prefix, headers: { origin: ORIGIN }, body: { name: 'x' } }),
      'forbidden',
    );
  });

  test('workflow_id: default on POST /signature_requests applies the default workflow where the request sets nothing, on every plan', async () => {
    const a = await account({ plan: 'starter' });
    const body = {
      source: { type: 'template', template_id: a.template },
      signers: [{ name: 'Layla', email: 'layla@client.example', fields: { employee: 'Layla' } }],
    };
    const plain = await s.call('POST', '/signature_requests', { key: a.keys.secret_live, body });
    assert.equal(plain.body.language, 'en', 'without a workflow: the template’s language');
    const now = Math.floor(s.clock.nowMs() / 1000);
    assert.equal(plain.body.expires_at, now + 30 * DAY);

    const viaDefault = await s.call('POST', '/signature_requests', { key: a.keys.secret_live, body: { ...body, workflow_id: 'default' } });
    assert.equal(viaDefault.status, 201, viaDefault.text);
    const sr = viaDefault.body;
    assert.equal(sr.language, 'ar', 'the default workflow’s language');
    assert.equal(sr.expires_at, now + 7 * DAY, 'the default workflow’s 7 days');
    assert.equal(sr.legal_level, 'ses');
    assert.deepEqual([sr.workflow_id, sr.workflow_version, sr.vendor_data, sr.channel], ['wf_default', 1, null, 'email']);
    const session = await s.call('GET', `/sessions/${sr.id}`, { key: a.keys.secret_live });
    assert.equal(session.status, 200);
    assert.equal(session.body.workflow_id, 'wf_default');

    const explicit = await s.call('POST', '/signature_requests', {
      key: a.keys.secret_live,
      body: { ...body, workflow_id: 'default', language: 'en', expires_at: now + 3 * DAY },
    });
    assert.equal(explicit.body.language, 'en', 'what the request sets wins');
    assert.equal(explicit.body.expires_at, now + 3 * DAY);
    const r = await assertErrorBothLanguages(
      (prefix) => s.call('POST', '/signature_requests', { key: a.keys.secret_live, body: { ...body, workflow_id: 'wf_custom' }, prefix }),
      'workflow_not_found',
    );
    assert.equal(r.body.error.param, 'workflow_id');
  });
});
