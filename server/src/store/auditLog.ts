import type { Selectable } from 'kysely';
import type { AuditLogTable } from './schema.js';
import type { Tx } from './types.js';

/** The audit log (migration 15): append only, read by account in id (= time) order, newest first. */
export type AuditEntry = Omit<Selectable<AuditLogTable>, 'detail'> & { detail: Record<string, unknown> };

export async function insertAuditEntry(tx: Tx, entry: AuditEntry): Promise<void> {
  await tx
    .insertInto('audit_log')
    .values({ ...entry, detail: JSON.stringify(entry.detail) })
    .execute();
}

/** One page of an account's entries, newest first, after the cursor `startingAfter` (an entry id); `only` reads that one entry. */
export async function listAuditEntries(
  tx: Tx,
  accountId: string,
  limit: number,
  startingAfter?: string,
  only?: string,
): Promise<AuditEntry[]> {
  let q = tx.selectFrom('audit_log').selectAll().where('account_id', '=', accountId);
  if (startingAfter) q = q.where('id', '<', startingAfter);
  if (only) q = q.where('id', '=', only);
  const rows = await q.orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => ({ ...r, detail: JSON.parse(r.detail) as Record<string, unknown> }));
}

/**
 * The operator's view, newest first after the cursor: what operators did (`admin.*` on an account)
 * and what concerns no account (operators' own sign-ins). A scan of the log: operators read it rarely.
 */
export async function listOperatorEntries(tx: Tx, limit: number, startingAfter?: string, only?: string): Promise<AuditEntry[]> {
  let q = tx
    .selectFrom('audit_log')
    .selectAll()
    .where((eb) => eb.or([eb('account_id', 'is', null), eb('action', 'like', 'admin.%')]));
  if (startingAfter) q = q.where('id', '<', startingAfter);
  if (only) q = q.where('id', '=', only);
  const rows = await q.orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => ({ ...r, detail: JSON.parse(r.detail) as Record<string, unknown> }));
}
