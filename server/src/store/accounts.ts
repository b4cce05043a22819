import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import type { KybStatus, PlanName } from '../domain/plans.js';
import { precompile, runShared } from './compiled.js';
import type { Tx } from './db.js';
import type { AccountsTable } from './schema.js';
import type { Account, AccountBalance } from '../domain/records.js';
export type { Account, AccountBalance };

/** An accounts row as an Account (its JSON columns parsed, its flags as booleans). */
export function accountFromRow(row: Selectable<AccountsTable>): Account {
  return {
    ...row,
    plan: row.plan as PlanName,
    kyb_status: row.kyb_status as KybStatus,
    accepted_domains: JSON.parse(row.accepted_domains) as string[],
    team_emails: JSON.parse(row.team_emails) as string[],
    team_phones: JSON.parse(row.team_phones) as string[],
    whatsapp_enabled: row.whatsapp_enabled === 1,
    branding: JSON.parse(row.branding) as Record<string, unknown>,
    allowed_origins: JSON.parse(row.allowed_origins) as string[],
    identity_match_mode: row.identity_match_mode as 'hold' | 'record',
  };
}

export async function insertAccount(tx: Tx, a: Account): Promise<void> {
  await tx
    .insertInto('accounts')
    .values({
      ...a,
      accepted_domains: JSON.stringify(a.accepted_domains),
      team_emails: JSON.stringify(a.team_emails),
      team_phones: JSON.stringify(a.team_phones),
      whatsapp_enabled: a.whatsapp_enabled ? 1 : 0,
      branding: JSON.stringify(a.branding),
      allowed_origins: JSON.stringify(a.allowed_origins),
    })
    .execute();
}

// Precompiled (compiled.ts): authentication reads the account on every request, a send charges it.
const getQuery = precompile((db, $) => db.selectFrom('accounts').selectAll().where('id', '=', $(0)));
// Read to charge: on PostgreSQL the row is locked first (FOR UPDATE), so in a READ COMMITTED create
// (store.lockingTx) the price is reckoned on the newest balance and no other charge of the account
// runs between this read and the guarded UPDATE. SQLite has one writer at a time and no FOR UPDATE.
const balanceQuery = precompile((db, $, dialect) => {
  const q = db.selectFrom('accounts').select(['plan', 'balance_sends', 'wallet_minor', 'currency']).where('id', '=', $(0));
  return dialect === 'postgres' ? q.forUpdate() : q;
});
const chargeQuery = precompile((db, $) =>
  db
    .updateTable('accounts')
    .set((eb) => ({ balance_sends: eb('balance_sends', '-', $(1)), wallet_minor: eb('wallet_minor', '-', $(2)) }))
    .where('id', '=', $(0))
    .where('balance_sends', '>=', $(1))
    .where('wallet_minor', '>=', $(2)),
);

export async function getAccount(tx: Tx, id: string): Promise<Account | undefined> {
  const row = (await runShared(tx, getQuery, [id])).rows[0];
  return row ? accountFromRow(row) : undefined;
}

/** The balance, to charge it in this transaction (locked on PostgreSQL until the transaction ends). */
export async function getBalance(tx: Tx, id: string): Promise<AccountBalance | undefined> {
  return (await balanceQuery.run(tx, [id])).rows[0] as AccountBalance | undefined;
}

/**
 * Take sends from the yearly balance and money from the wallet, only if both cover it (a guarded
 * UPDATE: neither can go negative, whatever runs concurrently). False when they do not.
 */
export async function chargeAccount(tx: Tx, id: string, sends: number, walletMinor: number): Promise<boolean> {
  const result = await chargeQuery.run(tx, [id, sends, walletMinor]);
  return Number(result.numAffectedRows) === 1;
}

export async function listAccounts(tx: Tx): Promise<Account[]> {
  const rows = await tx.selectFrom('accounts').selectAll().orderBy('id').execute();
  return rows.map(accountFromRow);
}

export async function countAccounts(tx: Tx): Promise<number> {
  const row = await tx
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export type AccountChanges = Partial<Omit<Account, 'id' | 'created_at'>>;

export async function updateAccount(tx: Tx, id: string, changes: AccountChanges): Promise<void> {
  const values: Partial<Record<keyof AccountsTable, unknown>> = {};
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined) continue;
    if (Array.isArray(v) || (typeof v === 'object' && v !== null)) values[k as keyof AccountsTable] = JSON.stringify(v);
    else if (typeof v === 'boolean') values[k as keyof AccountsTable] = v ? 1 : 0;
    else values[k as keyof AccountsTable] = v;
  }
  if (Object.keys(values).length === 0) return;
  await tx
    .updateTable('accounts')
    .set(values as never)
    .where('id', '=', id)
    .execute();
}

/** Add sends to the balance and money to the wallet (an increment: concurrent charges are not overwritten). */
export async function creditAccount(tx: Tx, id: string, sends: number, walletMinor: number): Promise<void> {
  await tx
    .updateTable('accounts')
    .set((eb) => ({ balance_sends: eb('balance_sends', '+', sends), wallet_minor: eb('wallet_minor', '+', walletMinor) }))
    .where('id', '=', id)
    .execute();
}

/** `text` as a LIKE pattern matching it anywhere, its own % _ and \ escaped (both engines: ESCAPE '\'). */
const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Accounts newest first, after the cursor (an account id), whose name or owner email contains
 * `query` (case-insensitive for Latin letters), whose id starts with it, or with a console user
 * whose email contains it. No query: every account. A scan: the operator's search is rare.
 */
export async function searchAccounts(tx: Tx, query: string | undefined, limit: number, startingAfter?: string): Promise<Account[]> {
  let q = tx.selectFrom('accounts').selectAll();
  if (query) {
    const pattern = containsPattern(query.toLowerCase());
    q = q.where((eb) =>
      eb.or([
        eb(sql`lower(name)`, 'like', sql`${pattern} ESCAPE '\\'`),
        eb(sql`lower(coalesce(owner_email, ''))`, 'like', sql`${pattern} ESCAPE '\\'`),
        eb('id', '=', query),
        eb.exists(
          eb
            .selectFrom('console_users as u')
            .select('u.id')
            .whereRef('u.account_id', '=', 'accounts.id')
            .where(sql`u.email`, 'like', sql`${pattern} ESCAPE '\\'`),
        ),
      ]),
    );
  }
  if (startingAfter) q = q.where('id', '<', startingAfter);
  const rows = await q.orderBy('id', 'desc').limit(limit).execute();
  return rows.map(accountFromRow);
}
