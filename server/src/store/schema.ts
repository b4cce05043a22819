import type { Generated } from 'kysely';
import type { LedgerEntry } from '../domain/records.js';

/** Table types for Kysely. JSON columns hold text; repositories parse them. Times are Unix seconds. */
export interface AccountsTable {
  id: string;
  name: string;
  owner_email: string | null;
  plan: string;
  plan_expires_at: number | null;
  kyb_status: string;
  balance_sends: number;
  wallet_minor: number;
  currency: string;
  accepted_domains: string;
  team_emails: string;
  team_phones: string;
  version_pin: string | null;
  whatsapp_enabled: number;
  branding: string;
  allowed_origins: Generated<string>;
  identity_match_mode: Generated<string>;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  kind: 'secret' | 'publishable';
  mode: 'live' | 'test';
  secret_hash: string;
  last4: string;
  read_only: number;
  allowed_ips: string;
  allowed_origins: string;
  daily_cap: number | null;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  replaced_by: string | null;
}

/** One row per allowed origin of a publishable key (migration 11); api_keys.allowed_origins is the source. */
export interface KeyOriginsTable {
  origin: string;
  key_id: string;
}

export interface IdempotencyTable {
  account_id: string;
  mode: string;
  idem_key: string;
  method: string;
  path: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_body: string | null;
  created_at: number;
  /** PostgreSQL: the token of the request holding the key (null once done, unless held; always null on SQLite). */
  claim_token?: string | null;
  /** PostgreSQL: when the holder's claim may be taken over (Unix seconds; null on SQLite). */
  lease_until?: number | null;
}

/** PostgreSQL's rate windows (rateWindows.ts); SQLite keeps them in memory. Milliseconds. */
export interface RateWindowsTable {
  scope: string;
  window_start: number;
  window_end: number;
  count: number;
}

export interface CountersTable {
  scope: string;
  window_start: number;
  count: number;
}

export interface NoticesTable {
  id: string;
  account_id: string;
  kind: string;
  data: string;
  created_at: number;
}

export type LedgerTable = LedgerEntry;

export interface TemplatesTable {
  id: string;
  account_id: string | null;
  title: string;
  language: string;
  body: string;
  fields: string;
  created_at: number;
  archived_at: number | null;
}

export interface RequestLogTable {
  id: Generated<number>;
  account_id: string | null;
  key_id: string | null;
  request_id: string;
  method: string;
  path: string;
  status: number;
  code: string | null;
  ip: string;
  created_at: number;
  /** Migration 18: every request, not only refusals. */
  livemode: Generated<number>;
  /** 'secret' | 'publishable' | 'read_only' | 'console' (a signed-in user's internal credential). */
  key_type: string | null;
  key_hint: string | null;
  user_id: string | null;
  user_email: string | null;
  idempotency_key: string | null;
  duration_ms: number | null;
}

export interface SignatureRequestsTable {
  id: string;
  account_id: string;
  livemode: number;
  status: string;
  title: string;
  legal_level: string;
  format: string;
  template_id: string;
  language: string;
  ordered: number;
  require_identity: number;
  reference: string | null;
  reminders: string;
  expires_at: number | null;
  completed_at: number | null;
  metadata: string;
  return_url: string | null;
  success_url: string | null;
  cancel_url: string | null;
  cost_sends: number;
  cost_wallet_minor: number;
  cost_source: string | null;
  charged: number;
  reminders_sent: number;
  auto_reminders_sent: number;
  workflow: string | null;
  created_at: number;
  sent_at: number | null;
  updated_at: number;
}

export interface SignersTable {
  id: string;
  signature_request_id: string;
  position: number;
  name: string;
  email: string | null;
  phone: string | null;
  type: string;
  method: string;
  require_identity: number;
  status: string;
  identity: string;
  fields: string;
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
  otp_hash: Generated<string | null>;
  otp_expires_at: Generated<number | null>;
  otp_attempts: Generated<number>;
  otp_sent_at: Generated<number | null>;
  access_attempts: Generated<number>;
  signature_image: Generated<string | null>;
}

export interface PageSessionsTable {
  token_hash: string;
  signer_id: string;
  kind: 'link' | 'embedded' | 'redirect';
  signing_session_id: string | null;
  access_granted: Generated<number>;
  expires_at: number;
  revoked_at: number | null;
  created_at: number;
}

export interface SigningSessionsTable {
  id: string;
  signer_id: string;
  mode: string;
  return_url: string | null;
  success_url: string | null;
  cancel_url: string | null;
  embed_origin: string | null;
  expires_at: number;
  invalidated_at: number | null;
  created_at: number;
}

export interface IdentityVerificationsTable {
  id: string;
  account_id: string;
  livemode: number;
  /** The signer checked; for subject 'representative', the company verification (kyb_…). */
  signer_id: string;
  provider: string;
  level: string;
  status: string;
  provider_reference: string | null;
  document_name: string | null;
  document_type: string | null;
  document_last4: string | null;
  name_match: string | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
  /** 'signer' (a signer's check) or 'representative' (a company's representative, migration 19). */
  subject: Generated<string>;
}

export interface EventsTable {
  id: string;
  account_id: string;
  livemode: number;
  type: string;
  signature_request_id: string | null;
  data: string;
  request_info: string | null;
  created_at: number;
}

export interface JobsTable {
  id: Generated<number>;
  kind: string;
  run_at: number;
  payload: string;
  dedupe_key: string | null;
  attempts: Generated<number>;
  state: Generated<string>;
  last_error: string | null;
  created_at: number;
  /** The claim holding the job (PostgreSQL; store/jobs.ts): owner and claim number; null when none. */
  lease_owner: Generated<string | null>;
  /** When that claim's lease ends (the job's run_at was moved there by the claim). */
  leased_until: Generated<number | null>;
}

export interface MessagesTable {
  id: Generated<number>;
  account_id: string;
  livemode: number;
  channel: string;
  recipient: string;
  kind: string;
  subject: string;
  body: string;
  signature_request_id: string | null;
  signer_id: string | null;
  state: Generated<string>;
  created_at: number;
  sent_at: number | null;
  html: Generated<string | null>;
  language: Generated<string>;
  /** WhatsApp: the template message as JSON (name, language, parameters); null for email. */
  template: Generated<string | null>;
  /** Email: the message's blocks as JSON, from which its HTML part is built at delivery (delivery/messages.ts). */
  blocks: Generated<string | null>;
  /** When a queued message is due for delivery (null: not scheduled). */
  deliver_at: Generated<number | null>;
  /** Failed delivery attempts so far; the last failure's text. */
  attempts: Generated<number>;
  last_error: Generated<string | null>;
  /** The claim holding the queued message (PostgreSQL; store/messages.ts); null when none. */
  lease_owner: Generated<string | null>;
  /** When that claim's lease ends (deliver_at was moved there by the claim). */
  leased_until: Generated<number | null>;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  livemode: number;
  url: string;
  description: string | null;
  enabled_events: string;
  status: string;
  secret: string | null;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  created_via: string;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  trigger: string;
  status: string;
  attempt_count: Generated<number>;
  next_attempt_at: number | null;
  leased_until: number | null;
  /** The claim holding the delivery (store/webhooks.ts): owner and claim number; null when none. */
  lease_owner: Generated<string | null>;
  attempts: Generated<string>;
  created_at: number;
  updated_at: number;
}

export interface SealedDocumentsTable {
  signature_request_id: string;
  account_id: string;
  livemode: number;
  reference: string;
  document_text: string;
  document_hash: string;
  pdf_status: 'pending' | 'ready' | 'unavailable';
  pdf_file: string | null;
  pdf_sha256: string | null;
  error: string | null;
  created_at: number;
  sealed_at: number | null;
  /** B-LTA (pades-lt): when the TSA certificate of the PDF's last document timestamp ends; null otherwise. */
  timestamp_expires_at: number | null;
  /** When the archive renewal may try this document again after a failed or useless attempt. */
  archive_retry_at: number | null;
  /** JSON array: the SHA-256 the file had before each archive renewal, oldest first (each file a prefix of the next). */
  earlier_pdf_sha256: string;
}

export interface EvidenceRecordsTable {
  signature_request_id: string;
  record_raw: string;
  signature: string;
  public_key: string;
  timestamp_token: string;
  created_at: number;
}

/** A token signer's prepared PAdES signature (sealing/qes): single use, lives as long as its ticket. */
export interface QesPreparedTable {
  signer_id: string;
  signature_request_id: string;
  jti: string;
  /** Hex SHA-256 of the certificate DER the ticket binds. */
  cert_sha256: string;
  /** Hex SHA-256 of the ByteRange bytes (the CMS message-digest). */
  digest: string;
  /** pdf_sha256 of the request's token-signed PDF the placeholder was appended to; null: a fresh rendering. */
  base_sha256: string | null;
  /** JSON: the rest of the PreparedPades (byte arrays in base64). */
  prepared: string;
  /** The PDF with the placeholder; emptied once used. */
  pdf: Uint8Array;
  expires_at: number;
  created_at: number;
  completed_at: number | null;
}

/** The request's current token-signed PDF: each token signature appends a revision. */
export interface QesDocumentsTable {
  signature_request_id: string;
  pdf: Uint8Array;
  pdf_sha256: string;
  signatures: number;
  /** 1 when the last revision is the /DSS update after the last signature (pades-lt). */
  dss: number;
  updated_at: number;
}

/** A workflow (spec 2.3, 4.2): its working settings (JSON) and its latest published version (0: never). */
export interface WorkflowsTable {
  id: string;
  account_id: string;
  name: string;
  status: 'draft' | 'published' | 'archived';
  settings: string;
  version: number;
  created_at: number;
  updated_at: number;
}

/** Each publication of a workflow: the settings as published (JSON). */
export interface WorkflowVersionsTable {
  workflow_id: string;
  version: number;
  settings: string;
  published_at: number;
}

/** A signature request created from a workflow: the link, the filters of GET /sessions and the per-request settings (JSON). */
export interface SessionsTable {
  signature_request_id: string;
  account_id: string;
  livemode: number;
  workflow_id: string;
  workflow_version: number;
  vendor_data: string | null;
  channel: string;
  settings: string;
  created_at: number;
}

/**
 * A server secret or key of the built-in PKI, by name (PostgreSQL installations; SQLite ones keep
 * files under DATA_DIR): link_key, document_key, console_key, ca, seal, tsa, ocsp, evidence.
 */
export interface ServerKeysTable {
  name: string;
  /** The secret (a server secret's bytes, or a PKCS#8 private key) sealed with TAWQI_MASTER_KEY (masterKey.ts). */
  encrypted_secret: Uint8Array;
  /** The key's certificate, DER, in the clear; null for secrets and the evidence key. */
  certificate: Uint8Array | null;
  created_at: number;
  updated_at: number;
}

/** Every certificate the built-in CA issued, and its revocation (PostgreSQL installations). */
export interface PkiCertificatesTable {
  /** Lowercase hex, no leading zero bytes. */
  serial: string;
  certificate: Uint8Array;
  issued_at: number;
  revoked_at: number | null;
  revocation_reason: string | null;
}

/** A signed-in console user's short-lived credential for the public API (migration 16); the token is kept as SHA-256 only. */
export interface ConsoleCredentialsTable {
  id: string;
  token_hash: string;
  account_id: string;
  user_id: string;
  /** The console session (its id, the SHA-256 of its cookie) the credential was issued in: it dies with it. */
  session_id: string;
  livemode: number;
  created_at: number;
  expires_at: number;
}

/** A console user: a member of an account (owner, admin, developer, viewer) or an operator (no account). */
export interface ConsoleUsersTable {
  id: string;
  /** Null for operator users only (the CHECK ties it to `operator`). */
  account_id: string | null;
  operator: number;
  /** Lower-cased, unique across accounts: one sign-in form for everyone. */
  email: string;
  name: string;
  role: 'owner' | 'admin' | 'developer' | 'viewer' | 'operator';
  status: 'invited' | 'active' | 'disabled';
  /** scrypt (services/consolePasswords.ts); null until the user sets one. */
  password_hash: string | null;
  /**
   * The TOTP secret sealed with the console key (services/consoleCrypto.ts); null when two-factor is
   * off. Two-factor is on once totp_enabled_at is set (a secret without it is an enrolment in progress).
   */
  totp_secret: Uint8Array | null;
  totp_enabled_at: number | null;
  /** The 30-second step of the last TOTP code accepted: each code is taken once (RFC 6238 §5.2). */
  totp_last_step: number | null;
  created_at: number;
  updated_at: number;
  last_sign_in_at: number | null;
}

/** A signed-in browser. The id is the SHA-256 of the cookie's token, never the token. */
export interface ConsoleSessionsTable {
  id: string;
  user_id: string;
  /** `password`: the second factor is still to come (the session can do nothing else); `full`: signed in. */
  stage: 'password' | 'full';
  created_at: number;
  last_seen_at: number;
  /** The absolute end, whatever the activity. */
  expires_at: number;
  ip: string;
  user_agent: string;
}

export interface ConsoleRecoveryCodesTable {
  user_id: string;
  /** SHA-256 of the normalised code, keyed (services/consoleCrypto.ts). */
  code_hash: string;
  used_at: number | null;
}

/** An emailed one-time link (invitation, password reset): the id is the SHA-256 of the link's token. */
export interface ConsoleTokensTable {
  id: string;
  kind: 'invitation' | 'password_reset';
  user_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** Who did what to the security of an account (sign-ins, users, keys, webhook secrets); append only. */
export interface AuditLogTable {
  id: string;
  /** Null for what concerns no account (an operator's sign-in). */
  account_id: string | null;
  user_id: string | null;
  /** The actor's email at the time (users can be removed; the line stays readable). */
  actor: string;
  action: string;
  target: string | null;
  ip: string | null;
  /** JSON text. */
  detail: string;
  created_at: number;
}

/** A round of company verification (migration 19): draft → pending → approved | rejected. */
export interface CompanyVerificationsTable {
  id: string;
  account_id: string;
  status: 'draft' | 'pending' | 'approved' | 'rejected';
  representative_name: string | null;
  /** The representative's identity check (identity_verifications, subject 'representative'). */
  representative_verification_id: string | null;
  /** JSON list of the company_documents ids submitted (frozen at submission). */
  document_ids: string;
  submitted_at: number | null;
  submitted_by: string | null;
  decided_at: number | null;
  /** The operator (console user id) who decided. */
  decided_by: string | null;
  decision_reason: string | null;
  created_at: number;
  updated_at: number;
}

/** A company document an owner uploaded: the bytes are in file storage under file_key. */
export interface CompanyDocumentsTable {
  id: string;
  account_id: string;
  file_key: string;
  file_name: string;
  /** Detected from the bytes (domain/companyDocuments.ts). */
  content_type: string;
  size: number;
  sha256: string;
  uploaded_by: string | null;
  created_at: number;
  /** Set when the owner removed it from the next submission; the row and file stay for the record. */
  removed_at: number | null;
}

export interface Database {
  company_verifications: CompanyVerificationsTable;
  company_documents: CompanyDocumentsTable;
  console_credentials: ConsoleCredentialsTable;
  console_users: ConsoleUsersTable;
  console_sessions: ConsoleSessionsTable;
  console_recovery_codes: ConsoleRecoveryCodesTable;
  console_tokens: ConsoleTokensTable;
  audit_log: AuditLogTable;
  server_keys: ServerKeysTable;
  pki_certificates: PkiCertificatesTable;
  workflows: WorkflowsTable;
  workflow_versions: WorkflowVersionsTable;
  sessions: SessionsTable;
  qes_prepared: QesPreparedTable;
  qes_documents: QesDocumentsTable;
  sealed_documents: SealedDocumentsTable;
  evidence_records: EvidenceRecordsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  page_sessions: PageSessionsTable;
  signing_sessions: SigningSessionsTable;
  identity_verifications: IdentityVerificationsTable;
  signature_requests: SignatureRequestsTable;
  signers: SignersTable;
  events: EventsTable;
  jobs: JobsTable;
  messages: MessagesTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  key_origins: KeyOriginsTable;
  idempotency: IdempotencyTable;
  counters: CountersTable;
  rate_windows: RateWindowsTable;
  notices: NoticesTable;
  ledger: LedgerTable;
  templates: TemplatesTable;
  request_log: RequestLogTable;
  files: FilesTable;
}

/** Files kept in the database (store/files/database.ts): the key layout of every file backend. */
export interface FilesTable {
  key: string;
  bytes: Buffer;
  sha256: string;
  size: number;
  updated_at: number;
}
