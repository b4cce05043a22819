import { createHmac, timingSafeEqual } from 'node:crypto';
import { TawqiSignatureVerificationError } from './errors.js';
import type { Event } from './types.js';

/** Spec part 8: a delivery older or newer than this (seconds) is refused. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type RawBody = string | Uint8Array;

function fail(message: string): never {
  throw new TawqiSignatureVerificationError({ statusCode: null, headers: null, raw: null, requestId: null, message });
}

const bytesOf = (raw: RawBody): Buffer => (typeof raw === 'string' ? Buffer.from(raw, 'utf8') : Buffer.from(raw));

/** HMAC-SHA256 hex of `t + "." + raw body` keyed with the whole secret (`whsec_…`), as the server signs. */
function sign(secret: string, timestamp: string, rawBody: Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(rawBody).digest('hex');
}

/** `t=…,v1=…[,v1=…]` → the timestamp and every v1 (one per valid secret during a rotation's overlap). */
function parseHeader(header: string): { timestamp: string; signatures: string[] } {
  let timestamp: string | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === 't') timestamp = timestamp === null ? value : fail('The Svc-Signature header has more than one timestamp.');
    else if (key === 'v1') signatures.push(value);
  }
  if (timestamp === null || !/^\d+$/.test(timestamp)) fail('The Svc-Signature header has no timestamp (t=<unix seconds>).');
  if (signatures.length === 0) fail('The Svc-Signature header has no v1 signature.');
  return { timestamp, signatures };
}

/** Constant-time: every v1 is compared, whatever the others gave. */
function anyMatches(expectedHex: string, signatures: readonly string[]): boolean {
  const expected = Buffer.from(expectedHex, 'utf8');
  let match = false;
  for (const s of signatures) {
    const given = Buffer.from(s, 'utf8');
    if (given.length === expected.length && timingSafeEqual(given, expected)) match = true;
  }
  return match;
}

export interface ConstructOptions {
  /** Unix seconds now (default the system clock); a test's clock. */
  now?: number;
}

/**
 * Verify a webhook delivery and return its event, as spec part 5 says: split t and v1 from the
 * Svc-Signature header; the signed payload is t + '.' + the raw body, bytes exactly as received
 * (pass the body before any JSON parsing: re-serialising changes the bytes); HMAC-SHA256 hex with
 * the endpoint secret; compare with v1 in constant time (any v1: during a secret rotation the
 * header carries one per valid secret); refuse when |now − t| exceeds `toleranceSeconds` (300).
 * Throws TawqiSignatureVerificationError when any step fails.
 */
export function constructEvent(
  rawBody: RawBody,
  signatureHeader: string | string[] | undefined | null,
  secret: string,
  toleranceSeconds: number = DEFAULT_TOLERANCE_SECONDS,
  options: ConstructOptions = {},
): Event {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array))
    fail('Pass the raw request body (a string or Buffer, exactly as received), not a parsed object.');
  if (typeof secret !== 'string' || secret === '') fail('The endpoint secret (whsec_…) is required.');
  const header = Array.isArray(signatureHeader) ? signatureHeader.join(',') : signatureHeader;
  if (typeof header !== 'string' || header === '') fail('The request has no Svc-Signature header.');
  const { timestamp, signatures } = parseHeader(header);
  const body = bytesOf(rawBody);
  if (!anyMatches(sign(secret, timestamp, body), signatures)) fail('No v1 signature matches the body signed with this secret.');
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > toleranceSeconds)
    fail(`The Svc-Signature timestamp is more than ${toleranceSeconds} seconds away from now.`);
  try {
    return JSON.parse(body.toString('utf8')) as Event;
  } catch {
    return fail('The body is not JSON.');
  }
}

/** A valid Svc-Signature header for `payload` (to test a webhook handler without a server). */
export function generateTestHeaderString({
  payload,
  secret,
  timestamp = Math.floor(Date.now() / 1000),
}: {
  payload: RawBody;
  secret: string;
  timestamp?: number;
}): string {
  return `t=${timestamp},v1=${sign(secret, String(timestamp), bytesOf(payload))}`;
}

/** `Tawqi.webhooks` and `tawqi.webhooks`. */
export const webhooks = { constructEvent, generateTestHeaderString, DEFAULT_TOLERANCE_SECONDS };
