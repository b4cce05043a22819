/**
 * Company verification as an account's owner does it through the console API over real HTTP: upload
 * a company document (the file's bytes as the body), take the representative through the identity
 * check's simulation page (no provider configured: a test installation), and submit.
 */
import assert from 'node:assert/strict';
import type { ConsoleAnswer, ConsoleClient } from './consoleClient.js';

export const COMPANY_PDF = Buffer.concat([
  Buffer.from('%PDF-1.7\n% commercial register extract\n'),
  Buffer.alloc(2000, 0x41),
  Buffer.from('\n%%EOF\n'),
]);
export const COMPANY_PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(500, 7)]);

/** POST /console/api/company_verification/documents with the bytes as the body. */
export async function uploadCompanyDocument(c: ConsoleClient, bytes: Buffer, fileName: string): Promise<ConsoleAnswer> {
  const headers: Record<string, string> = {
    cookie: `tawqi_console=${c.cookie}`,
    'x-csrf-token': c.csrf!,
    'content-type': 'application/octet-stream',
  };
  const res = await fetch(`${c.baseUrl}/console/api/company_verification/documents?file_name=${encodeURIComponent(fileName)}`, {
    method: 'POST',
    headers,
    body: bytes,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

/** The representative's check through the simulation page, as the representative's browser does it; answers its id. */
export async function representativeCheck(c: ConsoleClient, name: string, decision: 'approve' | 'decline'): Promise<string> {
  const started = await c.call('POST', '/company_verification/representative', { body: { name } });
  assert.equal(started.status, 201, started.text);
  const url = new URL(started.body.url);
  const form = new URLSearchParams({ token: url.searchParams.get('token')!, decision, return_url: url.searchParams.get('return_url')! });
  const done = await fetch(url.origin + url.pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url.origin },
    body: form,
  });
  assert.equal(done.status, 200, await done.text());
  return started.body.verification_id;
}

/** Documents uploaded, the representative approved, submitted: the round waits for the operator. */
export async function submitCompanyVerification(c: ConsoleClient, representative: string): Promise<void> {
  for (const [bytes, name] of [
    [COMPANY_PDF, 'السجل التجاري.pdf'],
    [COMPANY_PNG, 'tax-card.png'],
  ] as const) {
    const up = await uploadCompanyDocument(c, bytes, name);
    assert.equal(up.status, 201, up.text);
  }
  await representativeCheck(c, representative, 'approve');
  const submitted = await c.call('POST', '/company_verification/submit', { body: {} });
  assert.equal(submitted.status, 200, submitted.text);
  assert.equal(submitted.body.status, 'pending');
}
