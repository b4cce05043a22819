/**
 * The console's API keys (issue 15 point 4): the same services the operator's `tawqi key`
 * commands use, scoped to the signed-in user's account (another account's key is not found) and
 * each change written to the audit log in the change's own transaction.
 */
import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../context.js';
import type { KeyKind, KeyMode } from '../domain/keys.js';
import { ApiError } from '../errors.js';
import { getKey, listKeys, type ApiKey } from '../store/apiKeys.js';
import type { Db } from '../store/db.js';
import { describeKey, issueKey, KeyRuleError, revokeKeyIn, rotateKeyIn } from './accounts.js';
import { recordAudit, type AuditActor } from './consoleAudit.js';
import { changeKeySettingsIn, type KeySettings } from './keySettings.js';

export type KeyView = Omit<ReturnType<typeof describeKey>, 'account_id'> & { object: 'api_key' };

export function presentKey(k: ApiKey, now: number): KeyView {
  const { account_id: _account, ...view } = describeKey(k, now);
  return { ...view, object: 'api_key' };
}

/** A key rule the services refused, in the envelope (400 parameter_invalid or 409 invalid_state, both languages). */
export function keyRuleAsApiError(err: unknown): unknown {
  if (!(err instanceof KeyRuleError)) return err;
  return new ApiError(err.code, err.param, {}, {}, { en: err.message, ar: err.ar });
}

/** Run a key change in one transaction, key rules answered in the envelope. */
async function keyChange<T>(ctx: ServiceContext, work: (trx: Db) => Promise<T>): Promise<T> {
  try {
    return await ctx.store.tx(work);
  } catch (err) {
    throw keyRuleAsApiError(err);
  }
}

/** The account's key `id`; another account's, or none: 404 not_found. */
async function ownKey(trx: Db, accountId: string, id: string): Promise<ApiKey> {
  const key = await getKey(trx, id);
  if (!key || key.account_id !== accountId) throw new ApiError('not_found', 'id');
  return key;
}

export async function listAccountKeys(ctx: ServiceContext, accountId: string): Promise<KeyView[]> {
  const now = nowSeconds(ctx.clock);
  return (await listKeys(ctx.store.db, accountId)).map((k) => presentKey(k, now)).reverse();
}

export interface NewKeyInput {
  type: KeyKind;
  mode: KeyMode;
  name?: string;
  read_only?: boolean;
  allowed_ips?: string[];
  allowed_origins?: string[];
  daily_cap?: number | null;
}

/** A new key; its secret is in this answer only. */
export async function createAccountKey(ctx: ServiceContext, who: AuditActor & { account_id: string }, input: NewKeyInput) {
  return keyChange(ctx, async (trx) => {
    const issued = await issueKey(trx, ctx.clock, who.account_id, input.type, input.mode, {
      name: input.name,
      readOnly: input.read_only,
      allowedIps: input.allowed_ips,
      allowedOrigins: input.allowed_origins,
      dailyCap: input.daily_cap ?? null,
    });
    await recordAudit(trx, ctx.clock, who, {
      action: 'key.created',
      target: issued.key.id,
      detail: { type: input.type, mode: input.mode, name: issued.key.name, read_only: issued.key.read_only },
    });
    return { key: presentKey(issued.key, nowSeconds(ctx.clock)), secret: issued.secret };
  });
}

/** A new key in the old one's place; the old one works `graceSeconds` more (0: stops now). */
export async function rotateAccountKey(ctx: ServiceContext, who: AuditActor & { account_id: string }, id: string, graceSeconds: number) {
  return keyChange(ctx, async (trx) => {
    await ownKey(trx, who.account_id, id);
    const issued = await rotateKeyIn(trx, ctx.clock, id, graceSeconds);
    const previous = (await getKey(trx, id))!;
    await recordAudit(trx, ctx.clock, who, {
      action: 'key.rotated',
      target: id,
      detail: { new_key: issued.key.id, old_key_expires_at: previous.expires_at },
    });
    const now = nowSeconds(ctx.clock);
    return { key: presentKey(issued.key, now), secret: issued.secret, previous: presentKey(previous, now) };
  });
}

export async function revokeAccountKey(ctx: ServiceContext, who: AuditActor & { account_id: string }, id: string): Promise<KeyView> {
  return keyChange(ctx, async (trx) => {
    const before = await ownKey(trx, who.account_id, id);
    const key = await revokeKeyIn(trx, ctx.clock, id);
    // Revoking twice changes nothing and records nothing.
    if (before.revoked_at === null) await recordAudit(trx, ctx.clock, who, { action: 'key.revoked', target: id });
    return presentKey(key, nowSeconds(ctx.clock));
  });
}

/** Change allowlist, allowed origins, daily cap or name; the audit entry names what changed and to what. */
export async function changeAccountKey(
  ctx: ServiceContext,
  who: AuditActor & { account_id: string },
  id: string,
  settings: KeySettings,
): Promise<KeyView> {
  return keyChange(ctx, async (trx) => {
    await ownKey(trx, who.account_id, id);
    const { after } = await changeKeySettingsIn(trx, ctx.clock, id, settings);
    const detail: Record<string, unknown> = {};
    if (settings.name !== undefined) detail.name = after.name;
    if (settings.allowedIps !== undefined) detail.allowed_ips = after.allowed_ips;
    if (settings.allowedOrigins !== undefined) detail.allowed_origins = after.allowed_origins;
    if (settings.dailyCap !== undefined) detail.daily_cap = after.daily_cap;
    await recordAudit(trx, ctx.clock, who, { action: 'key.updated', target: id, detail });
    return presentKey(after, nowSeconds(ctx.clock));
  });
}
