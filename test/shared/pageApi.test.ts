/**
 * The signing page's API schemas (shared/src/pageApi.ts): what they accept and refuse, and that the
 * page takes only their types (so zod stays out of its bundle).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import {
  PageStateSchema,
  TokenCheckBodySchema,
  TokenCheckedSchema,
  TokenCompleteBodySchema,
  TokenPrepareBodySchema,
  TokenPreparedSchema,
  type PageState,
} from '@tawqi/shared';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const state: PageState = {
  language: 'ar',
  livemode: false,
  server_time: 1_800_000_000,
  step: 'review',
  closed_reason: null,
  request: { id: 'sr_1', title: 'عقد', status: 'sent', legal_level: 'qes' },
  signer: { id: 'sgn_1', name: 'Amal', status: 'otp_verified', order: 1, method: 'token', identity_status: 'not_required' },
  access: null,
  otp: {
    sent: true,
    destination: 'a•••@example.com',
    expires_at: 1_800_000_600,
    attempts_left: 5,
    locked: false,
    resend_at: 1_800_000_060,
  },
  document: { text: 'the document' },
  branding: { brand_name: null, logo_url: null, brand_color: '#123456', button_color: null, hide_powered: false, welcome: null },
  embed: null,
  token: { agent_ports: [38611, 38612], protocol_versions: [1], download_url: null },
  finish: null,
};

describe('page API schemas', () => {
  test('PageState: a state parses to itself, keys in the same order; a wrong step or a missing field is refused', () => {
    const parsed = PageStateSchema.parse(state);
    assert.deepEqual(parsed, state);
    assert.equal(JSON.stringify(parsed), JSON.stringify(state));
    assert.equal(PageStateSchema.safeParse({ ...state, step: 'elsewhere' }).success, false);
    const { otp: _otp, ...withoutOtp } = state;
    assert.equal(PageStateSchema.safeParse(withoutOtp).success, false);
    assert.equal(PageStateSchema.parse({ ...state, step: 'closed', closed_reason: 'draft' }).closed_reason, 'draft');
  });

  test('token prepare and complete: bodies are strict, the answer has the ticket fields', () => {
    assert.equal(TokenPrepareBodySchema.safeParse({ certificate: 'MA==', chain: ['MA=='] }).success, true);
    assert.equal(TokenPrepareBodySchema.safeParse({ certificate: 'MA==', extra: 1 }).success, false);
    assert.equal(TokenPrepareBodySchema.safeParse({ certificate: 'MA==', chain: Array(9).fill('MA==') }).success, false);
    assert.equal(TokenCompleteBodySchema.safeParse({ cms: 'MA==', ticket: 't' }).success, true);
    assert.equal(TokenCompleteBodySchema.safeParse({ ticket: 't' }).success, false);
    const prepared = {
      ticket: 't.u',
      preview_url: 'https://sign.example/sign/api/token/preview',
      digest: 'ab'.repeat(32),
      cert_sha256: 'cd'.repeat(32),
      expires_at: 1_800_000_300,
    };
    assert.deepEqual(TokenPreparedSchema.parse(prepared), prepared);
    assert.equal(TokenPreparedSchema.safeParse({ ...prepared, expires_at: 'soon' }).success, false);
  });

  test('token check: 1 to 16 certificates, each as prepare takes it; a verdict per certificate', () => {
    const one = { certificate: 'MA==', chain: ['MA=='] };
    assert.equal(TokenCheckBodySchema.safeParse({ certificates: [one] }).success, true);
    assert.equal(TokenCheckBodySchema.safeParse({ certificates: [] }).success, false);
    assert.equal(TokenCheckBodySchema.safeParse({ certificates: Array(17).fill(one) }).success, false);
    assert.equal(TokenCheckBodySchema.safeParse({ certificates: [{ ...one, extra: 1 }] }).success, false);
    const checked = {
      certificates: [
        { cert_sha256: 'cd'.repeat(32), ok: true, reason: null, message: null },
        { cert_sha256: null, ok: false, reason: 'malformed', message: 'The certificate could not be read.' },
      ],
    };
    assert.deepEqual(TokenCheckedSchema.parse(checked), checked);
    assert.equal(TokenCheckedSchema.safeParse({ certificates: [{ ok: 'yes' }] }).success, false);
  });

  test('the signing page imports @tawqi/shared for types only, but for the dependency-free @tawqi/shared/branding', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)],
      );
    for (const file of files(path.join(ROOT, 'signing-page/src')).filter((f) => f.endsWith('.ts'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/^import ([^;]*?) from ['"](@tawqi\/shared[^'"]*)['"]/gm)) {
        if (m[2] === '@tawqi/shared/branding') continue;
        assert.match(m[1]!, /^type\s/, `${path.relative(ROOT, file)}: ${m[0]}`);
      }
    }
    // That module stays free of zod (and of anything else) so the page's bundle does too.
    for (const m of readFileSync(path.join(ROOT, 'shared/src/branding.ts'), 'utf8').matchAll(/^import ([^;]*?) from /gm)) {
      assert.match(m[1]!, /^type\s/, `shared/src/branding.ts: ${m[0]}`);
    }
  });
});
