import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { nowSeconds, type Clock } from '../clock.js';

/**
 * An identity provider adapter: hosted verification (document + live face match) started by the
 * server, and a signed result callback from the provider. One adapter per provider protocol; the
 * service never speaks a provider's protocol itself.
 */
export interface IdentityProvider {
  /** Stored on each verification (identity.provider) and names the callback path. */
  readonly name: string;
  /**
   * Open (or resume) a hosted verification. `reference` is our verification id; a provider must
   * treat it as an idempotency key, so a second call for the same reference resumes the same
   * session (a signer asked to resubmit returns to it).
   */
  createVerification(input: CreateVerificationInput): Promise<CreatedVerification>;
  /**
   * Check the callback's signature and timestamp, then read it. Throws CallbackRejected when the
   * signature is missing, forged or stale, or the body is not a result.
   */
  parseCallback(rawBody: Buffer, headers: IncomingHttpHeaders): ProviderResult;
}

export interface CreateVerificationInput {
  reference: string;
  expectedName: string;
  level: string;
  callbackUrl: string;
  returnUrl: string | null;
}

export interface CreatedVerification {
  providerReference: string;
  /** Where the signer is sent to verify. */
  url: string;
}

export const PROVIDER_STATUSES = ['approved', 'declined', 'in_review', 'resubmission_requested'] as const;
export type ProviderStatus = (typeof PROVIDER_STATUSES)[number];

export interface ProviderDocument {
  /** The name as read from the document. */
  name: string;
  /** e.g. national_id, passport, driving_licence. */
  type: string;
  /** The last four characters of the document number; never the full number. */
  numberLast4: string | null;
}

export interface ProviderResult {
  providerReference: string;
  /** Our verification id, when the provider echoes it. */
  reference?: string;
  status: ProviderStatus;
  document?: ProviderDocument;
}

/** Why a callback was refused; the route answers 400 and changes nothing. */
export class CallbackRejected extends Error {
  constructor(readonly reason: 'signature_missing' | 'signature_invalid' | 'timestamp_stale' | 'body_invalid') {
    super(reason);
  }
}

/** A failure to reach the provider or an answer it should not have given. */
export class ProviderUnavailable extends Error {}

export const SIGNATURE_HEADER = 'x-provider-signature';
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, the scheme of spec part 5 (webhooks). */
export function signPayload(secret: string, timestamp: number, rawBody: Buffer | string): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

/**
 * Verify a `t=…,v1=…` header over the raw body: every v1 is compared in constant time (a provider
 * rotating its secret may send two), and `t` must be within 300 seconds of the injected clock.
 */
export function verifySignature(secret: string, header: string | string[] | undefined, rawBody: Buffer, clock: Clock): void {
  if (typeof header !== 'string' || header.length === 0 || header.length > 1024) throw new CallbackRejected('signature_missing');
  let timestamp: number | null = null;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't' && /^\d{1,12}$/.test(v)) timestamp = Number(v);
    else if (k === 'v1' && /^[0-9a-f]{64}$/i.test(v)) candidates.push(v.toLowerCase());
  }
  if (timestamp === null || candidates.length === 0) throw new CallbackRejected('signature_missing');
  const expected = Buffer.from(createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex'));
  let ok = false;
  for (const c of candidates) ok = timingSafeEqual(Buffer.from(c), expected) || ok;
  if (!ok) throw new CallbackRejected('signature_invalid');
  if (Math.abs(nowSeconds(clock) - timestamp) > SIGNATURE_TOLERANCE_SECONDS) throw new CallbackRejected('timestamp_stale');
}
