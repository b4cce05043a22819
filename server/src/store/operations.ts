import { sql } from 'kysely';
import type { QueueStats } from '../metrics.js';
import type { Tx } from './db.js';
import { MIGRATIONS } from './migrations.js';

/** The newest migration this code knows; the store is ready when the database has it. */
export const LATEST_MIGRATION = Math.max(...MIGRATIONS.map((m) => m.id));

/** The newest migration applied to the database (a trivial query: GET /readyz). */
export async function appliedMigration(db: Tx): Promise<number | null> {
  const row = await db
    .withTables<{ schema_migrations: { id: number } }>()
    .selectFrom('schema_migrations')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return row?.id == null ? null : Number(row.id);
}

interface Row {
  waiting: number | string | bigint;
  due: number | string | bigint | null;
  first: number | string | null;
}

function stats(queue: QueueStats['queue'], row: Row | undefined, now: number): QueueStats {
  const first = row?.first == null ? null : Number(row.first);
  return {
    queue,
    waiting: Number(row?.waiting ?? 0),
    due: Number(row?.due ?? 0),
    oldestDueAge: first !== null && first <= now ? now - first : 0,
  };
}

/**
 * Depth of the durable queues for GET /metrics: jobs, the message outbox and webhook deliveries.
 * One aggregate per queue over its waiting rows only (the state literals are written into the SQL so
 * the partial indexes apply); portable SQL.
 */
export async function queueStats(db: Tx, now: number): Promise<QueueStats[]> {
  const jobs = await db
    .selectFrom('jobs')
    .where('state', '=', sql.lit('pending'))
    .select((eb) => [
      eb.fn.countAll().as('waiting'),
      eb.fn.sum(eb.case().when('run_at', '<=', now).then(1).else(0).end()).as('due'),
      eb.fn.min('run_at').as('first'),
    ])
    .executeTakeFirst();
  const messages = await db
    .selectFrom('messages')
    .where('state', '=', sql.lit('queued'))
    .select((eb) => [
      eb.fn.countAll().as('waiting'),
      eb.fn.sum(eb.case().when('deliver_at', '<=', now).then(1).else(0).end()).as('due'),
      eb.fn.min('deliver_at').as('first'),
    ])
    .executeTakeFirst();
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .where('status', '=', sql.lit('pending'))
    .select((eb) => [
      eb.fn.countAll().as('waiting'),
      eb.fn.sum(eb.case().when('next_attempt_at', '<=', now).then(1).else(0).end()).as('due'),
      eb.fn.min('next_attempt_at').as('first'),
    ])
    .executeTakeFirst();
  return [
    stats('jobs', jobs as Row | undefined, now),
    stats('messages', messages as Row | undefined, now),
    stats('webhook_deliveries', deliveries as Row | undefined, now),
  ];
}
