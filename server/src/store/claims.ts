import { sql, type RawBuilder } from 'kysely';
import type { Tx } from './db.js';
import type { Claim } from './types.js';

/** A queue table and the column saying when each of its rows is due. */
export type QueueTable =
  { table: 'jobs'; due: 'run_at' } | { table: 'messages'; due: 'deliver_at' } | { table: 'webhook_deliveries'; due: 'next_attempt_at' };

/**
 * PostgreSQL's claim of queue rows, one statement for every queue (jobs.ts, messages.ts,
 * webhooks.ts): lock the oldest rows that are `waiting` and due at `claim.now` and that no other
 * transaction holds (`FOR UPDATE SKIP LOCKED`, so claimers polling at the same moment take
 * different rows and never wait for each other), and lease them: their due time moves to the
 * lease's end (they stop being due, so the due indexes need no extra column, and they are due
 * again if their holder dies) and lease_owner names the claim. Run it in store.lockingTx (READ
 * COMMITTED). Returns `columns` of each row and `due_at`, when it was due before the claim,
 * oldest first.
 */
export async function claimRows<R extends { id: number | string }>(
  tx: Tx,
  queue: QueueTable,
  waiting: RawBuilder<boolean>,
  columns: readonly (keyof R & string)[],
  claim: Claim,
  limit: number,
): Promise<(R & { due_at: number })[]> {
  const due = sql.ref(queue.due);
  const { rows } = await sql<R & { due_at: number }>`
    WITH picked AS MATERIALIZED (
      SELECT id, ${due} AS due_at FROM ${sql.table(queue.table)}
      WHERE ${waiting} AND ${due} <= ${claim.now}
      ORDER BY ${due}, id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE ${sql.table(queue.table)} AS q SET ${due} = ${claim.until}, leased_until = ${claim.until}, lease_owner = ${claim.token}
    FROM picked WHERE q.id = picked.id
    RETURNING ${sql.join(columns.map((c) => sql.ref(`q.${c}`)))}, picked.due_at`.execute(tx);
  // UPDATE … RETURNING keeps no order.
  return rows.sort((a, b) => a.due_at - b.due_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
