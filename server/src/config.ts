import { z } from 'zod';
import { isKeyPath } from './domain/fileKeys.js';
import { normaliseIpEntry } from './domain/keys.js';

/**
 * Every setting of the server, read from the environment once at start. Each has a safe default so
 * `npm start` works with none; a bad value stops the start with a message naming the variable.
 */
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
/** http://127.x.x.x, http://localhost or http://[::1], with any port and path. */
const isLoopbackHttp = (u: string) => /^http:\/\/(127\.[\d.]+|localhost|\[::1\])(:\d+)?(\/|$)/.test(u);
const csv = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

export const MASTER_KEY_HINT = '32 random bytes as 64 hex digits or base64 (`tawqi secrets new-master-key` prints one)';

export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(
      /^postgres(ql)?:\/\/[^\s]+$/,
      'must be postgres://user:password@host:port/database (or postgresql://…); unset: SQLite under DATA_DIR',
    )
    .optional()
    .describe(
      'PostgreSQL database of the server and the CLI (several server processes may share it); unset: SQLite at DATA_DIR/tawqi.sqlite',
    ),
  TAWQI_PG_POOL_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(10)
    .describe('PostgreSQL connections each process may hold (DATABASE_URL)'),
  TAWQI_SQLITE_SYNCHRONOUS: z
    .enum(['full', 'normal'])
    .default('full')
    .describe(
      'full: every acknowledged write is on disk before the answer (survives power loss); normal: survives a crash of the server, may lose the last writes on power loss',
    ),
  TAWQI_PUBLIC_URL: z.url().optional().describe('Public base address, e.g. https://sign.example.com (defaults to the listen address)'),
  TAWQI_TLS_CERT: z.string().optional().describe('PEM certificate file: serve HTTPS (TLS 1.2 minimum)'),
  TAWQI_TLS_KEY: z.string().optional().describe('PEM private key file for TAWQI_TLS_CERT'),
  TAWQI_TRUSTED_PROXIES: csv
    .refine((list) => list.every((e) => normaliseIpEntry(e) !== null), 'each entry must be an IPv4/IPv6 address or CIDR range')
    .default([])
    .describe('Addresses or CIDR ranges of reverse proxies whose X-Forwarded-For/-Proto are believed'),
  TAWQI_ALLOW_INSECURE_HTTP: bool.default(false).describe('Allow plain HTTP on a non-loopback address (not for production)'),
  TAWQI_METRICS_TOKEN: z
    .string()
    .min(16)
    .optional()
    .describe(
      'Bearer token that opens GET /metrics to any address; without it only loopback and TAWQI_TRUSTED_PROXIES addresses may read it',
    ),
  TAWQI_SHUTDOWN_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(10_000)
    .describe('On SIGTERM/SIGINT: how long the drain may take before the process exits non-zero'),
  TAWQI_LEASE_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .max(86_400)
    .default(120)
    .describe(
      'How long a process holds the jobs, messages and webhook deliveries it claimed; a process that dies loses them after this long and another takes them over',
    ),
  TAWQI_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TAWQI_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(50 * 1024 * 1024)
    .default(1024 * 1024),
  TAWQI_RATE_LIMIT: z.coerce.number().int().min(1).default(100).describe('Requests per window per account'),
  TAWQI_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(10),
  TAWQI_IP_RATE_LIMIT: z.coerce.number().int().min(1).default(300).describe('Requests per window per client address before authentication'),
  TAWQI_CONSOLE_IDLE_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(30)
    .describe('A console session ends after this long without a request'),
  TAWQI_CONSOLE_SESSION_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 24)
    .default(12)
    .describe('A console session ends this long after sign-in, whatever the activity'),
  TAWQI_CONSOLE_SCRYPT_LOG_N: z.coerce
    .number()
    .int()
    .min(12)
    .max(20)
    .default(16)
    .describe('scrypt cost of console passwords: N = 2^this (r = 8, p = 2); older hashes are upgraded at sign-in'),
  TAWQI_CONSOLE_SIGN_IN_EMAIL_LIMIT: z.coerce.number().int().min(1).default(10).describe('Console sign-in attempts per email per window'),
  TAWQI_CONSOLE_SIGN_IN_IP_LIMIT: z.coerce
    .number()
    .int()
    .min(1)
    .default(50)
    .describe('Console sign-in attempts per client address per window'),
  TAWQI_CONSOLE_SIGN_IN_WINDOW_SECONDS: z.coerce.number().int().min(10).default(900).describe('The window of the console sign-in limits'),
  TAWQI_IDEMPOTENCY_LEASE_SECONDS: z.coerce
    .number()
    .int()
    .min(5)
    .max(3600)
    .default(60)
    .describe('PostgreSQL: how long an Idempotency-Key claim holds before another process may take it over (its process died)'),
  TAWQI_REQUEST_LOG_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3650)
    .default(30)
    .describe('How long the request log (the console’s Developers → Logs) keeps an entry'),
  TAWQI_ARCHIVE_RENEW_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(365) // the built-in TSA re-issues its certificate 400 days before its end (sealing/pki/pki.ts)
    .default(180)
    .describe(
      'PAdES B-LTA: a sealed pades-lt PDF gets a new document timestamp when its last one’s TSA certificate ends within this many days',
    ),
  TAWQI_REQUEST_LOG_FLUSH_MS: z.coerce
    .number()
    .int()
    .min(50)
    .max(60_000)
    .default(1000)
    .describe('How often the buffered request log entries are written to the database'),
  TAWQI_PUBLISHABLE_HOURLY_QUOTA: z.coerce.number().int().min(1).default(5),
  TAWQI_PUBLISHABLE_DAILY_CAP: z.coerce.number().int().min(1).default(200).describe('Default daily cap of a publishable key'),
  TAWQI_TEST_DAILY_REQUESTS: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .describe('Test-mode signature requests per account and UTC day (private installations, benchmarks)'),
  TAWQI_TEST_DAILY_EMAILS: z.coerce
    .number()
    .int()
    .min(1)
    .default(50)
    .describe('Test-mode emails per account and UTC day (private installations, benchmarks)'),
  TAWQI_CURRENCY: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .default('EGP'),
  TAWQI_DEFAULT_VERSION: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .default('2026-07-01'),
  TAWQI_DOCS_URL: z.string().default('/api/v1/openapi.json'),
  TAWQI_CONSOLE_URL: z.string().default('/console'),
  TAWQI_CONSOLE_CREDENTIAL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(3600)
    .default(900)
    .describe("Life of a console user's internal credential for the public API (the console asks for a new one before it ends)"),
  TAWQI_BRANDING_LOGO_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(5 * 1024 * 1024)
    .default(256 * 1024)
    .describe('Largest logo the console accepts (PNG, JPEG or script-free SVG)'),
  TAWQI_DNS_SERVERS: z
    .string()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : undefined,
    )
    .describe("DNS servers (ip or ip:port, comma-separated) for the custom-domain check; the system's when unset"),
  TAWQI_COMPANY_DOCUMENT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .max(50 * 1024 * 1024)
    .default(10 * 1024 * 1024)
    .describe('Largest company verification document an account owner may upload (PDF, PNG or JPEG), in bytes'),
  // Webhooks (server/src/webhooks).
  TAWQI_WEBHOOK_ALLOW_PRIVATE: bool
    .default(false)
    .describe('Allow webhook URLs that are or resolve to loopback, private, link-local or reserved addresses (internal networks, tests)'),
  TAWQI_WEBHOOK_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(5000)
    .describe('A receiver must answer 2xx within this many ms (spec: 5 s)'),
  TAWQI_WEBHOOK_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(256)
    .describe('Webhook attempts in flight at once, all endpoints together'),
  TAWQI_WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(8)
    .describe('Webhook attempts in flight at once to one endpoint'),
  TAWQI_IDENTITY_PROVIDER_URL: z
    .url({ protocol: /^https?$/ })
    .refine((u) => u.startsWith('https:') || isLoopbackHttp(u), 'must be https (plain http only on loopback)')
    .optional()
    .describe('Live identity verification: base URL of a provider speaking the generic protocol (server/src/identity/README.md)'),
  TAWQI_IDENTITY_PROVIDER_KEY: z.string().min(1).optional().describe('Bearer key the server sends to the identity provider'),
  TAWQI_IDENTITY_CALLBACK_SECRET: z
    .string()
    .min(16)
    .optional()
    .describe('Shared secret the provider signs its result callbacks with (X-Provider-Signature)'),
  // Email (SMTP). Unset: every outgoing message is kept in the database ('held'), see `tawqi mail list`.
  TAWQI_SMTP_URL: z
    .url({ protocol: /^smtps?$/, message: 'must be smtp://[user:password@]host[:port] or smtps://… (implicit TLS)' })
    .optional()
    .describe(
      'SMTP relay as one URL: smtp://user:password@host:587 (STARTTLS when offered) or smtps://…:465 (implicit TLS); user and password URL-encoded. Or use TAWQI_SMTP_HOST and the split settings',
    ),
  TAWQI_SMTP_HOST: z.string().min(1).optional().describe('SMTP relay host name or address (instead of TAWQI_SMTP_URL)'),
  TAWQI_SMTP_PORT: z.coerce.number().int().min(1).max(65535).optional().describe('SMTP port (default 587, or 465 with TAWQI_SMTP_SECURE)'),
  TAWQI_SMTP_SECURE: bool
    .optional()
    .describe('Implicit TLS from the first byte (usually port 465); otherwise STARTTLS is used when the relay offers it'),
  TAWQI_SMTP_USER: z.string().min(1).optional().describe('SMTP user name (AUTH); set with TAWQI_SMTP_PASSWORD'),
  TAWQI_SMTP_PASSWORD: z.string().min(1).optional().describe('SMTP password'),
  TAWQI_SMTP_REQUIRE_TLS: bool.optional().describe('Refuse to send unless the relay upgrades with STARTTLS (no plain-text fallback)'),
  TAWQI_SMTP_FROM: z
    .string()
    .refine((v) => parseMailbox(v) !== null, 'must be an address, or a name and an address: Tawqi <no-reply@example.com>')
    .optional()
    .describe(
      'Default sender of emails: no-reply@example.com or "Tawqi <no-reply@example.com>" (default: TAWQI_SMTP_USER when it is an address)',
    ),
  TAWQI_SMTP_TLS_REJECT_UNAUTHORIZED: bool
    .default(true)
    .describe("Check the relay's TLS certificate (false only for a test relay with a self-signed certificate)"),
  TAWQI_SMTP_ACCOUNT_FROM: bool
    .default(false)
    .describe(
      "Send from an account's branding from_email (From header); only when the relay may send for those domains (SPF, DKIM, DMARC). Otherwise from_email is the Reply-To and From is TAWQI_SMTP_FROM with the brand name",
    ),
  // WhatsApp Business Cloud API (server/src/delivery/whatsapp.ts). Token and phone-number id unset: WhatsApp is not enabled on the platform.
  TAWQI_WHATSAPP_API_URL: z
    .url({ protocol: /^https?$/ })
    .refine((u) => u.startsWith('https:') || isLoopbackHttp(u), 'must be https (plain http only on loopback)')
    .default('https://graph.facebook.com')
    .describe('Base address of the WhatsApp Cloud API (Graph API)'),
  TAWQI_WHATSAPP_API_VERSION: z
    .string()
    .regex(/^v\d+\.\d+$/, 'a Graph API version such as v21.0')
    .default('v21.0')
    .describe('Graph API version in the path'),
  TAWQI_WHATSAPP_PHONE_NUMBER_ID: z
    .string()
    .regex(/^\d{1,30}$/, 'the numeric phone-number id from WhatsApp Manager')
    .optional()
    .describe('Phone-number id messages are sent from'),
  TAWQI_WHATSAPP_TOKEN: z.string().min(1).optional().describe('Access token (system user) sent as Authorization: Bearer'),
  TAWQI_WHATSAPP_TEMPLATE_INVITATION: z
    .string()
    .regex(/^[a-z0-9_]{1,512}$/)
    .default('tawqi_signing_invitation')
    .describe('Approved template of invitations: body {{1}} name, {{2}} title, {{3}} link'),
  TAWQI_WHATSAPP_TEMPLATE_REMINDER: z
    .string()
    .regex(/^[a-z0-9_]{1,512}$/)
    .default('tawqi_signing_reminder')
    .describe('Approved template of reminders: body {{1}} name, {{2}} title, {{3}} link'),
  TAWQI_WHATSAPP_TEMPLATE_OTP: z
    .string()
    .regex(/^[a-z0-9_]{1,512}$/)
    .optional()
    .describe('Approved authentication template (copy-code button) for one-time codes; unset: codes go by email'),
  TAWQI_WHATSAPP_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(10_000)
    .describe('The Cloud API must answer within this many ms'),
  // Trust material (server/src/sealing/pki/README.md). Unset: the built-in seal and TSA under DATA_DIR/pki.
  TAWQI_SEAL_P12: z
    .string()
    .min(1)
    .optional()
    .describe('PKCS#12 file (.p12/.pfx) with the seal certificate, its key and chain, used instead of the built-in seal'),
  TAWQI_SEAL_P12_PASSWORD: z.string().min(1).optional().describe('Password of TAWQI_SEAL_P12'),
  TAWQI_TSA_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('External RFC 3161 time-stamping authority used instead of the built-in TSA (POST application/timestamp-query)'),
  TAWQI_MASTER_KEY: z
    .string()
    .refine((v) => parseMasterKey(v) !== null, `must be ${MASTER_KEY_HINT}`)
    .optional()
    .describe(
      'Encrypts the server secrets and PKI private keys kept in the database; required with DATABASE_URL, not used on SQLite (masterKey.ts)',
    ),
  // Qualified signatures with a token (server/src/sealing/qes/README.md).
  TAWQI_QES_TRUSTED_ROOTS: z
    .string()
    .min(1)
    .optional()
    .describe(
      'PEM bundle of the root certificates a token (qes) signing certificate must chain to; unset: no token certificate is accepted',
    ),
  // File storage (server/src/store/files): where final PDFs are kept.
  TAWQI_STORAGE: z
    .enum(['folder', 'postgres', 's3'])
    .optional()
    .describe(
      'Where files (final PDFs) are kept: folder (the default on SQLite): under DATA_DIR; postgres (the default with DATABASE_URL): in the database; s3: an S3-compatible bucket (TAWQI_S3_*)',
    ),
  TAWQI_S3_BUCKET: z.string().min(1).optional().describe('The bucket of TAWQI_STORAGE=s3 (needed then)'),
  TAWQI_S3_ENDPOINT: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Address of an S3-compatible server (MinIO, Ceph RGW, …); unset: AWS S3 of TAWQI_S3_REGION'),
  TAWQI_S3_REGION: z.string().min(1).default('us-east-1').describe('Region the requests are signed for'),
  TAWQI_S3_ACCESS_KEY_ID: z.string().min(1).optional().describe('Access key id; unset: the AWS SDK default credential chain'),
  TAWQI_S3_SECRET_ACCESS_KEY: z.string().min(1).optional().describe('Secret access key of TAWQI_S3_ACCESS_KEY_ID (never logged)'),
  TAWQI_S3_FORCE_PATH_STYLE: bool
    .optional()
    .describe('Path-style addresses (endpoint/bucket/key); default: true with TAWQI_S3_ENDPOINT, false without'),
  TAWQI_S3_PREFIX: z
    .string()
    .transform((v) => v.replace(/\/+$/, ''))
    .refine(isKeyPath, 'segments of letters, digits, ".", "_" and "-" joined by "/", none starting with "." (e.g. tawqi/prod)')
    .optional()
    .describe('Put before every object key, e.g. tawqi/ (the bucket can hold other things)'),
  TAWQI_AGENT_DOWNLOAD_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Where signers download the desktop signing agent (shown on the signing page when the agent is not running)'),
});

export type Config = z.infer<typeof configSchema>;

/**
 * The 32 bytes of a TAWQI_MASTER_KEY text (hex, or base64 / base64url), or null when it is not one.
 * Here rather than in masterKey.ts because the schema checks the format at load.
 */
export function parseMasterKey(text: string): Buffer | null {
  const t = text.trim();
  let bytes: Buffer;
  if (/^[0-9a-fA-F]{64}$/.test(t)) {
    bytes = Buffer.from(t, 'hex');
  } else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    bytes = Buffer.from(t, 'base64');
    // Only the canonical encoding: a stray last character must not silently mean another key.
    const given = t.replace(/=$/, '').replace(/-/g, '+').replace(/_/g, '/');
    if (bytes.length !== 32 || bytes.toString('base64').replace(/=$/, '') !== given) return null;
  } else {
    return null;
  }
  // A placeholder such as 64 zeros is not a key.
  if (bytes.every((b) => b === bytes[0])) return null;
  return bytes;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const known = Object.keys(configSchema.shape);
  const input: Record<string, string> = {};
  for (const name of known) {
    const value = env[name];
    if (value !== undefined && value !== '') input[name] = value;
  }
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid setting:\n${lines.join('\n')}`);
  }
  if (Boolean(parsed.data.TAWQI_TLS_CERT) !== Boolean(parsed.data.TAWQI_TLS_KEY)) {
    throw new ConfigError('Invalid setting:\n  TAWQI_TLS_CERT and TAWQI_TLS_KEY must be set together');
  }
  const identity = [
    parsed.data.TAWQI_IDENTITY_PROVIDER_URL,
    parsed.data.TAWQI_IDENTITY_PROVIDER_KEY,
    parsed.data.TAWQI_IDENTITY_CALLBACK_SECRET,
  ];
  if (identity.some(Boolean) && !identity.every(Boolean)) {
    throw new ConfigError(
      'Invalid setting:\n  TAWQI_IDENTITY_PROVIDER_URL, TAWQI_IDENTITY_PROVIDER_KEY and TAWQI_IDENTITY_CALLBACK_SECRET must be set together',
    );
  }
  if (Boolean(parsed.data.TAWQI_SEAL_P12) !== Boolean(parsed.data.TAWQI_SEAL_P12_PASSWORD)) {
    throw new ConfigError('Invalid setting:\n  TAWQI_SEAL_P12 and TAWQI_SEAL_P12_PASSWORD must be set together');
  }
  if (Boolean(parsed.data.TAWQI_WHATSAPP_TOKEN) !== Boolean(parsed.data.TAWQI_WHATSAPP_PHONE_NUMBER_ID)) {
    throw new ConfigError('Invalid setting:\n  TAWQI_WHATSAPP_TOKEN and TAWQI_WHATSAPP_PHONE_NUMBER_ID must be set together');
  }
  const storage = storageProblems(parsed.data);
  if (storage.length > 0) throw new ConfigError(`Invalid setting:\n${storage.map((l) => `  ${l}`).join('\n')}`);
  const lease = leaseProblem(parsed.data);
  if (lease) throw new ConfigError(`Invalid setting:\n  ${lease}`);
  const smtp = smtpProblems(parsed.data);
  if (smtp.length > 0) throw new ConfigError(`Invalid setting:\n${smtp.map((l) => `  ${l}`).join('\n')}`);
  return parsed.data;
}

/**
 * A lease must outlast any one attempt, with room: a claimed entry is started only while half its
 * lease is left (leases.ts), so an attempt bounded by half the lease ends before another process
 * may take the entry over. SMTP's own timeouts (delivery/smtp.ts, 60 s at most per step) are
 * within the default's half.
 */
export function leaseProblem(c: Config): string | null {
  const longest = Math.max(c.TAWQI_WEBHOOK_TIMEOUT_MS, c.TAWQI_WHATSAPP_TIMEOUT_MS) / 1000;
  if (c.TAWQI_LEASE_SECONDS >= 2 * longest) return null;
  return `TAWQI_LEASE_SECONDS: must be at least twice TAWQI_WEBHOOK_TIMEOUT_MS and TAWQI_WHATSAPP_TIMEOUT_MS (at least ${Math.ceil(2 * longest)} with these)`;
}

/** `name@example.com` or `Name <name@example.com>` (the name may be quoted); null when neither. */
export function parseMailbox(text: string): { name?: string; address: string } | null {
  const m = /^\s*(?:"?([^"<>]*?)"?\s*<([^<>\s]+)>|([^<>\s]+))\s*$/.exec(text);
  if (!m) return null;
  const address = (m[2] ?? m[3])!;
  if (!z.email().safeParse(address).success) return null;
  const name = m[1]?.trim();
  return name ? { name, address } : { address };
}

/** Rules across the SMTP settings: one way to name the relay, complete credentials, a sender. */
export function smtpProblems(c: Config): string[] {
  const problems: string[] = [];
  const split = {
    TAWQI_SMTP_PORT: c.TAWQI_SMTP_PORT,
    TAWQI_SMTP_SECURE: c.TAWQI_SMTP_SECURE,
    TAWQI_SMTP_USER: c.TAWQI_SMTP_USER,
    TAWQI_SMTP_PASSWORD: c.TAWQI_SMTP_PASSWORD,
  };
  const given = (o: Record<string, unknown>) => Object.keys(o).filter((k) => o[k] !== undefined);
  if (c.TAWQI_SMTP_URL && c.TAWQI_SMTP_HOST) problems.push('TAWQI_SMTP_URL and TAWQI_SMTP_HOST: set one of them, not both');
  if (c.TAWQI_SMTP_URL) {
    for (const k of given(split)) problems.push(`${k}: not used with TAWQI_SMTP_URL (put it in the URL)`);
    const url = new URL(c.TAWQI_SMTP_URL);
    if (Boolean(url.username) !== Boolean(url.password)) problems.push('TAWQI_SMTP_URL: give both a user and a password, or neither');
    if (url.protocol === 'smtps:' && c.TAWQI_SMTP_REQUIRE_TLS)
      problems.push('TAWQI_SMTP_REQUIRE_TLS: smtps:// is implicit TLS already; REQUIRE_TLS is for STARTTLS');
  } else if (c.TAWQI_SMTP_HOST) {
    if (Boolean(c.TAWQI_SMTP_USER) !== Boolean(c.TAWQI_SMTP_PASSWORD))
      problems.push('TAWQI_SMTP_USER and TAWQI_SMTP_PASSWORD must be set together');
    if (c.TAWQI_SMTP_SECURE && c.TAWQI_SMTP_REQUIRE_TLS)
      problems.push('TAWQI_SMTP_REQUIRE_TLS: TAWQI_SMTP_SECURE is implicit TLS already; REQUIRE_TLS is for STARTTLS');
  } else {
    const stray = given({ ...split, TAWQI_SMTP_REQUIRE_TLS: c.TAWQI_SMTP_REQUIRE_TLS, TAWQI_SMTP_FROM: c.TAWQI_SMTP_FROM });
    for (const k of stray) problems.push(`${k}: needs TAWQI_SMTP_HOST or TAWQI_SMTP_URL`);
    return problems;
  }
  const user = c.TAWQI_SMTP_URL ? decodeURIComponent(new URL(c.TAWQI_SMTP_URL).username) : c.TAWQI_SMTP_USER;
  if (!c.TAWQI_SMTP_FROM && !(user && parseMailbox(user))) {
    problems.push('TAWQI_SMTP_FROM: needed with SMTP (the sender, e.g. "Tawqi <no-reply@example.com>") unless the SMTP user is an address');
  }
  return problems;
}

/** Rules across the file-storage settings: S3 needs a bucket and both halves of a key; S3 settings only with S3. */
export function storageProblems(c: Config): string[] {
  const s3 = {
    TAWQI_S3_BUCKET: c.TAWQI_S3_BUCKET,
    TAWQI_S3_ENDPOINT: c.TAWQI_S3_ENDPOINT,
    TAWQI_S3_ACCESS_KEY_ID: c.TAWQI_S3_ACCESS_KEY_ID,
    TAWQI_S3_SECRET_ACCESS_KEY: c.TAWQI_S3_SECRET_ACCESS_KEY,
    TAWQI_S3_FORCE_PATH_STYLE: c.TAWQI_S3_FORCE_PATH_STYLE,
    TAWQI_S3_PREFIX: c.TAWQI_S3_PREFIX,
  };
  if (c.TAWQI_STORAGE === 'postgres' && !c.DATABASE_URL)
    return ['TAWQI_STORAGE: postgres keeps files in the database of DATABASE_URL, which is not set'];
  if (c.TAWQI_STORAGE !== 's3') {
    // Most likely TAWQI_STORAGE was forgotten: files would go to the folder unnoticed.
    return Object.keys(s3)
      .filter((k) => s3[k as keyof typeof s3] !== undefined)
      .map((k) => `${k}: only used with TAWQI_STORAGE=s3`);
  }
  const problems: string[] = [];
  if (!c.TAWQI_S3_BUCKET) problems.push('TAWQI_S3_BUCKET: needed with TAWQI_STORAGE=s3 (the bucket files are kept in)');
  if (Boolean(c.TAWQI_S3_ACCESS_KEY_ID) !== Boolean(c.TAWQI_S3_SECRET_ACCESS_KEY))
    problems.push(
      'TAWQI_S3_ACCESS_KEY_ID and TAWQI_S3_SECRET_ACCESS_KEY must be set together (or neither: the AWS SDK default credentials)',
    );
  const endpoint = c.TAWQI_S3_ENDPOINT;
  if (endpoint?.startsWith('http:') && !isLoopbackHttp(endpoint) && !c.TAWQI_ALLOW_INSECURE_HTTP)
    problems.push(
      'TAWQI_S3_ENDPOINT: must be https (plain http only on loopback, or with TAWQI_ALLOW_INSECURE_HTTP=true on a closed network)',
    );
  return problems;
}
