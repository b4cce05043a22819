/**
 * The operator's changes to an account's plan and money, shared by the CLI (`tawqi account set`)
 * and the admin console: a plan and its expiry (a new paid plan runs a year unless told otherwise),
 * a wallet top-up and added sends — each money change a ledger entry in the same transaction, the
 * balance changed by an increment so a concurrent charge is never overwritten.
 */
import { nowSeconds, type Clock } from '../clock.js';
import type { PlanName } from '../domain/plans.js';
import { newId } from '../ids.js';
import { creditAccount, type Account, type AccountChanges } from '../store/accounts.js';
import { insertLedger, type LedgerEntry } from '../store/ledger.js';
import type { Tx } from '../store/types.js';
import { OperatorError } from './accounts.js';

export const YEAR_SECONDS = 365 * 86400;

/** The plan fields to write: `planExpiresAt` undefined keeps the expiry, except that none clears it and a first paid plan gets a year. */
export function planChanges(a: Account, plan: PlanName | undefined, planExpiresAt: number | null | undefined, now: number): AccountChanges {
  const changes: AccountChanges = { plan_expires_at: planExpiresAt };
  if (plan !== undefined) {
    changes.plan = plan;
    if (planExpiresAt === undefined && plan === 'none') changes.plan_expires_at = null;
    if (planExpiresAt === undefined && plan !== 'none' && a.plan_expires_at === null) changes.plan_expires_at = now + YEAR_SECONDS;
  }
  return changes;
}

function ledgerRow(clock: Clock, accountId: string, kind: string, sends: number, walletMinor: number, note: string): LedgerEntry {
  return {
    id: newId('ledger', clock),
    account_id: accountId,
    kind,
    sends_delta: sends,
    wallet_delta_minor: walletMinor,
    signature_request_id: null,
    note,
    created_at: nowSeconds(clock),
  };
}

/** Add `minor` to the wallet with a `wallet_topup` ledger entry. */
export async function topUpWallet(trx: Tx, clock: Clock, a: Account, minor: number, note = 'operator wallet top-up'): Promise<LedgerEntry> {
  if (!Number.isSafeInteger(a.wallet_minor + minor)) throw new OperatorError('The wallet would exceed the largest amount it can hold');
  const entry = ledgerRow(clock, a.id, 'wallet_topup', 0, minor, note);
  await creditAccount(trx, a.id, 0, minor);
  await insertLedger(trx, entry);
  return entry;
}

/** Add `sends` to the yearly balance with a `sends_added` ledger entry. */
export async function addSends(trx: Tx, clock: Clock, a: Account, sends: number, note = 'operator added sends'): Promise<LedgerEntry> {
  if (!Number.isSafeInteger(a.balance_sends + sends)) throw new OperatorError('The balance would exceed the largest count it can hold');
  const entry = ledgerRow(clock, a.id, 'sends_added', sends, 0, note);
  await creditAccount(trx, a.id, sends, 0);
  await insertLedger(trx, entry);
  return entry;
}

/** The `balance_set` entry of setting the balance to `sends` (the CLI's --balance). */
export function balanceSetEntry(clock: Clock, a: Account, sends: number): LedgerEntry {
  return ledgerRow(clock, a.id, 'balance_set', sends - a.balance_sends, 0, `operator set the balance to ${sends} sends`);
}
