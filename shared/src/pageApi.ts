/**
 * The signing page's API (signing-page/API.md): what the server sends the page and what the page
 * sends for a token signature, defined once here with zod. The server validates request bodies and
 * serialises its answers with these schemas; the signing page imports only the inferred types
 * (`import type`, erased by esbuild), so zod stays out of the page's bundle.
 */
import { z } from 'zod';

export const PAGE_STEPS = [
  'closed',
  'not_your_turn',
  'access_code',
  'otp',
  'identity',
  'identity_wait',
  'identity_declined',
  'identity_hold',
  'review',
  'signed',
  'declined',
] as const;
export const PageStepSchema = z.enum(PAGE_STEPS);
export type PageStep = z.infer<typeof PageStepSchema>;

export const PageLanguageSchema = z.enum(['ar', 'en']);
export type PageLanguage = z.infer<typeof PageLanguageSchema>;

/** The state of the signer's page: every page API call that changes nothing else answers with it. */
export const PageStateSchema = z.object({
  language: PageLanguageSchema,
  livemode: z.boolean(),
  /** The server's clock (Unix seconds), for countdowns that must agree with the server. */
  server_time: z.number(),
  step: PageStepSchema,
  /** The request's status when the step is `closed` (completed, declined, expired, canceled; draft when a send was undone); else null. */
  closed_reason: z.string().nullable(),
  request: z.object({ id: z.string(), title: z.string(), status: z.string(), legal_level: z.enum(['ses', 'aes', 'qes']) }),
  signer: z.object({
    id: z.string(),
    name: z.string(),
    status: z.string(),
    order: z.number(),
    method: z.enum(['draw', 'token']),
    identity_status: z.string(),
  }),
  access: z.object({ attempts_left: z.number(), locked: z.boolean() }).nullable(),
  otp: z.object({
    sent: z.boolean(),
    destination: z.string().nullable(),
    expires_at: z.number().nullable(),
    attempts_left: z.number(),
    locked: z.boolean(),
    resend_at: z.number().nullable(),
  }),
  document: z.object({ text: z.string() }).nullable(),
  branding: z.object({
    brand_name: z.string().nullable(),
    logo_url: z.string().nullable(),
    brand_color: z.string().nullable(),
    button_color: z.string().nullable(),
    hide_powered: z.boolean(),
    welcome: z.string().nullable(),
  }),
  embed: z.object({ origin: z.string() }).nullable(),
  /** Method token: the desktop agent's ports and protocol versions (agentProtocol.ts), and where to download it; else null. */
  token: z
    .object({ agent_ports: z.array(z.number()), protocol_versions: z.array(z.number()), download_url: z.string().nullable() })
    .nullable(),
  finish: z.object({ redirect_url: z.string().nullable() }).nullable(),
});
export type PageState = z.infer<typeof PageStateSchema>;

const base64 = z.string().min(1).max(200_000);

/** POST /token/prepare: the certificate the signer chose on the token, and its chain; DER in base64. */
export const TokenPrepareBodySchema = z.strictObject({
  /** DER of the signer's certificate, base64. */
  certificate: base64.max(20_000),
  /** DER of certificates that chain it towards a root (the agent's `chain`), base64. */
  chain: z.array(base64.max(20_000)).max(8).optional(),
});
export type TokenPrepareBody = z.infer<typeof TokenPrepareBodySchema>;

/** POST /token/prepare answers with the sign ticket the page hands to the agent. */
export const TokenPreparedSchema = z.object({
  ticket: z.string(),
  preview_url: z.string(),
  /** SHA-256 (hex) of the PDF bytes the signature covers (its ByteRange): the CMS message-digest. */
  digest: z.string(),
  cert_sha256: z.string(),
  /** Unix seconds. */
  expires_at: z.number(),
});
export type TokenPrepared = z.infer<typeof TokenPreparedSchema>;

/**
 * POST /token/check: the certificates the agent lists, each as prepare would receive it. Checking
 * changes nothing (no ticket, no prepared signature): the page asks before offering a choice.
 */
export const TokenCheckBodySchema = z.strictObject({
  certificates: z.array(TokenPrepareBodySchema).min(1).max(16),
});
export type TokenCheckBody = z.infer<typeof TokenCheckBodySchema>;

/** The verdict on each certificate, in the order asked: ok, or the reason prepare would refuse it. */
export const TokenCheckedSchema = z.object({
  certificates: z.array(
    z.object({
      /** SHA-256 (hex) of the certificate's DER (the agent's cert_sha256); null if it is not DER in base64. */
      cert_sha256: z.string().nullable(),
      ok: z.boolean(),
      /** prepare's `certificate_invalid` reason (not_signing, expired, untrusted, …); null when ok. */
      reason: z.string().nullable(),
      /** What the signer reads, in the request's language; null when ok. */
      message: z.string().nullable(),
    }),
  ),
});
export type TokenChecked = z.infer<typeof TokenCheckedSchema>;

/** POST /token/complete: the agent's detached CMS (DER, base64) for the ticket; answers with the PageState. */
export const TokenCompleteBodySchema = z.strictObject({ cms: base64, ticket: z.string().min(1).max(8192).optional() });
export type TokenCompleteBody = z.infer<typeof TokenCompleteBodySchema>;
