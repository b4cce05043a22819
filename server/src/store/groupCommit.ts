import type SQLite from 'better-sqlite3';
import type { Kysely, SqliteDatabase } from 'kysely';
import { holdConnection } from './compiled.js';

/**
 * Group commit (DESIGN §7): the write transactions asked for in one turn of the event loop run in
 * one SQLite transaction, one after another, each in its own SAVEPOINT, and commit together. A
 * member that throws is rolled back to its savepoint alone (none of its writes stay) and rejects
 * with its error after the shared COMMIT; the others are unaffected. Every member's promise
 * settles only after the COMMIT, so nothing is answered, woken or sent before its writes are
 * committed. One COMMIT then writes the pages the members share (index interiors, the account row,
 * the jobs table) once per turn instead of once per request.
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

/** Control statements, prepared once and run on the raw connection while the group holds Kysely's. */
interface Control {
  begin: SQLite.Statement;
  commit: SQLite.Statement;
  rollback: SQLite.Statement;
  savepoint: SQLite.Statement;
  release: SQLite.Statement;
  rollbackTo: SQLite.Statement;
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

  async #runMembers(conn: Kysely<D>, group: Member<D>[]): Promise<void> {
    const s = this.#statements();
    try {
      s.begin.run();
    } catch (err) {
      for (const m of group) m.reject(err);
      return;
    }
    // A lone member needs no savepoint: the transaction is its own.
    if (group.length === 1) return this.#runAlone(conn, group[0]!, s);
    const done: { m: Member<D>; value: unknown }[] = [];
    const failed: { m: Member<D>; err: unknown }[] = [];
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
  #commitGroup(s: Control, done: { m: Member<D>; value: unknown }[], failed: { m: Member<D>; err: unknown }[]): void {
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
