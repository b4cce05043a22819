/**
 * The API objects as zod schemas: what the server's presenters return (their return types are
 * these schemas' types), what the OpenAPI document publishes (components/schemas, generated from
 * these with z.toJSONSchema), and what a client can import. Every object is closed: a field the
 * server sends is declared here, and nothing else is sent. Browser-safe: zod only.
 *
 * Each object carries its component name as `id` metadata (the global zod registry): the document
 * refers to it as #/components/schemas/<id>.
 */
import { z } from 'zod';
import {
  API_LANGUAGES,
  CHANNELS,
  IDENTITY_STATUSES,
  KYB_STATUSES,
  LEGAL_LEVELS,
  REQUEST_STATUSES,
  SESSION_STATUSES,
  SIGNATURE_METHODS,
  SIGNER_STATUSES,
  TEMPLATE_FIELD_TYPES,
  VERIFICATION_STATUSES,
  WORKFLOW_STATUSES,
} from './values.js';

const time = z.number().int().describe('Unix seconds');
const nullableTime = time.nullable();
const language = z.enum(API_LANGUAGES);

export const amountSchema = z
  .object({ amount: z.number().describe('In the wallet currency’s major unit'), currency: z.string() })
  .meta({ id: 'Amount', description: 'An amount of money in the wallet currency' });

export const remindersSchema = z
  .object({ enabled: z.boolean(), interval_hours: z.number().int(), max: z.number().int() })
  .meta({ id: 'Reminders', description: 'Automatic reminders: every interval_hours, at most max' });

/** The cost of a request, a session or a batch: amount from the wallet, sends from the yearly balance. */
const costShape = {
  amount: z.number().describe('Charged to the wallet, in its currency (0 when the balance covered it, and with a test key)'),
  sends: z.number().int().describe('Taken from the yearly balance'),
  currency: z.string(),
};
const costSource = z.enum(['plan', 'overage']);

// ---------------------------------------------------------------------------------------------
// Platform

export const serviceInfoSchema = z
  .object({
    object: z.literal('service'),
    name: z.string(),
    api_version: z.string().describe('The version this request was answered in'),
    versions: z.array(z.string()),
    livemode: z.boolean(),
    account: z.object({ id: z.string(), name: z.string() }),
    docs: z.string().describe('Where the documentation (this document) is'),
  })
  .meta({ id: 'ServiceInfo' });

export const usageSchema = z
  .object({
    object: z.literal('usage'),
    livemode: z.boolean(),
    plan: z.object({
      name: z.string(),
      status: z.enum(['none', 'active', 'expired']),
      sends_per_year: z.number(),
      expires_at: z.number().nullable(),
    }),
    balance: z.object({ sends: z.number().int(), wallet: amountSchema }),
    prices: z.object({ send_overage: amountSchema, identity_verification: amountSchema }),
    currency: z.string(),
    company_verification: z.enum(KYB_STATUSES),
  })
  .meta({ id: 'Usage', description: 'GET /usage and GET /balance: plan, balance and prices, amounts in the wallet currency' });

export const templateFieldSchema = z
  .object({ key: z.string(), label: z.string(), type: z.enum(TEMPLATE_FIELD_TYPES), required: z.boolean() })
  .meta({ id: 'TemplateField' });

export const templateSchema = z
  .object({
    id: z.string(),
    object: z.literal('template'),
    title: z.string(),
    language,
    source: z.enum(['library', 'custom']),
    body: z.string(),
    fields: z.array(templateFieldSchema),
    created_at: time,
    archived_at: time.nullable().describe('When archived (no longer listed or offered; its requests keep it); null if not'),
  })
  .meta({ id: 'Template' });

// ---------------------------------------------------------------------------------------------
// Signature requests and signers

export const signerNameMatchSchema = z
  .object({ state: z.enum(['match', 'mismatch', 'pending']), sent_name: z.string(), document_name: z.string().nullable() })
  .meta({ id: 'SignerNameMatch', description: 'The name on the identity document against the name sent' });

export const signerIdentitySchema = z
  .object({
    status: z.enum(IDENTITY_STATUSES),
    provider: z.string().nullable(),
    level: z.string().nullable(),
    verification_id: z.string().nullable(),
    name_match: signerNameMatchSchema.nullable(),
  })
  .meta({ id: 'SignerIdentity' });

/** Present on the objects of a request created from a workflow (spec 6.4). */
const workflowFields = {
  workflow_id: z.string().optional().describe('Present when created from a workflow'),
  workflow_version: z.number().int().optional().describe('Present when created from a workflow'),
  vendor_data: z.string().nullable().optional().describe('Present when created from a workflow'),
};

const signerShape = {
  id: z.string(),
  object: z.literal('signer'),
  signature_request: z.string().describe('The sr_ id of the signer’s request'),
  name: z.string(),
  email: z.string().nullable().describe('Masked for publishable keys'),
  phone: z.string().nullable(),
  type: z.string().describe('individual or organization'),
  method: z.enum(['draw', 'token']),
  require_identity: z.boolean(),
  order: z.number().int(),
  status: z.enum(SIGNER_STATUSES),
  signing_url: z
    .string()
    .nullable()
    .describe('null for publishable keys, in event snapshots, before the signer’s turn and once the request is draft, canceled or expired'),
  sent_at: nullableTime,
  viewed_at: nullableTime,
  signed_at: nullableTime,
  declined_at: nullableTime,
  decline_reason: z.string().nullable(),
  identity: signerIdentitySchema,
  fields: z.record(z.string(), z.string()),
  ...workflowFields,
};

export const signerSchema = z.object(signerShape).meta({ id: 'Signer' });

export const requestCostSchema = z
  .object({ ...costShape, source: costSource.nullable() })
  .meta({ id: 'RequestCost', description: 'What the send cost; null until the request is charged' });

export const signatureRequestSchema = z
  .object({
    id: z.string(),
    object: z.literal('signature_request'),
    livemode: z.boolean(),
    status: z.enum(REQUEST_STATUSES),
    title: z.string(),
    legal_level: z.enum(LEGAL_LEVELS),
    format: z.string().describe('platform-evidence, pades-t or pades-lt'),
    language,
    source: z.object({ type: z.literal('template'), template_id: z.string() }),
    ordered: z.boolean(),
    require_identity: z.boolean(),
    reference: z.string().nullable().describe('REF-… once completed'),
    reminders: remindersSchema,
    expires_at: nullableTime,
    completed_at: nullableTime,
    download_url: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    return_url: z.string().nullable(),
    success_url: z.string().nullable(),
    cancel_url: z.string().nullable(),
    cost: requestCostSchema.nullable(),
    created_at: time,
    signers: z.array(signerSchema),
    ...workflowFields,
    channel: z.enum(CHANNELS).optional().describe('Present when created from a workflow'),
  })
  .meta({ id: 'SignatureRequest' });

export const identityMatchDetailsSchema = z
  .object({
    decision: z.enum(['approved', 'rejected']).optional().describe('On signer.identity_match_decided'),
    sent_name: z.string(),
    document_name: z.string().nullable(),
    document_type: z.string().nullable(),
    document_last4: z.string().nullable(),
  })
  .meta({ id: 'IdentityMatchDetails' });

export const signerSnapshotSchema = z
  .object({ ...signerShape, identity_match: identityMatchDetailsSchema.optional().describe('On signer.identity_match_* events') })
  .meta({ id: 'SignerSnapshot', description: 'The signer as a signer.* event carries it (no signing link)' });

export const bulkSendSummarySchema = z
  .object({
    id: z.string().describe('bat_ id'),
    object: z.literal('bulk_send'),
    livemode: z.boolean(),
    status: z.literal('sent'),
    template_id: z.string(),
    title: z.string(),
    counts: z.object({ recipients: z.number().int(), signature_requests: z.number().int(), sent: z.number().int() }),
    signature_requests: z.array(
      z.object({
        id: z.string(),
        status: z.enum(REQUEST_STATUSES),
        signer: z.object({
          id: z.string(),
          name: z.string(),
          email: z.string().nullable(),
          phone: z.string().nullable(),
          status: z.enum(SIGNER_STATUSES),
          signing_url: z.string().nullable(),
        }),
      }),
    ),
    cost: z.object({ ...costShape, source: costSource }),
    created_at: time,
  })
  .meta({ id: 'BulkSend', description: 'The summary of a bulk send: one signature request per recipient' });

export const signingSessionSchema = z
  .object({
    object: z.literal('signing_session'),
    signer: z.string(),
    signing_url: z.string(),
    expires_at: time.describe('30 minutes after creation'),
    mode: z.enum(['embedded', 'redirect']),
  })
  .meta({ id: 'SigningSession' });

// ---------------------------------------------------------------------------------------------
// Documents and verification

export const downloadSchema = z
  .object({
    object: z.literal('download'),
    pdf_url: z.string().nullable(),
    pdf_status: z.enum(['pending', 'ready', 'unavailable']),
    pdf_sha256: z.string().nullable(),
    final_document_url: z.string(),
    reference: z.string(),
  })
  .meta({ id: 'Download' });

export const evidenceRecordSchema = z
  .object({
    object: z.literal('evidence_record'),
    signature_request: z.string(),
    reference: z.string().nullable(),
    record_raw: z.string().describe('The record, canonical JSON (RFC 8785)'),
    signature: z.object({ algorithm: z.literal('Ed25519'), value: z.string() }),
    public_key: z.string(),
    timestamp: z.object({ format: z.literal('rfc3161'), hash_alg: z.literal('sha-256'), token: z.string() }),
    created_at: time,
  })
  .meta({ id: 'EvidenceRecord' });

export const verificationSchema = z
  .object({
    object: z.literal('verification'),
    reference: z.string(),
    found: z.boolean(),
    status: z.enum(REQUEST_STATUSES),
    integrity: z.enum(['intact', 'modified', 'unknown']),
    test: z.boolean(),
    sealed_at: nullableTime,
    completed_at: nullableTime,
    document: z.object({
      title: z.string(),
      sha256: z.string(),
      hash_alg: z.literal('hmac-sha256'),
      format: z.string(),
      legal_level: z.enum(LEGAL_LEVELS),
      pdf_sha256: z.string().nullable(),
    }),
    parties: z.array(z.object({ name: z.string().describe('Masked'), signed_at: nullableTime })),
  })
  .meta({ id: 'Verification' });

// ---------------------------------------------------------------------------------------------
// Identity

export const verificationNameMatchSchema = z
  .object({
    state: z.enum(['match', 'mismatch']),
    sent_name: z.string(),
    document_name: z.string(),
    document_type: z.string().nullable(),
    document_last4: z.string().nullable().describe('The last four characters of the document number; the full number is never kept'),
    mode: z.enum(['hold', 'record']).nullable().describe('For a mismatch: hold (signing held for a decision) or record (recorded only)'),
    decision: z.enum(['approved', 'rejected']).nullable(),
    decided_at: nullableTime,
  })
  .meta({ id: 'VerificationNameMatch' });

export const identityVerificationSchema = z
  .object({
    id: z.string(),
    object: z.literal('identity_verification'),
    livemode: z.boolean(),
    signer: z.string(),
    signature_request: z.string().nullable(),
    status: z.enum(VERIFICATION_STATUSES),
    provider: z.string().describe('simulation in test mode; the provider adapter (e.g. generic) in live mode'),
    level: z.string(),
    name_match: verificationNameMatchSchema.nullable(),
    created_at: time,
    updated_at: time,
    completed_at: nullableTime,
  })
  .meta({ id: 'IdentityVerification' });

// ---------------------------------------------------------------------------------------------
// Workflows and sessions

export const workflowSchema = z
  .object({
    id: z.string(),
    object: z.literal('workflow'),
    name: z.string(),
    status: z.enum(WORKFLOW_STATUSES),
    version: z.number().int().nullable().describe('The latest published version'),
    default: z.boolean(),
    document: z.union([
      z.object({ mode: z.literal('fixed'), template_id: z.string().nullable() }),
      z.object({ mode: z.literal('per_request'), default_template_id: z.string().nullable() }),
    ]),
    signature_method: z.enum(SIGNATURE_METHODS),
    legal_level: z.enum(LEGAL_LEVELS),
    channel: z.enum(CHANNELS),
    cc: z.array(z.string()).describe('Masked for publishable keys'),
    require_id_attachment: z.boolean(),
    require_access_code: z.boolean(),
    expires_in: z.number().int().describe('Days'),
    language,
    return_url: z.string().nullable(),
    ordered: z.boolean(),
    reminders: remindersSchema,
    published_at: nullableTime,
    created_at: time,
  })
  .meta({ id: 'Workflow' });

export const sessionSchema = z
  .object({
    id: z.string().describe('The sr_ id of the request'),
    object: z.literal('session'),
    status: z.enum(SESSION_STATUSES),
    title: z.string(),
    workflow_id: z.string(),
    workflow_version: z.number().int(),
    vendor_data: z.string().nullable(),
    channel: z.enum(CHANNELS),
    signers: z.array(
      z.object({
        id: z.string(),
        object: z.literal('signer'),
        name: z.string(),
        email: z.string().nullable(),
        phone: z.string().nullable(),
        status: z.enum(SIGNER_STATUSES),
        sign_url: z.string().nullable(),
      }),
    ),
    sign_url: z.string().nullable().describe('The link when there is exactly one signer'),
    created_at: time,
    expires_at: nullableTime,
    livemode: z.boolean(),
    cost: z.object({ ...costShape, source: costSource }),
    return_url: z.string().optional().describe('Present only when the request has one'),
  })
  .meta({ id: 'Session' });

// ---------------------------------------------------------------------------------------------
// Events and webhooks

export const whatsappMessageSchema = z
  .object({
    object: z.literal('whatsapp_message'),
    to: z.string().nullable().describe('Masked number'),
    kind: z.enum(['invitation', 'reminder']),
    signer: z.string(),
    signature_request: z.string(),
  })
  .meta({ id: 'WhatsappMessage', description: 'audit.whatsapp_simulated (test mode): the message that would have been sent' });

export const webhookEndpointSchema = z
  .object({
    id: z.string(),
    object: z.literal('webhook_endpoint'),
    url: z.string(),
    enabled_events: z.array(z.string()),
    status: z.enum(['enabled', 'disabled']),
    description: z.string().nullable(),
    livemode: z.boolean(),
    created_at: time,
  })
  .meta({ id: 'WebhookEndpoint' });

export const eventSchema = z
  .object({
    id: z.string(),
    object: z.literal('event'),
    type: z.string(),
    created_at: time,
    livemode: z.boolean(),
    data: z.object({
      object: z
        .union([signatureRequestSchema, signerSnapshotSchema, verificationSchema, whatsappMessageSchema, webhookEndpointSchema])
        .describe(
          'The affected object as it was when the event happened (webhook_endpoint.test, sent from the console to one endpoint: the endpoint)',
        ),
    }),
    request: z
      .object({ ip: z.string().nullable(), user_agent: z.string().nullable() })
      .nullable()
      .describe('Who caused it (signer events); emptied for publishable keys'),
  })
  .meta({ id: 'Event' });

export const webhookEndpointCreatedSchema = webhookEndpointSchema
  .extend({ secret: z.string().describe('whsec_…: shown in this response only') })
  .meta({ id: 'WebhookEndpointCreated' });

export const webhookEndpointDeletedSchema = z
  .object({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) })
  .meta({ id: 'WebhookEndpointDeleted' });

export const webhookAttemptSchema = z
  .object({
    attempt: z.number().int(),
    created_at: time,
    response_status: z.number().int().nullable().describe('null when there was no answer'),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
    response_excerpt: z
      .string()
      .nullable()
      .describe(
        'The first 500 bytes of the receiver’s response body at most, as UTF-8 text cut on a character boundary (CRLF as LF; other control characters but tab and newline replaced by U+FFFD); empty for an empty body, null when there was no answer',
      ),
    next_retry_at: nullableTime,
  })
  .meta({ id: 'WebhookAttempt' });

export const webhookDeliverySchema = z
  .object({
    id: z.string(),
    object: z.literal('webhook_delivery'),
    event: z.string(),
    endpoint: z.string(),
    trigger: z.enum(['event', 'redeliver']),
    status: z.enum(['pending', 'succeeded', 'failed', 'canceled']),
    attempt_count: z.number().int(),
    next_attempt_at: nullableTime.describe('When the next attempt is due: only for a pending delivery not in flight'),
    attempts: z.array(webhookAttemptSchema),
    created_at: time,
  })
  .meta({ id: 'WebhookDelivery' });

// ---------------------------------------------------------------------------------------------
// Lists

/** The list envelope of every list endpoint: newest first; pass next_cursor as starting_after. */
export function listSchema<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({ object: z.literal('list'), data: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable() })
    .meta({ id });
}

export const templateListSchema = listSchema(templateSchema, 'TemplateList');
export const signatureRequestListSchema = listSchema(signatureRequestSchema, 'SignatureRequestList');
export const signerListSchema = listSchema(signerSchema, 'SignerList');
export const sessionListSchema = listSchema(sessionSchema, 'SessionList');
export const workflowListSchema = listSchema(workflowSchema, 'WorkflowList');
export const eventListSchema = listSchema(eventSchema, 'EventList');
export const webhookEndpointListSchema = listSchema(webhookEndpointSchema, 'WebhookEndpointList');
export const webhookDeliveryListSchema = listSchema(webhookDeliverySchema, 'WebhookDeliveryList');

// ---------------------------------------------------------------------------------------------
// Errors

export const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'billing_error',
  'idempotency_error',
  'rate_limit_error',
  'api_error',
] as const;

export const errorSchema = z
  .object({
    error: z.object({
      type: z.enum(ERROR_TYPES),
      code: z.string().describe('Stable; rely on it, not on message'),
      message: z.string().describe('Arabic by default; English with Accept-Language: en, ?lang=en or the /en/api/v1 prefix'),
      param: z.string().nullable().describe('The parameter or header at fault, e.g. signers[0].email'),
      request_id: z.string(),
      // The extra fields some codes carry (spec part 7, and ours).
      upgrade_url: z.string().optional().describe('plan_required, plan_expired, plan_feature_unavailable'),
      verify_url: z.string().optional().describe('kyb_required'),
      feature: z.string().optional().describe('plan_feature_unavailable'),
      required_plan: z.string().optional().describe('plan_feature_unavailable'),
      max_signers: z.number().int().optional().describe('too_many_signers, test_signer_limit, invalid_signer'),
      max_recipients: z.number().int().optional().describe('test_bulk_limit'),
      max_reminders: z.number().int().optional().describe('reminder_limit_reached'),
      max_bytes: z.number().int().optional().describe('request_too_large'),
      required: amountSchema.optional().describe('insufficient_balance: what the send costs from the wallet'),
      available: amountSchema.optional().describe('insufficient_balance: what the wallet holds'),
      recipients: z.number().int().optional().describe('insufficient_balance of a bulk send'),
      final_document_url: z.string().optional().describe('pdf_unavailable'),
      reason: z.string().optional().describe('invalid_state: why'),
      signer: z.string().optional().describe('reminder_too_soon: the signer reminded within the hour'),
      session_id: z.string().optional().describe('delivery_failed: the request, now a draft'),
      cost: z
        .object({ ...costShape, source: z.string(), returned: z.literal(true) })
        .optional()
        .describe('delivery_failed: the cost, returned'),
    }),
  })
  .meta({ id: 'Error', description: 'The error envelope of every failure' });

// ---------------------------------------------------------------------------------------------
// Types

export type Amount = z.output<typeof amountSchema>;
export type Reminders = z.output<typeof remindersSchema>;
export type ServiceInfo = z.output<typeof serviceInfoSchema>;
export type Usage = z.output<typeof usageSchema>;
export type Template = z.output<typeof templateSchema>;
export type Signer = z.output<typeof signerSchema>;
export type SignerSnapshot = z.output<typeof signerSnapshotSchema>;
export type SignatureRequest = z.output<typeof signatureRequestSchema>;
export type BulkSendSummary = z.output<typeof bulkSendSummarySchema>;
export type SigningSession = z.output<typeof signingSessionSchema>;
export type Download = z.output<typeof downloadSchema>;
export type EvidenceRecord = z.output<typeof evidenceRecordSchema>;
export type Verification = z.output<typeof verificationSchema>;
export type IdentityVerification = z.output<typeof identityVerificationSchema>;
export type Workflow = z.output<typeof workflowSchema>;
export type Session = z.output<typeof sessionSchema>;
export type WhatsappMessage = z.output<typeof whatsappMessageSchema>;
export type Event = z.output<typeof eventSchema>;
export type WebhookEndpoint = z.output<typeof webhookEndpointSchema>;
export type WebhookEndpointCreated = z.output<typeof webhookEndpointCreatedSchema>;
export type WebhookEndpointDeleted = z.output<typeof webhookEndpointDeletedSchema>;
export type WebhookDelivery = z.output<typeof webhookDeliverySchema>;
export type ApiErrorEnvelope = z.output<typeof errorSchema>;
export interface List<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}
