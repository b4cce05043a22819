import { sql } from 'kysely';
import { precompile } from './compiled.js';
import type { Tx } from './db.js';
import { dialectOf } from './dialect.js';

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
/** A counter to bump: by `by` in the window starting at `windowStart`; `limit` bounds a bounded one. */
export interface CounterBump {
  scope: string;
  windowStart: number;
  by: number;
}

// PostgreSQL: the plain bump and the bounded one in one statement (two data-modifying CTEs on two
// rows: each runs once, and each decides by its own row as the single statements do).
const bothQuery = precompile(
  (_db, $) => sql<{ counted: number; within: number | null }>`
    WITH counted AS (
      INSERT INTO counters (scope, window_start, count) VALUES (CAST(${$(0)} AS TEXT), CAST(${$(1)} AS BIGINT), CAST(${$(2)} AS BIGINT))
      ON CONFLICT (scope, window_start) DO UPDATE SET count = counters.count + excluded.count
      RETURNING count
    ), within AS (
      INSERT INTO counters (scope, window_start, count) SELECT CAST(${$(3)} AS TEXT), CAST(${$(4)} AS BIGINT), CAST(${$(5)} AS BIGINT) WHERE CAST(${$(5)} AS BIGINT) <= CAST(${$(6)} AS BIGINT)
      ON CONFLICT (scope, window_start) DO UPDATE SET count = counters.count + excluded.count WHERE counters.count + excluded.count <= CAST(${$(6)} AS BIGINT)
      RETURNING count
    )
    SELECT (SELECT count FROM counted) AS counted, (SELECT count FROM within) AS within`,
);

/**
 * incrementCounter of `plain` and incrementCounterWithin of `bounded` (another row), in one
 * statement on PostgreSQL (a test-mode create's requests and emails of the day: one round trip
 * less per create); two on SQLite, where a statement is a function call. The bounded bump is made
 * whatever the plain count comes to: a caller refusing on it undoes its transaction anyway.
 */
export async function incrementCounters(
  tx: Tx,
  plain: CounterBump,
  bounded: CounterBump & { limit: number },
): Promise<{ count: number; within: boolean }> {
  if (dialectOf(tx) === 'sqlite') {
    const count = await incrementCounter(tx, plain.scope, plain.windowStart, plain.by);
    return { count, within: await incrementCounterWithin(tx, bounded.scope, bounded.windowStart, bounded.by, bounded.limit) };
  }
  const { rows } = await bothQuery.run(tx, [
    plain.scope,
    plain.windowStart,
    plain.by,
    bounded.scope,
    bounded.windowStart,
    bounded.by,
    bounded.limit,
  ]);
  return { count: Number(rows[0]!.counted), within: rows[0]!.within !== null };
}

export async function pruneCounters(tx: Tx, before: number): Promise<void> {
  await tx.deleteFrom('counters').where('window_start', '<', before).execute();
}
