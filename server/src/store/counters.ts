import { sql } from 'kysely';
import { precompile } from './compiled.js';
import type { Tx } from './db.js';

/** Add one to a durable windowed counter and return its new value (quotas and daily caps survive restarts). */
// Precompiled (compiled.ts): test-mode creates count against two daily limits.
// The existing row is named by its table (counters.count): PostgreSQL finds a bare `count` ambiguous
// next to excluded.count. PostgreSQL also types the bare values of INSERT … SELECT by cast.
const incrementQuery = precompile(
  (_db, $) => sql<{ count: number }>`
    INSERT INTO counters (scope, window_start, count) VALUES (${$(0)}, ${$(1)}, ${$(2)})
    ON CONFLICT (scope, window_start) DO UPDATE SET count = counters.count + excluded.count
    RETURNING count`,
);
// The same, but only while the new value stays within a limit: one statement, no read before it.
// (The SELECT's WHERE keeps a fresh row out; the upsert's WHERE keeps an existing one unchanged.)
const boundedIncrementQuery = precompile((_db, $, dialect) =>
  dialect === 'postgres'
    ? sql<{ count: number }>`
    INSERT INTO counters (scope, window_start, count) SELECT CAST(${$(0)} AS TEXT), CAST(${$(1)} AS BIGINT), CAST(${$(2)} AS BIGINT) WHERE CAST(${$(2)} AS BIGINT) <= CAST(${$(3)} AS BIGINT)
    ON CONFLICT (scope, window_start) DO UPDATE SET count = counters.count + excluded.count WHERE counters.count + excluded.count <= CAST(${$(3)} AS BIGINT)
    RETURNING count`
    : sql<{ count: number }>`
    INSERT INTO counters (scope, window_start, count) SELECT ${$(0)}, ${$(1)}, ${$(2)} WHERE ${$(2)} <= ${$(3)}
    ON CONFLICT (scope, window_start) DO UPDATE SET count = count + excluded.count WHERE count + excluded.count <= ${$(3)}
    RETURNING count`,
);

export async function incrementCounter(tx: Tx, scope: string, windowStart: number, by = 1): Promise<number> {
  const row = await incrementQuery.run(tx, [scope, windowStart, by]);
  return row.rows[0]!.count;
}

/** Add `by` to a counter if the result stays within `limit`; false (nothing added) when it would not. */
export async function incrementCounterWithin(tx: Tx, scope: string, windowStart: number, by: number, limit: number): Promise<boolean> {
  const row = await boundedIncrementQuery.run(tx, [scope, windowStart, by, limit]);
  return row.rows.length > 0;
}

/** Drop windows that ended before `before` (called by the housekeeping job). */
export async function pruneCounters(tx: Tx, before: number): Promise<void> {
  await tx.deleteFrom('counters').where('window_start', '<', before).execute();
}
