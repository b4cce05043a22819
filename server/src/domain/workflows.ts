import { CHANNELS, SIGNATURE_METHODS, type Channel, type SessionStatus, type SignatureMethod } from '@tawqi/shared/api';
import { z } from 'zod';
import { E164, httpsUrl, metadataSchema } from './signatureRequestInput.js';

/**
 * Workflows (spec 2.3, 4.2): named, versioned settings a request is created with. Pure rules and
 * data: the settings, their base defaults, the built-in default workflow, how a signature method
 * maps to a legal level, and the body of POST /sessions field by field. No I/O.
 */
export { CHANNELS, SESSION_STATUSES, SIGNATURE_METHODS, WORKFLOW_STATUSES } from '@tawqi/shared/api';
export type { Channel, SessionStatus, SignatureMethod, WorkflowStatus } from '@tawqi/shared/api';

/** Limits of spec part 8. */
export const MAX_CC = 20;
export const MIN_EXPIRES_IN = 1;
export const MAX_EXPIRES_IN = 30;
export const MAX_VENDOR_DATA = 190;
export const MAX_SESSION_SIGNERS = 5;

/** The default workflow of every account (spec 4.1: `workflow_id: default`, every plan). Built in, not stored. */
export const DEFAULT_WORKFLOW_ID = 'wf_default';
export const DEFAULT_WORKFLOW_NAME = 'Default';
export const isDefaultWorkflowId = (id: string): boolean => id === 'default' || id === DEFAULT_WORKFLOW_ID;

/**
 * Where a request's document comes from: one fixed template, or a template (or text document)
 * named per request, with an optional default template.
 */
export type DocumentSetting = { mode: 'fixed'; template_id: string | null } | { mode: 'per_request'; default_template_id: string | null };

export interface ReminderSetting {
  enabled: boolean;
  interval_hours: number;
  max: number;
}

export interface WorkflowSettings {
  document: DocumentSetting;
  signature_method: SignatureMethod;
  channel: Channel;
  cc: string[];
  require_id_attachment: boolean;
  require_access_code: boolean;
  /** Days from creation to expiry, 1 to 30. */
  expires_in: number;
  language: 'ar' | 'en';
  return_url: string | null;
  ordered: boolean;
  reminders: ReminderSetting;
}

/** Workflow base defaults (spec 4.2); also the settings of the default workflow. */
export const BASE_SETTINGS: WorkflowSettings = Object.freeze({
  document: { mode: 'per_request', default_template_id: null },
  signature_method: 'simple',
  channel: 'email',
  cc: [],
  require_id_attachment: false,
  require_access_code: false,
  expires_in: 7,
  language: 'ar',
  return_url: null,
  ordered: false,
  reminders: { enabled: false, interval_hours: 48, max: 3 },
}) as WorkflowSettings;

/** signature_method → legal level: simple → ses, identity → aes (identity verified), token → qes (method token). */
export const LEGAL_LEVEL_OF: Record<SignatureMethod, 'ses' | 'aes' | 'qes'> = { simple: 'ses', identity: 'aes', token: 'qes' };
export const SIGNATURE_METHOD_OF: Record<'ses' | 'aes' | 'qes', SignatureMethod> = { ses: 'simple', aes: 'identity', qes: 'token' };

const templateId = z.string().regex(/^tpl_[0-9A-Za-z_]{1,60}$/, 'a tpl_ id');

/** Stored (and CLI-built) settings, checked as a whole. */
export const workflowSettingsSchema = z.strictObject({
  document: z.discriminatedUnion('mode', [
    z.strictObject({ mode: z.literal('fixed'), template_id: templateId.nullable() }),
    z.strictObject({ mode: z.literal('per_request'), default_template_id: templateId.nullable() }),
  ]),
  signature_method: z.enum(SIGNATURE_METHODS),
  channel: z.enum(CHANNELS),
  cc: z.array(z.email().max(254)).max(MAX_CC),
  require_id_attachment: z.boolean(),
  require_access_code: z.boolean(),
  expires_in: z.number().int().min(MIN_EXPIRES_IN).max(MAX_EXPIRES_IN),
  language: z.enum(['ar', 'en']),
  return_url: httpsUrl.nullable(),
  ordered: z.boolean(),
  reminders: z.strictObject({
    enabled: z.boolean(),
    interval_hours: z.number().int().min(1).max(720),
    max: z.number().int().min(0).max(10),
  }),
});

/** The template a workflow names (fixed, or the per-request default), if any. */
export function workflowTemplate(s: WorkflowSettings): string | null {
  return s.document.mode === 'fixed' ? s.document.template_id : s.document.default_template_id;
}

// ---------------------------------------------------------------------------------------------
// POST /sessions (spec 4.2)

/** Fields a session body may carry besides the overrides. */
export const SESSION_FIELDS = [
  'workflow_id',
  'signers',
  'vendor_data',
  'template_id',
  'document_id',
  'title',
  'fields',
  'metadata',
] as const;

/** Overrides a request may carry (apply to that request only), each with its rule. */
export const OVERRIDES = {
  signature_method: z.enum(SIGNATURE_METHODS),
  channel: z.enum(CHANNELS),
  cc: z.array(z.email().max(254)).max(MAX_CC),
  require_id_attachment: z.boolean(),
  expires_in: z.number().int().min(MIN_EXPIRES_IN).max(MAX_EXPIRES_IN),
  language: z.enum(['ar', 'en']),
  /** An empty value (or null) removes the workflow's URL for this request. */
  return_url: z.union([z.literal(''), z.null(), httpsUrl]),
} as const;
export type OverrideName = keyof typeof OVERRIDES;
export const OVERRIDE_NAMES = Object.keys(OVERRIDES) as OverrideName[];

/** Named by spec 4.2 as refused (400 invalid_override); any other unknown field is refused the same way. */
export const REFUSED_FIELDS = [
  'ordered',
  'reminders',
  'require_access_code',
  'send',
  'legal_level',
  'require_identity',
  'source',
  'document',
] as const;
/** Refused inside a signer: the workflow's signature method decides them. */
export const REFUSED_SIGNER_FIELDS = ['method', 'require_identity'] as const;

export const sessionSignerSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  email: z.email().max(254).optional(),
  phone: z.string().regex(E164, 'international format, e.g. +201001234567').optional(),
  type: z.enum(['individual', 'organization']).default('individual'),
  fields: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), z.string().max(2000)).default({}),
  access_code: z.string().min(4).max(32).optional(),
});
export type SessionSigner = z.infer<typeof sessionSignerSchema>;

const fieldValues = z.record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), z.string().max(2000));

/**
 * The body of POST /sessions as the OpenAPI document declares it. The server checks the body field
 * by field (services/sessions.ts: prepareSession), with the codes of spec 7 (invalid_override,
 * invalid_signer, invalid_request); this is the same set of fields and rules, for clients.
 */
export const sessionBodyDocument = z.strictObject({
  workflow_id: z.string().describe('wf_ id, or default for the default workflow'),
  signers: z.array(sessionSignerSchema).min(1).max(MAX_SESSION_SIGNERS),
  vendor_data: z.string().max(MAX_VENDOR_DATA).nullable().optional(),
  template_id: z.string().optional().describe('When the workflow sets the document per request'),
  document_id: z.string().optional().describe('A text document instead of template_id (not both)'),
  title: z.string().min(1).max(200).optional(),
  fields: fieldValues.optional().describe('Field values for the document; a signer’s own fields win'),
  metadata: metadataSchema.optional(),
  ...Object.fromEntries(OVERRIDE_NAMES.map((name) => [name, OVERRIDES[name].optional()])),
});

/** The overrides applied to a workflow version's settings. `return_url: ''` (or null) removes the URL. */
export function applyOverrides(
  base: WorkflowSettings,
  o: Partial<{ [K in OverrideName]: z.infer<(typeof OVERRIDES)[K]> }>,
): WorkflowSettings {
  const out: WorkflowSettings = { ...base, cc: [...base.cc], reminders: { ...base.reminders } };
  if (o.signature_method !== undefined) out.signature_method = o.signature_method;
  if (o.channel !== undefined) out.channel = o.channel;
  if (o.cc !== undefined) out.cc = [...o.cc];
  if (o.require_id_attachment !== undefined) out.require_id_attachment = o.require_id_attachment;
  if (o.expires_in !== undefined) out.expires_in = o.expires_in;
  if (o.language !== undefined) out.language = o.language;
  if (o.return_url !== undefined) out.return_url = o.return_url === '' || o.return_url === null ? null : o.return_url;
  return out;
}

/** The contact a signer needs on a channel (spec 4.2 Channels); null when it has it. */
export function channelContactProblem(channel: Channel, s: { email?: string | null; phone?: string | null }): 'email' | 'phone' | null {
  if (channel === 'email') return s.email ? null : 'email';
  if (channel === 'whatsapp') return s.phone ? null : 'phone';
  return s.email || s.phone ? null : 'email';
}

/**
 * The channel of a signer's one-time code (spec 4.2): the request's channel; WhatsApp falls back to
 * email when the signer has no number or WhatsApp codes are not enabled; link (and email, and
 * requests not from a workflow) use the email when present, else the number.
 */
export function otpChannel(
  requestChannel: Channel | null,
  s: { email: string | null; phone: string | null },
  whatsappCodes: boolean,
): 'email' | 'whatsapp' {
  if (requestChannel === 'whatsapp') return s.phone && whatsappCodes ? 'whatsapp' : s.email ? 'email' : 'whatsapp';
  return s.email ? 'email' : 'whatsapp';
}

/** The channel of a signer's invitations and reminders: none with link; the number on WhatsApp; else the email first. */
export function invitationChannelOf(
  requestChannel: Channel | null,
  s: { email: string | null; phone: string | null },
): 'email' | 'whatsapp' | null {
  if (requestChannel === 'link') return null;
  if (requestChannel === 'whatsapp' && s.phone) return 'whatsapp';
  return s.email ? 'email' : s.phone ? 'whatsapp' : null;
}

/** Session status (spec 2.3): a viewed request is still "sent" to the session's reader. */
export function sessionStatus(requestStatus: string): SessionStatus {
  return requestStatus === 'viewed' ? 'sent' : (requestStatus as SessionStatus);
}
