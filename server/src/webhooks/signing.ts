import { createHmac } from 'node:crypto';
import { randomToken } from '../ids.js';

/**
 * Webhook signatures (spec part 5): `Svc-Signature: t=<unix seconds>,v1=<hex>` where v1 is the
 * HMAC-SHA256 of `t + "." + raw body`, keyed with the whole secret string (`whsec_…`). During a
 * secret rotation's overlap the header carries one v1 per valid secret, newest first, so a
 * receiver holding either secret verifies.
 */
export const SECRET_PREFIX = 'whsec_';
/** Secret entropy: 256 random bits (the issue asks for at least 192). */
const SECRET_BITS = 256;

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomToken(SECRET_BITS);
}

export function signPayload(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

export function signatureHeader(secrets: readonly string[], timestamp: number, rawBody: string | Buffer): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${signPayload(s, timestamp, rawBody)}`)].join(',');
}

const USER_AGENT = 'Tawqi-Webhooks/1';

/**
 * The headers of one delivery of `rawBody` (spec 6.1): the dispatcher's real deliveries and
 * `tawqi listen`'s forwards use this one function, so a receiver cannot tell them apart.
 */
export function deliveryHeaders(secrets: readonly string[], timestamp: number, rawBody: string, version: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'svc-version': version,
    'svc-signature': signatureHeader(secrets, timestamp, rawBody),
  };
}
