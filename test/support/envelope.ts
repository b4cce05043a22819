import assert from 'node:assert/strict';
import { ERRORS, type ErrorCode } from '../../shared/src/errors.js';
import type { CallResult, TestServer } from './server.js';

/** Assert a failure: status from the shared table, code, envelope shape, request id echoed, Arabic text. */
export function assertError(r: CallResult, code: ErrorCode, lang: 'ar' | 'en' = 'ar'): void {
  assert.equal(r.body?.error?.code, code, `expected ${code}, got ${r.status} ${r.text}`);
  assert.equal(r.status, ERRORS[code].status);
  const e = r.body.error;
  assert.equal(e.type, ERRORS[code].type);
  assert.equal(typeof e.message, 'string');
  assert.ok(e.message.length > 0);
  assert.ok('param' in e);
  assert.equal(e.request_id, r.headers.get('svc-request-id'));
  assert.match(e.request_id, /^req_/);
  if (lang === 'ar') assert.match(e.message, /[\u0600-\u06FF]/, 'message should be Arabic');
  else assert.doesNotMatch(e.message, /[\u0600-\u06FF]/, 'message should be English');
}

/**
 * Provoke the same failure twice — Arabic by default and English via the /en alias — and check both.
 * `provoke` receives the prefix to call.
 */
export async function assertErrorBothLanguages(provoke: (prefix: string) => Promise<CallResult>, code: ErrorCode): Promise<CallResult> {
  const ar = await provoke('/api/v1');
  assertError(ar, code, 'ar');
  const en = await provoke('/en/api/v1');
  assertError(en, code, 'en');
  return ar;
}

export type { TestServer };
