/**
 * Small pieces the load-test drivers share: what one autocannon run answered, figures per response,
 * and a diagnostic script run as a child on a fresh database of the run's engine.
 */
import type autocannon from 'autocannon';
import { runChild } from '../create-requests/children.js';
import { postgresEnv, type BenchPostgres } from './postgres.js';

/** Responses received (every status). */
export const completed = (r: autocannon.Result): number => Object.values(r.statusCodeStats).reduce((n, s) => n + s.count, 0);

/** A total in ms per response, to 3 decimals (null when unknown or no response). */
export const perRequest = (ms: number | null, requests: number): number | null =>
  ms === null || requests === 0 ? null : Math.round((ms / requests) * 1000) / 1000;

export const difference = (before: number | null, after: number | null): number | null =>
  before === null || after === null ? null : after - before;

/**
 * Run a diagnostic script (`file`: a file: URL) to its end, on a fresh database of `postgres` when
 * given (dropped after), and return the first JSON line it printed; null when it failed.
 */
export async function diagnosticLine(file: URL, postgres: BenchPostgres | null): Promise<string | null> {
  const databaseUrl = postgres ? await postgres.createDatabase() : null;
  try {
    const { code, stdout } = await runChild(file.href, databaseUrl ? postgresEnv(databaseUrl) : {});
    const line = stdout.split('\n').find((l) => l.startsWith('{'));
    return code === 0 && line ? line : null;
  } finally {
    if (postgres && databaseUrl) await postgres.dropDatabase(databaseUrl);
  }
}
