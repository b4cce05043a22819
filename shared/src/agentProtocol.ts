/**
 * The local signing agent's protocol: the sign ticket (server → page → agent) and the WebSocket
 * messages between the signing page and the agent (ws://127.0.0.1:<port>). Defined once here with
 * zod; the agent, the server and the signing page all import it. Browser-safe (no Node imports).
 *
 * Stability: additions only. A change that is not an addition gets a new protocol version.
 *
 * Connection
 *   The page opens ws://127.0.0.1:38611 and, when that fails, 38612, 38613, 38614 in order
 *   (AGENT_PORTS). The agent only talks to pages whose Origin the user trusts; any other origin
 *   gets one `error` (code origin_not_trusted, id null) and the socket is closed with code 4403
 *   (AGENT_CLOSE_CODES.originNotTrusted).
 *
 * Conversation (every request carries a page-chosen `id`; the answer carries the same `id`)
 *   page → agent  hello              { versions: [1] }                       first, always
 *   agent → page  hello              { version, versions, agent, origin, server_key_fingerprint }
 *   page → agent  list-certificates  {}
 *   agent → page  certificates       { tokens, certificates }   (only certificates offered for signing)
 *   page → agent  sign               { ticket, cert_sha256 }
 *   agent → page  sign-status        { status }                 (0..n times: consent, PIN, signing)
 *   agent → page  signature          { cms, cert_sha256, request_id, signer_id, jti }
 *   page → agent  cancel             { target }                 (withdraws a pending sign)
 *   agent → page  error              { code, message, pin? }    (answer to any request)
 *   agent → page  tokens-changed     { tokens }                 (unsolicited, id absent)
 */
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// Versions and ports

/** Protocol versions this build of the shared package knows. */
export const AGENT_PROTOCOL_VERSIONS = [1] as const;
export const AGENT_PROTOCOL_VERSION = 1;

/** The agent listens on the first free port of this list, on 127.0.0.1 only; pages try them in order. */
export const AGENT_DEFAULT_PORT = 38611;
export const AGENT_FALLBACK_PORTS = [38612, 38613, 38614] as const;
export const AGENT_PORTS = [AGENT_DEFAULT_PORT, ...AGENT_FALLBACK_PORTS] as const;

/** WebSocket close codes the agent uses (4000–4999 are application codes). */
export const AGENT_CLOSE_CODES = {
  originNotTrusted: 4403,
  protocolError: 4400,
  unsupportedVersion: 4426,
} as const;

/** Largest message the agent accepts, in bytes. */
export const AGENT_MAX_MESSAGE_BYTES = 64 * 1024;

// ---------------------------------------------------------------------------------------------
// The sign ticket

export const SIGN_TICKET_TYP = 'tawqi-sign-ticket';
/** A ticket lives at most this long (exp − iat), in seconds. */
export const SIGN_TICKET_MAX_LIFETIME_S = 300;
/** The path under the server origin (iss) where its Ed25519 public key is published (SPKI PEM). */
export const SERVER_KEY_PATH = '/pki/evidence-key.pem';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'lowercase hex SHA-256');
const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64');

/** An origin: scheme://host[:port], nothing after it (exactly what `new URL(x).origin` gives). */
export const OriginSchema = z
  .string()
  .min(1)
  .max(300)
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === s;
    } catch {
      return false;
    }
  }, 'an origin such as https://sign.example.com');

export const SignTicketPayloadSchema = z
  .object({
    v: z.literal(1),
    typ: z.literal(SIGN_TICKET_TYP),
    /** The server origin; must equal the Origin of the page that hands the ticket to the agent. */
    iss: OriginSchema,
    request_id: z.string().min(1).max(100),
    signer_id: z.string().min(1).max(100),
    title: z.string().min(1).max(500),
    pages: z.number().int().min(1).max(100000),
    digest_alg: z.literal('sha-256'),
    /** Hex SHA-256 of the PDF's ByteRange bytes: the CMS message-digest. */
    digest: hex64,
    /** Hex SHA-256 of the DER of the certificate to sign with. */
    cert_sha256: hex64,
    /** PNG or PDF of page 1, fetched by the agent with `Authorization: Bearer <ticket>`. */
    preview_url: z.string().url().max(2000),
    iat: z.number().int().nonnegative(),
    exp: z.number().int().nonnegative(),
    /** Random id; the agent accepts each jti once. */
    jti: z.string().min(16).max(128),
  })
  .refine((t) => t.exp > t.iat && t.exp - t.iat <= SIGN_TICKET_MAX_LIFETIME_S, {
    message: `exp must be after iat and at most ${SIGN_TICKET_MAX_LIFETIME_S} s later`,
    path: ['exp'],
  });
export type SignTicketPayload = z.infer<typeof SignTicketPayloadSchema>;

/** A compact ticket: base64url(payload JSON) '.' base64url(Ed25519 signature of the first part's ASCII bytes). */
export const SignTicketSchema = z
  .string()
  .max(8192)
  .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'a compact ticket: base64url.base64url');

function bytesToBase64url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function base64urlToBytes(s: string): Uint8Array {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** The first part of a ticket (the bytes the server signs): base64url of the payload's JSON in UTF-8. */
export function encodeSignTicketPayload(payload: SignTicketPayload): string {
  return bytesToBase64url(new TextEncoder().encode(JSON.stringify(payload)));
}

/** Joins the signed part and the raw 64-byte Ed25519 signature into the compact ticket. */
export function joinSignTicket(signedPart: string, signature: Uint8Array): string {
  return `${signedPart}.${bytesToBase64url(signature)}`;
}

export interface SplitSignTicket {
  /** The ASCII text the signature covers (the first part). */
  signedPart: string;
  signature: Uint8Array;
  /** The decoded payload, NOT verified: check the signature before trusting any of it. */
  payload: unknown;
}

/** Splits a compact ticket without verifying it; throws on a malformed ticket. */
export function splitSignTicket(ticket: string): SplitSignTicket {
  const parsed = SignTicketSchema.safeParse(ticket);
  if (!parsed.success) throw new Error('malformed ticket');
  const [signedPart = '', sig = ''] = ticket.split('.');
  const payload: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(base64urlToBytes(signedPart)));
  return { signedPart, signature: base64urlToBytes(sig), payload };
}

// ---------------------------------------------------------------------------------------------
// Shared shapes

/** PIN state of a token, read from its flags before the user types (CKF_USER_PIN_*). */
export const PinStateSchema = z.object({
  /** CKF_USER_PIN_COUNT_LOW: a wrong PIN has been entered since the last good one. */
  count_low: z.boolean(),
  /** CKF_USER_PIN_FINAL_TRY: one more wrong PIN locks the token. */
  final_try: z.boolean(),
  /** CKF_USER_PIN_LOCKED: the PIN is blocked; only the PUK/SO can unblock it. */
  locked: z.boolean(),
  /** CKF_PROTECTED_AUTHENTICATION_PATH: the PIN is typed on the reader's PIN pad. */
  pin_pad: z.boolean(),
  /** A summary for people: 'ok' | 'low' (count_low) | 'final_try' | 'locked'. */
  retries: z.enum(['ok', 'low', 'final_try', 'locked']),
});
export type PinState = z.infer<typeof PinStateSchema>;

export const TokenInfoSchema = z.object({
  /** Stable for this agent run: `<module id>:<slot id>`. */
  slot: z.string(),
  module: z.string(),
  label: z.string(),
  manufacturer: z.string(),
  model: z.string(),
  serial: z.string(),
  pin: PinStateSchema,
});
export type TokenInfo = z.infer<typeof TokenInfoSchema>;

export const CertificateInfoSchema = z.object({
  /** Hex SHA-256 of the certificate DER: the handle the page sends back (and the ticket binds). */
  cert_sha256: hex64,
  /** The certificate, DER in base64. */
  certificate: base64,
  /** Other certificates found on the same token that chain it towards a root (DER base64), leaf-first. */
  chain: z.array(base64),
  subject: z.string(),
  /** The subject's common name, or the subject when it has none. */
  name: z.string(),
  issuer: z.string(),
  serial: z.string(),
  not_before: z.number().int(),
  not_after: z.number().int(),
  key_type: z.enum(['rsa', 'ec']),
  /** RSA modulus size or EC field size in bits. */
  key_bits: z.number().int(),
  /** e.g. 'P-256', 'P-384' for EC keys. */
  curve: z.string().optional(),
  /** Key-usage names present: digitalSignature, nonRepudiation, … */
  key_usage: z.array(z.string()),
  token: TokenInfoSchema,
});
export type CertificateInfo = z.infer<typeof CertificateInfoSchema>;

// ---------------------------------------------------------------------------------------------
// Errors

export const AGENT_ERRORS = {
  bad_message: { en: 'The message is not valid for this protocol.', ar: 'الرسالة غير صالحة لهذا البروتوكول.' },
  unsupported_version: {
    en: 'The agent does not speak any of the offered protocol versions; update the agent.',
    ar: 'لا يدعم البرنامج المحلي أيًّا من إصدارات البروتوكول المعروضة؛ حدّث البرنامج.',
  },
  hello_required: { en: 'Send hello first.', ar: 'أرسل رسالة التحية أولًا.' },
  origin_not_trusted: {
    en: 'This server is not trusted by the signing agent. Add it in the agent first.',
    ar: 'هذا الخادم غير موثوق لدى برنامج التوقيع؛ أضفه في البرنامج أولًا.',
  },
  ticket_invalid: {
    en: 'The sign ticket is malformed or its signature does not verify with the server’s key.',
    ar: 'تذكرة التوقيع غير صالحة أو توقيعها لا يطابق مفتاح الخادم.',
  },
  ticket_expired: {
    en: 'The sign ticket has expired; start the signature again.',
    ar: 'انتهت صلاحية تذكرة التوقيع؛ ابدأ التوقيع من جديد.',
  },
  ticket_replayed: { en: 'This sign ticket was already used.', ar: 'استُخدمت تذكرة التوقيع هذه من قبل.' },
  ticket_origin_mismatch: {
    en: 'The sign ticket was issued by another server than the page’s.',
    ar: 'صدرت تذكرة التوقيع من خادم غير خادم الصفحة.',
  },
  certificate_mismatch: { en: 'The sign ticket is for another certificate.', ar: 'تذكرة التوقيع لشهادة أخرى.' },
  no_token: { en: 'No token is plugged in.', ar: 'لا يوجد رمز أمان موصول.' },
  certificate_not_found: { en: 'The certificate is not on any plugged-in token.', ar: 'الشهادة غير موجودة على أي رمز أمان موصول.' },
  certificate_not_usable: {
    en: 'The certificate cannot sign: it is expired, not yet valid, lacks a signing key usage or has no private key.',
    ar: 'لا تصلح الشهادة للتوقيع: منتهية أو غير سارية بعد أو بلا استخدام توقيع أو بلا مفتاح خاص.',
  },
  pin_incorrect: { en: 'The PIN is not correct.', ar: 'رمز PIN غير صحيح.' },
  pin_locked: { en: 'The token’s PIN is locked.', ar: 'رمز PIN للرمز مقفل.' },
  user_canceled: { en: 'The user canceled in the signing agent.', ar: 'ألغى المستخدم العملية في برنامج التوقيع.' },
  canceled: { en: 'The page withdrew the request.', ar: 'سحبت الصفحة الطلب.' },
  busy: { en: 'The agent is already asking the user about another signature.', ar: 'برنامج التوقيع مشغول بطلب توقيع آخر.' },
  mechanism_unsupported: {
    en: 'The token offers no signature mechanism the agent can use for this key.',
    ar: 'لا يوفر الرمز آلية توقيع مناسبة لهذا المفتاح.',
  },
  token_error: { en: 'The token reported an error.', ar: 'أبلغ رمز الأمان عن خطأ.' },
  internal_error: { en: 'The signing agent failed unexpectedly.', ar: 'حدث خطأ غير متوقع في برنامج التوقيع.' },
} as const;
export type AgentErrorCode = keyof typeof AGENT_ERRORS;
export const AgentErrorCodeSchema = z.enum(Object.keys(AGENT_ERRORS) as [AgentErrorCode, ...AgentErrorCode[]]);

// ---------------------------------------------------------------------------------------------
// Messages: page → agent

const RequestId = z.string().min(1).max(64);

export const HelloRequestSchema = z.object({
  type: z.literal('hello'),
  id: RequestId,
  /** Protocol versions the page speaks; the agent answers with the highest one it shares. */
  versions: z.array(z.number().int().positive()).min(1).max(16),
  /** Free text naming the page, for the agent's log. */
  client: z.string().max(100).optional(),
});

export const ListCertificatesRequestSchema = z.object({
  type: z.literal('list-certificates'),
  id: RequestId,
});

export const SignRequestSchema = z.object({
  type: z.literal('sign'),
  id: RequestId,
  ticket: SignTicketSchema,
  /** The certificate the page asks the agent to sign with; must equal the ticket's cert_sha256. */
  cert_sha256: hex64,
});

export const CancelRequestSchema = z.object({
  type: z.literal('cancel'),
  id: RequestId,
  /** The id of the sign request to withdraw. */
  target: RequestId,
});

export const AgentRequestSchema = z.discriminatedUnion('type', [
  HelloRequestSchema,
  ListCertificatesRequestSchema,
  SignRequestSchema,
  CancelRequestSchema,
]);
export type AgentRequest = z.infer<typeof AgentRequestSchema>;
export type HelloRequest = z.infer<typeof HelloRequestSchema>;
export type ListCertificatesRequest = z.infer<typeof ListCertificatesRequestSchema>;
export type SignRequest = z.infer<typeof SignRequestSchema>;
export type CancelRequest = z.infer<typeof CancelRequestSchema>;

// ---------------------------------------------------------------------------------------------
// Messages: agent → page

export const HelloResponseSchema = z.object({
  type: z.literal('hello'),
  id: RequestId,
  /** The version chosen for this connection. */
  version: z.number().int().positive(),
  /** Every version the agent speaks. */
  versions: z.array(z.number().int().positive()),
  agent: z.object({ name: z.string(), version: z.string() }),
  /** The page's origin as the agent trusts it. */
  origin: z.string(),
  /** Hex SHA-256 of the SPKI DER of the server key the agent pinned for this origin. */
  server_key_fingerprint: hex64,
});

export const CertificatesResponseSchema = z.object({
  type: z.literal('certificates'),
  id: RequestId,
  tokens: z.array(TokenInfoSchema),
  /** Only certificates offered for signing: digitalSignature or nonRepudiation, valid now, private key on the token. */
  certificates: z.array(CertificateInfoSchema),
});

export const SignStatusSchema = z.object({
  type: z.literal('sign-status'),
  id: RequestId,
  status: z.enum(['awaiting_consent', 'awaiting_pin', 'signing']),
});

export const SignatureResponseSchema = z.object({
  type: z.literal('signature'),
  id: RequestId,
  /** Detached CMS SignedData, DER in base64. */
  cms: base64,
  cert_sha256: hex64,
  request_id: z.string(),
  signer_id: z.string(),
  jti: z.string(),
});

export const ErrorResponseSchema = z.object({
  type: z.literal('error'),
  /** The id of the request this answers; null when it answers no request (bad JSON, refused origin). */
  id: RequestId.nullable(),
  code: AgentErrorCodeSchema,
  /** English text for logs; pages show their own text per code (AGENT_ERRORS has ar and en). */
  message: z.string(),
  /** With pin_incorrect / pin_locked: the token's PIN state after the attempt. */
  pin: PinStateSchema.optional(),
});

export const TokensChangedSchema = z.object({
  type: z.literal('tokens-changed'),
  tokens: z.array(TokenInfoSchema),
});

export const AgentResponseSchema = z.discriminatedUnion('type', [
  HelloResponseSchema,
  CertificatesResponseSchema,
  SignStatusSchema,
  SignatureResponseSchema,
  ErrorResponseSchema,
  TokensChangedSchema,
]);
export type AgentResponse = z.infer<typeof AgentResponseSchema>;
export type HelloResponse = z.infer<typeof HelloResponseSchema>;
export type CertificatesResponse = z.infer<typeof CertificatesResponseSchema>;
export type SignStatus = z.infer<typeof SignStatusSchema>;
export type SignatureResponse = z.infer<typeof SignatureResponseSchema>;
export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;
export type TokensChanged = z.infer<typeof TokensChangedSchema>;
