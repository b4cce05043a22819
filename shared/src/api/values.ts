/**
 * The enumerated values of the API objects (spec parts 2 and 3), in one place: the server's rules
 * and state machines use these lists, and the object schemas beside this file publish them.
 */
export const REQUEST_STATUSES = ['draft', 'sent', 'viewed', 'partially_signed', 'completed', 'declined', 'expired', 'canceled'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

export const SIGNER_STATUSES = ['pending', 'sent', 'viewed', 'otp_verified', 'identity_verified', 'signed', 'declined'] as const;
export type SignerStatus = (typeof SIGNER_STATUSES)[number];

export const IDENTITY_STATUSES = [
  'not_required',
  'required',
  'in_review',
  'resubmission_requested',
  'declined',
  'match_hold',
  'match_rejected',
  'approved',
] as const;
export type IdentityStatus = (typeof IDENTITY_STATUSES)[number];

/** A session's status is its request's, with viewed shown as sent (spec 2.3). */
export const SESSION_STATUSES = ['draft', 'sent', 'partially_signed', 'completed', 'declined', 'expired', 'canceled'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const LEGAL_LEVELS = ['ses', 'aes', 'qes'] as const;
export type LegalLevel = (typeof LEGAL_LEVELS)[number];

export const SIGNATURE_METHODS = ['simple', 'identity', 'token'] as const;
export type SignatureMethod = (typeof SIGNATURE_METHODS)[number];

export const CHANNELS = ['email', 'whatsapp', 'link'] as const;
export type Channel = (typeof CHANNELS)[number];

export const WORKFLOW_STATUSES = ['draft', 'published', 'archived'] as const;
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

export const VERIFICATION_STATUSES = ['pending', 'in_review', 'resubmission_requested', 'approved', 'declined'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** Company verification (spec part 5): none → pending (submitted) → approved | rejected (with the reviewer's reason; submit again). */
export const KYB_STATUSES = ['none', 'pending', 'approved', 'rejected'] as const;
export type KybStatus = (typeof KYB_STATUSES)[number];

export const TEMPLATE_FIELD_TYPES = ['text', 'date', 'number', 'email'] as const;
export type TemplateFieldType = (typeof TEMPLATE_FIELD_TYPES)[number];

export const API_LANGUAGES = ['ar', 'en'] as const;
