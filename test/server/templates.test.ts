import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TEMPLATE_LIBRARY } from '../../server/src/domain/templateLibrary.js';
import { issueKey } from '../../server/src/services/accounts.js';
import { assertError, assertErrorBothLanguages } from '../support/envelope.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ORIGIN = 'https://shop.example.com';
const sample = (title: string) => ({
  title,
  language: 'en',
  body: 'This agreement is between {{client_name}} and {{provider_name}}, starting {{start_date}}.',
  fields: [
    { key: 'client_name', label: 'Client', type: 'text', required: true },
    { key: 'provider_name', label: 'Provider', type: 'text', required: true },
    { key: 'start_date', label: 'Start date', type: 'date', required: false },
  ],
});

describe('templates', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('the library ships at least five contracts in Arabic and English', async () => {
    const r = await s.call('GET', '/templates?limit=100', { key: s.keys.secret_live });
    assert.equal(r.status, 200);
    assert.equal(r.body.object, 'list');
    const library = r.body.data.filter((t: { source: string }) => t.source === 'library');
    assert.ok(library.length >= 10);
    const slugs = (lang: string) =>
      new Set(library.filter((t: { language: string }) => t.language === lang).map((t: { id: string }) => t.id.replace(/_(ar|en)$/, '')));
    assert.ok(slugs('ar').size >= 5);
    assert.deepEqual(slugs('ar'), slugs('en'));
    const nda = await s.call('GET', '/templates/tpl_nda_ar', { key: s.keys.secret_live });
    assert.equal(nda.status, 200);
    assert.equal(nda.body.object, 'template');
    assert.match(nda.body.body, /[\u0600-\u06FF]/);
    for (const f of nda.body.fields) assert.ok(nda.body.body.includes(`{{${f.key}}}`));
    assert.equal(TEMPLATE_LIBRARY.length, library.length);
  });

  test('POST /templates creates a custom template; GET /templates/{id} returns it; another account cannot see it', async () => {
    const created = await s.call('POST', '/templates', { key: s.keys.secret_live, body: sample('Consulting') });
    assert.equal(created.status, 201);
    assert.match(created.body.id, /^tpl_/);
    assert.equal(created.body.source, 'custom');
    assert.deepEqual(
      created.body.fields.map((f: { key: string }) => f.key),
      ['client_name', 'provider_name', 'start_date'],
    );
    const got = await s.call('GET', `/templates/${created.body.id}`, { key: s.keys.secret_test });
    assert.deepEqual(got.body, created.body);
    const other = await s.account();
    await assertErrorBothLanguages(
      (prefix) => s.call('GET', `/templates/${created.body.id}`, { key: other.keys.secret_live, prefix }),
      'not_found',
    );
    assertError(await s.call('GET', '/templates/tpl_nope', { key: s.keys.secret_live }), 'not_found');
  });

  test('scope=mine, search, limit and cursor', async () => {
    const acct = await s.account();
    for (const t of ['Alpha lease', 'Beta NDA', 'Gamma lease']) {
      assert.equal((await s.call('POST', '/templates', { key: acct.keys.secret_live, body: sample(t) })).status, 201);
      s.clock.advanceSeconds(1);
    }
    const mine = await s.call('GET', '/templates?scope=mine', { key: acct.keys.secret_live });
    assert.deepEqual(
      mine.body.data.map((t: { title: string }) => t.title),
      ['Gamma lease', 'Beta NDA', 'Alpha lease'],
    );
    const search = await s.call('GET', '/templates?scope=mine&search=lease', { key: acct.keys.secret_live });
    assert.deepEqual(
      search.body.data.map((t: { title: string }) => t.title),
      ['Gamma lease', 'Alpha lease'],
    );
    const literal = await s.call('GET', '/templates?search=%25', { key: acct.keys.secret_live });
    assert.equal(literal.body.data.length, 0, '% is matched literally');
    const page1 = await s.call('GET', '/templates?scope=mine&limit=2', { key: acct.keys.secret_live });
    assert.equal(page1.body.has_more, true);
    assert.equal(page1.body.next_cursor, page1.body.data[1].id);
    const page2 = await s.call('GET', `/templates?scope=mine&limit=2&starting_after=${page1.body.next_cursor}`, {
      key: acct.keys.secret_live,
    });
    assert.deepEqual(
      page2.body.data.map((t: { title: string }) => t.title),
      ['Alpha lease'],
    );
    assert.equal(page2.body.has_more, false);
    assert.equal(page2.body.next_cursor, null);
    const all = await s.call('GET', '/templates?limit=100', { key: acct.keys.secret_live });
    assert.equal(all.body.data.length, TEMPLATE_LIBRARY.length + 3);
    const bad = await s.call('GET', '/templates?limit=0', { key: acct.keys.secret_live });
    assertError(bad, 'parameter_invalid');
    assert.equal(bad.body.error.param, 'limit');
  });

  test('validation: missing, unknown and invalid fields are named in param; placeholders must match fields', async () => {
    const k = s.keys.secret_live;
    const missing = await assertErrorBothLanguages(
      (prefix) => s.call('POST', '/templates', { key: k, prefix, body: { body: 'x' } }),
      'parameter_missing',
    );
    assert.equal(missing.body.error.param, 'title');
    const unknown = await s.call('POST', '/templates', { key: k, body: { ...sample('U'), colour: 'red' } });
    assertError(unknown, 'parameter_unknown');
    assert.equal(unknown.body.error.param, 'colour');
    const badKey = await s.call('POST', '/templates', { key: k, body: { ...sample('K'), fields: [{ key: 'Bad Key', label: 'x' }] } });
    assertError(badKey, 'parameter_invalid');
    assert.equal(badKey.body.error.param, 'fields[0].key');
    const undefinedPlaceholder = await s.call('POST', '/templates', { key: k, body: { title: 'P', body: 'Hello {{who}}', fields: [] } });
    assertError(undefinedPlaceholder, 'parameter_invalid');
    assert.equal(undefinedPlaceholder.body.error.param, 'body');
    const unused = await s.call('POST', '/templates', {
      key: k,
      body: { title: 'Q', body: 'Hello', fields: [{ key: 'who', label: 'Who' }] },
    });
    assertError(unused, 'parameter_invalid');
    assert.equal(unused.body.error.param, 'fields[0].key');
    const dup = await s.call('POST', '/templates', {
      key: k,
      body: {
        title: 'D',
        body: '{{a}}',
        fields: [
          { key: 'a', label: 'A' },
          { key: 'a', label: 'A2' },
        ],
      },
    });
    assert.equal(dup.body.error.param, 'fields[1].key');
    const badType = await s.call('POST', '/templates', { key: k, body: { title: 5, body: 'x' } });
    assertError(badType, 'parameter_invalid');
    assert.equal(badType.body.error.param, 'title');
  });

  test('a second template with the same title: 409 template_key_taken', async () => {
    assert.equal((await s.call('POST', '/templates', { key: s.keys.secret_live, body: sample('Unique title') })).status, 201);
    const again = await assertErrorBothLanguages(
      (prefix) => s.call('POST', '/templates', { key: s.keys.secret_live, body: sample('Unique title'), prefix }),
      'template_key_taken',
    );
    assert.equal(again.body.error.param, 'title');
  });

  test('publishable keys read templates but cannot create them', async () => {
    const acct = await s.account();
    const pk = (await s.ctx.store.tx((trx) => issueKey(trx, s.clock, acct.id, 'publishable', 'live', { allowedOrigins: [ORIGIN] }))).secret;
    assert.equal((await s.call('GET', '/templates/tpl_lease_en', { key: pk, headers: { origin: ORIGIN } })).status, 200);
    assertError(await s.call('POST', '/templates', { key: pk, headers: { origin: ORIGIN }, body: sample('X') }), 'forbidden');
  });
});
