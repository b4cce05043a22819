/**
 * `tawqi`: the operator command line. It opens the same SQLite store as the server (WAL, one write
 * transaction at a time), so it is safe to run while the server runs.
 *
 *   tawqi account create|show|list|set|notices|log …
 *   tawqi account branding …
 *   tawqi key create|list|rotate|revoke|set …
 *   tawqi mail list|show …
 *   tawqi webhook add|list|show|rotate-secret|disable|enable|delete …, tawqi events show …
 *   tawqi workflow create|update|publish|archive|list|show …
 *
 * Every command takes --json (exactly one JSON object on stdout) and --help. Errors go to stderr with
 * exit code 1. Key secrets are printed only by `account create`, `key create` and `key rotate`.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { nowSeconds, systemClock } from './clock.js';
import { loadConfig, type Config } from './config.js';
import { ROTATION_GRACE_SECONDS } from './domain/keys.js';
import { amount, parseMinor } from './domain/money.js';
import { KYB_STATUSES, PLAN_NAMES, PLANS, type KybStatus, type PlanName } from './domain/plans.js';
import { API_VERSIONS, findVersion } from './domain/versions.js';
import { newId } from './ids.js';
import {
  createAccount,
  describeKey,
  issueKey,
  normaliseAllowedIps,
  normaliseOrigin,
  OperatorError,
  revokeKey,
  rotateKey,
} from './services/accounts.js';
import { getAccount, listAccounts, updateAccount, type Account, type AccountChanges } from './store/accounts.js';
import { getKey, listKeys, updateKey, type ApiKey } from './store/apiKeys.js';
import { openStore, type Db, type Store } from './store/db.js';
import { insertLedger, listLedger, type LedgerEntry } from './store/ledger.js';
import { listNotices } from './store/notices.js';
import { listRequestLog } from './store/requestLog.js';
import { brandingOf, brandingPlanProblem, brandingSchema, contrastRatio, WHITE, type Branding } from './domain/branding.js';
import { renderMessage } from './delivery/deliverMessage.js';
import type { MessageRow } from './store/messages.js';
import { loadSecrets } from './secrets.js';
import { eventCommands, webhookCommands } from './webhooks/cli.js';
import { CHANNELS, LEGAL_LEVEL_OF, MAX_EXPIRES_IN, MIN_EXPIRES_IN, SIGNATURE_METHODS, type WorkflowSettings } from './domain/workflows.js';
import {
  accountWorkflows,
  archiveWorkflow,
  changeWorkflow,
  createWorkflow,
  describeWorkflow,
  operatorView,
  publishWorkflow,
  type WorkflowPatch,
  type WorkflowWithVersion,
} from './services/workflows.js';

const clock = systemClock;
const YEAR_SECONDS = 365 * 86400;
const SHOWN_LEDGER_ENTRIES = 20;

// ---------------------------------------------------------------------------------------------
// Plumbing: store, output, errors
// ---------------------------------------------------------------------------------------------

interface Ctx {
  store: Store;
  config: Config;
}

interface JsonFlag {
  json?: boolean;
}

/** Open the server's store (DATABASE_URL, or SQLite under DATA_DIR; validated like the server's settings), run `work`, always close. */
async function withStore<T>(work: (ctx: Ctx) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStore(config.DATA_DIR, { databaseUrl: config.DATABASE_URL, poolSize: config.TAWQI_PG_POOL_SIZE, synchronous: config.TAWQI_SQLITE_SYNCHRONOUS });
  try {
    return await work({ store, config });
  } finally {
    await store.close();
  }
}

/** Print exactly one JSON object (--json) or the readable text lines. */
function emit(opts: JsonFlag, data: object, text: () => string[]): void {
  if (opts.json) process.stdout.write(JSON.stringify(data, null, 2) + '\n');
  else process.stdout.write(text().join('\n') + '\n');
}

/** Wrap a command action: any failure becomes a message on stderr and exit code 1. */
function run<A extends unknown[]>(action: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (err) {
      process.stderr.write(`tawqi: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    }
  };
}

async function requireAccount(db: Db, id: string): Promise<Account> {
  const account = await getAccount(db, id);
  if (!account) throw new OperatorError(`No account ${id}`);
  return account;
}

async function requireKey(db: Db, id: string): Promise<ApiKey> {
  const key = await getKey(db, id);
  if (!key) throw new OperatorError(`No key ${id}`);
  return key;
}

// ---------------------------------------------------------------------------------------------
// Argument parsers (commander calls them per value; InvalidArgumentError names the option)
// ---------------------------------------------------------------------------------------------

function parseCount(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('Expected a whole number (0 or more).');
  return n;
}

function parsePositive(text: string): number {
  const n = parseCount(text);
  if (n < 1) throw new InvalidArgumentError('Expected a whole number of at least 1.');
  return n;
}

/**
 * Parsers for "X or none" return the string 'none' rather than null: commander replaces a parser's
 * null with ''. Actions turn it into null with `noneToNull`.
 */
type OrNone<T> = T | 'none';

function noneToNull<T>(value: OrNone<T> | undefined): T | null | undefined {
  return value === 'none' ? null : value;
}

function parseUnixOrNone(text: string): OrNone<number> {
  if (text === 'none') return 'none';
  if (!/^\d{1,12}$/.test(text)) throw new InvalidArgumentError('Expected Unix seconds (e.g. 1798761600) or "none".');
  return Number(text);
}

function parseAmount(text: string): number {
  const minor = parseMinor(text);
  if (minor === null || !Number.isSafeInteger(minor)) throw new InvalidArgumentError('Expected an amount such as 250 or 12.50.');
  return minor;
}

function parseTopup(text: string): number {
  const minor = parseAmount(text);
  if (minor === 0) throw new InvalidArgumentError('A top-up must be more than 0.');
  return minor;
}

function parseGraceHours(text: string): number {
  const hours = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || hours > ROTATION_GRACE_SECONDS / 3600) {
    throw new InvalidArgumentError(`Expected hours from 0 to ${ROTATION_GRACE_SECONDS / 3600} (0 stops the old key at once).`);
  }
  return hours;
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOSTNAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})+$`);

function isHostname(text: string): boolean {
  return HOSTNAME.test(text) && !/^\d+$/.test(text.slice(text.lastIndexOf('.') + 1));
}

/** A bare host name, lowercased: example.com or sign.example.com; no scheme, port or path. */
function parseDomain(text: string): string {
  const d = text.trim().toLowerCase();
  if (/[/:?#@]/.test(d)) throw new InvalidArgumentError('Give the host name only, e.g. example.com (no scheme, port or path).');
  if (!isHostname(d)) throw new InvalidArgumentError('Not a domain name such as example.com.');
  return d;
}

/** An email address, lowercased. */
function parseEmail(text: string): string {
  const e = text.trim().toLowerCase();
  const at = e.lastIndexOf('@');
  const local = e.slice(0, at);
  if (at < 1 || local.length > 64 || /[\s@"(),:;<>[\\\]]/.test(local) || !isHostname(e.slice(at + 1))) {
    throw new InvalidArgumentError('Not an email address such as name@example.com.');
  }
  return e;
}

/** A phone number in E.164 form: + then 7 to 15 digits, no spaces. */
function parsePhone(text: string): string {
  const p = text.trim();
  if (!/^\+[1-9]\d{6,14}$/.test(p)) throw new InvalidArgumentError('Expected an E.164 number such as +201001234567 (no spaces).');
  return p;
}

function parseVersionPin(text: string): OrNone<string> {
  if (text === 'none') return 'none';
  if (!findVersion(text)) {
    throw new InvalidArgumentError(`Unknown API version; known versions: ${API_VERSIONS.map((v) => v.date).join(', ')} (or "none").`);
  }
  return text;
}

function parseCapOrNone(text: string): OrNone<number> {
  return text === 'none' ? 'none' : parsePositive(text);
}

/** Make a repeatable option collect its values into an array. */
function collect<T>(parse: (text: string) => T): (text: string, previous: T[] | undefined) => T[] {
  return (text, previous) => [...(previous ?? []), parse(text)];
}

const asIs = (text: string): string => text;

// ---------------------------------------------------------------------------------------------
// Presentation (never a key secret or hash)
// ---------------------------------------------------------------------------------------------

function presentAccount(a: Account) {
  return {
    id: a.id,
    name: a.name,
    owner_email: a.owner_email,
    plan: a.plan,
    plan_expires_at: a.plan_expires_at,
    kyb_status: a.kyb_status,
    balance_sends: a.balance_sends,
    wallet: amount(a.wallet_minor, a.currency),
    accepted_domains: a.accepted_domains,
    team_emails: a.team_emails,
    team_phones: a.team_phones,
    version_pin: a.version_pin,
    whatsapp_enabled: a.whatsapp_enabled,
    identity_match_mode: a.identity_match_mode,
    branding: a.branding,
    created_at: a.created_at,
  };
}

function presentLedger(e: LedgerEntry, currency: string) {
  return {
    id: e.id,
    kind: e.kind,
    sends_delta: e.sends_delta,
    wallet_delta: amount(e.wallet_delta_minor, currency),
    signature_request_id: e.signature_request_id,
    note: e.note,
    created_at: e.created_at,
  };
}

type KeyView = ReturnType<typeof describeKey>;

function time(unix: number | null, none = 'never'): string {
  if (unix === null) return none;
  return `${new Date(unix * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')} (${unix})`;
}

function money(minor: number, currency: string): string {
  return `${(minor / 100).toFixed(2)} ${currency}`;
}

function list(items: readonly string[]): string {
  return items.length > 0 ? items.join(', ') : '—';
}

function accountLines(a: Account): string[] {
  return [
    `Account ${a.id}  ${a.name}`,
    `  plan              ${a.plan}${a.plan === 'none' ? '' : `, expires ${time(a.plan_expires_at)}`}`,
    `  company (KYB)     ${a.kyb_status}`,
    `  balance           ${a.balance_sends} sends`,
    `  wallet            ${money(a.wallet_minor, a.currency)}`,
    `  owner email       ${a.owner_email ?? '—'}`,
    `  accepted domains  ${list(a.accepted_domains)}`,
    `  team emails       ${list(a.team_emails)}`,
    `  team phones       ${list(a.team_phones)}`,
    `  version pin       ${a.version_pin ?? 'none (server default)'}`,
    `  whatsapp          ${a.whatsapp_enabled ? 'on' : 'off'}`,
    `  identity match    ${a.identity_match_mode} (name mismatch: ${a.identity_match_mode === 'hold' ? 'signing held for a decision' : 'recorded only'})`,
    `  created           ${time(a.created_at)}`,
  ];
}

function keyLines(k: KeyView): string[] {
  const lines = [`${k.id}  ${k.hint}  ${k.type} ${k.mode}  "${k.name}"  ${k.state}${k.read_only ? '  read-only' : ''}`];
  if (k.allowed_ips.length > 0) lines.push(`    allowed IPs      ${list(k.allowed_ips)}`);
  if (k.allowed_origins.length > 0) lines.push(`    allowed origins  ${list(k.allowed_origins)}`);
  if (k.daily_cap !== null) lines.push(`    daily cap        ${k.daily_cap}`);
  if (k.expires_at !== null) lines.push(`    ${k.state === 'expired' ? 'expired' : 'expires'}          ${time(k.expires_at)}`);
  if (k.revoked_at !== null) lines.push(`    revoked          ${time(k.revoked_at)}`);
  if (k.replaced_by !== null) lines.push(`    replaced by      ${k.replaced_by}`);
  return lines;
}

function originsReminder(k: KeyView): string[] {
  if (k.type !== 'publishable' || k.allowed_origins.length > 0) return [];
  return [`Note: ${k.id} has no allowed origins, so every request with it is refused; add one with: tawqi key set ${k.id} --allowed-origin https://…`];
}

// ---------------------------------------------------------------------------------------------
// account …
// ---------------------------------------------------------------------------------------------

interface AccountCreateOptions extends JsonFlag {
  name: string;
  plan: PlanName;
  planExpires?: OrNone<number>;
  kyb: KybStatus;
  balance?: number;
  wallet?: number;
  ownerEmail?: string;
}

async function accountCreate(o: AccountCreateOptions): Promise<void> {
  const name = o.name.trim();
  if (!name) throw new OperatorError('--name must not be empty');
  const expires = noneToNull(o.planExpires);
  const created = await withStore(({ store, config }) =>
    createAccount(store, clock, {
      name,
      plan: o.plan,
      planExpiresAt: expires !== undefined ? expires : o.plan === 'none' ? null : nowSeconds(clock) + YEAR_SECONDS,
      kyb: o.kyb,
      balanceSends: o.balance,
      walletMinor: o.wallet ?? 0,
      currency: config.TAWQI_CURRENCY,
      ownerEmail: o.ownerEmail ?? null,
    }),
  );
  const { account, keys } = created;
  emit(o, { account: presentAccount(account), keys }, () => [
    ...accountLines(account),
    '',
    'Its API keys are shown this once; store them now (only their hashes are kept):',
    `  secret live       ${keys.secret_live}`,
    `  publishable live  ${keys.publishable_live}`,
    `  secret test       ${keys.secret_test}`,
    `  publishable test  ${keys.publishable_test}`,
    '',
    `Publishable keys refuse every request until they have an allowed origin: tawqi key list --account ${account.id}, then tawqi key set KEY_ID --allowed-origin https://…`,
  ]);
}

async function accountShow(id: string, o: JsonFlag): Promise<void> {
  const now = nowSeconds(clock);
  const { account, keys, ledger } = await withStore(async ({ store }) => {
    const account = await requireAccount(store.db, id);
    const keys = (await listKeys(store.db, id)).map((k) => describeKey(k, now));
    const ledger = (await listLedger(store.db, id)).slice(-SHOWN_LEDGER_ENTRIES).reverse();
    return { account, keys, ledger };
  });
  const entries = ledger.map((e) => presentLedger(e, account.currency));
  emit(o, { account: presentAccount(account), keys, ledger: entries }, () => [
    ...accountLines(account),
    '',
    `Keys (${keys.length}):`,
    ...keys.flatMap((k) => keyLines(k).map((l) => '  ' + l)),
    '',
    `Ledger (latest ${SHOWN_LEDGER_ENTRIES}, newest first):`,
    ...(ledger.length === 0 ? ['  —'] : ledger.map((e) => `  ${ledgerLine(e, account.currency)}`)),
  ]);
}

function ledgerLine(e: LedgerEntry, currency: string): string {
  const sends = e.sends_delta === 0 ? '' : `  sends ${e.sends_delta > 0 ? '+' : ''}${e.sends_delta}`;
  const wallet = e.wallet_delta_minor === 0 ? '' : `  wallet ${e.wallet_delta_minor > 0 ? '+' : ''}${money(e.wallet_delta_minor, currency)}`;
  return `${time(e.created_at)}  ${e.kind}${sends}${wallet}${e.note ? `  (${e.note})` : ''}`;
}

async function accountList(o: JsonFlag): Promise<void> {
  const accounts = await withStore(({ store }) => listAccounts(store.db));
  emit(o, { accounts: accounts.map(presentAccount) }, () =>
    accounts.length === 0
      ? ['No accounts.']
      : accounts.map((a) => `${a.id}  ${a.plan.padEnd(10)} kyb ${a.kyb_status.padEnd(8)} ${String(a.balance_sends).padStart(6)} sends  ${money(a.wallet_minor, a.currency).padStart(14)}  ${a.name}`),
  );
}

interface AccountSetOptions extends JsonFlag {
  plan?: PlanName;
  planExpires?: OrNone<number>;
  kyb?: KybStatus;
  balance?: number;
  walletTopup?: number;
  acceptDomain?: string[];
  removeDomain?: string[];
  teamEmail?: string[];
  removeTeamEmail?: string[];
  teamPhone?: string[];
  removeTeamPhone?: string[];
  versionPin?: OrNone<string>;
  whatsapp?: 'on' | 'off';
  identityMatch?: 'hold' | 'record';
}

/** Add then remove; removing an entry the account does not have is an error (likely a typo). */
function editList(current: readonly string[], add: readonly string[] = [], remove: readonly string[] = [], label: string): string[] | undefined {
  if (add.length === 0 && remove.length === 0) return undefined;
  for (const r of remove) if (!current.includes(r) && !add.includes(r)) throw new OperatorError(`${label} ${r} is not on the account`);
  const next = [...new Set([...current, ...add])];
  return next.filter((v) => !remove.includes(v));
}

/** The account fields an `account set` changes, from the options and the current account. */
function accountChanges(a: Account, o: AccountSetOptions, now: number): AccountChanges {
  const changes: AccountChanges = {
    kyb_status: o.kyb,
    balance_sends: o.balance,
    version_pin: noneToNull(o.versionPin),
    plan_expires_at: noneToNull(o.planExpires),
    accepted_domains: editList(a.accepted_domains, o.acceptDomain, o.removeDomain, 'Accepted domain'),
    team_emails: editList(a.team_emails, o.teamEmail, o.removeTeamEmail, 'Team email'),
    team_phones: editList(a.team_phones, o.teamPhone, o.removeTeamPhone, 'Team phone'),
    whatsapp_enabled: o.whatsapp === undefined ? undefined : o.whatsapp === 'on',
    identity_match_mode: o.identityMatch,
  };
  if (o.plan !== undefined) {
    changes.plan = o.plan;
    // Same defaults as `account create`: a new paid plan runs a year; no plan has no expiry.
    if (o.planExpires === undefined && o.plan === 'none') changes.plan_expires_at = null;
    if (o.planExpires === undefined && o.plan !== 'none' && a.plan_expires_at === null) changes.plan_expires_at = now + YEAR_SECONDS;
  }
  if (o.walletTopup !== undefined) {
    const wallet = a.wallet_minor + o.walletTopup;
    if (!Number.isSafeInteger(wallet)) throw new OperatorError('The wallet would exceed the largest amount it can hold');
    changes.wallet_minor = wallet;
  }
  return changes;
}

/** Ledger rows for the balance and wallet changes, written in the same transaction as the account. */
async function recordMoneyChanges(trx: Db, a: Account, o: AccountSetOptions, now: number): Promise<void> {
  const row = (kind: string, sends: number, walletMinor: number, note: string): LedgerEntry => ({
    id: newId('ledger', clock),
    account_id: a.id,
    kind,
    sends_delta: sends,
    wallet_delta_minor: walletMinor,
    signature_request_id: null,
    note,
    created_at: now,
  });
  if (o.balance !== undefined) await insertLedger(trx, row('balance_set', o.balance - a.balance_sends, 0, `operator set the balance to ${o.balance} sends`));
  if (o.walletTopup !== undefined) await insertLedger(trx, row('wallet_topup', 0, o.walletTopup, 'operator wallet top-up'));
}

async function accountSet(id: string, o: AccountSetOptions): Promise<void> {
  const account = await withStore(({ store }) =>
    store.tx(async (trx) => {
      const before = await requireAccount(trx, id);
      const now = nowSeconds(clock);
      const changes = accountChanges(before, o, now);
      if (Object.values(changes).every((v) => v === undefined)) throw new OperatorError('Nothing to change; see tawqi account set --help');
      await updateAccount(trx, id, changes);
      await recordMoneyChanges(trx, before, o, now);
      return requireAccount(trx, id);
    }),
  );
  emit(o, { account: presentAccount(account) }, () => ['Updated.', ...accountLines(account)]);
}

async function accountNotices(id: string, o: JsonFlag): Promise<void> {
  const notices = await withStore(async ({ store }) => {
    await requireAccount(store.db, id);
    return listNotices(store.db, id);
  });
  emit(o, { notices }, () =>
    notices.length === 0 ? ['No notices.'] : notices.map((n) => `${time(n.created_at)}  ${n.kind}  ${JSON.stringify(n.data)}`),
  );
}

async function accountLog(id: string, o: JsonFlag & { limit: number }): Promise<void> {
  const requests = await withStore(async ({ store }) => {
    await requireAccount(store.db, id);
    return listRequestLog(store.db, id, o.limit);
  });
  emit(o, { requests }, () =>
    requests.length === 0
      ? ['No refused requests.']
      : requests.map((r) => `${time(r.created_at)}  ${r.status} ${r.code ?? ''}  ${r.method} ${r.path}  from ${r.ip}  key ${r.key_id ?? '—'}  ${r.request_id}`),
  );
}

// ---------------------------------------------------------------------------------------------
// key …
// ---------------------------------------------------------------------------------------------

interface KeyCreateOptions extends JsonFlag {
  account: string;
  type: 'secret' | 'publishable';
  mode: 'live' | 'test';
  name?: string;
  readOnly?: boolean;
  allowIp?: string[];
  allowedOrigin?: string[];
  dailyCap?: number;
}

async function keyCreate(o: KeyCreateOptions): Promise<void> {
  if (o.type === 'secret' && o.dailyCap !== undefined) throw new OperatorError('The daily cap applies to publishable keys only');
  const issued = await withStore(({ store }) =>
    store.tx(async (trx) => {
      await requireAccount(trx, o.account);
      return issueKey(trx, clock, o.account, o.type, o.mode, {
        name: o.name,
        readOnly: o.readOnly,
        allowedIps: o.allowIp,
        allowedOrigins: o.allowedOrigin,
        dailyCap: o.dailyCap ?? null,
      });
    }),
  );
  const key = describeKey(issued.key, nowSeconds(clock));
  emit(o, { key, secret: issued.secret }, () => [
    ...keyLines(key),
    '',
    'The key is shown this once; store it now (only its hash is kept):',
    `  ${issued.secret}`,
    ...originsReminder(key),
  ]);
}

async function keyList(o: JsonFlag & { account: string }): Promise<void> {
  const now = nowSeconds(clock);
  const keys = await withStore(async ({ store }) => {
    await requireAccount(store.db, o.account);
    return (await listKeys(store.db, o.account)).map((k) => describeKey(k, now));
  });
  emit(o, { keys }, () => [`Keys of ${o.account} (${keys.length}):`, ...keys.flatMap((k) => keyLines(k).map((l) => '  ' + l))]);
}

async function keyRotate(id: string, o: JsonFlag & { graceHours: number }): Promise<void> {
  const { issued, previous } = await withStore(async ({ store }) => {
    const issued = await rotateKey(store, clock, id, Math.round(o.graceHours * 3600));
    return { issued, previous: await requireKey(store.db, id) };
  });
  const now = nowSeconds(clock);
  const key = describeKey(issued.key, now);
  const old = describeKey(previous, now);
  emit(o, { key, secret: issued.secret, previous: old }, () => [
    ...keyLines(key),
    '',
    'The new key is shown this once; store it now (only its hash is kept):',
    `  ${issued.secret}`,
    '',
    old.state === 'expired' ? `The previous key ${old.id} stopped now.` : `The previous key ${old.id} keeps working until ${time(old.expires_at)}; stop it earlier with: tawqi key revoke ${old.id}`,
  ]);
}

async function keyRevoke(id: string, o: JsonFlag): Promise<void> {
  const { key, already } = await withStore(async ({ store }) => {
    const existing = await requireKey(store.db, id);
    // Revoking twice keeps the first revocation time.
    if (existing.revoked_at !== null) return { key: existing, already: true };
    return { key: await revokeKey(store, clock, id), already: false };
  });
  const view = describeKey(key, nowSeconds(clock));
  emit(o, { key: view }, () => [
    already ? `${id} was already revoked.` : `Revoked ${id}: requests with it now get 401 invalid_api_key.`,
    ...keyLines(view),
  ]);
}

interface KeySetOptions extends JsonFlag {
  name?: string;
  allowIp?: string[];
  clearIps?: boolean;
  allowedOrigin?: string[];
  clearOrigins?: boolean;
  dailyCap?: OrNone<number>;
}

/** The key fields a `key set` changes; lists given here replace the key's lists. */
function keyChanges(k: ApiKey, o: KeySetOptions): Parameters<typeof updateKey>[2] {
  const changes: Parameters<typeof updateKey>[2] = {};
  if (o.name !== undefined) {
    if (!o.name.trim()) throw new OperatorError('--name must not be empty');
    changes.name = o.name.trim();
  }
  if (o.allowIp !== undefined || o.clearIps) {
    if (k.kind === 'publishable' && o.allowIp !== undefined) throw new OperatorError('IP allowlists apply to secret keys only');
    changes.allowed_ips = [...new Set(normaliseAllowedIps(o.allowIp ?? []))];
  }
  if (o.allowedOrigin !== undefined || o.clearOrigins) {
    if (k.kind === 'secret' && o.allowedOrigin !== undefined) throw new OperatorError('Allowed origins apply to publishable keys only');
    changes.allowed_origins = [...new Set((o.allowedOrigin ?? []).map(normaliseOrigin))];
  }
  if (o.dailyCap !== undefined) {
    if (k.kind === 'secret') throw new OperatorError('The daily cap applies to publishable keys only');
    changes.daily_cap = noneToNull(o.dailyCap);
  }
  return changes;
}

async function keySet(id: string, o: KeySetOptions): Promise<void> {
  const now = nowSeconds(clock);
  const key = await withStore(({ store }) =>
    store.tx(async (trx) => {
      const before = await requireKey(trx, id);
      if (describeKey(before, now).state === 'revoked' || describeKey(before, now).state === 'expired') {
        throw new OperatorError(`Key ${id} no longer works; nothing to change`);
      }
      const changes = keyChanges(before, o);
      if (Object.keys(changes).length === 0) throw new OperatorError('Nothing to change; see tawqi key set --help');
      await updateKey(trx, id, changes);
      return requireKey(trx, id);
    }),
  );
  const view = describeKey(key, now);
  emit(o, { key: view }, () => ['Updated.', ...keyLines(view), ...originsReminder(view)]);
}

// ---------------------------------------------------------------------------------------------
// account branding …
// ---------------------------------------------------------------------------------------------

interface BrandingOptions extends JsonFlag {
  brandName?: string;
  logoUrl?: string;
  brandColor?: string;
  buttonColor?: string;
  customDomain?: string;
  fromEmail?: string;
  hidePowered?: 'on' | 'off';
  welcomeAr?: string;
  welcomeEn?: string;
  clear?: boolean;
}

/** Each branding field, the option that sets it and its label in the text output. */
const BRANDING_OPTIONS: { field: keyof Branding; option: keyof BrandingOptions; flag: string; label: string }[] = [
  { field: 'brand_name', option: 'brandName', flag: '--brand-name', label: 'brand name' },
  { field: 'logo_url', option: 'logoUrl', flag: '--logo-url', label: 'logo' },
  { field: 'brand_color', option: 'brandColor', flag: '--brand-color', label: 'brand colour' },
  { field: 'sign_button_color', option: 'buttonColor', flag: '--button-color', label: 'button colour' },
  { field: 'custom_domain', option: 'customDomain', flag: '--custom-domain', label: 'custom domain' },
  { field: 'from_email', option: 'fromEmail', flag: '--from-email', label: 'from email' },
  { field: 'hide_powered', option: 'hidePowered', flag: '--hide-powered', label: '"Powered by"' },
  { field: 'sign_welcome_ar', option: 'welcomeAr', flag: '--welcome-ar', label: 'welcome (ar)' },
  { field: 'sign_welcome_en', option: 'welcomeEn', flag: '--welcome-en', label: 'welcome (en)' },
];

function brandingLines(a: Account, b: Branding): string[] {
  const value = (field: keyof Branding): string => {
    const v = b[field];
    if (field === 'hide_powered') return v ? 'hidden' : 'shown';
    if (v === undefined) return '—';
    if (field === 'sign_button_color') return `${String(v)} (white text ${contrastRatio(WHITE, String(v)).toFixed(2)}:1)`;
    return String(v);
  };
  return [`Branding of ${a.id}  ${a.name}  (plan ${a.plan})`, ...BRANDING_OPTIONS.map((o) => `  ${o.label.padEnd(16)}  ${value(o.field)}`)];
}

/**
 * Set, remove ('none') or clear branding fields; with no option, show the branding. The result is
 * checked as a whole (brandingSchema): lengths, https logo, #rrggbb colours, the button colour's
 * contrast with white text (WCAG AA), and the plan (spec 2.9: Business and above).
 */
async function accountBranding(id: string, o: BrandingOptions): Promise<void> {
  const given = BRANDING_OPTIONS.filter((b) => o[b.option] !== undefined);
  const { account, branding } = await withStore(({ store }) =>
    store.tx(async (trx) => {
      const account = await requireAccount(trx, id);
      if (given.length === 0 && !o.clear) return { account, branding: brandingOf(account.branding) };
      const next: Record<string, unknown> = o.clear ? {} : { ...account.branding };
      const added: Record<string, unknown> = {};
      for (const b of given) {
        const raw = o[b.option] as string;
        if (raw === 'none') {
          delete next[b.field];
          continue;
        }
        next[b.field] = b.field === 'hide_powered' ? raw === 'on' : raw;
        added[b.field] = next[b.field];
      }
      const parsed = brandingSchema.safeParse(next);
      if (!parsed.success) {
        const lines = parsed.error.issues.map((i) => {
          const known = BRANDING_OPTIONS.find((b) => b.field === i.path[0]);
          if (known) return `${known.flag} ${i.message}`;
          return `stored branding: ${i.message} (${i.path.join('.') || 'fields'}); remove it with --clear`;
        });
        throw new OperatorError(lines.join('\n       '));
      }
      const planProblem = brandingPlanProblem(brandingSchema.partial().parse(added), account.plan);
      if (planProblem) throw new OperatorError(planProblem);
      await updateAccount(trx, id, { branding: parsed.data });
      return { account, branding: parsed.data };
    }),
  );
  const changed = given.length > 0 || o.clear;
  emit(o, { account: account.id, branding }, () => [...(changed ? ['Updated.'] : []), ...brandingLines(account, branding)]);
}

// ---------------------------------------------------------------------------------------------
// mail …
// ---------------------------------------------------------------------------------------------

function presentMessageSummary(m: MessageRow) {
  return {
    id: m.id,
    created_at: m.created_at,
    account_id: m.account_id,
    livemode: m.livemode === 1,
    channel: m.channel,
    to: m.recipient,
    kind: m.kind,
    subject: m.subject,
    state: m.state,
  };
}

async function mailList(o: JsonFlag & { account?: string; limit: number }): Promise<void> {
  const messages = await withStore(async ({ store }) => {
    if (o.account) await requireAccount(store.db, o.account);
    let q = store.db.selectFrom('messages').selectAll().orderBy('id', 'desc').limit(o.limit);
    if (o.account) q = q.where('account_id', '=', o.account);
    return q.execute();
  });
  emit(o, { messages: messages.map(presentMessageSummary) }, () =>
    messages.length === 0
      ? ['No messages.']
      : messages.map((m) => `${String(m.id).padStart(6)}  ${time(m.created_at)}  ${m.channel.padEnd(8)} ${m.state.padEnd(6)} ${m.kind.padEnd(10)} ${m.recipient}  ${m.subject}`),
  );
}

/** The address the server is reached at, as the server itself would give it (for links). */
function serverUrl(config: Config): string {
  if (config.TAWQI_PUBLIC_URL) return config.TAWQI_PUBLIC_URL.replace(/\/+$/, '');
  const wildcard = config.HOST === '0.0.0.0' || config.HOST === '::';
  const host = wildcard ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return `${config.TAWQI_TLS_CERT ? 'https' : 'http'}://${host}:${config.PORT}`;
}

async function mailShow(idText: string, o: JsonFlag & { html?: boolean }): Promise<void> {
  if (!/^\d{1,15}$/.test(idText)) throw new OperatorError(`No message ${idText} (message ids are numbers; see tawqi mail list)`);
  const { message, rendered } = await withStore(async ({ store, config }) => {
    const message = await store.db.selectFrom('messages').selectAll().where('id', '=', Number(idText)).executeTakeFirst();
    if (!message) throw new OperatorError(`No message ${idText}`);
    const rendered = await renderMessage(store.db, message, serverUrl(config), loadSecrets(config.DATA_DIR).linkKey);
    return { message, rendered };
  });
  const full = { ...presentMessageSummary(message), sent_at: message.sent_at, language: message.language, signer_id: message.signer_id, signature_request_id: message.signature_request_id, text: rendered.text, html: rendered.html };
  if (o.html && !o.json) {
    if (rendered.html === null) throw new OperatorError(`Message ${idText} has no HTML part`);
    process.stdout.write(rendered.html + '\n');
    return;
  }
  emit(o, { message: full }, () => [
    `Message ${message.id}  ${message.state}`,
    `  account     ${message.account_id}  (${message.livemode === 1 ? 'live' : 'test'})`,
    `  channel     ${message.channel}`,
    `  to          ${message.recipient}`,
    `  kind        ${message.kind}`,
    `  language    ${message.language}`,
    `  request     ${message.signature_request_id ?? '—'}${message.signer_id ? `  signer ${message.signer_id}` : ''}`,
    `  created     ${time(message.created_at)}`,
    `  sent        ${time(message.sent_at)}`,
    `  subject     ${message.subject}`,
    '',
    rendered.text,
    ...(rendered.html === null ? [] : ['', `(HTML part: tawqi mail show ${message.id} --html)`]),
  ]);
}

function mailCommands(program: Command): void {
  const mail = program.command('mail').description('outgoing messages kept in the database (all of them when no SMTP relay is configured)');

  command(mail, 'list', 'list messages, newest first')
    .option('--account <id>', 'only this account')
    .option('--limit <n>', 'at most this many messages', parsePositive, 50)
    .action(run(mailList));

  command(mail, 'show <id>', 'show a message as it is sent, with the signing link rendered in')
    .option('--html', 'print the HTML part only (to save and open in a browser)')
    .action(run(mailShow));
}

// ---------------------------------------------------------------------------------------------
// workflow …
// ---------------------------------------------------------------------------------------------

interface WorkflowOptions extends JsonFlag {
  name?: string;
  document?: 'fixed' | 'per-request';
  template?: OrNone<string>;
  signatureMethod?: WorkflowSettings['signature_method'];
  channel?: WorkflowSettings['channel'];
  cc?: string[];
  clearCc?: boolean;
  requireIdAttachment?: 'on' | 'off';
  requireAccessCode?: 'on' | 'off';
  expiresIn?: number;
  language?: 'ar' | 'en';
  returnUrl?: OrNone<string>;
  ordered?: 'on' | 'off';
  reminders?: 'on' | 'off';
  reminderInterval?: number;
  reminderMax?: number;
  publish?: boolean;
}

function parseTemplateOrNone(text: string): OrNone<string> {
  if (text === 'none') return 'none';
  if (!/^tpl_[0-9A-Za-z_]{1,60}$/.test(text)) throw new InvalidArgumentError('Expected a template id such as tpl_… (see GET /templates), or "none".');
  return text;
}

function parseExpiresIn(text: string): number {
  const n = parseCount(text);
  if (n < MIN_EXPIRES_IN || n > MAX_EXPIRES_IN) throw new InvalidArgumentError(`Expected days from ${MIN_EXPIRES_IN} to ${MAX_EXPIRES_IN}.`);
  return n;
}

function parseHttpsUrlOrNone(text: string): OrNone<string> {
  if (text === 'none') return 'none';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidArgumentError('Expected an https URL, or "none".');
  }
  if (url.protocol !== 'https:') throw new InvalidArgumentError('Expected an https URL, or "none".');
  return text;
}

const onOff = (v: 'on' | 'off' | undefined): boolean | undefined => (v === undefined ? undefined : v === 'on');

/** The settings a create/update changes, from its options. */
function workflowPatch(o: WorkflowOptions): WorkflowPatch {
  if (o.cc !== undefined && o.clearCc) throw new OperatorError('--cc and --clear-cc together: give one');
  const template = noneToNull(o.template);
  const returnUrl = noneToNull(o.returnUrl);
  const reminders = { enabled: onOff(o.reminders), interval_hours: o.reminderInterval, max: o.reminderMax };
  return {
    document_mode: o.document === undefined ? undefined : o.document === 'fixed' ? 'fixed' : 'per_request',
    template_id: template,
    signature_method: o.signatureMethod,
    channel: o.channel,
    cc: o.clearCc ? [] : o.cc,
    require_id_attachment: onOff(o.requireIdAttachment),
    require_access_code: onOff(o.requireAccessCode),
    expires_in: o.expiresIn,
    language: o.language,
    return_url: returnUrl,
    ordered: onOff(o.ordered),
    reminders: Object.values(reminders).some((v) => v !== undefined) ? Object.fromEntries(Object.entries(reminders).filter(([, v]) => v !== undefined)) : undefined,
  };
}

function onOffText(v: boolean): string {
  return v ? 'on' : 'off';
}

function settingsLines(st: WorkflowSettings): string[] {
  const doc = st.document.mode === 'fixed' ? `fixed template ${st.document.template_id ?? '(not set: sessions are refused until it is)'}` : `per request (default template ${st.document.default_template_id ?? 'none'})`;
  return [
    `  document          ${doc}`,
    `  signature method  ${st.signature_method} (${LEGAL_LEVEL_OF[st.signature_method]})`,
    `  channel           ${st.channel}`,
    `  cc                ${list(st.cc)}`,
    `  ID attachment     ${onOffText(st.require_id_attachment)}`,
    `  access code       ${onOffText(st.require_access_code)}`,
    `  expires in        ${st.expires_in} days`,
    `  language          ${st.language}`,
    `  return URL        ${st.return_url ?? '—'}`,
    `  ordered           ${onOffText(st.ordered)}`,
    `  reminders         ${st.reminders.enabled ? `every ${st.reminders.interval_hours} h, at most ${st.reminders.max}` : 'off'}`,
  ];
}

function workflowLines(w: WorkflowWithVersion): string[] {
  const v = operatorView(w);
  const state = v.status === 'draft' ? 'draft (never published)' : `${v.status}, version ${v.version ?? '—'}`;
  return [
    `Workflow ${v.id}  "${v.name}"  ${state}${v.version !== null && v.unpublished_changes ? '  (unpublished changes)' : ''}${v.default ? '  (built in)' : ''}`,
    `  account           ${v.account}`,
    ...settingsLines(v.settings),
  ];
}

/** A workflow's account: given, or the stored workflow's own (the default workflow needs --account). */
async function workflowAccount(db: Db, id: string, accountId: string | undefined): Promise<Account> {
  if (accountId) return requireAccount(db, accountId);
  const row = await db.selectFrom('workflows').select('account_id').where('id', '=', id).executeTakeFirst();
  if (!row) throw new OperatorError(id === 'wf_default' || id === 'default' ? 'The default workflow exists in every account: give --account' : `No workflow ${id}`);
  return requireAccount(db, row.account_id);
}

async function workflowCreate(o: WorkflowOptions & { account: string; name: string }): Promise<void> {
  const w = await withStore(({ store }) => createWorkflow(store, clock, o.account, o.name, workflowPatch(o), o.publish ?? false));
  emit(o, { workflow: operatorView(w) }, () => [...workflowLines(w), '', w.published ? 'Published as version 1.' : `A draft: publish it with tawqi workflow publish ${w.workflow.id}`]);
}

async function workflowUpdate(id: string, o: WorkflowOptions): Promise<void> {
  const patch = workflowPatch(o);
  if (Object.values(patch).every((v) => v === undefined) && o.name === undefined) throw new OperatorError('Nothing to change; see tawqi workflow update --help');
  const w = await withStore(({ store }) => changeWorkflow(store, clock, id, patch, o.name));
  emit(o, { workflow: operatorView(w) }, () => [
    'Updated.',
    ...workflowLines(w),
    ...(w.published ? ['', `Sessions keep using version ${w.published.version} until: tawqi workflow publish ${id}`] : []),
  ]);
}

async function workflowPublish(id: string, o: JsonFlag): Promise<void> {
  const w = await withStore(({ store }) => publishWorkflow(store, clock, id));
  emit(o, { workflow: operatorView(w) }, () => [`Published version ${w.published!.version}.`, ...workflowLines(w)]);
}

async function workflowArchive(id: string, o: JsonFlag): Promise<void> {
  const w = await withStore(({ store }) => archiveWorkflow(store, clock, id));
  emit(o, { workflow: operatorView(w) }, () => ['Archived: new sessions are refused (409 workflow_not_live).', ...workflowLines(w)]);
}

async function workflowList(o: JsonFlag & { account: string }): Promise<void> {
  const all = await withStore(async ({ store }) => accountWorkflows(store.db, await requireAccount(store.db, o.account)));
  emit(o, { workflows: all.map(operatorView) }, () =>
    all.map((w) => {
      const v = operatorView(w);
      return `${v.id.padEnd(27)} ${v.status.padEnd(9)} v${String(v.version ?? '—').padEnd(4)} ${v.settings.channel.padEnd(8)} ${v.settings.signature_method.padEnd(8)} "${v.name}"${v.version !== null && v.unpublished_changes ? '  (unpublished changes)' : ''}`;
    }),
  );
}

async function workflowShow(id: string, o: JsonFlag & { account?: string }): Promise<void> {
  const shown = await withStore(async ({ store }) => describeWorkflow(store.db, await workflowAccount(store.db, id, o.account), id));
  emit(o, { workflow: shown }, () => [
    `Workflow ${shown.id}  "${shown.name}"  ${shown.status}${shown.default ? '  (built in)' : ''}`,
    `  account           ${shown.account}`,
    'Working settings (published with tawqi workflow publish):',
    ...settingsLines(shown.settings),
    '',
    `Versions (${shown.versions.length}, newest first):`,
    ...(shown.versions.length === 0 ? ['  —'] : shown.versions.map((v) => `  v${v.version}  published ${time(v.published_at)}`)),
  ]);
}

function workflowSettingOptions(c: Command): Command {
  return c
    .addOption(new Option('--document <mode>', 'fixed: one template for every request; per-request: the request names its template or document').choices(['fixed', 'per-request']))
    .option('--template <tpl_id|none>', 'the fixed template, or the default template of per-request mode', parseTemplateOrNone)
    .addOption(new Option('--signature-method <method>', 'simple (ses), identity (aes, identity verified) or token (qes)').choices(SIGNATURE_METHODS))
    .addOption(new Option('--channel <channel>', 'how signers get their links: email, whatsapp, or link (you deliver them)').choices(CHANNELS))
    .option('--cc <email>', 'an address that gets a copy when a live request completes (repeatable, up to 20; replaces the list)', collect(parseEmail))
    .option('--clear-cc', 'empty the cc list')
    .addOption(new Option('--require-id-attachment <on|off>', 'signers attach an ID document (Enterprise in live mode)').choices(['on', 'off']))
    .addOption(new Option('--require-access-code <on|off>', 'every signer of a session needs an access_code (Enterprise in live mode)').choices(['on', 'off']))
    .option('--expires-in <days>', `days until a request expires (${MIN_EXPIRES_IN}–${MAX_EXPIRES_IN})`, parseExpiresIn)
    .addOption(new Option('--language <lang>', 'language of messages and the signing page').choices(['ar', 'en']))
    .option('--return-url <https-url|none>', 'where the return button leads after signing (an accepted domain; Business in live mode)', parseHttpsUrlOrNone)
    .addOption(new Option('--ordered <on|off>', 'signers sign in order (Business in live mode)').choices(['on', 'off']))
    .addOption(new Option('--reminders <on|off>', 'automatic reminders').choices(['on', 'off']))
    .option('--reminder-interval <hours>', 'hours between automatic reminders (1–720)', parsePositive)
    .option('--reminder-max <n>', 'automatic reminders at most (0–10)', parseCount);
}

function workflowCommands(program: Command): void {
  const workflow = program.command('workflow').description("an account's workflows: named, versioned settings that POST /sessions creates requests with");

  workflowSettingOptions(
    command(workflow, 'create', 'create a workflow (a draft) from the base defaults and the options given')
      .requiredOption('--account <id>', 'account id')
      .requiredOption('--name <name>', 'a name for the workflow'),
  )
    .option('--publish', 'publish version 1 at once')
    .addHelpText('after', '\nBase defaults: document per request, signature method simple, channel email, expires in 7 days, language ar, no ID attachment, no cc.\nCustom workflows need the Business plan in live mode; the default workflow (wf_default) is on every account and plan.')
    .action(run(workflowCreate));

  workflowSettingOptions(command(workflow, 'update <workflowId>', 'change the working settings (and name); sessions use them once published').option('--name <name>', 'a new name')).action(
    run(workflowUpdate),
  );

  command(workflow, 'publish <workflowId>', 'publish the working settings as a new version (also brings back an archived workflow)').action(run(workflowPublish));
  command(workflow, 'archive <workflowId>', 'stop new sessions with the workflow (existing requests are not touched)').action(run(workflowArchive));
  command(workflow, 'list', "an account's workflows, the built-in default first").requiredOption('--account <id>', 'account id').action(run(workflowList));
  command(workflow, 'show <workflowId>', 'a workflow, its working settings and its versions').option('--account <id>', 'account id (needed for wf_default)').action(run(workflowShow));
}

// ---------------------------------------------------------------------------------------------
// The program
// ---------------------------------------------------------------------------------------------

/** A subcommand with the --json flag every command has. */
function command(parent: Command, nameAndArgs: string, description: string): Command {
  return parent.command(nameAndArgs).description(description).option('--json', 'print one JSON object instead of text');
}

const planOption = (flags: string, description: string) => new Option(flags, description).choices(PLAN_NAMES);
const kybOption = (flags: string, description: string) => new Option(flags, description).choices(KYB_STATUSES);

function accountCommands(program: Command): void {
  const account = program.command('account').description('create, inspect and change customer accounts');

  command(account, 'create', 'create an account and its four API keys (sk_, pk_, sk_test_, pk_test_), shown once')
    .requiredOption('--name <name>', 'company name')
    .addOption(planOption('--plan <plan>', 'subscription plan').default('business'))
    .option('--plan-expires <unix|none>', 'end of the subscription year, Unix seconds, or none for no end (default: a year from now; none with --plan none)', parseUnixOrNone)
    .addOption(kybOption('--kyb <status>', 'company verification status').default('approved'))
    .option('--balance <sends>', "sends left in the yearly balance (default: the plan's yearly sends)", parseCount)
    .option('--wallet <amount>', 'opening wallet amount in the wallet currency, e.g. 250 or 12.50', parseAmount)
    .option('--owner-email <email>', "owner's email (also a team email)", parseEmail)
    .addHelpText('after', `\nYearly sends per plan: ${PLAN_NAMES.map((p) => `${p} ${PLANS[p].sendsPerYear}`).join(', ')}.`)
    .action(run(accountCreate));

  command(account, 'show <id>', 'show an account, its keys (never their secrets) and its latest ledger entries').action(run(accountShow));
  command(account, 'list', 'list all accounts').action(run(accountList));

  command(account, 'set <id>', 'change an account; balance and wallet changes are written to the ledger')
    .addOption(planOption('--plan <plan>', 'subscription plan (a paid plan on an account without expiry gets a year from now; none clears the expiry)'))
    .option('--plan-expires <unix|none>', 'end of the subscription year, Unix seconds, or none for no end', parseUnixOrNone)
    .addOption(kybOption('--kyb <status>', 'company verification status'))
    .option('--balance <sends>', 'set the sends left in the yearly balance', parseCount)
    .option('--wallet-topup <amount>', 'add to the wallet, e.g. 250 or 12.50', parseTopup)
    .option('--accept-domain <domain>', 'accept a domain for return URLs (repeatable)', collect(parseDomain))
    .option('--remove-domain <domain>', 'stop accepting a domain (repeatable)', collect(parseDomain))
    .option('--team-email <email>', 'add a team email, allowed as a test signer (repeatable)', collect(parseEmail))
    .option('--remove-team-email <email>', 'remove a team email (repeatable)', collect(parseEmail))
    .option('--team-phone <+E164>', 'add a team phone number (repeatable)', collect(parsePhone))
    .option('--remove-team-phone <+E164>', 'remove a team phone number (repeatable)', collect(parsePhone))
    .option('--version-pin <date|none>', `API version used when a request sends no Svc-Version (${API_VERSIONS.map((v) => v.date).join(', ')}), or none`, parseVersionPin)
    .addOption(new Option('--whatsapp <on|off>', 'WhatsApp delivery in live mode').choices(['on', 'off']))
    .addOption(new Option('--identity-match <hold|record>', 'when the name on an identity document differs from the name sent: hold signing until POST /signers/{id}/identity_match decides, or record the difference only').choices(['hold', 'record']))
    .action(run(accountSet));

  command(account, 'branding <id>', 'show or change the branding of the signing page and emails (Business plan and above)')
    .option('--brand-name <text|none>', 'name shown instead of the account name (up to 100 characters)')
    .option('--logo-url <https-url|none>', 'https address of the logo image')
    .option('--brand-color <#rrggbb|none>', 'accent colour')
    .option('--button-color <#rrggbb|none>', 'sign button colour; its text is white, so it must reach WCAG AA contrast (4.5:1)')
    .option('--custom-domain <host|none>', 'host name of the signing page for this account (Business plan, also for test keys)')
    .option('--from-email <email|none>', 'reply address of emails (the From address when the server allows it: TAWQI_SMTP_ACCOUNT_FROM)')
    .addOption(new Option('--hide-powered <on|off>', 'hide "Powered by Tawqi"').choices(['on', 'off']))
    .option('--welcome-ar <text|none>', 'welcome text of the signing page in Arabic, plain text up to 240 characters')
    .option('--welcome-en <text|none>', 'welcome text of the signing page in English, plain text up to 240 characters')
    .option('--clear', 'remove all branding first (then apply the other options)')
    .addHelpText('after', '\nWith no option, prints the branding. "none" removes one field.')
    .action(run(accountBranding));

  command(account, 'notices <id>', "the account owner's notices (e.g. publishable key daily cap warnings)").action(run(accountNotices));
  command(account, 'log <id>', 'requests refused by key policy (IP allowlist), newest first')
    .option('--limit <n>', 'at most this many entries', parsePositive, 100)
    .action(run(accountLog));
}

function keyCommands(program: Command): void {
  const key = program.command('key').description('issue, list, rotate, revoke and restrict API keys');

  command(key, 'create', 'issue a new API key; its secret is shown once')
    .requiredOption('--account <id>', 'account id')
    .addOption(new Option('--type <type>', 'key type').choices(['secret', 'publishable']).makeOptionMandatory())
    .addOption(new Option('--mode <mode>', 'live or test key').choices(['live', 'test']).makeOptionMandatory())
    .option('--name <name>', 'a label for the key', 'default')
    .option('--read-only', 'secret key that may only read (writes give 403 forbidden)')
    .option('--allow-ip <cidr>', 'secret key: accept requests only from this address or CIDR range (repeatable, up to 50)', collect(asIs))
    .option('--allowed-origin <origin>', 'publishable key: a web origin allowed to use it, e.g. https://shop.example.com (repeatable)', collect(asIs))
    .option('--daily-cap <n>', 'publishable key: daily cap on signature request creation', parsePositive)
    .action(run(keyCreate));

  command(key, 'list', "list an account's keys (never their secrets)").requiredOption('--account <id>', 'account id').action(run(keyList));

  command(key, 'rotate <keyId>', 'issue a new key with the same name, permissions and lists; the old one keeps working for the grace period')
    .option('--grace-hours <hours>', 'how long the old key keeps working (0 = stops at once)', parseGraceHours, ROTATION_GRACE_SECONDS / 3600)
    .action(run(keyRotate));

  command(key, 'revoke <keyId>', 'stop a key at once (also a rotated key in its grace period)').action(run(keyRevoke));

  command(key, 'set <keyId>', "change a key's name, allowlists or daily cap; lists given here replace the key's lists")
    .option('--name <name>', 'a label for the key')
    .option('--allow-ip <cidr>', 'secret key: allowed address or CIDR range (repeatable, up to 50)', collect(asIs))
    .addOption(new Option('--clear-ips', 'secret key: accept requests from any address').conflicts('allowIp'))
    .option('--allowed-origin <origin>', 'publishable key: allowed web origin (repeatable)', collect(asIs))
    .addOption(new Option('--clear-origins', 'publishable key: remove all allowed origins').conflicts('allowedOrigin'))
    .option('--daily-cap <n|none>', 'publishable key: daily cap (none = the server default)', parseCapOrNone)
    .action(run(keySet));
}

export function buildProgram(): Command {
  const program = new Command('tawqi')
    .description('Tawqi operator commands. Uses the store in DATA_DIR (default ./data); safe while the server runs.')
    .exitOverride()
    .showHelpAfterError('(add --help for usage)');
  accountCommands(program);
  keyCommands(program);
  mailCommands(program);
  workflowCommands(program);
  webhookCommands(program, { command, run, emit, withStore, time });
  eventCommands(program, { command, run, emit, withStore, time });
  return program;
}

async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    // Commander has already printed its message (or the help); keep its exit code.
    if (err instanceof CommanderError) process.exitCode = err.exitCode;
    else throw err;
  }
}

await main(process.argv);
