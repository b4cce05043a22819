import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../context.js';
import { ApiError } from '../errors.js';
import { qrSvg } from '../domain/qrSvg.js';
import { checkTotp, newTotpSecret, totpBase32, totpUrl } from '../domain/totp.js';
import { recordAudit } from './consoleAudit.js';
import { newRecoveryCode, openTotpSecret, recoveryCodeHash, sealTotpSecret } from './consoleCrypto.js';
import { auditActorOf, queueSecurityNotice, type ConsoleActing } from './consoleLinks.js';
import { verifyPassword } from './consolePasswords.js';
import { enableTwoFactor, RECOVERY_CODE_COUNT } from './consoleUsers.js';
import { countUnusedRecoveryCodes, replaceRecoveryCodes } from '../store/consoleSecrets.js';
import { getConsoleUser, updateConsoleUser, type ConsoleUser } from '../store/consoleUsers.js';
import type { Tx } from '../store/types.js';

/**
 * Enrolling a second factor (TOTP) and managing it. Setup stores a new secret, sealed, with
 * totp_enabled_at still null: pending, so sign-in does not ask for it yet and a new setup replaces
 * it. Confirming with a code from the app turns it on and hands out the recovery codes (once: only
 * their keyed hashes are kept). Turning it off, or a new set of codes, needs the password again.
 */

async function currentUser(tx: Tx, acting: ConsoleActing): Promise<ConsoleUser> {
  const user = await getConsoleUser(tx, acting.user.id);
  // The session middleware found the user a moment ago; one removed since has no session left either.
  if (!user) throw new ApiError('console_session_required');
  return user;
}

const alreadyOn = () => new ApiError('two_factor_already_enabled');
const notOn = () => new ApiError('two_factor_not_enabled');

export interface TwoFactorStatus {
  enabled: boolean;
  recovery_codes_remaining: number;
}

export async function twoFactorStatus(ctx: ServiceContext, acting: ConsoleActing): Promise<TwoFactorStatus> {
  const user = await currentUser(ctx.store.db, acting);
  const enabled = user.totp_enabled_at !== null;
  return { enabled, recovery_codes_remaining: enabled ? await countUnusedRecoveryCodes(ctx.store.db, user.id) : 0 };
}

export interface TwoFactorSetup {
  /** Base32, for typing into an app by hand. */
  secret: string;
  otpauth_url: string;
  /** The same address as a QR code (SVG: paths only, no script, no inline style). */
  qr_svg: string;
}

export async function startTwoFactorSetup(ctx: ServiceContext, acting: ConsoleActing): Promise<TwoFactorSetup> {
  const secret = newTotpSecret();
  const user = await ctx.store.tx(async (trx) => {
    const u = await currentUser(trx, acting);
    if (u.totp_enabled_at !== null) throw alreadyOn();
    const sealed = sealTotpSecret(ctx.secrets.consoleKey, u.id, secret);
    await updateConsoleUser(trx, u.id, { totp_secret: sealed, updated_at: nowSeconds(ctx.clock) });
    return u;
  });
  const otpauthUrl = totpUrl(secret, user.email);
  return { secret: totpBase32(secret), otpauth_url: otpauthUrl, qr_svg: await qrSvg(otpauthUrl) };
}

/** A new set of recovery codes for `userId`, replacing any earlier set; returns them as shown (once). */
async function issueRecoveryCodes(ctx: ServiceContext, trx: Tx, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await replaceRecoveryCodes(
    trx,
    userId,
    codes.map((c) => recoveryCodeHash(ctx.secrets.consoleKey, c)),
  );
  return codes;
}

/** Turn the pending secret on with a code from the app (consoleUsers.ts enableTwoFactor: sealed secret, recovery codes, audit). */
export async function confirmTwoFactor(ctx: ServiceContext, acting: ConsoleActing, code: string): Promise<{ recovery_codes: string[] }> {
  const user = await currentUser(ctx.store.db, acting);
  if (user.totp_enabled_at !== null) throw alreadyOn();
  if (user.totp_secret === null) throw new ApiError('two_factor_setup_required');
  const secret = openTotpSecret(ctx.secrets.consoleKey, user.id, user.totp_secret);
  if (!checkTotp(secret, code, ctx.clock.nowMs())) throw new ApiError('two_factor_code_invalid', 'code');
  return { recovery_codes: await enableTwoFactor(ctx.store, ctx.clock, ctx.secrets.consoleKey, user, secret, acting.ip) };
}

/** The password again, before a security change; hashing is slow, so it runs before any transaction. */
export async function checkPasswordAgain(ctx: ServiceContext, acting: ConsoleActing, password: string, param: string): Promise<void> {
  const user = await currentUser(ctx.store.db, acting);
  if (!user.password_hash || !(await verifyPassword(password, user.password_hash))) {
    throw new ApiError('console_password_incorrect', param);
  }
}

export async function disableTwoFactor(ctx: ServiceContext, acting: ConsoleActing, password: string): Promise<void> {
  await checkPasswordAgain(ctx, acting, password, 'password');
  await ctx.store.tx(async (trx) => {
    const user = await currentUser(trx, acting);
    if (user.totp_enabled_at === null) throw notOn();
    await updateConsoleUser(trx, user.id, { totp_secret: null, totp_enabled_at: null, updated_at: nowSeconds(ctx.clock) });
    await replaceRecoveryCodes(trx, user.id, []);
    await queueSecurityNotice(ctx, trx, user, 'two_factor_disabled', acting);
    await recordAudit(trx, ctx.clock, auditActorOf(acting), { action: 'two_factor.disabled', target: user.id });
  });
  ctx.afterCommit();
}

export async function regenerateRecoveryCodes(
  ctx: ServiceContext,
  acting: ConsoleActing,
  password: string,
): Promise<{ recovery_codes: string[] }> {
  await checkPasswordAgain(ctx, acting, password, 'password');
  const codes = await ctx.store.tx(async (trx) => {
    const user = await currentUser(trx, acting);
    if (user.totp_enabled_at === null) throw notOn();
    const issued = await issueRecoveryCodes(ctx, trx, user.id);
    await recordAudit(trx, ctx.clock, auditActorOf(acting), { action: 'two_factor.recovery_codes_regenerated', target: user.id });
    return issued;
  });
  return { recovery_codes: codes };
}
