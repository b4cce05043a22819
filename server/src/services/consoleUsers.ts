/**
 * Console users as the operator and the team screens make them: creating a user, setting a
 * password, turning two-factor on. A user who becomes active joins the account's team_emails (the
 * test-mode recipients, spec part 5) in the same transaction.
 */
import { nowSeconds, type Clock } from '../clock.js';
import type { ConsoleRole } from '../domain/consoleRoles.js';
import { newId } from '../ids.js';
import { getAccount, updateAccount } from '../store/accounts.js';
import { insertConsoleToken, replaceRecoveryCodes } from '../store/consoleSecrets.js';
import { findConsoleUserByEmail, insertConsoleUser, updateConsoleUser, type ConsoleUser } from '../store/consoleUsers.js';
import type { Store, Tx } from '../store/types.js';
import { OperatorError } from './accounts.js';
import { recordAudit, type AuditActor } from './consoleAudit.js';
import { newRecoveryCode, newSecretToken, recoveryCodeHash, sealTotpSecret } from './consoleCrypto.js';

/** How long a link to set a password (from `tawqi user create`) stays good. */
export const SET_PASSWORD_LINK_SECONDS = 7 * 86400;
export const RECOVERY_CODE_COUNT = 10;

export interface NewConsoleUser {
  /** Null with `operator`. */
  accountId: string | null;
  email: string;
  name?: string;
  role: ConsoleRole | 'operator';
  /** A scrypt hash (consolePasswords.ts), or none: the user gets a link to set one. */
  passwordHash?: string | null;
}

/** Add `email` to the account's team_emails (test-mode recipients), once. */
export async function joinTeamEmails(trx: Tx, accountId: string, email: string): Promise<void> {
  const account = await getAccount(trx, accountId);
  if (!account || account.team_emails.includes(email)) return;
  await updateAccount(trx, accountId, { team_emails: [...account.team_emails, email] });
}

/**
 * Create an active user (the operator's CLI): with a password hash, or with a one-time
 * password_reset link token to set one. The audit entry names the operator as actor.
 */
/** A new user row: no second factor, never signed in; an operator exactly when it has no account. */
export function newConsoleUser(
  clock: Clock,
  input: Pick<ConsoleUser, 'email' | 'role' | 'status'> & { accountId: string | null; name?: string; passwordHash?: string | null },
): ConsoleUser {
  const now = nowSeconds(clock);
  return {
    id: newId('consoleUser', clock),
    account_id: input.accountId,
    operator: input.accountId === null ? 1 : 0,
    email: input.email,
    name: input.name ?? '',
    role: input.role,
    status: input.status,
    password_hash: input.passwordHash ?? null,
    totp_secret: null,
    totp_enabled_at: null,
    totp_last_step: null,
    created_at: now,
    updated_at: now,
    last_sign_in_at: null,
  };
}

export async function createActiveUser(
  store: Store,
  clock: Clock,
  input: NewConsoleUser,
  actor: AuditActor,
): Promise<{ user: ConsoleUser; setPasswordToken: string | null }> {
  const now = nowSeconds(clock);
  const email = input.email.trim().toLowerCase();
  return store.tx(async (trx) => {
    if (input.accountId !== null && !(await getAccount(trx, input.accountId))) throw new OperatorError(`No account ${input.accountId}`);
    if (await findConsoleUserByEmail(trx, email)) throw new OperatorError(`A console user with the email ${email} exists already`);
    const user = newConsoleUser(clock, { ...input, email, status: 'active' });
    await insertConsoleUser(trx, user);
    if (input.accountId !== null) await joinTeamEmails(trx, input.accountId, email);
    let setPasswordToken: string | null = null;
    if (user.password_hash === null) {
      const { token, id } = newSecretToken();
      await insertConsoleToken(trx, {
        id,
        kind: 'password_reset',
        user_id: user.id,
        created_at: now,
        expires_at: now + SET_PASSWORD_LINK_SECONDS,
        used_at: null,
      });
      setPasswordToken = token;
    }
    await recordAudit(
      trx,
      clock,
      { ...actor, account_id: input.accountId },
      {
        action: 'user.created',
        target: user.id,
        detail: { email, role: user.role, password: user.password_hash ? 'set' : 'link' },
      },
    );
    return { user, setPasswordToken };
  });
}

/**
 * Turn two-factor on with a confirmed TOTP secret (20 random bytes, as authenticator apps expect):
 * the secret sealed at rest, a fresh set of recovery codes (returned once, stored hashed), an
 * audit entry. Enrolment (showing the secret, confirming a first code) is the caller's.
 */
export async function enableTwoFactor(
  store: Store,
  clock: Clock,
  consoleKey: Buffer,
  user: Pick<ConsoleUser, 'id' | 'account_id' | 'email'>,
  secret: Uint8Array,
  ip: string | null,
): Promise<string[]> {
  const now = nowSeconds(clock);
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await store.tx(async (trx) => {
    await updateConsoleUser(trx, user.id, {
      totp_secret: sealTotpSecret(consoleKey, user.id, secret),
      totp_enabled_at: now,
      updated_at: now,
    });
    await replaceRecoveryCodes(
      trx,
      user.id,
      codes.map((c) => recoveryCodeHash(consoleKey, c)),
    );
    await recordAudit(
      trx,
      clock,
      { account_id: user.account_id, user_id: user.id, actor: user.email, ip },
      { action: 'two_factor.enabled', target: user.id },
    );
  });
  return codes;
}
