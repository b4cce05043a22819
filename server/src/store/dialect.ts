import { PostgresAdapter, type QueryExecutor } from 'kysely';

/**
 * The two engines of the one store (db.ts, openStore): SQLite under DATA_DIR (the default) or
 * PostgreSQL (DATABASE_URL). Repositories are written once; where the SQL of the two must differ
 * (a handful of raw statements), they ask which engine a connection or transaction belongs to.
 * Nothing above store/ branches on the engine.
 */
export type Dialect = 'sqlite' | 'postgres';

/** The engine of a store's Kysely instance, one of its transactions or a held connection. */
export function dialectOf(db: { getExecutor(): QueryExecutor }): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
