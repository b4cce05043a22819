/**
 * In a benchmark's server process: the database settings its driver passed in the environment
 * (support/postgres.ts `postgresEnv`), to hand to loadConfig beside the benchmark's own settings.
 * Nothing on SQLite. Kept apart from support/postgres.ts so a server on SQLite never loads pg.
 */
const NAMES = ['DATABASE_URL', 'TAWQI_PG_POOL_SIZE', 'TAWQI_MASTER_KEY'] as const;

export function databaseSettingsFromEnv(): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of NAMES) {
    const value = process.env[name];
    if (value) picked[name] = value;
  }
  return picked;
}
