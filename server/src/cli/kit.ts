/**
 * What every `tawqi` command file shares: the store (opened per command, always closed), output (one
 * JSON object with --json, else text lines), errors (stderr and exit code 1), the subcommand with its
 * --json flag, and the option parsers and text formats more than one command group uses.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { systemClock } from '../clock.js';
import { loadConfig, type Config } from '../config.js';
import { masterKeyFor } from '../masterKey.js';
import type { ServerSecrets } from '../secrets.js';
import { OperatorError } from '../services/accounts.js';
import { getAccount, type Account } from '../store/accounts.js';
import { openStore, type Db, type Store } from '../store/db.js';

export const clock = systemClock;

/** How long a command's write waits for the server's (or another command's) write lock on SQLite. */
const CLI_BUSY_TIMEOUT_MS = 30_000;

// ---------------------------------------------------------------------------------------------
// Plumbing: store, output, errors
// ---------------------------------------------------------------------------------------------

export interface Ctx {
  store: Store;
  config: Config;
}

export interface JsonFlag {
  json?: boolean;
}

/** Open the server's store (DATABASE_URL, or SQLite under DATA_DIR; validated like the server's settings), run `work`, always close. */
export async function withStore<T>(work: (ctx: Ctx) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStore(config.DATA_DIR, {
    databaseUrl: config.DATABASE_URL,
    poolSize: config.TAWQI_PG_POOL_SIZE,
    synchronous: config.TAWQI_SQLITE_SYNCHRONOUS,
    busyTimeoutMs: CLI_BUSY_TIMEOUT_MS,
  });
  try {
    return await work({ store, config });
  } finally {
    await store.close();
  }
}

/**
 * The server secrets (the link key renders signing links): DATA_DIR/secrets.json on SQLite, the
 * database on PostgreSQL — which needs TAWQI_MASTER_KEY, refused naming it when missing or wrong.
 */
export async function serverSecrets(ctx: Ctx): Promise<ServerSecrets> {
  // Imported when needed: key material brings the PKI code (x509, pkijs), which the other commands do without (program.ts).
  const { keyMaterialFor } = await import('../services/keyMaterial.js');
  return keyMaterialFor(ctx.config, masterKeyFor(ctx.config), ctx.store, clock).secrets();
}

/** The address the server is reached at, as the server itself would give it (for links). */
export function serverUrl(config: Config): string {
  if (config.TAWQI_PUBLIC_URL) return config.TAWQI_PUBLIC_URL.replace(/\/+$/, '');
  const wildcard = config.HOST === '0.0.0.0' || config.HOST === '::';
  const host = wildcard ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return `${config.TAWQI_TLS_CERT ? 'https' : 'http'}://${host}:${config.PORT}`;
}

/** Print exactly one JSON object (--json) or the readable text lines. */
export function emit(opts: JsonFlag, data: object, text: () => string[]): void {
  if (opts.json) process.stdout.write(JSON.stringify(data, null, 2) + '\n');
  else process.stdout.write(text().join('\n') + '\n');
}

/** Wrap a command action: any failure becomes a message on stderr and exit code 1. */
export function run<A extends unknown[]>(action: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (err) {
      process.stderr.write(`tawqi: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    }
  };
}

export async function requireAccount(db: Db, id: string): Promise<Account> {
  const account = await getAccount(db, id);
  if (!account) throw new OperatorError(`No account ${id}`);
  return account;
}

/** A subcommand with the --json flag every command has. */
export function command(parent: Command, nameAndArgs: string, description: string): Command {
  return parent.command(nameAndArgs).description(description).option('--json', 'print one JSON object instead of text');
}

// ---------------------------------------------------------------------------------------------
// Argument parsers (commander calls them per value; InvalidArgumentError names the option)
// ---------------------------------------------------------------------------------------------

export function parseCount(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('Expected a whole number (0 or more).');
  return n;
}

export function parsePositive(text: string): number {
  const n = parseCount(text);
  if (n < 1) throw new InvalidArgumentError('Expected a whole number of at least 1.');
  return n;
}

/**
 * Parsers for "X or none" return the string 'none' rather than null: commander replaces a parser's
 * null with ''. Actions turn it into null with `noneToNull`.
 */
export type OrNone<T> = T | 'none';

export function noneToNull<T>(value: OrNone<T> | undefined): T | null | undefined {
  return value === 'none' ? null : value;
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOSTNAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})+$`);

function isHostname(text: string): boolean {
  return HOSTNAME.test(text) && !/^\d+$/.test(text.slice(text.lastIndexOf('.') + 1));
}

/** A bare host name, lowercased: example.com or sign.example.com; no scheme, port or path. */
export function parseDomain(text: string): string {
  const d = text.trim().toLowerCase();
  if (/[/:?#@]/.test(d)) throw new InvalidArgumentError('Give the host name only, e.g. example.com (no scheme, port or path).');
  if (!isHostname(d)) throw new InvalidArgumentError('Not a domain name such as example.com.');
  return d;
}

/** An email address, lowercased. */
export function parseEmail(text: string): string {
  const e = text.trim().toLowerCase();
  const at = e.lastIndexOf('@');
  const local = e.slice(0, at);
  if (at < 1 || local.length > 64 || /[\s@"(),:;<>[\\\]]/.test(local) || !isHostname(e.slice(at + 1))) {
    throw new InvalidArgumentError('Not an email address such as name@example.com.');
  }
  return e;
}

/** Make a repeatable option collect its values into an array. */
export function collect<T>(parse: (text: string) => T): (text: string, previous: T[] | undefined) => T[] {
  return (text, previous) => [...(previous ?? []), parse(text)];
}

// ---------------------------------------------------------------------------------------------
// Text output
// ---------------------------------------------------------------------------------------------

export function time(unix: number | null, none = 'never'): string {
  if (unix === null) return none;
  return `${new Date(unix * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC')} (${unix})`;
}

export function list(items: readonly string[]): string {
  return items.length > 0 ? items.join(', ') : '—';
}
