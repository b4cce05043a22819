import type { Generated } from 'kysely';

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

export interface LedgerTable {
  id: string;
  account_id: string;
  kind: string;
  sends_delta: number;
  wallet_delta_minor: number;
  signature_request_id: string | null;
  note: string | null;
  created_at: number;
}

export interface TemplatesTable {
  id: string;
  account_id: string | null;
  title: string;
  language: string;
  body: string;
  fields: string;
  created_at: number;
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
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  idempotency: IdempotencyTable;
  counters: CountersTable;
  notices: NoticesTable;
  ledger: LedgerTable;
  templates: TemplatesTable;
  request_log: RequestLogTable;
}
