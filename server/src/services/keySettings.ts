import { nowSeconds, type Clock } from '../clock.js';
import { getKey, updateKey, type ApiKey } from '../store/apiKeys.js';
import type { Db, Store } from '../store/db.js';
import { KEY_RULES, KeyRuleError, normaliseAllowedIps, normaliseOrigin } from './accounts.js';

/** What may change on a key after it is issued; a list given replaces the key's list. */
export interface KeySettings {
  name?: string;
  allowedIps?: readonly string[];
  allowedOrigins?: readonly string[];
  /** null: back to the server default (TAWQI_PUBLISHABLE_DAILY_CAP). */
  dailyCap?: number | null;
}

/** The stored changes for `settings`, checked against the key's type (an empty list is always allowed: it clears). */
function keyChanges(k: ApiKey, settings: KeySettings): Parameters<typeof updateKey>[2] {
  const changes: Parameters<typeof updateKey>[2] = {};
  if (settings.name !== undefined) {
    if (!settings.name.trim()) throw new KeyRuleError('--name must not be empty', 'الاسم لا يكون فارغًا.', 'name');
    changes.name = settings.name.trim();
  }
  if (settings.allowedIps !== undefined) {
    if (k.kind === 'publishable' && settings.allowedIps.length > 0) throw KEY_RULES.ipsOnSecret();
    changes.allowed_ips = [...new Set(normaliseAllowedIps(settings.allowedIps))];
  }
  if (settings.allowedOrigins !== undefined) {
    if (k.kind === 'secret' && settings.allowedOrigins.length > 0) throw KEY_RULES.originsOnPublishable();
    changes.allowed_origins = [...new Set(settings.allowedOrigins.map(normaliseOrigin))];
  }
  if (settings.dailyCap !== undefined) {
    if (k.kind === 'secret') throw KEY_RULES.capOnPublishable();
    changes.daily_cap = settings.dailyCap;
  }
  return changes;
}

/**
 * Change a working key's name, IP allowlist, allowed origins or daily cap, in one transaction.
 * A revoked or expired key cannot change. Returns the key before and after.
 */
export async function changeKeySettings(store: Store, clock: Clock, keyId: string, settings: KeySettings): Promise<KeyChange> {
  return store.tx((trx) => changeKeySettingsIn(trx, clock, keyId, settings));
}

export interface KeyChange {
  before: ApiKey;
  after: ApiKey;
}

/** changeKeySettings in the caller's transaction (the console writes its audit entry in the same one). */
export async function changeKeySettingsIn(trx: Db, clock: Clock, keyId: string, settings: KeySettings): Promise<KeyChange> {
  const now = nowSeconds(clock);
  const before = await getKey(trx, keyId);
  if (!before) throw new KeyRuleError(`No key ${keyId}`, 'المفتاح غير موجود.', 'id');
  if (before.revoked_at !== null || (before.expires_at !== null && before.expires_at <= now)) {
    throw new KeyRuleError(
      `Key ${keyId} no longer works; nothing to change`,
      'هذا المفتاح لم يعد يعمل؛ لا شيء لتغييره.',
      'id',
      'invalid_state',
    );
  }
  const changes = keyChanges(before, settings);
  if (Object.keys(changes).length > 0) await updateKey(trx, keyId, changes);
  return { before, after: (await getKey(trx, keyId))! };
}
