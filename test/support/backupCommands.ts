/**
 * The backup and restore commands of README "Backup and restore", in one place: the test
 * (test/server/backup-restore.test.ts) and the benchmark (bench/backup) run exactly these argument
 * lists, and the test checks that the README shows each one as `shown()` renders it, so the
 * documented commands cannot drift from the tested ones.
 *
 * A `$NAME` word is a placeholder: the README shows it as "$NAME" (a shell variable, quoted), a
 * run fills it in with `argv()`.
 */

export interface Command {
  /** The program as the README shows it (`npx tawqi` is run from source by the test's runCli). */
  program: string;
  args: readonly string[];
}

export const BACKUP_COMMANDS = {
  /** SQLite: an online backup of DATA_DIR (database, keys, files) into a new or empty folder. */
  sqliteBackup: { program: 'npx tawqi', args: ['db', 'backup', '--to', '$BACKUP_DIR'] },
  /** PostgreSQL: one consistent snapshot of the database (rows, encrypted keys, files), while the servers run. */
  pgDump: { program: 'pg_dump', args: ['-Fc', '--dbname', '$DATABASE_URL', '--file', '$DUMP'] },
  /** PostgreSQL: into a new, empty database; the servers then start on it with the same TAWQI_MASTER_KEY. */
  pgRestore: { program: 'pg_restore', args: ['--no-owner', '--exit-on-error', '--dbname', '$RESTORED_URL', '$DUMP'] },
} satisfies Record<string, Command>;

const PLACEHOLDER = /^\$[A-Z_]+$/;

/** The command line as the README shows it. */
export function shown(command: Command): string {
  return [command.program, ...command.args.map((a) => (PLACEHOLDER.test(a) ? `"${a}"` : a))].join(' ');
}

/** The arguments with every placeholder filled in (a missing value is a mistake in the caller). */
export function argv(command: Command, values: Record<string, string>): string[] {
  return command.args.map((a) => {
    if (!PLACEHOLDER.test(a)) return a;
    const value = values[a.slice(1)];
    if (value === undefined) throw new Error(`no value for ${a} in ${shown(command)}`);
    return value;
  });
}
