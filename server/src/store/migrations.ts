/**
 * Schema migrations, applied in order at open; each runs once, recorded in schema_migrations.
 * Few indexes on purpose: every B-tree costs WAL pages on each commit.
 */
export const MIGRATIONS: { id: number; name: string; sql: string }[] = [
  {
    id: 1,
    name: 'platform',
    sql: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        owner_email TEXT,
        plan TEXT NOT NULL,
        plan_expires_at INTEGER,
        kyb_status TEXT NOT NULL,
        balance_sends INTEGER NOT NULL DEFAULT 0 CHECK (balance_sends >= 0),
        wallet_minor INTEGER NOT NULL DEFAULT 0 CHECK (wallet_minor >= 0),
        currency TEXT NOT NULL,
        accepted_domains TEXT NOT NULL DEFAULT '[]',
        team_emails TEXT NOT NULL DEFAULT '[]',
        team_phones TEXT NOT NULL DEFAULT '[]',
        version_pin TEXT,
        whatsapp_enabled INTEGER NOT NULL DEFAULT 0,
        branding TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        name TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('secret','publishable')),
        mode TEXT NOT NULL CHECK (mode IN ('live','test')),
        secret_hash TEXT NOT NULL UNIQUE,
        last4 TEXT NOT NULL,
        read_only INTEGER NOT NULL DEFAULT 0,
        allowed_ips TEXT NOT NULL DEFAULT '[]',
        allowed_origins TEXT NOT NULL DEFAULT '[]',
        daily_cap INTEGER,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER,
        replaced_by TEXT
      ) STRICT;
      CREATE INDEX api_keys_account ON api_keys(account_id);
      CREATE TABLE idempotency (
        account_id TEXT NOT NULL,
        mode TEXT NOT NULL,
        idem_key TEXT NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('in_progress','done')),
        response_status INTEGER,
        response_body TEXT,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, mode, idem_key)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE counters (
        scope TEXT NOT NULL,
        window_start INTEGER NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (scope, window_start)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE notices (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE ledger (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        sends_delta INTEGER NOT NULL,
        wallet_delta_minor INTEGER NOT NULL,
        signature_request_id TEXT,
        note TEXT,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE templates (
        id TEXT PRIMARY KEY,
        account_id TEXT,
        title TEXT NOT NULL,
        language TEXT NOT NULL,
        body TEXT NOT NULL,
        fields TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE request_log (
        id INTEGER PRIMARY KEY,
        account_id TEXT,
        key_id TEXT,
        request_id TEXT NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        status INTEGER NOT NULL,
        code TEXT,
        ip TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
];
