/**
 * Readings of what the database has done so far, taken between the phases of bench/capacity:
 * statements and transactions as the client sent them (support/statements.ts), statements as the
 * server counted them (pg_stat_statements), the WAL position, each table's size with its indexes
 * (and TOAST), and the bytes given to the file storage. A phase's cost is the difference of the
 * readings around it. The probe's own queries run on connections of their own (on PostgreSQL as
 * another role, in the maintenance database where it can), so they count in none of the figures.
 */
import { rmSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { RunningServer } from '../../server/src/server.js';
import { databasePath } from '../../server/src/store/db.js';
import { StatementTally, watchStatements, type StatementCounts } from '../support/statements.js';

export interface Reading {
  client: StatementCounts;
  /** Statements the server ran for the store's role and database (pg_stat_statements `calls`); null on SQLite. */
  serverStatements: number | null;
  /** The WAL insert position in bytes; null on SQLite (its WAL file is reused after each checkpoint). */
  walBytes: number | null;
  /** Bytes of each table with its indexes (PostgreSQL: pg_total_relation_size; SQLite: dbstat pages). */
  tables: Record<string, number>;
  /** CPU ms the PostgreSQL cluster's processes have used (support/cpu.ts); null on SQLite. */
  dbCpuMs: number | null;
  /** Bytes handed to the file storage (ctx.files.put): what an S3 bucket would hold. */
  fileBytes: number;
}

export interface ServerTransactions {
  commits: number;
  rollbacks: number;
  /** Runs of autovacuum and autoanalyze on the database's tables so far: their transactions count in pg_stat_database too. */
  autovacuums: number;
  /** Sessions (connections) established to the database so far. */
  sessions: number;
}

export interface Probe {
  read(): Promise<Reading>;
  /** Compact every table (VACUUM FULL / VACUUM) and return the sizes: the bytes the rows keep. */
  compacted(): Promise<Record<string, number>>;
  /** Transactions the server committed and rolled back in the store's database (pg_stat_database); null on SQLite. */
  serverTransactions(): Promise<ServerTransactions | null>;
  /** Transactions the probe itself has run in the store's database so far (its table readings). */
  ownTransactions(): number;
  close(): Promise<void>;
}

/** Count what goes to the store and to the file storage from now on. */
async function watch(running: RunningServer, ignore?: WeakSet<object>): Promise<{ tally: StatementTally; fileBytes: () => number }> {
  const tally = new StatementTally();
  await watchStatements(running.ctx.store, tally.sink, ignore);
  const files = running.ctx.files;
  const put = files.put.bind(files);
  let bytes = 0;
  files.put = (key, content) => {
    bytes += content.byteLength;
    return put(key, content);
  };
  return { tally, fileBytes: () => bytes };
}

const MONITOR_ROLE = 'capacity_monitor';

/**
 * PostgreSQL: `adminUrl` is the cluster's maintenance database as its superuser (pg_stat_statements
 * is preloaded; the extension is created there), `databaseUrl` the store's database, whose tables
 * a superuser role of the probe's own measures.
 */
export async function postgresProbe(
  running: RunningServer,
  adminUrl: string,
  databaseUrl: string,
  cpuMs: () => number | null,
): Promise<Probe> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await admin.query(`DO $$ BEGIN CREATE ROLE ${MONITOR_ROLE} LOGIN SUPERUSER; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  url.username = MONITOR_ROLE;
  const monitor = new pg.Client({ connectionString: url.toString() });
  await monitor.connect();
  const { tally, fileBytes } = await watch(running, new WeakSet([admin, monitor]));
  const storeRole = decodeURIComponent(new URL(databaseUrl).username);
  let own = 0;
  const tables = async () => {
    own++;
    const { rows } = await monitor.query<{ name: string; bytes: string }>(
      `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname = 'public'`,
    );
    return Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)]));
  };
  return {
    async read() {
      const { rows } = await admin.query<{ calls: string; wal: string }>(
        `SELECT (SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
                  JOIN pg_roles r ON r.oid = s.userid WHERE d.datname = $1 AND r.rolname = $2) AS calls,
                pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0') AS wal`,
        [name, storeRole],
      );
      const sizes = await tables();
      return {
        client: tally.snapshot(),
        serverStatements: Number(rows[0]!.calls),
        walBytes: Number(rows[0]!.wal),
        tables: sizes,
        dbCpuMs: cpuMs(),
        fileBytes: fileBytes(),
      };
    },
    async compacted() {
      await monitor.query('VACUUM FULL');
      return tables();
    },
    async serverTransactions() {
      const { rows } = await admin.query<{ commits: string; rollbacks: string; sessions: string }>(
        'SELECT xact_commit AS commits, xact_rollback AS rollbacks, sessions FROM pg_stat_database WHERE datname = $1',
        [name],
      );
      own++;
      const vacuums = await monitor.query<{ n: string }>(
        'SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0) AS n FROM pg_stat_user_tables',
      );
      const [row] = rows;
      return {
        commits: Number(row!.commits),
        rollbacks: Number(row!.rollbacks),
        autovacuums: Number(vacuums.rows[0]!.n),
        sessions: Number(row!.sessions),
      };
    },
    ownTransactions: () => own,
    async close() {
      await monitor.end();
      await admin.end();
    },
  };
}

/** SQLite: a second, read-only connection to the store's file reads dbstat (pages per table and its indexes). */
export async function sqliteProbe(running: RunningServer, dataDir: string): Promise<Probe> {
  const { tally, fileBytes } = await watch(running);
  const file = databasePath(dataDir);
  const reader = new SQLite(file, { readonly: true });
  const sizes = (db: SQLite.Database) =>
    Object.fromEntries(
      db
        .prepare(
          'SELECT s.tbl_name AS name, sum(d.pgsize) AS bytes FROM dbstat d JOIN sqlite_schema s ON s.name = d.name GROUP BY s.tbl_name',
        )
        .all()
        .map((r) => [(r as { name: string }).name, (r as { bytes: number }).bytes]),
    );
  return {
    read: () =>
      Promise.resolve({
        client: tally.snapshot(),
        serverStatements: null,
        walBytes: null,
        tables: sizes(reader),
        dbCpuMs: null,
        fileBytes: fileBytes(),
      }),
    compacted() {
      // VACUUM INTO a copy: the store's own file stays as the server left it.
      const copy = `${file}.compacted`;
      rmSync(copy, { force: true });
      reader.prepare('VACUUM INTO ?').run(copy);
      const compact = new SQLite(copy, { readonly: true });
      try {
        return Promise.resolve(sizes(compact));
      } finally {
        compact.close();
      }
    },
    serverTransactions: () => Promise.resolve(null),
    ownTransactions: () => 0,
    close() {
      reader.close();
      return Promise.resolve();
    },
  };
}
