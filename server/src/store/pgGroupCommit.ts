import type { Pool, PoolClient } from 'pg';
import {
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import { mergeInserts, type Statement } from './pgMergeInserts.js';

/**
 * Group commit on PostgreSQL (store.groupTx; DESIGN §7): the transactions asked for while another
 * group is running (or in the same event-loop turn) share ONE READ COMMITTED transaction on one
 * pooled connection, and commit together. Their `work`s run side by side, their statements in one
 * queue: what the members ask for in one turn is sent together, and the same INSERT of several
 * members (a create's request, signers, messages, events — the same SQL, other values) goes as one
 * multi-row INSERT (pgMergeInserts.ts). One BEGIN, one statement per table and one COMMIT (one WAL
 * flush) for the group, instead of each per request: less CPU on both sides of the socket.
 *
 * Each member's promise settles only after the COMMIT. A member that throws having sent only
 * reads (a refusal decided before it wrote) is left out and rejects after the commit; any other
 * failure — a statement error (the transaction is aborted then), a member that throws after it
 * wrote (its writes cannot be taken out of the shared transaction), a deadlock — rolls the whole
 * group back and runs every member again on its own in `alone` (store.lockingTx), so no member
 * ever fails or succeeds because of another. `work` must therefore have no effect outside the
 * database before it returns, as for a retried store.tx.
 *
 * What a member may do is lockingTx's rule (types.ts) and two more: no `FOR UPDATE SKIP LOCKED`
 * claims (members share their locks: two claimers in one group would take the same rows), and
 * nothing that depends on not seeing the other members' uncommitted rows (a create writes new rows
 * with fresh ids; its counters and the balance are decided by atomic statements, which see the
 * group's earlier updates as any later transaction would). Members are ordered by their key (the
 * account) so that two groups take the accounts' row locks in the same order.
 */

/** At most this many members in one group: a longer queue waits for the next. */
export const MAX_GROUP = 32;
/** Groups running at once per process: the next one does its work while the previous commits. */
export const MAX_GROUPS = 2;

type Work<D> = (trx: Kysely<D>) => Promise<unknown>;

interface Member<D> {
  work: Work<D>;
  key: string;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** A statement a member asked for, waiting for the group's connection. */
interface Pending {
  member: number;
  sql: string;
  parameters: readonly unknown[];
  resolve: (result: QueryResult<unknown>) => void;
  reject: (err: unknown) => void;
}

const RETRYABLE = new Set(['40001', '40P01']);
const BEGIN = 'start transaction isolation level read committed';

export type GroupTx<D> = <T>(work: (trx: Kysely<D>) => Promise<T>, key?: string) => Promise<T>;

export function pgGroupCommit<D>(pool: Pool, alone: <T>(work: (trx: Kysely<D>) => Promise<T>) => Promise<T>): GroupTx<D> {
  const groups = new GroupCommit<D>(pool, alone);
  return <T>(work: (trx: Kysely<D>) => Promise<T>, key = ''): Promise<T> =>
    new Promise<T>((resolve, reject) => groups.add({ work, key, resolve: resolve as Member<D>['resolve'], reject }));
}

class GroupCommit<D> {
  #queue: Member<D>[] = [];
  #free: Runner<D>[];
  #scheduled = false;

  constructor(
    private readonly pool: Pool,
    private readonly alone: <T>(work: (trx: Kysely<D>) => Promise<T>) => Promise<T>,
  ) {
    this.#free = Array.from({ length: MAX_GROUPS }, () => new Runner<D>());
  }

  add(member: Member<D>): void {
    this.#queue.push(member);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || this.#free.length === 0 || this.#queue.length === 0) return;
    this.#scheduled = true;
    // The members asked for in this turn go together.
    setImmediate(() => this.#start());
  }

  #start(): void {
    this.#scheduled = false;
    const runner = this.#free.pop();
    if (!runner) return;
    const group = this.#queue.splice(0, MAX_GROUP);
    const done = group.length === 1 ? this.#runAlone(group[0]!) : this.#runGroup(runner, group);
    void done.finally(() => {
      this.#free.push(runner);
      this.#schedule();
    });
    this.#schedule();
  }

  /** A group of one is an ordinary lockingTx: nothing to share. */
  async #runAlone(m: Member<D>): Promise<void> {
    try {
      m.resolve(await this.alone(m.work));
    } catch (err) {
      m.reject(err);
    }
  }

  async #runGroup(runner: Runner<D>, group: Member<D>[]): Promise<void> {
    group.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      for (const m of group) m.reject(err);
      return;
    }
    let outcome: Outcome;
    try {
      outcome = await runner.run(client, group);
    } catch (err) {
      // A control statement failed (BEGIN, COMMIT, ROLLBACK): the connection is not to be reused.
      client.release(err as Error);
      const retry = RETRYABLE.has((err as { code?: string } | null)?.code ?? '');
      for (const m of group)
        if (retry) void this.#runAlone(m);
        else m.reject(err);
      return;
    }
    client.release();
    if (outcome === 'rolled back') {
      await Promise.all(group.map((m) => this.#runAlone(m)));
      return;
    }
    outcome.forEach((o, i) => (o.status === 'fulfilled' ? group[i]!.resolve(o.value) : group[i]!.reject(o.reason)));
  }
}

type Outcome = PromiseSettledResult<unknown>[] | 'rolled back';

/** One group's transaction: its connection, the members' Kysely instances and the statement queue. */
class Runner<D> {
  #client: PoolClient | null = null;
  #pending: Pending[] = [];
  #scheduled = false;
  #running = false;
  /** A statement failed: PostgreSQL aborted the transaction. */
  #failed: unknown = null;
  /** Per member: it sent something other than a plain read. */
  #wrote: boolean[] = [];
  readonly #members: Kysely<D>[] = [];

  async run(client: PoolClient, group: Member<D>[]): Promise<Outcome> {
    this.#client = client;
    this.#failed = null;
    this.#wrote = group.map(() => false);
    try {
      await client.query(BEGIN);
      const outcomes = await Promise.allSettled(group.map((m, i) => m.work(this.#member(i))));
      const sunk = this.#failed !== null || outcomes.some((o, i) => o.status === 'rejected' && this.#wrote[i]);
      if (sunk) {
        await client.query('rollback');
        return 'rolled back';
      }
      await client.query('commit');
      return outcomes;
    } finally {
      this.#client = null;
    }
  }

  #member(i: number): Kysely<D> {
    return (this.#members[i] ??= memberDb({
      executeQuery: <R>(q: CompiledQuery): Promise<QueryResult<R>> => this.#enqueue(i, q) as Promise<QueryResult<R>>,
      // eslint-disable-next-line require-yield
      streamQuery: async function* () {
        throw new Error('streaming is not available in a group commit');
      },
    }));
  }

  #enqueue(member: number, q: CompiledQuery): Promise<QueryResult<unknown>> {
    if (this.#failed !== null) return Promise.reject(this.#failed as Error);
    if (this.#client === null) return Promise.reject(new Error('the group commit is over'));
    if (!/^select /i.test(q.sql)) this.#wrote[member] = true;
    return new Promise((resolve, reject) => {
      this.#pending.push({ member, sql: q.sql, parameters: q.parameters, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#running) return;
    this.#scheduled = true;
    // Every member that can go on in this turn asks for its next statement before they are sent.
    setImmediate(() => void this.#drain());
  }

  async #drain(): Promise<void> {
    this.#scheduled = false;
    this.#running = true;
    const items = this.#pending;
    this.#pending = [];
    const client = this.#client!;
    try {
      // One after another: pg runs one query at a time per connection (queueing them is deprecated).
      for (const s of mergeInserts(items)) await this.#send(client, s);
    } finally {
      this.#running = false;
      if (this.#pending.length > 0) this.#schedule();
    }
  }

  /** One statement on the connection; its members settle from its result. */
  async #send(client: PoolClient, s: Statement<Pending>): Promise<void> {
    if (this.#failed !== null) {
      for (const p of s.items) p.reject(this.#failed);
      return;
    }
    try {
      const { command, rowCount, rows } = await client.query(s.sql, s.parameters as unknown[]);
      const changed = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
      if (s.rowsEach === null) {
        const numAffectedRows = changed ? BigInt(rowCount ?? 0) : undefined;
        s.items[0]!.resolve({ numAffectedRows, rows: rows ?? [] });
        // A shared read: the others get copies, so no member sees another's changes to its rows.
        for (let k = 1; k < s.items.length; k++)
          s.items[k]!.resolve({ numAffectedRows, rows: (rows ?? []).map((r: object) => ({ ...r })) });
      } else {
        for (const p of s.items) p.resolve({ numAffectedRows: BigInt(s.rowsEach), rows: [] });
      }
    } catch (err) {
      this.#failed ??= err;
      for (const p of s.items) p.reject(err);
    }
  }
}

/** A Kysely instance whose every query goes to `connection` (a member's view of the group). */
function memberDb<D>(connection: DatabaseConnection): Kysely<D> {
  const nested = (): Promise<void> => Promise.reject(new Error('a group commit member cannot open a transaction'));
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: nested,
    commitTransaction: nested,
    rollbackTransaction: nested,
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  return new Kysely<D>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}
