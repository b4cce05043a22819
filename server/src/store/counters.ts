import { sql } from 'kysely';
import type { Tx } from './db.js';

/** Add one to a durable windowed counter and return its new value (quotas and daily caps survive restarts). */
export async function incrementCounter(tx: Tx, scope: string, windowStart: number, by = 1): Promise<number> {
  const row = await sql<{ count: number }>`
    INSERT INTO counters (scope, window_start, count) VALUES (${scope}, ${windowStart}, ${by})
    ON CONFLICT (scope, window_start) DO UPDATE SET count = count + ${by}
    RETURNING count`.execute(tx);
  return row.rows[0]!.count;
}

export async function readCounter(tx: Tx, scope: string, windowStart: number): Promise<number> {
  const row = await tx.selectFrom('counters').select('count').where('scope', '=', scope).where('window_start', '=', windowStart).executeTakeFirst();
  return row?.count ?? 0;
}

/** Drop windows that ended before `before` (called by the housekeeping job). */
export async function pruneCounters(tx: Tx, before: number): Promise<void> {
  await tx.deleteFrom('counters').where('window_start', '<', before).execute();
}
