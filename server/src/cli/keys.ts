/** `tawqi key …`: issue, list, rotate, revoke and restrict API keys. Secrets are printed by create and rotate only. */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { nowSeconds } from '../clock.js';
import { ROTATION_GRACE_SECONDS } from '../domain/keys.js';
import { describeKey, issueKey, OperatorError, revokeKey, rotateKey } from '../services/accounts.js';
import { changeKeySettings, type KeySettings } from '../services/keySettings.js';
import { getKey, listKeys, type ApiKey } from '../store/apiKeys.js';
import type { Db } from '../store/db.js';
import {
  clock,
  collect,
  command,
  emit,
  list,
  noneToNull,
  parsePositive,
  requireAccount,
  run,
  time,
  withStore,
  type JsonFlag,
  type OrNone,
} from './kit.js';

async function requireKey(db: Db, id: string): Promise<ApiKey> {
  const key = await getKey(db, id);
  if (!key) throw new OperatorError(`No key ${id}`);
  return key;
}

function parseGraceHours(text: string): number {
  const hours = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || hours > ROTATION_GRACE_SECONDS / 3600) {
    throw new InvalidArgumentError(`Expected hours from 0 to ${ROTATION_GRACE_SECONDS / 3600} (0 stops the old key at once).`);
  }
  return hours;
}

function parseCapOrNone(text: string): OrNone<number> {
  return text === 'none' ? 'none' : parsePositive(text);
}

const asIs = (text: string): string => text;

type KeyView = ReturnType<typeof describeKey>;

export function keyLines(k: KeyView): string[] {
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
  return [
    `Note: ${k.id} has no allowed origins, so every request with it is refused; add one with: tawqi key set ${k.id} --allowed-origin https://…`,
  ];
}

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
    old.state === 'expired'
      ? `The previous key ${old.id} stopped now.`
      : `The previous key ${old.id} keeps working until ${time(old.expires_at)}; stop it earlier with: tawqi key revoke ${old.id}`,
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

/** The settings a `key set` changes; lists given here replace the key's lists. */
function keySettings(o: KeySetOptions): KeySettings {
  return {
    name: o.name,
    allowedIps: o.allowIp !== undefined || o.clearIps ? (o.allowIp ?? []) : undefined,
    allowedOrigins: o.allowedOrigin !== undefined || o.clearOrigins ? (o.allowedOrigin ?? []) : undefined,
    dailyCap: o.dailyCap === undefined ? undefined : noneToNull(o.dailyCap),
  };
}

async function keySet(id: string, o: KeySetOptions): Promise<void> {
  const settings = keySettings(o);
  if (Object.values(settings).every((v) => v === undefined)) throw new OperatorError('Nothing to change; see tawqi key set --help');
  const { after } = await withStore(({ store }) => changeKeySettings(store, clock, id, settings));
  const view = describeKey(after, nowSeconds(clock));
  emit(o, { key: view }, () => ['Updated.', ...keyLines(view), ...originsReminder(view)]);
}

export function keyCommands(program: Command): void {
  const key = program.command('key').description('issue, list, rotate, revoke and restrict API keys');

  command(key, 'create', 'issue a new API key; its secret is shown once')
    .requiredOption('--account <id>', 'account id')
    .addOption(new Option('--type <type>', 'key type').choices(['secret', 'publishable']).makeOptionMandatory())
    .addOption(new Option('--mode <mode>', 'live or test key').choices(['live', 'test']).makeOptionMandatory())
    .option('--name <name>', 'a label for the key', 'default')
    .option('--read-only', 'secret key that may only read (writes give 403 forbidden)')
    .option('--allow-ip <cidr>', 'secret key: accept requests only from this address or CIDR range (repeatable, up to 50)', collect(asIs))
    .option(
      '--allowed-origin <origin>',
      'publishable key: a web origin allowed to use it, e.g. https://shop.example.com (repeatable)',
      collect(asIs),
    )
    .option('--daily-cap <n>', 'publishable key: daily cap on signature request creation', parsePositive)
    .action(run(keyCreate));

  command(key, 'list', "list an account's keys (never their secrets)").requiredOption('--account <id>', 'account id').action(run(keyList));

  command(
    key,
    'rotate <keyId>',
    'issue a new key with the same name, permissions and lists; the old one keeps working for the grace period',
  )
    .option(
      '--grace-hours <hours>',
      'how long the old key keeps working (0 = stops at once)',
      parseGraceHours,
      ROTATION_GRACE_SECONDS / 3600,
    )
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
