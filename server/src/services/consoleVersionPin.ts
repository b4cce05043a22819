/** The account's API version pin from the console: the version used when a request sends no Svc-Version. */
import type { ServiceContext } from '../context.js';
import { API_VERSIONS } from '../domain/versions.js';
import { ApiError, invalidParam } from '../errors.js';
import { getAccount, updateAccount } from '../store/accounts.js';
import { recordAudit, type AuditActor } from './consoleAudit.js';

export interface VersionPinView {
  object: 'version_pin';
  /** null: the server default applies. */
  version_pin: string | null;
  default_version: string;
  versions: { date: string; sunset: string | null }[];
}

export function versionPinView(ctx: ServiceContext, pin: string | null): VersionPinView {
  return {
    object: 'version_pin',
    version_pin: pin,
    default_version: ctx.config.TAWQI_DEFAULT_VERSION,
    versions: API_VERSIONS.map((v) => ({ date: v.date, sunset: v.sunset ?? null })),
  };
}

export async function readVersionPin(ctx: ServiceContext, accountId: string): Promise<VersionPinView> {
  const account = await getAccount(ctx.store.db, accountId);
  if (!account) throw new ApiError('not_found');
  return versionPinView(ctx, account.version_pin);
}

/** Pin a dated version (or null: unpin); audited with the version before and after. */
export async function setVersionPin(
  ctx: ServiceContext,
  who: AuditActor & { account_id: string },
  version: string | null,
): Promise<VersionPinView> {
  if (version !== null && !API_VERSIONS.some((v) => v.date === version)) {
    const known = API_VERSIONS.map((v) => v.date).join(', ');
    throw invalidParam(
      'version_pin',
      `Unknown API version ${version}; known: ${known}.`,
      `إصدار غير معروف ${version}؛ الإصدارات: ${known}.`,
    );
  }
  return ctx.store.tx(async (trx) => {
    const account = await getAccount(trx, who.account_id);
    if (!account) throw new ApiError('not_found');
    if (account.version_pin !== version) {
      await updateAccount(trx, account.id, { version_pin: version });
      await recordAudit(trx, ctx.clock, who, {
        action: 'version_pin.changed',
        target: account.id,
        detail: { from: account.version_pin, to: version },
      });
    }
    return versionPinView(ctx, version);
  });
}
