/**
 * Diagnostic, not a load test: what the pages a create changes cost SQLite's COMMIT, the largest
 * single item of a create's CPU (bench/README.md, "Where the data-model floor comes from").
 *
 * In WAL mode a COMMIT appends every page its transaction changed to the WAL, whole (a 24-byte
 * frame header and the 4 KiB page, two writes), and the checkpointer copies each back later. So
 * the cost of what a create writes is set less by its bytes than by how many pages it changes: at
 * least one in every table and index it writes. A create recorded on the real server (replay.ts)
 * runs again `BENCH_FRAMES_CREATES` times (default 2,000) in transactions of 1, 4, 8 and 16 creates
 * (what group commit shares; 16 connections make groups of about four), and for each group size
 * this prints one JSON line: the WAL frames per create, the CPU per create of the statements and
 * of the COMMIT, and the COMMIT's CPU per frame. A first line names the B-trees (tables and their
 * indexes) the create's writes change; two last lines, for transactions of one create and of four,
 * split the pages each transaction writes by the B-tree they belong to.
 *
 *   node --conditions=tawqi-source --import tsx bench/create-requests/wal-frames.ts
 *
 * BENCH_SYNCHRONOUS (`full` or `normal`, the default here: under `full` each COMMIT's fsync is
 * waited for, not CPU), BENCH_FRAMES_PASSES (default 3: the group sizes measured in turn this many
 * times over, each line the medians).
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type SQLite from 'better-sqlite3';
import { databasePath } from '../../server/src/store/db.js';
import { captureCreate, CreateReplay, openLikeTheStore, type Captured, type Synchronous } from './replay.js';

/** The group sizes measured, as group commit makes them at 1, ~4, ~8 and ~16 creates at once. */
export const GROUP_SIZES = [1, 4, 8, 16] as const;
const PASSES = Number(process.env.BENCH_FRAMES_PASSES ?? 3);
const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
/** Figures to two decimals. */
const round = (n: number): number => Math.round(n * 100) / 100;
const TABLE_WRITTEN = /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|update|delete\s+from|replace\s+into)\s+"?(\w+)"?/i;

export interface GroupFigures {
  group: number;
  creates: number;
  frames_per_create: number;
  statements_cpu_us_per_create: number;
  commit_cpu_us_per_create: number;
  commit_cpu_us_per_frame: number;
}

/** Each table the statements write, with its indexes (SQLite's own for keys included): every B-tree a create changes. */
export function btreesWritten(db: SQLite.Database, statements: readonly Captured[]): { table: string; indexes: string[] }[] {
  const tables = [...new Set(statements.map((s) => TABLE_WRITTEN.exec(s.sql)?.[1]).filter((t): t is string => t !== undefined))];
  const indexesOf = db
    .prepare<[string], string>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? ORDER BY name")
    .pluck();
  return tables.map((table) => ({ table, indexes: indexesOf.all(table) }));
}

/** The WAL's frames so far (wal_autocheckpoint is off: nothing is copied back while measuring). */
function walFrames(db: SQLite.Database): number {
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const wal = `${databasePath(path.dirname(db.name))}-wal`;
  const bytes = statSync(wal).size;
  return bytes <= WAL_HEADER_BYTES ? 0 : (bytes - WAL_HEADER_BYTES) / (pageSize + FRAME_HEADER_BYTES);
}

/** Each figure's median over the passes of one group size. */
export function medianFigures(passes: readonly GroupFigures[]): GroupFigures {
  const median = (pick: (f: GroupFigures) => number): number => {
    const sorted = passes.map(pick).sort((a, b) => a - b);
    return sorted[sorted.length >> 1]!;
  };
  return {
    group: passes[0]!.group,
    creates: passes[0]!.creates,
    frames_per_create: median((f) => f.frames_per_create),
    statements_cpu_us_per_create: median((f) => f.statements_cpu_us_per_create),
    commit_cpu_us_per_create: median((f) => f.commit_cpu_us_per_create),
    commit_cpu_us_per_frame: median((f) => f.commit_cpu_us_per_frame),
  };
}

const cpuMicros = (): number => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/** `creates` replayed creates in transactions of `group`, from an emptied WAL: the frames they add and the CPU they take. */
export function measureGroup(db: SQLite.Database, replay: CreateReplay, group: number, creates: number): GroupFigures {
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  db.pragma('wal_autocheckpoint = 0');
  db.pragma('wal_checkpoint(TRUNCATE)');
  const groups = Math.max(1, Math.round(creates / group));
  let statementsCpu = 0;
  let commitCpu = 0;
  for (let g = 0; g < groups; g++) {
    const start = cpuMicros();
    begin.run();
    for (let i = 0; i < group; i++) replay.create();
    const written = cpuMicros();
    commit.run();
    const committed = cpuMicros();
    statementsCpu += written - start;
    commitCpu += committed - written;
  }
  const made = groups * group;
  const frames = walFrames(db);
  return {
    group,
    creates: made,
    frames_per_create: round(frames / made),
    statements_cpu_us_per_create: round(statementsCpu / made),
    commit_cpu_us_per_create: round(commitCpu / made),
    commit_cpu_us_per_frame: round(commitCpu / frames),
  };
}

/**
 * The pages of each B-tree that transactions of `group` replayed creates change, per create,
 * largest first: what each COMMIT writes to the WAL, by table and index. Around each of `groups`
 * transactions the database file is read page by page (each time with the WAL checkpointed into
 * it) and each page whose bytes differ is counted for its B-tree (dbstat, after the transaction).
 * Page 1, the file's header with its change counter, is `(header)`.
 */
export function pagesChangedByBtree(
  db: SQLite.Database,
  replay: CreateReplay,
  group: number,
  groups: number,
): { frames_per_create: number; pages_changed: { btree: string; pages_per_create: number }[] } {
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const file = databasePath(path.dirname(db.name));
  const pageOwner = db.prepare<[], { name: string; pageno: number }>('SELECT name, pageno FROM dbstat');
  const pagesOfFile = (): Buffer[] => {
    db.pragma('wal_checkpoint(TRUNCATE)');
    const bytes = readFileSync(file);
    const pages: Buffer[] = [];
    for (let offset = 0; offset < bytes.length; offset += pageSize) pages.push(bytes.subarray(offset, offset + pageSize));
    return pages;
  };
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  db.pragma('wal_autocheckpoint = 0');
  const changed = new Map<string, number>();
  let frames = 0;
  for (let g = 0; g < groups; g++) {
    const before = pagesOfFile();
    begin.run();
    for (let i = 0; i < group; i++) replay.create();
    commit.run();
    frames += walFrames(db); // the WAL held nothing before this transaction
    const after = pagesOfFile();
    const owner = new Map<number, string>([[1, '(header)']]);
    for (const { name, pageno } of pageOwner.all()) owner.set(pageno, name);
    after.forEach((page, i) => {
      if (before[i]?.equals(page)) return;
      const btree = owner.get(i + 1) ?? '(free)';
      changed.set(btree, (changed.get(btree) ?? 0) + 1);
    });
  }
  const perCreate = (n: number): number => round(n / (groups * group));
  return {
    frames_per_create: perCreate(frames),
    pages_changed: [...changed]
      .map(([btree, pages]) => ({ btree, pages_per_create: perCreate(pages) }))
      .sort((a, b) => b.pages_per_create - a.pages_per_create),
  };
}

async function main(): Promise<void> {
  const synchronous = (process.env.BENCH_SYNCHRONOUS ?? 'normal') as Synchronous;
  const creates = Number(process.env.BENCH_FRAMES_CREATES ?? 2000);
  const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-wal-frames-'));
  try {
    const { statements } = await captureCreate(dir, synchronous);
    const db = openLikeTheStore(dir, synchronous);
    try {
      const btrees = btreesWritten(db, statements);
      console.log(
        JSON.stringify({
          bench: 'wal-frames',
          synchronous,
          btrees_written: btrees.reduce((n, t) => n + 1 + t.indexes.length, 0),
          tables: btrees,
        }),
      );
      const replay = new CreateReplay(db, statements);
      measureGroup(db, replay, 8, creates); // warm: statements prepared, pages cached, the tables past their first pages
      // Split before the timed passes: it reads the whole file twice per transaction, and the passes grow it.
      const splits = [1, 4].map((group) => ({ bench: 'wal-frames', synchronous, group, ...pagesChangedByBtree(db, replay, group, 50) }));
      // The sizes in turn, PASSES times over: this machine's CPU figures drift by tens of percent
      // from one minute to the next, the frames do not; each line gives the passes' medians.
      const passes = GROUP_SIZES.map(() => [] as GroupFigures[]);
      for (let pass = 0; pass < PASSES; pass++)
        GROUP_SIZES.forEach((group, i) => passes[i]!.push(measureGroup(db, replay, group, creates)));
      for (const figures of passes)
        console.log(JSON.stringify({ bench: 'wal-frames', synchronous, passes: PASSES, ...medianFigures(figures) }));
      for (const split of splits) console.log(JSON.stringify(split));
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
