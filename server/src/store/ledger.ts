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

/** A page of the account's ledger, newest first (ids are time-ordered); `only` looks one id up in that scope (cursor check). */
export async function ledgerPage(tx: Tx, accountId: string, limit: number, startingAfter?: string, only?: string): Promise<LedgerEntry[]> {
  let q = tx.selectFrom('ledger').selectAll().where('account_id', '=', accountId);
  if (startingAfter) q = q.where('id', '<', startingAfter);
  if (only) q = q.where('id', '=', only);
  return q.orderBy('id', 'desc').limit(limit).execute();
}

/** The sum of every ledger row of the account: it equals the account's balances when nothing bypassed the ledger. */
export async function ledgerTotals(tx: Tx, accountId: string): Promise<{ sends: number; walletMinor: number }> {
  const row = await tx
    .selectFrom('ledger')
    .select((eb) => [
      eb.fn.sum<number | string | null>('sends_delta').as('sends'),
      eb.fn.sum<number | string | null>('wallet_delta_minor').as('wallet'),
    ])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return { sends: Number(row?.sends ?? 0), walletMinor: Number(row?.wallet ?? 0) };
}

/** The account's charges and refunds (the rows tied to a request) since `since`, oldest first. */
export async function chargesSince(tx: Tx, accountId: string, since: number): Promise<LedgerEntry[]> {
  return tx
    .selectFrom('ledger')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('created_at', '>=', since)
    .where('signature_request_id', 'is not', null)
    .orderBy('id')
    .execute();
}

/** Signers and identity-checked signers of each request (what a send charged for). */
export async function signerCounts(tx: Tx, requestIds: string[]): Promise<Map<string, { signers: number; identity: number }>> {
  const out = new Map<string, { signers: number; identity: number }>();
  for (let i = 0; i < requestIds.length; i += 500) {
    const rows = await tx
      .selectFrom('signers')
      .select((eb) => [
        'signature_request_id',
        eb.fn.countAll<number | string>().as('signers'),
        eb.fn.sum<number | string | null>('require_identity').as('identity'),
      ])
      .where('signature_request_id', 'in', requestIds.slice(i, i + 500))
      .groupBy('signature_request_id')
      .execute();
    for (const r of rows) out.set(r.signature_request_id, { signers: Number(r.signers), identity: Number(r.identity ?? 0) });
  }
  return out;
}
