/**
 * The records the store keeps and the domain reasons about (a request, its signers, an account,
 * a template, a session, a ledger entry): plain data, defined here at the bottom so that pure
 * domain rules (the create plan) can name them without importing the store, which maps them to rows.
 */
import type { KybStatus, PlanName } from './plans.js';
import type { IdentityStatus, RequestStatus, SignerStatus } from './requestStates.js';
import type { TemplateFieldDefinition } from './templates.js';
import type { Channel, WorkflowSettings } from './workflows.js';

export interface Account {
  id: string;
  name: string;
  owner_email: string | null;
  plan: PlanName;
  plan_expires_at: number | null;
  kyb_status: KybStatus;
  balance_sends: number;
  wallet_minor: number;
  currency: string;
  accepted_domains: string[];
  team_emails: string[];
  team_phones: string[];
  version_pin: string | null;
  whatsapp_enabled: boolean;
  branding: Record<string, unknown>;
  /** Origins allowed to embed the signing page (frame-ancestors, postMessage targets). */
  allowed_origins: string[];
  /** hold: a name mismatch holds signing until decided; record: it is recorded only. */
  identity_match_mode: 'hold' | 'record';
  created_at: number;
}

/** What a charge is priced from, read in the charging transaction. */
export interface AccountBalance {
  plan: PlanName;
  balance_sends: number;
  wallet_minor: number;
  currency: string;
}

export interface Reminders {
  enabled: boolean;
  interval_hours: number;
  max: number;
}

export interface WorkflowLink {
  workflow_id: string;
  workflow_version: number;
  vendor_data: string | null;
  channel: 'email' | 'whatsapp' | 'link';
}

export interface SignatureRequestRecord {
  id: string;
  account_id: string;
  livemode: boolean;
  status: RequestStatus;
  title: string;
  legal_level: 'ses' | 'aes' | 'qes';
  format: string;
  template_id: string;
  language: 'ar' | 'en';
  ordered: boolean;
  require_identity: boolean;
  reference: string | null;
  reminders: Reminders;
  expires_at: number | null;
  completed_at: number | null;
  metadata: Record<string, string>;
  return_url: string | null;
  success_url: string | null;
  cancel_url: string | null;
  cost_sends: number;
  cost_wallet_minor: number;
  cost_source: 'plan' | 'overage' | null;
  charged: boolean;
  reminders_sent: number;
  auto_reminders_sent: number;
  workflow: WorkflowLink | null;
  created_at: number;
  sent_at: number | null;
  updated_at: number;
}

export interface IdentityState {
  status: IdentityStatus;
  provider: string | null;
  level: string | null;
  verification_id: string | null;
  name_match: { state: 'match' | 'mismatch' | 'pending'; sent_name: string; document_name: string | null } | null;
}

export interface SignerRecord {
  id: string;
  signature_request_id: string;
  position: number;
  name: string;
  email: string | null;
  phone: string | null;
  type: string;
  method: 'draw' | 'token';
  require_identity: boolean;
  status: SignerStatus;
  identity: IdentityState;
  fields: Record<string, string>;
  access_code_hash: string | null;
  link_version: number;
  sent_at: number | null;
  viewed_at: number | null;
  signed_at: number | null;
  declined_at: number | null;
  decline_reason: string | null;
  last_reminder_at: number | null;
  ip: string | null;
  user_agent: string | null;
  otp_hash: string | null;
  otp_expires_at: number | null;
  otp_attempts: number;
  otp_sent_at: number | null;
  access_attempts: number;
}

/**
 * The changes one UPDATE of a signer writes: its record's fields and, with the sign move, the drawn
 * signature (a PNG data URL, tens of KB, kept for the final document). The signature is not part of
 * SignerRecord: only the seal reads it (store/signatureRequests.ts signatureImagesOf), so every
 * other read of a signer leaves it on disk.
 */
export type SignerChanges = Partial<SignerRecord> & { signature_image?: string | null };

export interface TemplateRecord {
  id: string;
  account_id: string | null;
  title: string;
  language: 'ar' | 'en';
  body: string;
  fields: TemplateFieldDefinition[];
  created_at: number;
  /** Archived: no longer listed; still found by id, and still the text of the requests made from it. */
  archived_at: number | null;
}

/** What a request from a workflow keeps beside the request row (filters of GET /sessions, cc, method). */
export interface SessionSettings {
  signature_method: WorkflowSettings['signature_method'];
  cc: string[];
  require_id_attachment: boolean;
  require_access_code: boolean;
}

export interface SessionRecord {
  signature_request_id: string;
  account_id: string;
  livemode: boolean;
  workflow_id: string;
  workflow_version: number;
  vendor_data: string | null;
  channel: Channel;
  settings: SessionSettings;
  created_at: number;
}

/** One movement of an account's sends or wallet (a charge, a refund, a top-up). */
export interface LedgerEntry {
  id: string;
  account_id: string;
  kind: string;
  sends_delta: number;
  wallet_delta_minor: number;
  signature_request_id: string | null;
  note: string | null;
  created_at: number;
}
