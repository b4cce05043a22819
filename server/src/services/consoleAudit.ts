/** Writing the audit log: one entry per sign-in, failed sign-in and security change, in the caller's transaction. */
import { nowSeconds, type Clock } from '../clock.js';
import { newId } from '../ids.js';
import { insertAuditEntry } from '../store/auditLog.js';
import type { Tx } from '../store/types.js';

/** Who acted, as the entry records it. */
export interface AuditActor {
  account_id: string | null;
  user_id: string | null;
  /** The email at the time. */
  actor: string;
  ip: string | null;
}

export interface AuditRecord {
  action: string;
  target?: string | null;
  detail?: Record<string, unknown>;
}

export async function recordAudit(trx: Tx, clock: Clock, who: AuditActor, what: AuditRecord): Promise<void> {
  await insertAuditEntry(trx, {
    id: newId('auditEntry', clock),
    ...who,
    action: what.action,
    target: what.target ?? null,
    detail: what.detail ?? {},
    created_at: nowSeconds(clock),
  });
}
