/**
 * `tawqi user …`: console users. `user create` makes an active user of an account (the first owner
 * is made this way), or with --operator an operator user (no account; issue 16). The user sets a
 * password through a one-time link printed once, or the password comes on standard input.
 */
import { type Command, Option } from 'commander';
import { CONSOLE_ROLES, type ConsoleRole } from '../domain/consoleRoles.js';
import { presentConsoleUser } from '../presenters/console.js';
import { OperatorError } from '../services/accounts.js';
import { hashPassword, passwordProblem } from '../services/consolePasswords.js';
import { createActiveUser, SET_PASSWORD_LINK_SECONDS } from '../services/consoleUsers.js';
import { listConsoleUsers, type ConsoleUser } from '../store/consoleUsers.js';
import { clock, command, emit, parseEmail, requireAccount, run, serverUrl, time, withStore, type JsonFlag } from './kit.js';

/**
 * The console's password page, the one a reset email links to (services/consoleLinks.ts), the
 * token in the fragment (never sent to a server, so never in an access log): the page reads it once
 * and replaces the address at once; console pages send no Referer.
 */
export const SET_PASSWORD_PATH = '/console/reset#token=';
const CLI_ACTOR = 'operator (tawqi CLI)';

interface UserCreateOptions extends JsonFlag {
  account?: string;
  operator?: boolean;
  email: string;
  role?: ConsoleRole;
  name?: string;
  passwordStdin?: boolean;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // One trailing line break (echo, a here-string) is not part of the password.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

async function userCreate(o: UserCreateOptions): Promise<void> {
  if (o.operator ? o.account !== undefined || o.role !== undefined : o.account === undefined || o.role === undefined) {
    throw new OperatorError('Give --account and --role for a user of an account, or --operator alone for an operator');
  }
  const password = o.passwordStdin ? await readStdin() : null;
  const problem = password === null ? null : passwordProblem(password);
  if (problem) throw new OperatorError(`The password on standard input is refused: ${problem.en}`);
  const made = await withStore(async ({ store, config }) => {
    if (o.account) await requireAccount(store.db, o.account);
    const passwordHash = password === null ? null : await hashPassword(password, { logN: config.TAWQI_CONSOLE_SCRYPT_LOG_N });
    const input = { accountId: o.account ?? null, email: o.email, name: o.name, role: o.role ?? ('operator' as const), passwordHash };
    const { user, setPasswordToken } = await createActiveUser(store, clock, input, {
      account_id: null,
      user_id: null,
      actor: CLI_ACTOR,
      ip: null,
    });
    return { user, url: setPasswordToken ? `${serverUrl(config)}${SET_PASSWORD_PATH}${setPasswordToken}` : null };
  });
  const expiresAt = made.url ? made.user.created_at + SET_PASSWORD_LINK_SECONDS : null;
  emit(o, { user: presentConsoleUser(made.user), set_password_url: made.url, set_password_expires_at: expiresAt }, () => [
    ...userLines(made.user),
    ...(made.url
      ? [`Send this one-time link to ${made.user.email} to set the password (shown once; good until ${time(expiresAt)}):`, `  ${made.url}`]
      : ['The password is set; the user can sign in at /console.']),
  ]);
}

function userLines(u: ConsoleUser): string[] {
  const of = u.account_id ? `of ${u.account_id}` : 'operator';
  return [`${u.id}  ${u.email}  ${u.role}  ${u.status}  ${of}${u.name ? `  "${u.name}"` : ''}${u.totp_enabled_at ? '  two-factor' : ''}`];
}

async function userList(o: JsonFlag & { account: string }): Promise<void> {
  const users = await withStore(async ({ store }) => {
    await requireAccount(store.db, o.account);
    return listConsoleUsers(store.db, o.account);
  });
  emit(o, { users: users.map(presentConsoleUser) }, () => (users.length === 0 ? ['No users.'] : users.flatMap(userLines)));
}

export function userCommands(program: Command): void {
  const user = program.command('user').description('console users: create the first owner of an account, or an operator');
  command(user, 'create', 'create an active console user; prints a one-time link to set the password unless --password-stdin')
    .option('--account <id>', 'the account the user belongs to')
    .option('--operator', 'an operator user (no account): the operator screens, issue 16')
    .requiredOption('--email <email>', 'sign-in email (unique across accounts)', parseEmail)
    .addOption(new Option('--role <role>', 'role in the account').choices(CONSOLE_ROLES))
    .option('--name <name>', 'display name')
    .option('--password-stdin', 'read the password from standard input instead of printing a link')
    .action(run(userCreate));
  command(user, 'list', "list an account's console users").requiredOption('--account <id>', 'the account').action(run(userList));
}
