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

export interface AuditQuery {
  limit: number;
  /** The cursor: entries older than this id. */
  startingAfter?: string;
  /** Only this one entry (the cursor check). */
  only?: string;
  /** Only entries of this action (the console's filter). */
  action?: string;
}

/** One page of an account's entries, newest first. */
export async function listAuditEntries(tx: Tx, accountId: string, q: AuditQuery): Promise<AuditEntry[]> {
  let sel = tx.selectFrom('audit_log').selectAll().where('account_id', '=', accountId);
  if (q.startingAfter) sel = sel.where('id', '<', q.startingAfter);
  if (q.only) sel = sel.where('id', '=', q.only);
  if (q.action) sel = sel.where('action', '=', q.action);
  const rows = await sel.orderBy('id', 'desc').limit(q.limit).execute();
  return rows.map((r) => ({ ...r, detail: JSON.parse(r.detail) as Record<string, unknown> }));
}

/**
 * The operator's view, newest first after the cursor: what operators did (`admin.*` on an account)
 * and what concerns no account (operators' own sign-ins). A scan of the log: operators read it rarely.
 */
export async function listOperatorEntries(tx: Tx, q: AuditQuery): Promise<AuditEntry[]> {
  let sel = tx
    .selectFrom('audit_log')
    .selectAll()
    .where((eb) => eb.or([eb('account_id', 'is', null), eb('action', 'like', 'admin.%')]));
  if (q.startingAfter) sel = sel.where('id', '<', q.startingAfter);
  if (q.only) sel = sel.where('id', '=', q.only);
  if (q.action) sel = sel.where('action', '=', q.action);
  const rows = await sel.orderBy('id', 'desc').limit(q.limit).execute();
  return rows.map((r) => ({ ...r, detail: JSON.parse(r.detail) as Record<string, unknown> }));
}
