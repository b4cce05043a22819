import { sql } from 'kysely';
import { precompile } from './compiled.js';
import type { Tx } from './db.js';

/** Add one to a durable windowed counter and return its new value (quotas and daily caps survive restarts). */
// Precompiled (compiled.ts): test-mode creates count against two daily limits.
const incrementQuery = precompile(
  (_db, $) => sql<{ count: number }>`
    INSERT INTO counters (scope, window_start, count) VALUES (${$(0)}, ${$(1)}, ${$(2)})
    ON CONFLICT (scope, window_start) DO UPDATE SET count = count + ${$(2)}
    RETURNING count`,
);
const readQuery = precompile((db, $) => db.selectFrom('counters').select('count').where('scope', '=', $(0)).where('window_start', '=', $(1)));

export async function incrementCounter(tx: Tx, scope: string, windowStart: number, by = 1): Promise<number> {
  const row = await incrementQuery.run(tx, [scope, windowStart, by]);
  return row.rows[0]!.count;
}

export async function readCounter(tx: Tx, scope: string, windowStart: number): Promise<number> {
  const row = (await readQuery.run(tx, [scope, windowStart])).rows[0];
  return row?.count ?? 0;
}

/** Drop windows that ended before `before` (called by the housekeeping job). */
export async function pruneCounters(tx: Tx, before: number): Promise<void> {
  await tx.deleteFrom('counters').where('window_start', '<', before).execute();
}
