/**
 * Company verification set up over HTTP for console tests (what the owner's page does, without a
 * browser): upload a document as its bytes, and take the representative through the simulation
 * page as the representative's browser would (GET the page, POST the decision from its origin).
 */
import assert from 'node:assert/strict';
import type { ConsoleClient } from './consoleClient.js';

export async function uploadDocument(c: ConsoleClient, bytes: Buffer, fileName: string): Promise<{ id: string }> {
  const res = await fetch(`${c.baseUrl}/console/api/company_verification/documents?file_name=${encodeURIComponent(fileName)}`, {
    method: 'POST',
    headers: { cookie: `tawqi_console=${c.cookie}`, 'x-csrf-token': c.csrf!, 'content-type': 'application/octet-stream' },
    body: bytes,
  });
  const text = await res.text();
  assert.equal(res.status, 201, text);
  return JSON.parse(text) as { id: string };
}

export async function representativeThroughSimulation(c: ConsoleClient, name: string, decision: 'approve' | 'decline'): Promise<void> {
  const started = await c.call('POST', '/company_verification/representative', { body: { name } });
  assert.equal(started.status, 201, started.text);
  const url = new URL(started.body.url as string);
  assert.equal((await fetch(url)).status, 200);
  const form = new URLSearchParams({ token: url.searchParams.get('token')!, decision, return_url: url.searchParams.get('return_url')! });
  const done = await fetch(url.origin + url.pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url.origin },
    body: form,
  });
  assert.equal(done.status, 200, await done.text());
}
