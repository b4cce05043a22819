/**
 * The console's template routes over HTTP (issue 16 point 1): an edit of a template without
 * requests keeps its id; one with requests becomes a new template and the old one is archived,
 * still the text of its requests; duplicate and archive; every change in the audit log, written in
 * the change's transaction with the user who made it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CONSOLE_TEST_ENV, consoleUser, signedInClient, type ConsoleClient } from '../support/consoleClient.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { teamAccount, type TeamAccount } from '../support/teamAccount.js';

const TERMS = {
  title: 'Supply terms',
  body: 'Supplier {{supplier}} delivers.',
  fields: [{ key: 'supplier', label: 'Supplier', type: 'text', required: true }],
};
const EDITED = { ...TERMS, body: 'Supplier {{supplier}} delivers within 30 days.' };

describe('console templates: edit, duplicate, archive, audited', () => {
  let s: TestServer;
  let acct: TeamAccount;
  let owner: ConsoleClient;

  before(async () => {
    s = await startTestServer(CONSOLE_TEST_ENV);
    acct = await teamAccount(s, TERMS);
    await consoleUser(s, acct.id, acct.owner, 'owner');
    owner = await signedInClient(s, acct.owner, 'en');
  });
  after(async () => {
    await s?.close();
  });

  async function auditActions(): Promise<{ action: string; target: string; actor: string; detail: Record<string, unknown> }[]> {
    const log = await owner.call('GET', '/audit_log?limit=100');
    assert.equal(log.status, 200, log.text);
    return log.body.data.filter((e: { action: string }) => e.action.startsWith('template.'));
  }

  test('without requests an edit keeps the id; with requests it is a new template and the old one is archived but kept', async () => {
    const inPlace = await owner.call('PUT', `/templates/${acct.templateId}`, { body: EDITED });
    assert.equal(inPlace.status, 200, inPlace.text);
    assert.equal(inPlace.body.template.id, acct.templateId);
    assert.equal(inPlace.body.replaced, null);

    const request = await s.call('POST', '/signature_requests', {
      key: acct.keys.secret_test,
      body: {
        title: 'Order 1',
        source: { type: 'template', template_id: acct.templateId },
        signers: [{ name: 'Amira', email: acct.owner, fields: { supplier: 'Nile Co' } }],
      },
    });
    assert.equal(request.status, 201, request.text);

    const replaced = await owner.call('PUT', `/templates/${acct.templateId}`, {
      body: { ...EDITED, body: 'Supplier {{supplier}} delivers within 10 days.' },
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.body.replaced, acct.templateId);
    assert.notEqual(replaced.body.template.id, acct.templateId);
    const old = await s.call('GET', `/templates/${acct.templateId}`, { key: acct.keys.secret_test });
    assert.equal(old.status, 200, old.text);
    assert.ok(old.body.archived_at, 'the old template is archived, not deleted');
    const listed = await s.call('GET', '/templates?scope=mine', { key: acct.keys.secret_test });
    assert.deepEqual(
      listed.body.data.map((t: { id: string }) => t.id),
      [replaced.body.template.id],
      'only the new one is listed',
    );

    const entries = await auditActions();
    assert.deepEqual(entries.map((e) => [e.action, e.target, e.actor, e.detail.replaced ?? null]).reverse(), [
      ['template.updated', acct.templateId, acct.owner, null],
      ['template.updated', replaced.body.template.id, acct.owner, acct.templateId],
    ]);
  });

  test('duplicate a library template and archive the copy: both audited; a viewer may do neither', async () => {
    const copy = await owner.call('POST', '/templates/tpl_nda_ar/duplicate', { body: {} });
    assert.equal(copy.status, 201, copy.text);
    const archived = await owner.call('POST', `/templates/${copy.body.id}/archive`, { body: {} });
    assert.equal(archived.status, 200, archived.text);
    assert.ok(archived.body.archived_at);
    const [last, before] = await auditActions();
    assert.deepEqual([before!.action, before!.target, before!.detail.source], ['template.duplicated', copy.body.id, 'tpl_nda_ar']);
    assert.deepEqual([last!.action, last!.target], ['template.archived', copy.body.id]);

    await consoleUser(s, acct.id, `viewer.${acct.id}@acme.test`, 'viewer');
    const viewer = await signedInClient(s, `viewer.${acct.id}@acme.test`, 'en');
    const count = (await auditActions()).length;
    for (const [method, path] of [
      ['POST', '/templates/tpl_nda_ar/duplicate'],
      ['POST', `/templates/${copy.body.id}/archive`],
    ] as const) {
      const refused = await viewer.call(method, path, { body: {} });
      assert.equal(refused.status, 403, refused.text);
    }
    assert.equal((await auditActions()).length, count, 'nothing written for the refusals');
  });
});
