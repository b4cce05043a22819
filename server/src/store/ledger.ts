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
