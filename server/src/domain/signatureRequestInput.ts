import { LEGAL_LEVELS } from '@tawqi/shared/api';
import { z } from 'zod';

/** The body of POST /signature_requests (spec 4.1). Cross-field rules live in services/createRequest.ts. */
export { LEGAL_LEVELS };
export const FORMATS = ['platform-evidence', 'pades-t', 'pades-lt'] as const;

/** Default format per level (spec 2.1: aes → pades-lt); ses never embeds a PAdES signature (spec 1.4). */
export const DEFAULT_FORMAT: Record<(typeof LEGAL_LEVELS)[number], (typeof FORMATS)[number]> = {
  ses: 'platform-evidence',
  aes: 'pades-lt',
  qes: 'pades-lt',
};

export const E164 = /^\+[1-9]\d{6,14}$/;
/**
 * An https URL (return_url, success_url, cancel_url). Documented by a pattern, not `format: uri`:
 * the parser is the browser's, and {signature_request} (replaced by the request id, spec 4.3) is
 * allowed although RFC 3986 has no braces.
 */
export const httpsUrl = z
  .url({ protocol: /^https$/, message: 'must be an https URL' })
  .max(2000)
  .meta({ pattern: '^[Hh][Tt][Tt][Pp][Ss]://', description: 'An https URL; {signature_request} in it is replaced by the request id' });

export const signerInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  email: z.email().max(254).optional(),
  phone: z.string().regex(E164, 'international format, e.g. +201001234567').optional(),
  type: z.enum(['individual', 'organization']).default('individual'),
  method: z.enum(['draw', 'token']).optional(),
  require_identity: z.boolean().optional(),
  fields: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), z.string().max(2000)).default({}),
  access_code: z.string().min(4).max(32).optional(),
});

export const remindersSchema = z.strictObject({
  enabled: z.boolean().default(false),
  interval_hours: z.number().int().min(1).max(720).default(48),
  max: z.number().int().min(0).max(10).default(3),
});

export const metadataSchema = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys');

export const signatureRequestCreateSchema = z.strictObject({
  title: z.string().trim().min(1).max(200).optional(),
  source: z.strictObject({ type: z.literal('template'), template_id: z.string().min(1).max(100) }),
  legal_level: z.enum(LEGAL_LEVELS).default('ses'),
  format: z.enum(FORMATS).optional(),
  ordered: z.boolean().default(false),
  require_identity: z.boolean().default(false),
  signers: z.array(signerInputSchema).min(1),
  reminders: remindersSchema.default({ enabled: false, interval_hours: 48, max: 3 }),
  metadata: metadataSchema.default({}),
  expires_at: z.number().int().positive().optional(),
  language: z.enum(['ar', 'en']).optional(),
  workflow_id: z.string().min(1).max(100).optional(),
  return_url: httpsUrl.optional(),
  success_url: httpsUrl.optional(),
  cancel_url: httpsUrl.optional(),
  send: z.boolean().default(true),
});

export type SignatureRequestCreate = z.infer<typeof signatureRequestCreateSchema>;
export type SignerInput = z.infer<typeof signerInputSchema>;

/** Default life of a request when expires_at is not given, and the longest allowed. */
export const DEFAULT_EXPIRY_DAYS = 30;
export const MAX_EXPIRY_DAYS = 365;

/** A return URL's host must be an accepted domain or a subdomain of one. */
export function domainAccepted(url: string, accepted: readonly string[]): boolean {
  const host = new URL(url).hostname.toLowerCase();
  return accepted.some((d) => host === d || host.endsWith('.' + d));
}

/** REF- codes: no 0/O or 1/I, grouped to read aloud. 10 symbols of 32 = 50 bits. */
const REF_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
export function formatReference(random: Uint8Array): string {
  let code = '';
  for (let i = 0; i < 10; i++) code += REF_ALPHABET[random[i]! % 32];
  return `REF-${code.slice(0, 5)}-${code.slice(5)}`;
}
