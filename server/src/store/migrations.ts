/**
 * Schema migrations, applied in order at open by one migrator on both engines (migrate.ts); each
 * runs once. `sql` is SQLite's; on PostgreSQL the migrations up to POSTGRES_BASELINE.through are
 * replaced by that baseline, and every later migration carries its `postgres` text too.
 * Few indexes on purpose: every B-tree costs WAL pages on each commit.
 */
export interface SchemaMigration {
  id: number;
  name: string;
  /** SQLite. */
  sql: string;
  /** PostgreSQL: required after POSTGRES_BASELINE.through. */
  postgres?: string;
}

/** Migration 18's statements that read the same on both engines: the backfill of the kept refusals and the indexes. */
const REQUEST_LOG_18_COMMON = `
      UPDATE request_log SET
        livemode = COALESCE((SELECT CASE WHEN k.mode = 'live' THEN 1 ELSE 0 END FROM api_keys k WHERE k.id = request_log.key_id), 0),
        key_type = (SELECT CASE WHEN k.read_only = 1 THEN 'read_only' ELSE k.kind END FROM api_keys k WHERE k.id = request_log.key_id),
        key_hint = (
          SELECT (CASE WHEN k.kind = 'secret' THEN 'sk_' ELSE 'pk_' END) || (CASE WHEN k.mode = 'test' THEN 'test_' ELSE '' END) || '…' || k.last4
          FROM api_keys k WHERE k.id = request_log.key_id
        );
      CREATE INDEX request_log_account ON request_log(account_id, livemode, id);
      CREATE INDEX request_log_key_entries ON request_log(account_id, key_id, id);
      CREATE INDEX request_log_request ON request_log(account_id, request_id);
      CREATE INDEX request_log_created ON request_log(created_at);
`;

/** Migration 21, the same on both engines. */
const MIGRATION_21 = `
      CREATE INDEX events_request ON events(account_id, livemode, signature_request_id, id) WHERE signature_request_id IS NOT NULL;
      CREATE INDEX messages_request ON messages(signature_request_id, id) WHERE signature_request_id IS NOT NULL;
`;

/** Migration 22 (SQLite; PostgreSQL's types follow): when a B-LTA archive's last timestamp can be checked until. */
const MIGRATION_22 = (integer: string): string => `
      ALTER TABLE sealed_documents ADD COLUMN timestamp_expires_at ${integer};
      ALTER TABLE sealed_documents ADD COLUMN archive_retry_at ${integer};
      ALTER TABLE sealed_documents ADD COLUMN earlier_pdf_sha256 TEXT NOT NULL DEFAULT '[]';
      CREATE INDEX sealed_documents_timestamp_expiry ON sealed_documents(timestamp_expires_at) WHERE timestamp_expires_at IS NOT NULL;
`;

export const MIGRATIONS: SchemaMigration[] = [
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
  {
    id: 2,
    name: 'signature requests, signers, events, jobs, messages',
    sql: `
      CREATE TABLE signature_requests (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        livemode INTEGER NOT NULL,
        status TEXT NOT NULL,
        title TEXT NOT NULL,
        legal_level TEXT NOT NULL,
        format TEXT NOT NULL,
        template_id TEXT NOT NULL,
        language TEXT NOT NULL,
        ordered INTEGER NOT NULL,
        require_identity INTEGER NOT NULL,
        reference TEXT UNIQUE,
        reminders TEXT NOT NULL,
        expires_at INTEGER,
        completed_at INTEGER,
        metadata TEXT NOT NULL,
        return_url TEXT,
        success_url TEXT,
        cancel_url TEXT,
        cost_sends INTEGER NOT NULL DEFAULT 0,
        cost_wallet_minor INTEGER NOT NULL DEFAULT 0,
        cost_source TEXT,
        charged INTEGER NOT NULL DEFAULT 0,
        reminders_sent INTEGER NOT NULL DEFAULT 0,
        auto_reminders_sent INTEGER NOT NULL DEFAULT 0,
        workflow TEXT,
        created_at INTEGER NOT NULL,
        sent_at INTEGER,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX signature_requests_list ON signature_requests(account_id, livemode, id);
      CREATE TABLE signers (
        id TEXT PRIMARY KEY,
        signature_request_id TEXT NOT NULL REFERENCES signature_requests(id),
        position INTEGER NOT NULL,
        name TEXT NOT NULL,
        email TEXT,
        phone TEXT,
        type TEXT NOT NULL,
        method TEXT NOT NULL,
        require_identity INTEGER NOT NULL,
        status TEXT NOT NULL,
        identity TEXT NOT NULL,
        fields TEXT NOT NULL,
        access_code_hash TEXT,
        link_version INTEGER NOT NULL DEFAULT 1,
        sent_at INTEGER,
        viewed_at INTEGER,
        signed_at INTEGER,
        declined_at INTEGER,
        decline_reason TEXT,
        last_reminder_at INTEGER,
        ip TEXT,
        user_agent TEXT
      ) STRICT;
      CREATE INDEX signers_request ON signers(signature_request_id, position);
      CREATE TABLE events (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        livemode INTEGER NOT NULL,
        type TEXT NOT NULL,
        signature_request_id TEXT,
        data TEXT NOT NULL,
        request_info TEXT,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX events_list ON events(account_id, livemode, id);
      CREATE TABLE jobs (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        run_at INTEGER NOT NULL,
        payload TEXT NOT NULL,
        dedupe_key TEXT UNIQUE,
        attempts INTEGER NOT NULL DEFAULT 0,
        state TEXT NOT NULL DEFAULT 'pending',
        last_error TEXT,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX jobs_due ON jobs(state, run_at);
      CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        account_id TEXT NOT NULL,
        livemode INTEGER NOT NULL,
        channel TEXT NOT NULL,
        recipient TEXT NOT NULL,
        kind TEXT NOT NULL,
        subject TEXT NOT NULL,
        body TEXT NOT NULL,
        signature_request_id TEXT,
        signer_id TEXT,
        state TEXT NOT NULL DEFAULT 'queued',
        created_at INTEGER NOT NULL,
        sent_at INTEGER
      ) STRICT;
    `,
  },
  {
    id: 3,
    name: 'signing page: page sessions, one-time codes, access-code attempts, identity, branding, html mail',
    sql: `
      CREATE TABLE page_sessions (
        token_hash TEXT PRIMARY KEY,
        signer_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('link','embedded','redirect')),
        signing_session_id TEXT,
        access_granted INTEGER NOT NULL DEFAULT 0,
        expires_at INTEGER NOT NULL,
        revoked_at INTEGER,
        created_at INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX page_sessions_signer ON page_sessions(signer_id);
      CREATE TABLE signing_sessions (
        id TEXT PRIMARY KEY,
        signer_id TEXT NOT NULL,
        mode TEXT NOT NULL,
        return_url TEXT,
        success_url TEXT,
        cancel_url TEXT,
        embed_origin TEXT,
        expires_at INTEGER NOT NULL,
        invalidated_at INTEGER,
        created_at INTEGER NOT NULL
      ) STRICT;
      ALTER TABLE signers ADD COLUMN otp_hash TEXT;
      ALTER TABLE signers ADD COLUMN otp_expires_at INTEGER;
      ALTER TABLE signers ADD COLUMN otp_attempts INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE signers ADD COLUMN otp_sent_at INTEGER;
      ALTER TABLE signers ADD COLUMN access_attempts INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE signers ADD COLUMN signature_image TEXT;
      CREATE TABLE identity_verifications (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        livemode INTEGER NOT NULL,
        signer_id TEXT NOT NULL,
        provider TEXT NOT NULL,
        level TEXT NOT NULL,
        status TEXT NOT NULL,
        provider_reference TEXT,
        document_name TEXT,
        document_type TEXT,
        document_last4 TEXT,
        name_match TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        completed_at INTEGER
      ) STRICT;
      CREATE INDEX identity_verifications_signer ON identity_verifications(signer_id);
      ALTER TABLE accounts ADD COLUMN allowed_origins TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE accounts ADD COLUMN identity_match_mode TEXT NOT NULL DEFAULT 'hold';
      ALTER TABLE messages ADD COLUMN html TEXT;
      ALTER TABLE messages ADD COLUMN language TEXT NOT NULL DEFAULT 'ar';
    `,
  },
  {
    id: 4,
    name: 'webhooks: endpoints and deliveries (the outbox of events)',
    sql: `
      CREATE TABLE webhook_endpoints (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        livemode INTEGER NOT NULL,
        url TEXT NOT NULL,
        description TEXT,
        enabled_events TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('enabled','disabled')),
        secret TEXT,
        previous_secret TEXT,
        previous_secret_expires_at INTEGER,
        created_via TEXT NOT NULL CHECK (created_via IN ('api','cli')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        deleted_at INTEGER
      ) STRICT;
      CREATE INDEX webhook_endpoints_account ON webhook_endpoints(account_id, livemode, id);
      CREATE TABLE webhook_deliveries (
        id TEXT PRIMARY KEY,
        event_id TEXT NOT NULL,
        endpoint_id TEXT NOT NULL,
        trigger TEXT NOT NULL CHECK (trigger IN ('event','redeliver')),
        status TEXT NOT NULL CHECK (status IN ('pending','succeeded','failed','canceled')),
        attempt_count INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER,
        leased_until INTEGER,
        attempts TEXT NOT NULL DEFAULT '[]',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries(endpoint_id, next_attempt_at, id) WHERE status = 'pending';
      CREATE INDEX webhook_deliveries_event ON webhook_deliveries(event_id);
    `,
  },
  {
    id: 5,
    name: 'sealing: stored documents, final PDFs, evidence records, verifications',
    sql: `
      CREATE TABLE sealed_documents (
        signature_request_id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        livemode INTEGER NOT NULL,
        reference TEXT NOT NULL UNIQUE,
        document_text TEXT NOT NULL,
        document_hash TEXT NOT NULL,
        pdf_status TEXT NOT NULL CHECK (pdf_status IN ('pending','ready','unavailable')),
        pdf_file TEXT,
        pdf_sha256 TEXT,
        error TEXT,
        created_at INTEGER NOT NULL,
        sealed_at INTEGER
      ) STRICT;
      CREATE TABLE evidence_records (
        signature_request_id TEXT PRIMARY KEY,
        record_raw TEXT NOT NULL,
        signature TEXT NOT NULL,
        public_key TEXT NOT NULL,
        timestamp_token TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    id: 6,
    name: 'qualified signatures with a token: prepared signatures, the token-signed PDF of a request',
    sql: `
      CREATE TABLE qes_prepared (
        signer_id TEXT PRIMARY KEY,
        signature_request_id TEXT NOT NULL,
        jti TEXT NOT NULL,
        cert_sha256 TEXT NOT NULL,
        digest TEXT NOT NULL,
        base_sha256 TEXT,
        prepared TEXT NOT NULL,
        pdf BLOB NOT NULL,
        expires_at INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        completed_at INTEGER
      ) STRICT;
      CREATE TABLE qes_documents (
        signature_request_id TEXT PRIMARY KEY,
        pdf BLOB NOT NULL,
        pdf_sha256 TEXT NOT NULL,
        signatures INTEGER NOT NULL,
        dss INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    id: 7,
    name: 'workflows: versions, sessions (requests from a workflow), WhatsApp template messages',
    sql: `
      CREATE TABLE workflows (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        name TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('draft','published','archived')),
        settings TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX workflows_account ON workflows(account_id, id);
      CREATE TABLE workflow_versions (
        workflow_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        settings TEXT NOT NULL,
        published_at INTEGER NOT NULL,
        PRIMARY KEY (workflow_id, version)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE sessions (
        signature_request_id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        livemode INTEGER NOT NULL,
        workflow_id TEXT NOT NULL,
        workflow_version INTEGER NOT NULL,
        vendor_data TEXT,
        channel TEXT NOT NULL,
        settings TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX sessions_list ON sessions(account_id, livemode, signature_request_id);
      ALTER TABLE messages ADD COLUMN template TEXT;
    `,
  },
  {
    id: 8,
    name: 'idempotency as a rowid table: the key index stays small and cached, rows are appended',
    // WITHOUT ROWID kept each ~2.5 KB stored response inside the key B-tree (overflow pages, one
    // random leaf per key): a lookup of a fresh key cost ~25 µs and an insert ~26 µs on the create
    // benchmark. A rowid table with the primary key as a separate index: ~2 µs and ~4 µs (bench/README.md).
    sql: `
      CREATE TABLE idempotency_rowid (
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
      ) STRICT;
      INSERT INTO idempotency_rowid (account_id, mode, idem_key, method, path, state, response_status, response_body, created_at)
        SELECT account_id, mode, idem_key, method, path, state, response_status, response_body, created_at FROM idempotency;
      DROP TABLE idempotency;
      ALTER TABLE idempotency_rowid RENAME TO idempotency;
    `,
  },
  {
    id: 9,
    name: 'messages as their own delivery queue; email HTML rendered at delivery from stored blocks',
    // A message was a ~2.4 KB row (text, and an HTML page with its boilerplate) plus a
    // deliver_message job row, and its delivery read both and rewrote both. Now the row is the queue
    // entry (deliver_at, attempts, last_error; a partial index holds only queued messages) and keeps
    // the message's blocks (~0.5 KB JSON) from which the HTML page is built when it leaves.
    // Pending delivery jobs move onto their messages; older rows keep their stored HTML.
    sql: `
      ALTER TABLE messages ADD COLUMN blocks TEXT;
      ALTER TABLE messages ADD COLUMN deliver_at INTEGER;
      ALTER TABLE messages ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE messages ADD COLUMN last_error TEXT;
      UPDATE messages SET
        deliver_at = (SELECT min(j.run_at) FROM jobs j WHERE j.kind = 'deliver_message' AND j.state = 'pending' AND json_extract(j.payload, '$.message_id') = messages.id),
        attempts = coalesce((SELECT max(j.attempts) FROM jobs j WHERE j.kind = 'deliver_message' AND j.state = 'pending' AND json_extract(j.payload, '$.message_id') = messages.id), 0)
        WHERE state = 'queued';
      DELETE FROM jobs WHERE kind = 'deliver_message' AND state = 'pending';
      CREATE INDEX messages_due ON messages(deliver_at) WHERE state = 'queued';
    `,
  },
  {
    id: 10,
    name: 'files: the database file storage (TAWQI_STORAGE=postgres, the default on PostgreSQL)',
    sql: `
      CREATE TABLE files (
        key TEXT PRIMARY KEY,
        bytes BLOB NOT NULL,
        sha256 TEXT NOT NULL,
        size INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
    postgres: `
      CREATE TABLE files (
        key TEXT COLLATE "C" PRIMARY KEY,
        bytes BYTEA NOT NULL,
        sha256 TEXT NOT NULL,
        size BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
    `,
  },
  {
    id: 11,
    name: 'key_origins: the allowed origins of publishable keys, by origin, for CORS preflights',
    // A preflight carries no key, only its Origin: "does any active publishable key allow it?" is
    // one primary-key search here (plus the key by its id), instead of a scan of every key's JSON
    // list. Kept in step with api_keys.allowed_origins by insertKey and updateKey (store/apiKeys.ts).
    sql: `
      CREATE TABLE key_origins (
        origin TEXT NOT NULL,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        PRIMARY KEY (origin, key_id)
      ) STRICT, WITHOUT ROWID;
      INSERT INTO key_origins (origin, key_id)
        SELECT DISTINCT j.value, k.id FROM api_keys k, json_each(k.allowed_origins) j WHERE k.kind = 'publishable';
    `,
    postgres: `
      CREATE TABLE key_origins (
        origin TEXT COLLATE "C" NOT NULL,
        key_id TEXT COLLATE "C" NOT NULL REFERENCES api_keys(id),
        PRIMARY KEY (origin, key_id)
      );
      INSERT INTO key_origins (origin, key_id)
        SELECT DISTINCT j.value, k.id FROM api_keys k, json_array_elements_text(k.allowed_origins::json) AS j(value) WHERE k.kind = 'publishable';
    `,
  },
  {
    id: 12,
    name: 'leases on jobs, messages and webhook deliveries: who holds an entry (a claim token) and until when',
    // Several processes on one PostgreSQL database claim work with FOR UPDATE SKIP LOCKED and a lease
    // (store/jobs.ts, messages.ts, webhooks.ts): the claim moves the entry's due time to the lease's
    // end and names its claim; an outcome is recorded only under that claim. Nullable columns
    // without a default: adding them rewrites no row, and no index is added.
    sql: `
      ALTER TABLE jobs ADD COLUMN lease_owner TEXT;
      ALTER TABLE jobs ADD COLUMN leased_until INTEGER;
      ALTER TABLE messages ADD COLUMN lease_owner TEXT;
      ALTER TABLE messages ADD COLUMN leased_until INTEGER;
      ALTER TABLE webhook_deliveries ADD COLUMN lease_owner TEXT;
    `,
    postgres: `
      ALTER TABLE jobs ADD COLUMN lease_owner TEXT COLLATE "C";
      ALTER TABLE jobs ADD COLUMN leased_until BIGINT;
      ALTER TABLE messages ADD COLUMN lease_owner TEXT COLLATE "C";
      ALTER TABLE messages ADD COLUMN leased_until BIGINT;
      ALTER TABLE webhook_deliveries ADD COLUMN lease_owner TEXT COLLATE "C";
    `,
  },
  {
    id: 13,
    name: 'limits and idempotency claims shared by the processes of one PostgreSQL database',
    // PostgreSQL (N server processes): the per-account and per-address rate windows are rows of
    // rate_windows, UNLOGGED (no WAL per request; a crash empties it, which only reopens the current
    // windows), and an idempotency claim is an 'in_progress' row with a token and a lease, taken
    // over once the lease has passed (its process died). SQLite (one process) keeps both in the
    // server's memory: the table stays empty and the two columns NULL, there for one schema.
    sql: `
      CREATE TABLE rate_windows (
        scope TEXT NOT NULL,
        window_start INTEGER NOT NULL,
        window_end INTEGER NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (scope, window_start)
      ) STRICT;
      ALTER TABLE idempotency ADD COLUMN claim_token TEXT;
      ALTER TABLE idempotency ADD COLUMN lease_until INTEGER;
    `,
    postgres: `
      CREATE UNLOGGED TABLE rate_windows (
        scope TEXT COLLATE "C" NOT NULL,
        window_start BIGINT NOT NULL,
        window_end BIGINT NOT NULL,
        count BIGINT NOT NULL,
        PRIMARY KEY (scope, window_start)
      );
      ALTER TABLE idempotency ADD COLUMN claim_token TEXT COLLATE "C", ADD COLUMN lease_until BIGINT;
    `,
  },
  {
    id: 14,
    name: "server secrets and PKI keys in the database (encrypted with TAWQI_MASTER_KEY); the CA's issued and revoked certificates",
    // Used by PostgreSQL installations, whose server processes share them; SQLite ones keep the
    // files under DATA_DIR (secrets.json, pki/) and leave these tables empty.
    sql: `
      CREATE TABLE server_keys (
        name TEXT PRIMARY KEY,
        encrypted_secret BLOB NOT NULL,
        certificate BLOB,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE pki_certificates (
        serial TEXT PRIMARY KEY,
        certificate BLOB NOT NULL,
        issued_at INTEGER NOT NULL,
        revoked_at INTEGER,
        revocation_reason TEXT
      ) STRICT, WITHOUT ROWID;
    `,
    postgres: `
      CREATE TABLE server_keys (
        name TEXT COLLATE "C" PRIMARY KEY,
        encrypted_secret BYTEA NOT NULL,
        certificate BYTEA,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE TABLE pki_certificates (
        serial TEXT COLLATE "C" PRIMARY KEY,
        certificate BYTEA NOT NULL,
        issued_at BIGINT NOT NULL,
        revoked_at BIGINT,
        revocation_reason TEXT COLLATE "C"
      );
    `,
  },
  {
    id: 15,
    name: 'the console: users of an account (and operators), their sessions, recovery codes, emailed tokens, the audit log',
    // Secrets are never stored as given: a session id and an emailed token are the SHA-256 of the
    // cookie / link token, a password and a recovery code are scrypt hashes, the TOTP secret is
    // sealed with the console key (services/consoleCrypto.ts). Indexes only where a lookup needs one:
    // sessions and recovery codes by user (sign out everywhere, a second factor), the audit log by
    // account in id order (its cursor pages).
    sql: `
      CREATE TABLE console_users (
        id TEXT PRIMARY KEY,
        account_id TEXT REFERENCES accounts(id),
        operator INTEGER NOT NULL DEFAULT 0,
        email TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL DEFAULT '',
        role TEXT NOT NULL CHECK (role IN ('owner','admin','developer','viewer','operator')),
        status TEXT NOT NULL CHECK (status IN ('invited','active','disabled')),
        password_hash TEXT,
        totp_secret BLOB,
        totp_enabled_at INTEGER,
        totp_last_step INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        last_sign_in_at INTEGER,
        CHECK ((operator = 1) = (account_id IS NULL))
      ) STRICT;
      CREATE INDEX console_users_account ON console_users(account_id);
      CREATE TABLE console_sessions (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES console_users(id),
        stage TEXT NOT NULL CHECK (stage IN ('password','full')),
        created_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        ip TEXT NOT NULL,
        user_agent TEXT NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX console_sessions_user ON console_sessions(user_id);
      CREATE TABLE console_recovery_codes (
        user_id TEXT NOT NULL REFERENCES console_users(id),
        code_hash TEXT NOT NULL,
        used_at INTEGER,
        PRIMARY KEY (user_id, code_hash)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE console_tokens (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('invitation','password_reset')),
        user_id TEXT NOT NULL REFERENCES console_users(id),
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX console_tokens_user ON console_tokens(user_id);
      CREATE TABLE audit_log (
        id TEXT PRIMARY KEY,
        account_id TEXT,
        user_id TEXT,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        target TEXT,
        ip TEXT,
        detail TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX audit_log_account ON audit_log(account_id, id);
    `,
    postgres: `
      CREATE TABLE console_users (
        id TEXT COLLATE "C" PRIMARY KEY,
        account_id TEXT COLLATE "C" REFERENCES accounts(id),
        operator INTEGER NOT NULL DEFAULT 0,
        email TEXT COLLATE "C" NOT NULL UNIQUE,
        name TEXT COLLATE "C" NOT NULL DEFAULT '',
        role TEXT COLLATE "C" NOT NULL CHECK (role IN ('owner','admin','developer','viewer','operator')),
        status TEXT COLLATE "C" NOT NULL CHECK (status IN ('invited','active','disabled')),
        password_hash TEXT COLLATE "C",
        totp_secret BYTEA,
        totp_enabled_at BIGINT,
        totp_last_step BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        last_sign_in_at BIGINT,
        CHECK ((operator = 1) = (account_id IS NULL))
      );
      CREATE INDEX console_users_account ON console_users(account_id);
      CREATE TABLE console_sessions (
        id TEXT COLLATE "C" PRIMARY KEY,
        user_id TEXT COLLATE "C" NOT NULL REFERENCES console_users(id),
        stage TEXT COLLATE "C" NOT NULL CHECK (stage IN ('password','full')),
        created_at BIGINT NOT NULL,
        last_seen_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        ip TEXT COLLATE "C" NOT NULL,
        user_agent TEXT COLLATE "C" NOT NULL
      );
      CREATE INDEX console_sessions_user ON console_sessions(user_id);
      CREATE TABLE console_recovery_codes (
        user_id TEXT COLLATE "C" NOT NULL REFERENCES console_users(id),
        code_hash TEXT COLLATE "C" NOT NULL,
        used_at BIGINT,
        PRIMARY KEY (user_id, code_hash)
      );
      CREATE TABLE console_tokens (
        id TEXT COLLATE "C" PRIMARY KEY,
        kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('invitation','password_reset')),
        user_id TEXT COLLATE "C" NOT NULL REFERENCES console_users(id),
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        used_at BIGINT
      );
      CREATE INDEX console_tokens_user ON console_tokens(user_id);
      CREATE TABLE audit_log (
        id TEXT COLLATE "C" PRIMARY KEY,
        account_id TEXT COLLATE "C",
        user_id TEXT COLLATE "C",
        actor TEXT COLLATE "C" NOT NULL,
        action TEXT COLLATE "C" NOT NULL,
        target TEXT COLLATE "C",
        ip TEXT COLLATE "C",
        detail TEXT COLLATE "C" NOT NULL DEFAULT '{}',
        created_at BIGINT NOT NULL
      );
      CREATE INDEX audit_log_account ON audit_log(account_id, id);
    `,
  },
  {
    id: 16,
    name: "console: internal credentials of signed-in users; the identity review queue and an endpoint's delivery log by index",
    // Id 16: 15 is the console's users, sessions and audit log. A credential is kept as the SHA-256
    // of its token; it dies with its console session or its user (checked at each request). The
    // review index holds only the open items (a literal predicate, so SQLite can use it): checks in
    // review and name mismatches held for a decision (the JSON text as rowCodec writes it).
    sql: `
      CREATE TABLE console_credentials (
        id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        account_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        livemode INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX console_credentials_user ON console_credentials(user_id, expires_at);
      CREATE INDEX identity_verifications_review ON identity_verifications(account_id, livemode, id)
        WHERE status = 'in_review' OR (status = 'approved' AND name_match LIKE '%"mode":"hold"%"decision":null%');
      CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, id);
    `,
    postgres: `
      CREATE TABLE console_credentials (
        id TEXT COLLATE "C" PRIMARY KEY,
        token_hash TEXT COLLATE "C" NOT NULL UNIQUE,
        account_id TEXT COLLATE "C" NOT NULL,
        user_id TEXT COLLATE "C" NOT NULL,
        session_id TEXT COLLATE "C" NOT NULL,
        livemode INTEGER NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX console_credentials_user ON console_credentials(user_id, expires_at);
      CREATE INDEX identity_verifications_review ON identity_verifications(account_id, livemode, id)
        WHERE status = 'in_review' OR (status = 'approved' AND name_match LIKE '%"mode":"hold"%"decision":null%');
      CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, id);
    `,
  },
  {
    id: 17,
    name: "webhook attempts: the start of the receiver's answer (response_excerpt) on every attempt",
    // Attempts are JSON text on their delivery (webhooks.ts), so there is no column to add: every
    // attempt recorded before this one gains "response_excerpt":null, just before next_retry_at
    // (the key that stays last, as recordAttempts writes it). Inside JSON strings a quote is always
    // escaped, so the key text below matches keys only. Same text on both engines.
    sql: `
      UPDATE webhook_deliveries
        SET attempts = replace(attempts, ',"next_retry_at":', ',"response_excerpt":null,"next_retry_at":')
        WHERE attempt_count > 0;
    `,
    postgres: `
      UPDATE webhook_deliveries
        SET attempts = replace(attempts, ',"next_retry_at":', ',"response_excerpt":null,"next_retry_at":')
        WHERE attempt_count > 0;
    `,
  },
  {
    id: 18,
    name: 'the request log: every public API request of an account, not only refusals',
    // Id 18: 17 is another part of the console. The entries already kept (ip_not_allowed refusals)
    // take their mode and key type from their key. Indexes: the console's list (an account's mode,
    // newest first, by id), a key's entries, one request id, and the retention's sweep by time.
    sql: `
      ALTER TABLE request_log ADD COLUMN livemode INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE request_log ADD COLUMN key_type TEXT;
      ALTER TABLE request_log ADD COLUMN key_hint TEXT;
      ALTER TABLE request_log ADD COLUMN user_id TEXT;
      ALTER TABLE request_log ADD COLUMN user_email TEXT;
      ALTER TABLE request_log ADD COLUMN idempotency_key TEXT;
      ALTER TABLE request_log ADD COLUMN duration_ms REAL;
${REQUEST_LOG_18_COMMON}    `,
    postgres: `
      ALTER TABLE request_log ADD COLUMN livemode INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE request_log ADD COLUMN key_type TEXT COLLATE "C";
      ALTER TABLE request_log ADD COLUMN key_hint TEXT COLLATE "C";
      ALTER TABLE request_log ADD COLUMN user_id TEXT COLLATE "C";
      ALTER TABLE request_log ADD COLUMN user_email TEXT COLLATE "C";
      ALTER TABLE request_log ADD COLUMN idempotency_key TEXT COLLATE "C";
      ALTER TABLE request_log ADD COLUMN duration_ms DOUBLE PRECISION;
${REQUEST_LOG_18_COMMON}    `,
  },
  {
    id: 19,
    name: 'company verification: submissions (the representative check, the documents, the review) and company documents',
    // Id 19: 17, 18 and 20 are other console tables. A submission (kyb_…) is a round of review: a
    // draft while the owner works on it, pending once submitted, then approved or rejected with the
    // reviewer's reason; a new round follows a rejection. document_ids is the JSON list of the
    // documents the round was submitted with (frozen at submission; a removed document keeps its
    // row and file, removed_at set). The representative's check is an identity_verifications row
    // with subject 'representative' whose signer_id holds the submission id (the same provider,
    // callback and simulation as a signer's check).
    sql: `
      CREATE TABLE company_verifications (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        status TEXT NOT NULL CHECK (status IN ('draft','pending','approved','rejected')),
        representative_name TEXT,
        representative_verification_id TEXT,
        document_ids TEXT NOT NULL DEFAULT '[]',
        submitted_at INTEGER,
        submitted_by TEXT,
        decided_at INTEGER,
        decided_by TEXT,
        decision_reason TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX company_verifications_account ON company_verifications(account_id, id);
      CREATE INDEX company_verifications_queue ON company_verifications(status, id);
      CREATE TABLE company_documents (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        file_key TEXT NOT NULL,
        file_name TEXT NOT NULL,
        content_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        uploaded_by TEXT,
        created_at INTEGER NOT NULL,
        removed_at INTEGER
      ) STRICT;
      CREATE INDEX company_documents_account ON company_documents(account_id, id);
      ALTER TABLE identity_verifications ADD COLUMN subject TEXT NOT NULL DEFAULT 'signer';
    `,
    postgres: `
      CREATE TABLE company_verifications (
        id TEXT COLLATE "C" PRIMARY KEY,
        account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
        status TEXT COLLATE "C" NOT NULL CHECK (status IN ('draft','pending','approved','rejected')),
        representative_name TEXT COLLATE "C",
        representative_verification_id TEXT COLLATE "C",
        document_ids TEXT COLLATE "C" NOT NULL DEFAULT '[]',
        submitted_at BIGINT,
        submitted_by TEXT COLLATE "C",
        decided_at BIGINT,
        decided_by TEXT COLLATE "C",
        decision_reason TEXT COLLATE "C",
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX company_verifications_account ON company_verifications(account_id, id);
      CREATE INDEX company_verifications_queue ON company_verifications(status, id);
      CREATE TABLE company_documents (
        id TEXT COLLATE "C" PRIMARY KEY,
        account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
        file_key TEXT COLLATE "C" NOT NULL,
        file_name TEXT COLLATE "C" NOT NULL,
        content_type TEXT COLLATE "C" NOT NULL,
        size BIGINT NOT NULL,
        sha256 TEXT COLLATE "C" NOT NULL,
        uploaded_by TEXT COLLATE "C",
        created_at BIGINT NOT NULL,
        removed_at BIGINT
      );
      CREATE INDEX company_documents_account ON company_documents(account_id, id);
      ALTER TABLE identity_verifications ADD COLUMN subject TEXT COLLATE "C" NOT NULL DEFAULT 'signer';
    `,
  },
  {
    id: 20,
    name: 'templates: archived (no longer listed or offered; kept for the requests made from them)',
    // A request names its template and fills the template's text when it is shown and sealed
    // (services/completion.ts), so a template with requests is never changed in place: an edit of one is saved as a new template and the
    // old one archived (services/templates.ts).
    sql: `ALTER TABLE templates ADD COLUMN archived_at INTEGER;`,
    postgres: `ALTER TABLE templates ADD COLUMN archived_at BIGINT;`,
  },
  {
    id: 21,
    name: "a request's events and messages by index, without reading the account's history or every message",
    // The seal's audit trail (services/sealing.ts) and GET /events?signature_request=… asked for one
    // request's events through events_list (account, mode, id), which reads every event of the
    // account: the cost of each seal grew with the account's history. The account and mode lead, so
    // the planner prefers this index over events_list without statistics (three equalities to two).
    // Partial: account-level events (no request) are never looked up this way. Ids are
    // time-ordered, so each commit appends within the account's range.
    // A new session (POST /sessions) delivers its request's queued invitations at once and looked
    // them up by a scan of every message of every account: messages_request, partial likewise.
    sql: MIGRATION_21,
    postgres: MIGRATION_21,
  },
  {
    id: 22,
    name: 'archive_timestamps',
    // PAdES B-LTA (services/archiveRenewal.ts): a sealed pades-lt PDF's last document timestamp can
    // be checked until its TSA certificate ends (timestamp_expires_at); the renewal job adds a new
    // one before then. archive_retry_at: a renewal that failed or gained nothing is tried again
    // from then, not at every look. earlier_pdf_sha256: the hashes the file had before each renewal
    // (a JSON array), so the verification page recognises an earlier download. Partial index: only
    // B-LTA archives have an expiry.
    sql: MIGRATION_22('INTEGER'),
    postgres: MIGRATION_22('BIGINT'),
  },
];

/**
 * PostgreSQL (DATABASE_URL) starts from one baseline: the schema SQLite has after migration
 * `through`, written for PostgreSQL. Migrations after it are written for both engines
 * (`MIGRATIONS` entries with a `postgres` text as well). Types: BIGINT for Unix seconds, amounts
 * and counts; INTEGER 0/1 for booleans and TEXT for JSON (the row codecs are shared); BYTEA for
 * blobs; an identity column where SQLite has an INTEGER PRIMARY KEY (a rowid). Every TEXT column
 * compares and sorts byte by byte (COLLATE "C"), as SQLite's BINARY collation does, whatever the
 * database's default collation: ids page and sort the same on both engines.
 */
export const POSTGRES_BASELINE = {
  through: 9,
  sql: `
    CREATE TABLE accounts (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      owner_email TEXT,
      plan TEXT NOT NULL,
      plan_expires_at BIGINT,
      kyb_status TEXT NOT NULL,
      balance_sends BIGINT NOT NULL DEFAULT 0 CHECK (balance_sends >= 0),
      wallet_minor BIGINT NOT NULL DEFAULT 0 CHECK (wallet_minor >= 0),
      currency TEXT NOT NULL,
      accepted_domains TEXT NOT NULL DEFAULT '[]',
      team_emails TEXT NOT NULL DEFAULT '[]',
      team_phones TEXT NOT NULL DEFAULT '[]',
      version_pin TEXT,
      whatsapp_enabled INTEGER NOT NULL DEFAULT 0,
      branding TEXT NOT NULL DEFAULT '{}',
      created_at BIGINT NOT NULL,
      allowed_origins TEXT NOT NULL DEFAULT '[]',
      identity_match_mode TEXT NOT NULL DEFAULT 'hold'
    );
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
      daily_cap BIGINT,
      created_at BIGINT NOT NULL,
      expires_at BIGINT,
      revoked_at BIGINT,
      replaced_by TEXT
    );
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
      created_at BIGINT NOT NULL,
      PRIMARY KEY (account_id, mode, idem_key)
    );
    CREATE TABLE counters (
      scope TEXT NOT NULL,
      window_start BIGINT NOT NULL,
      count BIGINT NOT NULL,
      PRIMARY KEY (scope, window_start)
    );
    CREATE TABLE notices (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at BIGINT NOT NULL
    );
    CREATE TABLE ledger (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      sends_delta BIGINT NOT NULL,
      wallet_delta_minor BIGINT NOT NULL,
      signature_request_id TEXT,
      note TEXT,
      created_at BIGINT NOT NULL
    );
    CREATE TABLE templates (
      id TEXT PRIMARY KEY,
      account_id TEXT,
      title TEXT NOT NULL,
      language TEXT NOT NULL,
      body TEXT NOT NULL,
      fields TEXT NOT NULL,
      created_at BIGINT NOT NULL
    );
    CREATE TABLE request_log (
      id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
      account_id TEXT,
      key_id TEXT,
      request_id TEXT NOT NULL,
      method TEXT NOT NULL,
      path TEXT NOT NULL,
      status INTEGER NOT NULL,
      code TEXT,
      ip TEXT NOT NULL,
      created_at BIGINT NOT NULL
    );
    CREATE TABLE signature_requests (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      livemode INTEGER NOT NULL,
      status TEXT NOT NULL,
      title TEXT NOT NULL,
      legal_level TEXT NOT NULL,
      format TEXT NOT NULL,
      template_id TEXT NOT NULL,
      language TEXT NOT NULL,
      ordered INTEGER NOT NULL,
      require_identity INTEGER NOT NULL,
      reference TEXT UNIQUE,
      reminders TEXT NOT NULL,
      expires_at BIGINT,
      completed_at BIGINT,
      metadata TEXT NOT NULL,
      return_url TEXT,
      success_url TEXT,
      cancel_url TEXT,
      cost_sends BIGINT NOT NULL DEFAULT 0,
      cost_wallet_minor BIGINT NOT NULL DEFAULT 0,
      cost_source TEXT,
      charged INTEGER NOT NULL DEFAULT 0,
      reminders_sent INTEGER NOT NULL DEFAULT 0,
      auto_reminders_sent INTEGER NOT NULL DEFAULT 0,
      workflow TEXT,
      created_at BIGINT NOT NULL,
      sent_at BIGINT,
      updated_at BIGINT NOT NULL
    );
    CREATE INDEX signature_requests_list ON signature_requests(account_id, livemode, id);
    CREATE TABLE signers (
      id TEXT PRIMARY KEY,
      signature_request_id TEXT NOT NULL REFERENCES signature_requests(id),
      position INTEGER NOT NULL,
      name TEXT NOT NULL,
      email TEXT,
      phone TEXT,
      type TEXT NOT NULL,
      method TEXT NOT NULL,
      require_identity INTEGER NOT NULL,
      status TEXT NOT NULL,
      identity TEXT NOT NULL,
      fields TEXT NOT NULL,
      access_code_hash TEXT,
      link_version INTEGER NOT NULL DEFAULT 1,
      sent_at BIGINT,
      viewed_at BIGINT,
      signed_at BIGINT,
      declined_at BIGINT,
      decline_reason TEXT,
      last_reminder_at BIGINT,
      ip TEXT,
      user_agent TEXT,
      otp_hash TEXT,
      otp_expires_at BIGINT,
      otp_attempts INTEGER NOT NULL DEFAULT 0,
      otp_sent_at BIGINT,
      access_attempts INTEGER NOT NULL DEFAULT 0,
      signature_image TEXT
    );
    CREATE INDEX signers_request ON signers(signature_request_id, position);
    CREATE TABLE events (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      livemode INTEGER NOT NULL,
      type TEXT NOT NULL,
      signature_request_id TEXT,
      data TEXT NOT NULL,
      request_info TEXT,
      created_at BIGINT NOT NULL
    );
    CREATE INDEX events_list ON events(account_id, livemode, id);
    CREATE TABLE jobs (
      id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
      kind TEXT NOT NULL,
      run_at BIGINT NOT NULL,
      payload TEXT NOT NULL,
      dedupe_key TEXT UNIQUE,
      attempts INTEGER NOT NULL DEFAULT 0,
      state TEXT NOT NULL DEFAULT 'pending',
      last_error TEXT,
      created_at BIGINT NOT NULL
    );
    CREATE INDEX jobs_due ON jobs(state, run_at);
    CREATE TABLE messages (
      id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
      account_id TEXT NOT NULL,
      livemode INTEGER NOT NULL,
      channel TEXT NOT NULL,
      recipient TEXT NOT NULL,
      kind TEXT NOT NULL,
      subject TEXT NOT NULL,
      body TEXT NOT NULL,
      signature_request_id TEXT,
      signer_id TEXT,
      state TEXT NOT NULL DEFAULT 'queued',
      created_at BIGINT NOT NULL,
      sent_at BIGINT,
      html TEXT,
      language TEXT NOT NULL DEFAULT 'ar',
      template TEXT,
      blocks TEXT,
      deliver_at BIGINT,
      attempts INTEGER NOT NULL DEFAULT 0,
      last_error TEXT
    );
    CREATE INDEX messages_due ON messages(deliver_at) WHERE state = 'queued';
    CREATE TABLE page_sessions (
      token_hash TEXT PRIMARY KEY,
      signer_id TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('link','embedded','redirect')),
      signing_session_id TEXT,
      access_granted INTEGER NOT NULL DEFAULT 0,
      expires_at BIGINT NOT NULL,
      revoked_at BIGINT,
      created_at BIGINT NOT NULL
    );
    CREATE INDEX page_sessions_signer ON page_sessions(signer_id);
    CREATE TABLE signing_sessions (
      id TEXT PRIMARY KEY,
      signer_id TEXT NOT NULL,
      mode TEXT NOT NULL,
      return_url TEXT,
      success_url TEXT,
      cancel_url TEXT,
      embed_origin TEXT,
      expires_at BIGINT NOT NULL,
      invalidated_at BIGINT,
      created_at BIGINT NOT NULL
    );
    CREATE TABLE identity_verifications (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      livemode INTEGER NOT NULL,
      signer_id TEXT NOT NULL,
      provider TEXT NOT NULL,
      level TEXT NOT NULL,
      status TEXT NOT NULL,
      provider_reference TEXT,
      document_name TEXT,
      document_type TEXT,
      document_last4 TEXT,
      name_match TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      completed_at BIGINT
    );
    CREATE INDEX identity_verifications_signer ON identity_verifications(signer_id);
    CREATE TABLE webhook_endpoints (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id),
      livemode INTEGER NOT NULL,
      url TEXT NOT NULL,
      description TEXT,
      enabled_events TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('enabled','disabled')),
      secret TEXT,
      previous_secret TEXT,
      previous_secret_expires_at BIGINT,
      created_via TEXT NOT NULL CHECK (created_via IN ('api','cli')),
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      deleted_at BIGINT
    );
    CREATE INDEX webhook_endpoints_account ON webhook_endpoints(account_id, livemode, id);
    CREATE TABLE webhook_deliveries (
      id TEXT PRIMARY KEY,
      event_id TEXT NOT NULL,
      endpoint_id TEXT NOT NULL,
      trigger TEXT NOT NULL CHECK (trigger IN ('event','redeliver')),
      status TEXT NOT NULL CHECK (status IN ('pending','succeeded','failed','canceled')),
      attempt_count INTEGER NOT NULL DEFAULT 0,
      next_attempt_at BIGINT,
      leased_until BIGINT,
      attempts TEXT NOT NULL DEFAULT '[]',
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries(endpoint_id, next_attempt_at, id) WHERE status = 'pending';
    CREATE INDEX webhook_deliveries_event ON webhook_deliveries(event_id);
    CREATE TABLE sealed_documents (
      signature_request_id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      livemode INTEGER NOT NULL,
      reference TEXT NOT NULL UNIQUE,
      document_text TEXT NOT NULL,
      document_hash TEXT NOT NULL,
      pdf_status TEXT NOT NULL CHECK (pdf_status IN ('pending','ready','unavailable')),
      pdf_file TEXT,
      pdf_sha256 TEXT,
      error TEXT,
      created_at BIGINT NOT NULL,
      sealed_at BIGINT
    );
    CREATE TABLE evidence_records (
      signature_request_id TEXT PRIMARY KEY,
      record_raw TEXT NOT NULL,
      signature TEXT NOT NULL,
      public_key TEXT NOT NULL,
      timestamp_token TEXT NOT NULL,
      created_at BIGINT NOT NULL
    );
    CREATE TABLE qes_prepared (
      signer_id TEXT PRIMARY KEY,
      signature_request_id TEXT NOT NULL,
      jti TEXT NOT NULL,
      cert_sha256 TEXT NOT NULL,
      digest TEXT NOT NULL,
      base_sha256 TEXT,
      prepared TEXT NOT NULL,
      pdf BYTEA NOT NULL,
      expires_at BIGINT NOT NULL,
      created_at BIGINT NOT NULL,
      completed_at BIGINT
    );
    CREATE TABLE qes_documents (
      signature_request_id TEXT PRIMARY KEY,
      pdf BYTEA NOT NULL,
      pdf_sha256 TEXT NOT NULL,
      signatures INTEGER NOT NULL,
      dss INTEGER NOT NULL,
      updated_at BIGINT NOT NULL
    );
    CREATE TABLE workflows (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id),
      name TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('draft','published','archived')),
      settings TEXT NOT NULL,
      version INTEGER NOT NULL DEFAULT 0,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    );
    CREATE INDEX workflows_account ON workflows(account_id, id);
    CREATE TABLE workflow_versions (
      workflow_id TEXT NOT NULL,
      version INTEGER NOT NULL,
      settings TEXT NOT NULL,
      published_at BIGINT NOT NULL,
      PRIMARY KEY (workflow_id, version)
    );
    CREATE TABLE sessions (
      signature_request_id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      livemode INTEGER NOT NULL,
      workflow_id TEXT NOT NULL,
      workflow_version INTEGER NOT NULL,
      vendor_data TEXT,
      channel TEXT NOT NULL,
      settings TEXT NOT NULL,
      created_at BIGINT NOT NULL
    );
    CREATE INDEX sessions_list ON sessions(account_id, livemode, signature_request_id);
  `.replace(/\bTEXT\b/g, 'TEXT COLLATE "C"'),
};
