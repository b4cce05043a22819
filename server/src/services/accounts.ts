import { nowSeconds, type Clock } from '../clock.js';
import {
  generateKey,
  hashSecret,
  keyHint,
  MAX_ALLOWED_IPS,
  normaliseIpEntry,
  ROTATION_GRACE_SECONDS,
  type KeyKind,
  type KeyMode,
} from '../domain/keys.js';
import { PLANS, type KybStatus, type PlanName } from '../domain/plans.js';
import { newId } from '../ids.js';
import { countAccounts, insertAccount, type Account } from '../store/accounts.js';
import { getKey, insertKey, updateKey, type ApiKey } from '../store/apiKeys.js';
import type { Db, Store } from '../store/db.js';
import { insertLedger } from '../store/ledger.js';

export class OperatorError extends Error {}

/**
 * A key rule refused (an address, an origin, a field the key's type does not take, a key that no
 * longer works): the CLI prints the English message, the console answers it in the envelope.
 */
export class KeyRuleError extends OperatorError {
  constructor(
    en: string,
    readonly ar: string,
    readonly param: string | null,
    readonly code: 'parameter_invalid' | 'invalid_state' = 'parameter_invalid',
  ) {
    super(en);
  }
}

export interface NewAccount {
  name: string;
  plan: PlanName;
  planExpiresAt: number | null;
  kyb: KybStatus;
  /** Sends left in the yearly balance; defaults to the plan's yearly sends. */
  balanceSends?: number;
  walletMinor: number;
  currency: string;
  ownerEmail?: string | null;
}

export interface KeyOptions {
  name?: string;
  readOnly?: boolean;
  allowedIps?: string[];
  allowedOrigins?: string[];
  dailyCap?: number | null;
}

export interface IssuedKey {
  key: ApiKey;
  secret: string;
}

export interface CreatedAccount {
  account: Account;
  keys: { secret_live: string; publishable_live: string; secret_test: string; publishable_test: string };
}

/** Create an account with its four keys (sk_, pk_, sk_test_, pk_test_) in one transaction. */
export async function createAccount(store: Store, clock: Clock, input: NewAccount): Promise<CreatedAccount> {
  return store.tx((trx) => insertNewAccount(trx, clock, input));
}

/** The account, its opening balance and its four keys, in the caller's transaction. */
async function insertNewAccount(trx: Db, clock: Clock, input: NewAccount): Promise<CreatedAccount> {
  const now = nowSeconds(clock);
  const account: Account = {
    id: newId('account', clock),
    name: input.name,
    owner_email: input.ownerEmail ?? null,
    plan: input.plan,
    plan_expires_at: input.planExpiresAt,
    kyb_status: input.kyb,
    balance_sends: input.balanceSends ?? PLANS[input.plan].sendsPerYear,
    wallet_minor: input.walletMinor,
    currency: input.currency,
    accepted_domains: [],
    team_emails: input.ownerEmail ? [input.ownerEmail] : [],
    team_phones: [],
    version_pin: null,
    whatsapp_enabled: false,
    branding: {},
    allowed_origins: [],
    identity_match_mode: 'hold',
    created_at: now,
  };
  await insertAccount(trx, account);
  if (account.balance_sends > 0 || account.wallet_minor > 0) {
    await insertLedger(trx, {
      id: newId('ledger', clock),
      account_id: account.id,
      kind: 'opening_balance',
      sends_delta: account.balance_sends,
      wallet_delta_minor: account.wallet_minor,
      signature_request_id: null,
      note: null,
      created_at: now,
    });
  }
  const issue = (kind: KeyKind, mode: KeyMode) => issueKey(trx, clock, account.id, kind, mode, { name: 'default' });
  const keys = {
    secret_live: (await issue('secret', 'live')).secret,
    publishable_live: (await issue('publishable', 'live')).secret,
    secret_test: (await issue('secret', 'test')).secret,
    publishable_test: (await issue('publishable', 'test')).secret,
  };
  return { account, keys };
}

/**
 * On the first start with an empty database: the operator account, whose keys are printed once.
 * The emptiness check is inside the transaction, so processes starting at the same moment on one
 * PostgreSQL database make one operator between them (SERIALIZABLE: all but one see a conflict, are
 * retried, and then find the account); null when there already is an account.
 */
export async function createOperatorIfEmpty(store: Store, clock: Clock, currency: string): Promise<CreatedAccount | null> {
  return store.tx(async (trx) => {
    if ((await countAccounts(trx)) > 0) return null;
    return insertNewAccount(trx, clock, {
      name: 'Operator',
      plan: 'business',
      planExpiresAt: nowSeconds(clock) + 365 * 86400,
      kyb: 'approved',
      walletMinor: 0,
      currency,
    });
  });
}

export function normaliseAllowedIps(entries: readonly string[]): string[] {
  if (entries.length > MAX_ALLOWED_IPS)
    throw new KeyRuleError(
      `At most ${MAX_ALLOWED_IPS} allowed addresses per key`,
      `${MAX_ALLOWED_IPS} عنوانًا على الأكثر لكل مفتاح.`,
      'allowed_ips',
    );
  return entries.map((e) => {
    const n = normaliseIpEntry(e);
    if (!n)
      throw new KeyRuleError(`Not an IPv4/IPv6 address or CIDR range: ${e}`, `ليس عنوان IPv4/IPv6 ولا نطاق CIDR: ${e}`, 'allowed_ips');
    return n;
  });
}

export function normaliseOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new KeyRuleError(`Not an origin: ${origin}`, `ليس أصلًا (origin) صالحًا: ${origin}`, 'allowed_origins');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new KeyRuleError(`Not an http(s) origin: ${origin}`, `ليس أصل http(s): ${origin}`, 'allowed_origins');
  if (url.pathname !== '/' || url.search || url.hash || url.username)
    throw new KeyRuleError(
      `An origin has no path, query or credentials: ${origin}`,
      `الأصل لا يحوي مسارًا ولا استعلامًا ولا بيانات دخول: ${origin}`,
      'allowed_origins',
    );
  return url.origin;
}

/** The rules on which key type takes which setting, shared by create and change. */
export const KEY_RULES = {
  ipsOnSecret: () =>
    new KeyRuleError('IP allowlists apply to secret keys only', 'قائمة العناوين المسموح بها للمفاتيح السرية فقط.', 'allowed_ips'),
  originsOnPublishable: () =>
    new KeyRuleError('Allowed origins apply to publishable keys only', 'الأصول المسموح بها للمفاتيح العامة فقط.', 'allowed_origins'),
  capOnPublishable: () =>
    new KeyRuleError('The daily cap applies to publishable keys only', 'الحد اليومي للمفاتيح العامة فقط.', 'daily_cap'),
};

export async function issueKey(
  trx: Db,
  clock: Clock,
  accountId: string,
  kind: KeyKind,
  mode: KeyMode,
  opts: KeyOptions,
): Promise<IssuedKey> {
  if (kind === 'publishable' && (opts.allowedIps?.length ?? 0) > 0) throw KEY_RULES.ipsOnSecret();
  if (kind === 'secret' && (opts.allowedOrigins?.length ?? 0) > 0) throw KEY_RULES.originsOnPublishable();
  if (kind === 'secret' && opts.dailyCap != null) throw KEY_RULES.capOnPublishable();
  if (kind === 'publishable' && opts.readOnly)
    throw new KeyRuleError(
      'Publishable keys are read-limited already; --read-only is for secret keys',
      'المفاتيح العامة مقيّدة أصلًا؛ القراءة فقط للمفاتيح السرية.',
      'read_only',
    );
  const secret = generateKey(kind, mode);
  const key: ApiKey = {
    id: newId('key', clock),
    account_id: accountId,
    name: opts.name ?? 'default',
    kind,
    mode,
    secret_hash: hashSecret(secret),
    last4: secret.slice(-4),
    read_only: opts.readOnly ?? false,
    allowed_ips: normaliseAllowedIps(opts.allowedIps ?? []),
    allowed_origins: (opts.allowedOrigins ?? []).map(normaliseOrigin),
    daily_cap: opts.dailyCap ?? null,
    created_at: nowSeconds(clock),
    expires_at: null,
    revoked_at: null,
    replaced_by: null,
  };
  await insertKey(trx, key);
  return { key, secret };
}

/**
 * Rotation: a new key with the same name, permissions and address list; the old one stays valid
 * for `graceSeconds` (24 hours by default, 0 = stop at once).
 */
export async function rotateKey(store: Store, clock: Clock, keyId: string, graceSeconds = ROTATION_GRACE_SECONDS): Promise<IssuedKey> {
  return store.tx((trx) => rotateKeyIn(trx, clock, keyId, graceSeconds));
}

/** rotateKey in the caller's transaction (the console writes its audit entry in the same one). */
export async function rotateKeyIn(trx: Db, clock: Clock, keyId: string, graceSeconds = ROTATION_GRACE_SECONDS): Promise<IssuedKey> {
  const old = await getKey(trx, keyId);
  if (!old) throw new OperatorError(`No key ${keyId}`);
  const now = nowSeconds(clock);
  if (old.revoked_at !== null || (old.expires_at !== null && old.expires_at <= now))
    throw new KeyRuleError(`Key ${keyId} is no longer valid`, 'هذا المفتاح لم يعد صالحًا.', 'id', 'invalid_state');
  const issued = await issueKey(trx, clock, old.account_id, old.kind, old.mode, {
    name: old.name,
    readOnly: old.read_only,
    allowedIps: old.allowed_ips,
    allowedOrigins: old.allowed_origins,
    dailyCap: old.daily_cap,
  });
  await updateKey(trx, old.id, { expires_at: now + graceSeconds, replaced_by: issued.key.id });
  return issued;
}

/** Stop a key now (also a rotated key still in its grace period). */
export async function revokeKey(store: Store, clock: Clock, keyId: string): Promise<ApiKey> {
  return store.tx((trx) => revokeKeyIn(trx, clock, keyId));
}

/** revokeKey in the caller's transaction; revoking twice keeps the first revocation time. */
export async function revokeKeyIn(trx: Db, clock: Clock, keyId: string): Promise<ApiKey> {
  const key = await getKey(trx, keyId);
  if (!key) throw new OperatorError(`No key ${keyId}`);
  if (key.revoked_at === null) await updateKey(trx, keyId, { revoked_at: nowSeconds(clock) });
  return (await getKey(trx, keyId))!;
}

/** The key as the operator sees it: never the secret or its hash. */
export function describeKey(k: ApiKey, now: number) {
  const state = k.revoked_at !== null ? 'revoked' : k.expires_at !== null ? (k.expires_at <= now ? 'expired' : 'expiring') : 'active';
  return {
    id: k.id,
    account_id: k.account_id,
    name: k.name,
    type: k.kind,
    mode: k.mode,
    hint: keyHint(k),
    read_only: k.read_only,
    allowed_ips: k.allowed_ips,
    allowed_origins: k.allowed_origins,
    daily_cap: k.daily_cap,
    state,
    created_at: k.created_at,
    expires_at: k.expires_at,
    revoked_at: k.revoked_at,
    replaced_by: k.replaced_by,
  };
}
