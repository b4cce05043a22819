import { insertRow } from './compiled.js';
import type { Tx } from './db.js';
import type { LedgerEntry } from '../domain/records.js';

export type { LedgerEntry };

export async function insertLedger(tx: Tx, entry: LedgerEntry): Promise<void> {
  await insertRow(tx, 'ledger', entry as unknown as Record<string, unknown>);
}

export async function listLedger(tx: Tx, accountId: string): Promise<LedgerEntry[]> {
  return tx.selectFrom('ledger').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

/** One page of an account's ledger, newest first, after the cursor (an entry id); `only` reads that one entry. */
export async function ledgerPage(tx: Tx, accountId: string, limit: number, startingAfter?: string, only?: string): Promise<LedgerEntry[]> {
  let q = tx.selectFrom('ledger').selectAll().where('account_id', '=', accountId);
  if (startingAfter) q = q.where('id', '<', startingAfter);
  if (only) q = q.where('id', '=', only);
  return q.orderBy('id', 'desc').limit(limit).execute();
}
