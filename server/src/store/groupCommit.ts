import type SQLite from 'better-sqlite3';
import type { Kysely, SqliteDatabase } from 'kysely';
import { holdConnection } from './compiled.js';

/**
 * Group commit (DESIGN §7): the write transactions asked for in one turn of the event loop run in
 * one SQLite transaction, one after another, and commit together. A member that throws leaves no
 * write behind and rejects with its error after the shared COMMIT; the others are unaffected.
 * Every member's promise settles only after the COMMIT, so nothing is answered, woken or sent
 * before its writes are committed. One COMMIT then writes the pages the members share (index
 * interiors, the account row, the jobs table) once per turn instead of once per request.
 *
 * How a failing member is undone alone: the group first runs without savepoints. A savepoint makes
 * SQLite copy every page a member is first to change into its statement journal, which cost about
 * 25 µs of CPU per create (a create's SQL replayed by bench/create-requests/replay.ts in groups of
 * four: 298.6 µs without, 318.3 µs with, medians of 40 alternating pairs), for the rare member that
 * fails. A member that throws before it changed a row has nothing to undo and fails alone. When one
 * throws after changing rows, the whole transaction is rolled back and the group runs again from
 * the start, each member in its own SAVEPOINT, so the failing one is rolled back to it alone: the
 * others' work runs twice, as it would on PostgreSQL, where a serialization failure runs a
 * transaction's work again and a failing member sends its group back (pgGroupCommit.ts). After such
 * a group the next one starts with savepoints, until a group runs with no failure: a burst of
 * refusals costs one run per group, not two.
 *
 * A member that SQLite aborts the whole transaction for (disk full, I/O error) takes the group
 * with it: every member that had run rejects with that error, and the members not yet run go on
 * in a fresh transaction.
 */

interface Member<D> {
  work: (trx: Kysely<D>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** The members that ran to the end, with their values, and those that threw, with their errors. */
interface Outcomes<D> {
  done: { m: Member<D>; value: unknown }[];
  failed: { m: Member<D>; err: unknown }[];
}

/** Control statements, prepared once and run on the raw connection while the group holds Kysely's. */
interface Control {
  begin: SQLite.Statement;
  commit: SQLite.Statement;
  rollback: SQLite.Statement;
  savepoint: SQLite.Statement;
  release: SQLite.Statement;
  rollbackTo: SQLite.Statement;
  /** Rows the connection's statements have changed since it opened (SQLite's total_changes()). */
  totalChanges: SQLite.Statement<[], number>;
}

/**
 * `database` is what Kysely's dialect prepares statements on (the statement cache): while a group
 * runs, precompiled queries on its connection go to it directly (compiled.ts, holdConnection).
 */
export function groupCommit<D>(
  db: Kysely<D>,
  raw: SQLite.Database,
  database?: SqliteDatabase,
): <T>(work: (trx: Kysely<D>) => Promise<T>) => Promise<T> {
  const group = new GroupCommit(db, raw, database);
  return <T>(work: (trx: Kysely<D>) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => group.add({ work, resolve: resolve as Member<D>['resolve'], reject }));
}

class GroupCommit<D> {
  #control: Control | null = null;
  #queue: Member<D>[] = [];
  #scheduled = false;
  /** The last group had a member that failed: the next runs with savepoints from the start. */
  #careful = false;

  constructor(
    private readonly db: Kysely<D>,
    private readonly raw: SQLite.Database,
    private readonly database?: SqliteDatabase,
  ) {}

  add(member: Member<D>): void {
    this.#queue.push(member);
    this.#schedule();
  }

  #statements(): Control {
    const raw = this.raw;
    return (this.#control ??= {
      // IMMEDIATE: the write lock is taken at BEGIN, so there is no upgrade deadlock with the CLI process.
      begin: raw.prepare('BEGIN IMMEDIATE'),
      commit: raw.prepare('COMMIT'),
      rollback: raw.prepare('ROLLBACK'),
      savepoint: raw.prepare('SAVEPOINT member'),
      release: raw.prepare('RELEASE member'),
      rollbackTo: raw.prepare('ROLLBACK TO member'),
      totalChanges: raw.prepare<[], number>('SELECT total_changes()').pluck(),
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#scheduled = false;
    const group = this.#queue;
    this.#queue = [];
    this.db
      .connection()
      .execute((conn) => this.#runGroup(conn, group))
      .catch((err: unknown) => {
        for (const m of group) m.reject(err);
      });
  }

  /** Run the group; whatever goes wrong, the connection is left outside any transaction. */
  async #runGroup(conn: Kysely<D>, group: Member<D>[]): Promise<void> {
    const release = this.database ? holdConnection(conn, this.database) : null;
    try {
      await this.#runMembers(conn, group);
    } catch (err) {
      // Not a member's error (those are caught below): a control statement failed.
      if (this.raw.inTransaction) this.#statements().rollback.run();
      for (const m of group) m.reject(err); // members already settled ignore this
    } finally {
      release?.();
    }
  }

  /** BEGIN IMMEDIATE; when it fails, every member of the group rejects with its error. */
  #begin(s: Control, group: Member<D>[]): boolean {
    try {
      s.begin.run();
      return true;
    } catch (err) {
      for (const m of group) m.reject(err);
      return false;
    }
  }

  async #runMembers(conn: Kysely<D>, group: Member<D>[]): Promise<void> {
    const s = this.#statements();
    if (!this.#begin(s, group)) return;
    // A lone member needs no savepoint: the transaction is its own.
    if (group.length === 1) return this.#runAlone(conn, group[0]!, s);
    if (!this.#careful) {
      const ran = await this.#runWithoutSavepoints(conn, group, s);
      if (ran) return this.#commitGroup(s, ran.done, ran.failed);
      // A member failed and the transaction is rolled back: again, each member in a savepoint.
      if (!this.#begin(s, group)) return;
    }
    await this.#runWithSavepoints(conn, group, s);
  }

  /**
   * Every member, one after another, no savepoints. A member that throws before it changed a row
   * leaves nothing to undo: it fails alone and the others go on. One that throws after changing
   * rows (or with the transaction gone) rolls the transaction back: null, and the group runs again.
   */
  async #runWithoutSavepoints(conn: Kysely<D>, group: Member<D>[], s: Control): Promise<Outcomes<D> | null> {
    const done: Outcomes<D>['done'] = [];
    const failed: Outcomes<D>['failed'] = [];
    for (const m of group) {
      const changesBefore = s.totalChanges.get();
      try {
        done.push({ m, value: await m.work(conn) });
      } catch (err) {
        // A statement that failed undid its own changes: total_changes() counts only those that stood.
        if (this.raw.inTransaction && s.totalChanges.get() === changesBefore) {
          failed.push({ m, err });
          continue;
        }
        // Its error is not kept: the member runs again and rejects with what that run throws.
        if (this.raw.inTransaction) s.rollback.run();
        this.#careful = true;
        return null;
      }
    }
    return { done, failed };
  }

  async #runWithSavepoints(conn: Kysely<D>, group: Member<D>[], s: Control): Promise<void> {
    const done: Outcomes<D>['done'] = [];
    const failed: Outcomes<D>['failed'] = [];
    for (let i = 0; i < group.length; i++) {
      const m = group[i]!;
      s.savepoint.run();
      try {
        const value = await m.work(conn);
        s.release.run();
        done.push({ m, value });
      } catch (err) {
        if (!this.raw.inTransaction) {
          // SQLite rolled the whole transaction back: the members run so far lost their writes.
          m.reject(err);
          for (const d of done) d.m.reject(err);
          for (const f of failed) f.m.reject(f.err);
          this.#requeue(group.slice(i + 1));
          return;
        }
        s.rollbackTo.run();
        s.release.run();
        failed.push({ m, err });
      }
    }
    this.#careful = failed.length > 0;
    this.#commitGroup(s, done, failed);
  }

  async #runAlone(conn: Kysely<D>, m: Member<D>, s: Control): Promise<void> {
    let value: unknown;
    try {
      value = await m.work(conn);
      s.commit.run();
    } catch (err) {
      if (this.raw.inTransaction) s.rollback.run();
      return m.reject(err);
    }
    m.resolve(value);
  }

  /** COMMIT, then settle: the members that ran resolve, the failed ones reject; a failed COMMIT rejects all. */
  #commitGroup(s: Control, done: Outcomes<D>['done'], failed: Outcomes<D>['failed']): void {
    try {
      s.commit.run();
    } catch (err) {
      if (this.raw.inTransaction) s.rollback.run();
      for (const d of done) d.m.reject(err);
      for (const f of failed) f.m.reject(f.err);
      return;
    }
    for (const d of done) d.m.resolve(d.value);
    for (const f of failed) f.m.reject(f.err);
  }

  #requeue(members: Member<D>[]): void {
    if (members.length === 0) return;
    this.#queue = [...members, ...this.#queue];
    this.#schedule();
  }
}
