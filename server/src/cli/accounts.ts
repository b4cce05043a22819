/**
 * `tawqi account …`: create, inspect and change customer accounts (plan, balance, wallet, domains,
 * team, version pin, switches); balance and wallet changes are written to the ledger. `account
 * branding` is in branding.ts. The four key secrets are printed by `account create` only.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { nowSeconds } from '../clock.js';
import { amount, parseMinor } from '../domain/money.js';
import { KYB_STATUSES, PLAN_NAMES, PLANS, type KybStatus, type PlanName } from '../domain/plans.js';
import { API_VERSIONS, findVersion } from '../domain/versions.js';
import { createAccount, describeKey, OperatorError } from '../services/accounts.js';
import { balanceSetEntry, planChanges, topUpWallet, YEAR_SECONDS } from '../services/accountAdmin.js';
import { listAccounts, updateAccount, type Account, type AccountChanges } from '../store/accounts.js';
import { listKeys } from '../store/apiKeys.js';
import type { Db } from '../store/db.js';
import { insertLedger, listLedger, type LedgerEntry } from '../store/ledger.js';
import { listNotices } from '../store/notices.js';
import { listRequestLog } from '../store/requestLog.js';
import { brandingCommand } from './branding.js';
import { keyLines } from './keys.js';
import {
  clock,
  collect,
  command,
  emit,
  list,
  noneToNull,
  parseCount,
  parseDomain,
  parseEmail,
  parsePositive,
  requireAccount,
  run,
  time,
  withStore,
  type JsonFlag,
  type OrNone,
} from './kit.js';

const SHOWN_LEDGER_ENTRIES = 20;

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

function money(minor: number, currency: string): string {
  return `${(minor / 100).toFixed(2)} ${currency}`;
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
  const wallet =
    e.wallet_delta_minor === 0 ? '' : `  wallet ${e.wallet_delta_minor > 0 ? '+' : ''}${money(e.wallet_delta_minor, currency)}`;
  return `${time(e.created_at)}  ${e.kind}${sends}${wallet}${e.note ? `  (${e.note})` : ''}`;
}

async function accountList(o: JsonFlag): Promise<void> {
  const accounts = await withStore(({ store }) => listAccounts(store.db));
  emit(o, { accounts: accounts.map(presentAccount) }, () =>
    accounts.length === 0
      ? ['No accounts.']
      : accounts.map(
          (a) =>
            `${a.id}  ${a.plan.padEnd(10)} kyb ${a.kyb_status.padEnd(8)} ${String(a.balance_sends).padStart(6)} sends  ${money(a.wallet_minor, a.currency).padStart(14)}  ${a.name}`,
        ),
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
function editList(
  current: readonly string[],
  add: readonly string[] = [],
  remove: readonly string[] = [],
  label: string,
): string[] | undefined {
  if (add.length === 0 && remove.length === 0) return undefined;
  for (const r of remove) if (!current.includes(r) && !add.includes(r)) throw new OperatorError(`${label} ${r} is not on the account`);
  const next = [...new Set([...current, ...add])];
  return next.filter((v) => !remove.includes(v));
}

/** The account fields an `account set` changes, from the options and the current account (the wallet: topUpWallet). */
function accountChanges(a: Account, o: AccountSetOptions, now: number): AccountChanges {
  return {
    kyb_status: o.kyb,
    balance_sends: o.balance,
    version_pin: noneToNull(o.versionPin),
    accepted_domains: editList(a.accepted_domains, o.acceptDomain, o.removeDomain, 'Accepted domain'),
    team_emails: editList(a.team_emails, o.teamEmail, o.removeTeamEmail, 'Team email'),
    team_phones: editList(a.team_phones, o.teamPhone, o.removeTeamPhone, 'Team phone'),
    whatsapp_enabled: o.whatsapp === undefined ? undefined : o.whatsapp === 'on',
    identity_match_mode: o.identityMatch,
    // Same defaults as `account create`: a new paid plan runs a year; no plan has no expiry.
    ...planChanges(a, o.plan, noneToNull(o.planExpires), now),
  };
}

/** Ledger rows for the balance and wallet changes, written in the same transaction as the account. */
async function recordMoneyChanges(trx: Db, a: Account, o: AccountSetOptions): Promise<void> {
  if (o.balance !== undefined) await insertLedger(trx, balanceSetEntry(clock, a, o.balance));
  if (o.walletTopup !== undefined) await topUpWallet(trx, clock, a, o.walletTopup);
}

async function accountSet(id: string, o: AccountSetOptions): Promise<void> {
  const account = await withStore(({ store }) =>
    store.tx(async (trx) => {
      const before = await requireAccount(trx, id);
      const now = nowSeconds(clock);
      const changes = accountChanges(before, o, now);
      if (Object.values(changes).every((v) => v === undefined) && o.walletTopup === undefined)
        throw new OperatorError('Nothing to change; see tawqi account set --help');
      await updateAccount(trx, id, changes);
      await recordMoneyChanges(trx, before, o);
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
    return listRequestLog(store.db, id, { limit: o.limit });
  });
  emit(o, { requests }, () =>
    requests.length === 0
      ? ['No requests logged.']
      : requests.map(
          (r) =>
            `${time(r.created_at)}  ${r.livemode ? 'live' : 'test'}  ${r.status} ${r.code ?? ''}  ${r.method} ${r.path}  from ${r.ip}  key ${r.key_id ?? '—'}  ${r.request_id}`,
        ),
  );
}

const planOption = (flags: string, description: string) => new Option(flags, description).choices(PLAN_NAMES);
const kybOption = (flags: string, description: string) => new Option(flags, description).choices(KYB_STATUSES);

export function accountCommands(program: Command): void {
  const account = program.command('account').description('create, inspect and change customer accounts');

  command(account, 'create', 'create an account and its four API keys (sk_, pk_, sk_test_, pk_test_), shown once')
    .requiredOption('--name <name>', 'company name')
    .addOption(planOption('--plan <plan>', 'subscription plan').default('business'))
    .option(
      '--plan-expires <unix|none>',
      'end of the subscription year, Unix seconds, or none for no end (default: a year from now; none with --plan none)',
      parseUnixOrNone,
    )
    .addOption(kybOption('--kyb <status>', 'company verification status').default('approved'))
    .option('--balance <sends>', "sends left in the yearly balance (default: the plan's yearly sends)", parseCount)
    .option('--wallet <amount>', 'opening wallet amount in the wallet currency, e.g. 250 or 12.50', parseAmount)
    .option('--owner-email <email>', "owner's email (also a team email)", parseEmail)
    .addHelpText('after', `\nYearly sends per plan: ${PLAN_NAMES.map((p) => `${p} ${PLANS[p].sendsPerYear}`).join(', ')}.`)
    .action(run(accountCreate));

  command(account, 'show <id>', 'show an account, its keys (never their secrets) and its latest ledger entries').action(run(accountShow));
  command(account, 'list', 'list all accounts').action(run(accountList));

  command(account, 'set <id>', 'change an account; balance and wallet changes are written to the ledger')
    .addOption(
      planOption(
        '--plan <plan>',
        'subscription plan (a paid plan on an account without expiry gets a year from now; none clears the expiry)',
      ),
    )
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
    .option(
      '--version-pin <date|none>',
      `API version used when a request sends no Svc-Version (${API_VERSIONS.map((v) => v.date).join(', ')}), or none`,
      parseVersionPin,
    )
    .addOption(new Option('--whatsapp <on|off>', 'WhatsApp delivery in live mode').choices(['on', 'off']))
    .addOption(
      new Option(
        '--identity-match <hold|record>',
        'when the name on an identity document differs from the name sent: hold signing until POST /signers/{id}/identity_match decides, or record the difference only',
      ).choices(['hold', 'record']),
    )
    .action(run(accountSet));

  brandingCommand(account);

  command(account, 'notices <id>', "the account owner's notices (e.g. publishable key daily cap warnings)").action(run(accountNotices));
  command(account, 'log <id>', 'the request log: the account’s API requests and their refusals (ip_not_allowed…), newest first')
    .option('--limit <n>', 'at most this many entries', parsePositive, 100)
    .action(run(accountLog));
}
