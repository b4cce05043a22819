import type { Selectable } from 'kysely';
import type { KeyKind, KeyMode } from '../domain/keys.js';
import { precompile, runShared } from './compiled.js';
import type { Tx } from './db.js';
import { accountFromRow, type Account } from './accounts.js';
import type { AccountsTable, ApiKeysTable } from './schema.js';

export interface ApiKey {
  id: string;
  account_id: string;
  name: string;
  kind: KeyKind;
  mode: KeyMode;
  secret_hash: string;
  last4: string;
  read_only: boolean;
  allowed_ips: string[];
  allowed_origins: string[];
  daily_cap: number | null;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  replaced_by: string | null;
}

function fromRow(row: Selectable<ApiKeysTable>): ApiKey {
  return {
    ...row,
    read_only: row.read_only === 1,
    allowed_ips: JSON.parse(row.allowed_ips) as string[],
    allowed_origins: JSON.parse(row.allowed_origins) as string[],
  };
}

export async function insertKey(tx: Tx, k: ApiKey): Promise<void> {
  await tx
    .insertInto('api_keys')
    .values({
      ...k,
      read_only: k.read_only ? 1 : 0,
      allowed_ips: JSON.stringify(k.allowed_ips),
      allowed_origins: JSON.stringify(k.allowed_origins),
    })
    .execute();
  await indexOrigins(tx, k.id, k.allowed_origins);
}

/** The key_origins rows of a key: exactly its allowed origins (migration 11). */
async function indexOrigins(tx: Tx, keyId: string, origins: readonly string[]): Promise<void> {
  await tx.deleteFrom('key_origins').where('key_id', '=', keyId).execute();
  const distinct = [...new Set(origins)];
  if (distinct.length > 0)
    await tx
      .insertInto('key_origins')
      .values(distinct.map((origin) => ({ origin, key_id: keyId })))
      .execute();
}

// Precompiled (compiled.ts): every CORS preflight runs it. A search of key_origins' primary key by
// origin, then each match's key by its primary key: never a scan of the keys.
export const activeOriginQuery = precompile((db, $) =>
  db
    .selectFrom('key_origins as o')
    .innerJoin('api_keys as k', 'k.id', 'o.key_id')
    .select('o.key_id')
    .where('o.origin', '=', $(0))
    .where('k.kind', '=', 'publishable')
    .where('k.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('k.expires_at', 'is', null), eb('k.expires_at', '>', $(1))]))
    .limit(1),
);

/** Whether at least one publishable key that is neither revoked nor expired at `now` allows this origin. */
export async function originAllowedByAnyKey(tx: Tx, origin: string, now: number): Promise<boolean> {
  return (await activeOriginQuery.run(tx, [origin, now])).rows.length > 0;
}

/** Every column of api_keys, read under a `key_` alias next to the account's own columns. */
const KEY_COLUMNS = [
  'id',
  'account_id',
  'name',
  'kind',
  'mode',
  'secret_hash',
  'last4',
  'read_only',
  'allowed_ips',
  'allowed_origins',
  'daily_cap',
  'created_at',
  'expires_at',
  'revoked_at',
  'replaced_by',
] as const satisfies readonly (keyof ApiKeysTable)[];
// A column added to api_keys must be added above (this fails to compile until it is).
const everyKeyColumn: Exclude<keyof ApiKeysTable, (typeof KEY_COLUMNS)[number]> extends never ? true : never = true;
void everyKeyColumn;

// Precompiled: every request with a key runs it. The key and its account in one read (one statement,
// one read transaction on SQLite, one round trip on PostgreSQL) instead of two.
const withAccountQuery = precompile((db, $) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .selectAll('a')
    .select(KEY_COLUMNS.map((c) => `k.${c} as key_${c}` as const))
    .where('k.secret_hash', '=', $(0)),
);

/** The key with this hash and its account; undefined when there is no such key (or, impossibly, no account). */
export async function findKeyWithAccount(tx: Tx, hash: string): Promise<{ key: ApiKey; account: Account } | undefined> {
  const row = (await runShared(tx, withAccountQuery, [hash])).rows[0] as Record<string, unknown> | undefined;
  if (!row) return undefined;
  const key: Record<string, unknown> = {};
  const account: Record<string, unknown> = {};
  for (const column in row) {
    if (column.startsWith('key_')) key[column.slice(4)] = row[column];
    else account[column] = row[column];
  }
  return { key: fromRow(key as Selectable<ApiKeysTable>), account: accountFromRow(account as Selectable<AccountsTable>) };
}

export async function getKey(tx: Tx, id: string): Promise<ApiKey | undefined> {
  const row = await tx.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

export async function listKeys(tx: Tx, accountId: string): Promise<ApiKey[]> {
  const rows = await tx.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  return rows.map(fromRow);
}

export async function updateKey(
  tx: Tx,
  id: string,
  changes: Partial<Pick<ApiKey, 'expires_at' | 'revoked_at' | 'replaced_by' | 'allowed_ips' | 'allowed_origins' | 'daily_cap' | 'name'>>,
): Promise<void> {
  const values: Record<string, unknown> = { ...changes };
  if (changes.allowed_ips) values.allowed_ips = JSON.stringify(changes.allowed_ips);
  if (changes.allowed_origins) values.allowed_origins = JSON.stringify(changes.allowed_origins);
  await tx
    .updateTable('api_keys')
    .set(values as never)
    .where('id', '=', id)
    .execute();
  if (changes.allowed_origins) await indexOrigins(tx, id, changes.allowed_origins);
}
