/**
 * A sealed request, and what the outside world sees of it: for tests that move an installation
 * (db copy, backup and restore) and compare the answers before and after.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { TestServer } from './server.js';
import { signAll } from './signing.js';

const OWNER = 'owner@example.com';
const ORIGIN = { ip: '198.51.100.9', user_agent: 'MoveTest/1.0' };

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Create a request from the template, sign it through and seal it; its id and reference. */
export async function sealedRequest(s: TestServer, key: string, templateId: string): Promise<{ id: string; reference: string }> {
  const created = await s.call('POST', '/signature_requests', {
    key,
    body: { title: 'Moved', source: { type: 'template', template_id: templateId }, signers: [{ name: 'Ali Hassan', email: OWNER }] },
  });
  assert.equal(created.status, 201, created.text);
  await signAll(
    s,
    created.body.signers.map((x: { id: string }) => x.id),
    ORIGIN,
  );
  await s.jobs.runDue();
  const done = await s.call('GET', `/signature_requests/${created.body.id}/download`, { key });
  assert.equal(done.body.pdf_status, 'ready', done.text);
  return { id: created.body.id, reference: done.body.reference };
}

/** What the outside world sees of a sealed request: the answers to compare before and after the move. */
export async function observe(s: TestServer, key: string, id: string, reference: string) {
  const pdf = await fetch(`${s.url}/api/v1/signature_requests/${id}/download/pdf`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(pdf.status, 200);
  // Addresses carry the server's own base URL (its port): compared without it.
  const local = (text: string) => JSON.parse(text.replaceAll(s.url, 'http://tawqi.test'));
  return {
    request: local((await s.call('GET', `/signature_requests/${id}`, { key })).text),
    verification: local((await s.call('GET', `/verifications/${reference}`)).text),
    evidence: local((await s.call('GET', `/signature_requests/${id}/evidence`, { key })).text),
    bytes: Buffer.from(await pdf.arrayBuffer()),
    sha256Header: pdf.headers.get('x-file-sha256'),
    ca: s.ctx.pki.ca.pem,
    evidenceKey: s.ctx.pki.evidence.publicKeyPem,
    seal: Buffer.from(s.ctx.pki.seal.certificate ?? []).toString('hex'),
    tsa: Buffer.from(s.ctx.pki.tsa.certificate).toString('hex'),
    linkKey: s.ctx.secrets.linkKey.toString('hex'),
    documentKey: s.ctx.secrets.documentKey.toString('hex'),
  };
}

/** An enterprise account with one template: its keys and the template's id. */
export async function accountWithTemplate(s: TestServer): Promise<{ keys: TestServer['keys']; templateId: string }> {
  const acct = await s.account({ ownerEmail: OWNER, plan: 'enterprise', balanceSends: 10, walletMinor: 1_000_000 });
  const tpl = await s.call('POST', '/templates', {
    key: acct.keys.secret_live,
    body: { title: 'Move', language: 'en', body: 'Agreed.', fields: [] },
  });
  assert.equal(tpl.status, 201, tpl.text);
  return { keys: acct.keys, templateId: tpl.body.id };
}
