/**
 * The store on both engines: precompiled queries, counters, the one migrator (PostgreSQL: several
 * processes at once; SQLite: an installation of the hand-rolled migration loop upgraded in place).
 * And the SQLite store's performance machinery (DESIGN §7) keeps its promises: group commit (one
 * transaction per event-loop turn, a savepoint per store.tx, results settled after COMMIT, a
 * failing member undone alone), the prepared-statement cache, direct execution, and WAL
 * checkpoints from a worker thread — those tests open SQLite whatever the run's engine and say
 * so in their names ("sqlite only:").
 */
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { CompiledQuery, sql } from 'kysely';
import { insertRecord, precompile, runShared } from '../../server/src/store/compiled.js';
import { databasePath, openStore, sqliteConnection, type Store } from '../../server/src/store/db.js';
import { migrationName } from '../../server/src/store/migrate.js';
import { MIGRATIONS, POSTGRES_BASELINE } from '../../server/src/store/migrations.js';
import { incrementCounter, incrementCounters, incrementCounterWithin } from '../../server/src/store/counters.js';
import { rateWindows } from '../../server/src/store/rateWindows.js';
import { DUE_MESSAGES_SQL, dueMessages, queuedInvitationsQuery, recordMessageOutcomes } from '../../server/src/store/messages.js';
import { recordAttempts } from '../../server/src/store/webhooks.js';
import { eventListQuery, listEvents } from '../../server/src/store/events.js';
import { CachedStatements } from '../../server/src/store/statementCache.js';
import { startCheckpointer } from '../../server/src/store/checkpointer.js';
import { loadConfig } from '../../server/src/config.js';
import { startTestServer } from '../support/server.js';
import { createTestDatabase, dropDatabaseOf, dropTestDatabase, onPostgres, storeOptions } from '../support/database.js';

/** A second connection to the same file: it sees only what has been committed. */
function committedCount(file: string, kind: string): number {
  const other = new SQLite(file, { readonly: true });
  try {
    return (other.prepare('SELECT count(*) AS n FROM jobs WHERE kind = ?').get(kind) as { n: number }).n;
  } finally {
    other.close();
  }
}

const insertJob = (kind: string) => sql`INSERT INTO jobs (kind, run_at, payload, created_at) VALUES (${kind}, 0, '{}', 0)`;

/** A SQLite file in WAL mode without automatic checkpoints, its writer, and an insert into its one table. */
function walWriter() {
  const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-store-'));
  const file = path.join(dir, 'wal.sqlite');
  const writer = new SQLite(file);
  writer.pragma('journal_mode = WAL');
  writer.pragma('wal_autocheckpoint = 0');
  writer.exec('CREATE TABLE rows (body TEXT NOT NULL)');
  return { dir, file, writer, insert: writer.prepare('INSERT INTO rows (body) VALUES (?)') };
}

describe('sqlite only: store.tx: group commit', () => {
  let dir: string;
  let store: Store;
  let raw: SQLite.Database;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tawqi-store-'));
    store = await openStore(dir);
    raw = sqliteConnection(store);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The BEGINs and SAVEPOINTs run on the store's connection while `work` runs. */
  async function controlStatements(work: () => Promise<unknown>): Promise<{ begins: number; savepoints: number }> {
    const counts = { begins: 0, savepoints: 0 };
    const proto = Object.getPrototypeOf(raw.prepare('SELECT 1')) as { run: (...a: unknown[]) => unknown };
    const run = proto.run;
    proto.run = function (this: { source: string }, ...args: unknown[]) {
      if (this.source.startsWith('BEGIN')) counts.begins++;
      if (this.source.startsWith('SAVEPOINT')) counts.savepoints++;
      return run.apply(this, args);
    };
    try {
      await work();
    } finally {
      proto.run = run;
    }
    return counts;
  }

  /** One store.tx per kind, asked for in one turn, each inserting a job of that kind. */
  const group = (kinds: string[]) => Promise.allSettled(kinds.map((kind) => store.tx((trx) => insertJob(kind).execute(trx))));

  test('transactions asked for in one turn share one COMMIT; each settles only after it', async () => {
    const file = databasePath(dir);
    const seenAtSettle: number[] = [];
    const { begins } = await controlStatements(() =>
      Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          store
            .tx(async (trx) => {
              await insertJob(`group-${i}`).execute(trx);
              return i;
            })
            .then((i) => seenAtSettle.push(committedCount(file, `group-${i}`))),
        ),
      ),
    );
    assert.equal(begins, 1, 'one transaction for the five');
    assert.deepEqual(seenAtSettle, [1, 1, 1, 1, 1], 'each result settled after its row was committed');
  });

  test('a member that throws is rolled back alone, after partial writes; the others commit', async () => {
    const results = await Promise.allSettled([
      store.tx((trx) => insertJob('first').execute(trx)),
      store.tx(async (trx) => {
        await insertJob('doomed').execute(trx);
        await insertJob('doomed').execute(trx);
        throw new Error('refused');
      }),
      store.tx(async (trx) => {
        // Later members see the earlier members' writes: one transaction, in order.
        const row = await sql<{ n: number }>`SELECT count(*) AS n FROM jobs WHERE kind IN ('first', 'doomed')`.execute(trx);
        await insertJob('last').execute(trx);
        return row.rows[0]!.n;
      }),
    ]);
    assert.equal(results[0].status, 'fulfilled');
    assert.equal(results[1].status, 'rejected');
    assert.equal((results[1] as PromiseRejectedResult).reason.message, 'refused');
    assert.deepEqual(results[2], { status: 'fulfilled', value: 1 }, "the failed member's rows were gone before the next member ran");
    const file = databasePath(dir);
    assert.deepEqual([committedCount(file, 'first'), committedCount(file, 'doomed'), committedCount(file, 'last')], [1, 0, 1]);
    assert.equal(raw.inTransaction, false);
  });

  test('a constraint violation inside a member undoes that member only', async () => {
    const key = 'dedupe-1';
    const dup = sql`INSERT INTO jobs (kind, run_at, payload, dedupe_key, created_at) VALUES ('dup', 0, '{}', ${key}, 0)`;
    const results = await Promise.allSettled([
      store.tx((trx) => dup.execute(trx)),
      store.tx(async (trx) => (await insertJob('mid').execute(trx), await dup.execute(trx))),
      store.tx((trx) => insertJob('after').execute(trx)),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    const file = databasePath(dir);
    assert.deepEqual([committedCount(file, 'dup'), committedCount(file, 'mid'), committedCount(file, 'after')], [1, 0, 1]);
  });

  test('when SQLite abandons the whole transaction, the members run so far fail and the rest run in a fresh one', async () => {
    const results = await Promise.allSettled([
      store.tx((trx) => insertJob('lost').execute(trx)),
      store.tx(async (trx) => {
        await insertJob('lost').execute(trx);
        // What SQLite does on a disk-full or I/O error: the transaction is gone.
        await sql`ROLLBACK`.execute(trx);
        throw new Error('disk full');
      }),
      store.tx((trx) => insertJob('kept').execute(trx)),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected', 'fulfilled'],
    );
    const file = databasePath(dir);
    assert.deepEqual([committedCount(file, 'lost'), committedCount(file, 'kept')], [0, 1]);
  });

  test('a group whose members all succeed runs without savepoints', async () => {
    const counts = await controlStatements(() => group(['a', 'b', 'c', 'd']));
    assert.deepEqual(counts, { begins: 1, savepoints: 0 });
    const file = databasePath(dir);
    assert.deepEqual(
      ['a', 'b', 'c', 'd'].map((k) => committedCount(file, k)),
      [1, 1, 1, 1],
    );
  });

  test('a member that fails after writing sends the group back: it runs again, each member in a savepoint; the next group starts so', async () => {
    const runs: string[] = [];
    let results: PromiseSettledResult<string>[] = [];
    const first = await controlStatements(async () => {
      results = await Promise.allSettled(
        ['x', 'y', 'z'].map((kind) =>
          store.tx(async (trx) => {
            runs.push(kind);
            await insertJob(kind).execute(trx);
            if (kind === 'y') throw new Error('refused y');
            return kind;
          }),
        ),
      );
    });
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      ['x', 'refused y', 'z'],
    );
    assert.deepEqual(runs, ['x', 'y', 'x', 'y', 'z'], 'the group stopped at y, then ran again from the start');
    assert.deepEqual(first, { begins: 2, savepoints: 3 });
    const file = databasePath(dir);
    assert.deepEqual(
      ['x', 'y', 'z'].map((k) => committedCount(file, k)),
      [1, 0, 1],
    );
    // After a failure the next group runs with savepoints at once (one BEGIN); once one runs clean, the next has none.
    assert.deepEqual(await controlStatements(() => group(['p', 'q'])), { begins: 1, savepoints: 2 });
    assert.deepEqual(await controlStatements(() => group(['r', 's'])), { begins: 1, savepoints: 0 });
    assert.equal(raw.inTransaction, false);
  });

  test('a member that fails before it changed a row fails alone: the others run once, without savepoints', async () => {
    const runs: string[] = [];
    const counts = await controlStatements(() =>
      Promise.allSettled(
        ['m', 'n', 'o'].map((kind) =>
          store.tx(async (trx) => {
            runs.push(kind);
            if (kind === 'n') throw new Error('refused n');
            await insertJob(kind).execute(trx);
          }),
        ),
      ),
    );
    assert.deepEqual(runs, ['m', 'n', 'o']);
    assert.deepEqual(counts, { begins: 1, savepoints: 0 });
    const file = databasePath(dir);
    assert.deepEqual(
      ['m', 'n', 'o'].map((k) => committedCount(file, k)),
      [1, 0, 1],
    );
  });

  test('a lone transaction commits or rolls back by itself', async () => {
    assert.equal(await store.tx(async (trx) => (await insertJob('solo').execute(trx), 'done')), 'done');
    await assert.rejects(
      store.tx(async (trx) => {
        await insertJob('solo-failed').execute(trx);
        throw new Error('no');
      }),
      /no/,
    );
    const file = databasePath(dir);
    assert.deepEqual([committedCount(file, 'solo'), committedCount(file, 'solo-failed')], [1, 0]);
    assert.equal(raw.inTransaction, false);
  });
});

describe("precompiled queries, on the run's engine", () => {
  let dir: string;
  let store: Store;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tawqi-store-'));
    store = await openStore(dir, await storeOptions(dir));
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    await dropDatabaseOf(dir);
  });

  test('the store names its engine', () => {
    assert.equal(store.dialect, onPostgres ? 'postgres' : 'sqlite');
  });

  test('a precompiled query runs with new arguments each time, constants kept, in the caller’s transaction', async () => {
    const insert = precompile((db, $) =>
      db.insertInto('jobs').values({ kind: $(0), run_at: $(1), payload: '{}', dedupe_key: null, last_error: null, created_at: $(1) }),
    );
    const count = precompile((db, $) =>
      db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('kind', '=', $(0)),
    );
    await store.tx(async (trx) => {
      await insert.run(trx, ['pre', 5]);
      await insert.run(trx, ['pre', 6]);
      assert.equal((await count.run(trx, ['pre'])).rows[0]!.n, 2);
    });
    const rows = await store.db
      .selectFrom('jobs')
      .select(['run_at', 'created_at', 'payload'])
      .where('kind', '=', 'pre')
      .orderBy('run_at')
      .execute();
    assert.deepEqual(rows, [
      { run_at: 5, created_at: 5, payload: '{}' },
      { run_at: 6, created_at: 6, payload: '{}' },
    ]);
  });

  test('insertRecord encodes JSON and boolean fields, leaves undefined ones to their defaults, and keeps each shape apart when shapes alternate', async () => {
    interface Row {
      id: string;
      account_id: string;
      livemode: boolean;
      type: string;
      signature_request_id: string | null;
      data: { object: unknown };
      request_info?: unknown;
      created_at: number;
    }
    const codec = { json: ['data', 'request_info'], bool: ['livemode'] } as const;
    const base = { account_id: 'acct_x', type: 't', signature_request_id: null, created_at: 1 };
    const rows: Row[] = [
      { id: 'evt_a', livemode: true, ...base, data: { object: { n: 1 } }, request_info: { ip: '1.2.3.4' } },
      { id: 'evt_b', livemode: false, ...base, data: { object: { n: 2 } } }, // no request_info: another shape
      { id: 'evt_c', livemode: true, ...base, data: { object: { n: 3 } }, request_info: null },
    ];
    await store.tx(async (trx) => {
      for (const r of rows) await insertRecord(trx, 'events', { json: [...codec.json], bool: [...codec.bool] }, r);
    });
    const stored = await store.db
      .selectFrom('events')
      .select(['id', 'livemode', 'data', 'request_info'])
      .where('id', 'in', ['evt_a', 'evt_b', 'evt_c'])
      .orderBy('id')
      .execute();
    assert.deepEqual(stored, [
      { id: 'evt_a', livemode: 1, data: '{"object":{"n":1}}', request_info: '{"ip":"1.2.3.4"}' },
      { id: 'evt_b', livemode: 0, data: '{"object":{"n":2}}', request_info: null },
      { id: 'evt_c', livemode: 1, data: '{"object":{"n":3}}', request_info: null },
    ]);
  });
});

describe('sqlite only: prepared statements and direct execution', () => {
  let dir: string;
  let sqlite: Store;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tawqi-store-'));
    sqlite = await openStore(dir);
  });
  after(async () => {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the statement cache returns one statement per SQL text, keeps at most its bound (oldest out first), and prepares anew while one is busy', () => {
    const raw = new SQLite(':memory:');
    const cache = new CachedStatements(raw, 3);
    const a = cache.prepare('SELECT 1');
    assert.equal(cache.prepare('SELECT 1'), a);
    const b = cache.prepare('SELECT 2');
    cache.prepare('SELECT 3');
    cache.prepare('SELECT 4'); // drops SELECT 1, the oldest
    assert.equal(cache.size, 3);
    assert.equal(cache.prepare('SELECT 2'), b);
    assert.notEqual(cache.prepare('SELECT 1'), a, 'prepared again after it was dropped');
    assert.equal(cache.size, 3);
    const iterating = cache.prepare('SELECT 5 UNION ALL SELECT 6');
    const it = iterating.iterate([]);
    it.next();
    const other = cache.prepare('SELECT 5 UNION ALL SELECT 6');
    assert.notEqual(other, iterating, 'a busy statement is not handed out');
    it.return?.();
    cache.close();
  });

  test("a cached reader's rows are the objects better-sqlite3 gives: columns in order, a repeated name's last value, a schema changed by another connection", () => {
    const file = path.join(dir, 'rows.sqlite');
    const raw = new SQLite(file);
    raw.pragma('journal_mode = WAL');
    raw.exec("CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, data BLOB); INSERT INTO t VALUES ('a', 1, x'01'), ('b', NULL, NULL)");
    const cache = new CachedStatements(raw);
    const sql = 'SELECT *, n AS id FROM t ORDER BY rowid';
    const rows = cache.prepare(sql).all([]);
    assert.deepStrictEqual(rows, raw.prepare(sql).all());
    assert.deepStrictEqual(
      rows.map((row) => Object.entries(row as object)),
      [
        [
          ['id', 1],
          ['n', 1],
          ['data', Buffer.from([1])],
        ],
        [
          ['id', null],
          ['n', null],
          ['data', null],
        ],
      ],
    );
    assert.deepStrictEqual([...cache.prepare('SELECT id FROM t WHERE n IS NOT NULL').iterate([])], [{ id: 'a' }]);
    assert.deepStrictEqual(cache.prepare('UPDATE t SET n = 2').run([]).changes, 2);
    const everything = cache.prepare('SELECT * FROM t ORDER BY rowid');
    assert.deepStrictEqual(everything.all([])[0], { id: 'a', n: 2, data: Buffer.from([1]) });

    // Another process migrates: SQLite prepares the cached SELECT * again, one column wider.
    const other = new SQLite(file);
    other.exec("ALTER TABLE t ADD COLUMN note TEXT DEFAULT 'x'");
    other.close();
    assert.equal(cache.prepare('SELECT * FROM t ORDER BY rowid'), everything, 'the same cached statement');
    assert.deepStrictEqual(everything.all([])[0], { id: 'a', n: 2, data: Buffer.from([1]), note: 'x' });
    cache.close();
  });

  test('inside a group, precompiled queries run on the held connection: results, insert ids, and a failure that undoes its member only', async () => {
    const insert = precompile((db, $) =>
      db.insertInto('jobs').values({ kind: $(0), run_at: 0, payload: '{}', dedupe_key: $(1), last_error: null, created_at: 0 }),
    );
    const insertReturning = precompile((db, $) =>
      db
        .insertInto('jobs')
        .values({ kind: $(0), run_at: 0, payload: '{}', dedupe_key: null, last_error: null, created_at: 0 })
        .returning('id'),
    );
    const results = await Promise.allSettled([
      sqlite.tx(async (trx) => {
        const plain = await insert.run(trx, ['held-a', null]);
        const returned = await insertReturning.run(trx, ['held-a']);
        return { affected: plain.numAffectedRows, insertId: typeof plain.insertId, returnedId: typeof returned.rows[0]!.id };
      }),
      sqlite.tx(async (trx) => {
        await insert.run(trx, ['held-b', 'held-dup']);
        await insert.run(trx, ['held-b', 'held-dup']); // UNIQUE dedupe_key: rejects, synchronously thrown inside, a rejection outside
      }),
      sqlite.tx((trx) => insert.run(trx, ['held-c', null])),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual((results[0] as PromiseFulfilledResult<unknown>).value, { affected: 1n, insertId: 'bigint', returnedId: 'number' });
    assert.match(String((results[1] as PromiseRejectedResult).reason), /UNIQUE/);
    const file = databasePath(dir);
    assert.deepEqual([committedCount(file, 'held-a'), committedCount(file, 'held-b'), committedCount(file, 'held-c')], [2, 0, 1]);
    // Outside a group a write goes through Kysely's executor and its connection mutex.
    await insert.run(sqlite.db, ['held-d', null]);
    assert.equal(committedCount(file, 'held-d'), 1);
  });

  test('a precompiled read outside any transaction runs at once, and while a group is open it waits: it never sees uncommitted writes', async () => {
    const count = precompile((db, $) =>
      db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('kind', '=', $(0)),
    );
    assert.equal((await count.run(sqlite.db, ['none-yet'])).rows[0]!.n, 0);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const writing = sqlite.tx(async (trx) => {
      await insertJob('rolled').execute(trx);
      await gate; // the group stays open across real waiting
      throw new Error('undo');
    });
    for (let i = 0; i < 100 && !sqliteConnection(sqlite).inTransaction; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.ok(sqliteConnection(sqlite).inTransaction, 'the group is open');
    const during = count.run(sqlite.db, ['rolled']);
    release();
    await assert.rejects(writing, /undo/);
    assert.equal((await during).rows[0]!.n, 0, 'the read waited for the group: it never saw the write that was rolled back');
  });
});

describe('windowed counters', () => {
  test('a bounded increment adds only while the total stays within the limit, in one statement', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-store-'));
    const store = await openStore(dir, await storeOptions(dir));
    try {
      const count = async (scope: string) =>
        (await store.db.selectFrom('counters').select('count').where('scope', '=', scope).executeTakeFirst())?.count ?? null;
      assert.equal(await store.tx((trx) => incrementCounterWithin(trx, 'big', 0, 6, 5)), false, 'a fresh window past the limit');
      assert.equal(await count('big'), null, 'no row written');
      assert.equal(await store.tx((trx) => incrementCounterWithin(trx, 'w', 0, 3, 5)), true);
      assert.equal(await store.tx((trx) => incrementCounterWithin(trx, 'w', 0, 2, 5)), true, 'up to the limit exactly');
      assert.equal(await count('w'), 5);
      assert.equal(await store.tx((trx) => incrementCounterWithin(trx, 'w', 0, 1, 5)), false, 'one more would pass it');
      assert.equal(await count('w'), 5, 'unchanged');
      assert.equal(await store.tx((trx) => incrementCounterWithin(trx, 'w', 86400, 1, 5)), true, 'a new window starts at zero');
      assert.equal(await store.tx((trx) => incrementCounter(trx, 'w', 0, 2)), 7, 'the unbounded increment returns the new value');
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
      await dropDatabaseOf(dir);
    }
  });
});

describe('sqlite only: migration 9: messages become their own delivery queue', () => {
  test('a pending deliver_message job moves onto its message (due time, attempts); other jobs stay', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-store-'));
    try {
      // A database as version 8 left it, with one queued message and its pending delivery job.
      const old = new SQLite(databasePath(dir));
      old.exec('CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
      for (const m of MIGRATIONS.filter((x) => x.id <= 8)) {
        old.exec(m.sql);
        old.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(m.id, m.name);
      }
      old
        .prepare(
          `INSERT INTO messages (id, account_id, livemode, channel, recipient, kind, subject, body, state, created_at, html) VALUES (7, 'acct_x', 0, 'email', 'a@example.com', 'invitation', 'S', 'B', 'queued', 100, '<p>old</p>')`,
        )
        .run();
      old
        .prepare(
          `INSERT INTO messages (id, account_id, livemode, channel, recipient, kind, subject, body, state, created_at) VALUES (8, 'acct_x', 0, 'email', 'b@example.com', 'invitation', 'S', 'B', 'sent', 100)`,
        )
        .run();
      old
        .prepare(
          `INSERT INTO jobs (kind, run_at, payload, attempts, created_at) VALUES ('deliver_message', 160, '{"message_id":7}', 2, 100)`,
        )
        .run();
      old
        .prepare(
          `INSERT INTO jobs (kind, run_at, payload, dedupe_key, created_at) VALUES ('expire_request', 999, '{}', 'expire:sr_x', 100)`,
        )
        .run();
      old.close();

      const store = await openStore(dir);
      try {
        const rows = await store.db
          .selectFrom('messages')
          .select(['id', 'state', 'deliver_at', 'attempts', 'html', 'blocks'])
          .orderBy('id')
          .execute();
        assert.deepEqual(rows, [
          { id: 7, state: 'queued', deliver_at: 160, attempts: 2, html: '<p>old</p>', blocks: null },
          { id: 8, state: 'sent', deliver_at: null, attempts: 0, html: null, blocks: null },
        ]);
        const jobs = await store.db.selectFrom('jobs').select('kind').execute();
        assert.deepEqual(jobs, [{ kind: 'expire_request' }]);
        const due = await dueMessages(store.db, 200, 10);
        assert.deepEqual(
          due.map((m) => m.id),
          [7],
          'the moved message is due',
        );
        const plan = sqliteConnection(store).prepare(`EXPLAIN QUERY PLAN ${DUE_MESSAGES_SQL}`).all(200, 10) as { detail: string }[];
        assert.match(plan.map((p) => p.detail).join(' '), /messages_due/, 'the due query reads the partial index');
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sqlite only: durability of commits', () => {
  test('by default every commit is synced to disk (synchronous=FULL); TAWQI_SQLITE_SYNCHRONOUS=normal relaxes it', async () => {
    assert.equal(loadConfig({}).TAWQI_SQLITE_SYNCHRONOUS, 'full');
    assert.equal(loadConfig({ TAWQI_SQLITE_SYNCHRONOUS: 'normal' }).TAWQI_SQLITE_SYNCHRONOUS, 'normal');
    assert.throws(() => loadConfig({ TAWQI_SQLITE_SYNCHRONOUS: 'off' }), /TAWQI_SQLITE_SYNCHRONOUS/);
    for (const [option, pragma] of [
      [undefined, 2],
      ['full', 2],
      ['normal', 1],
    ] as const) {
      const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-store-'));
      const store = await openStore(dir, option ? { synchronous: option } : {});
      try {
        assert.equal(sqliteConnection(store).pragma('synchronous', { simple: true }), pragma, `synchronous for ${option ?? 'the default'}`);
        assert.equal(sqliteConnection(store).pragma('journal_mode', { simple: true }), 'wal');
      } finally {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }
    for (const [env, pragma] of [
      [{}, 2],
      [{ TAWQI_SQLITE_SYNCHRONOUS: 'normal' }, 1],
    ] as const) {
      const s = await startTestServer({ ...env, DATABASE_URL: '' });
      try {
        assert.equal(
          sqliteConnection(s.ctx.store).pragma('synchronous', { simple: true }),
          pragma,
          'the server opens its store with the configured setting',
        );
      } finally {
        await s.close();
      }
    }
  });
});

describe('sqlite only: WAL checkpoints from a worker thread', () => {
  test('the connection does not checkpoint on commit; the worker copies the WAL into the database file within about a second', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-store-'));
    const store = await openStore(dir, { checkpointWorker: true, onCheckpointFailure: (err) => assert.fail(String(err)) });
    try {
      assert.equal(sqliteConnection(store).pragma('wal_autocheckpoint', { simple: true }), 0);
      const file = databasePath(dir);
      const before = statSync(file).size;
      await store.tx(async (trx) => {
        for (let i = 0; i < 400; i++)
          await sql`INSERT INTO jobs (kind, run_at, payload, created_at) VALUES ('bulk', 0, ${'x'.repeat(2000)}, 0)`.execute(trx);
      });
      assert.equal(statSync(file).size, before, 'the commit wrote the WAL only');
      const deadline = Date.now() + 20_000;
      while (statSync(file).size === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok(statSync(file).size > before + 400 * 2000, 'the worker checkpointed the WAL into the database file');
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a WAL past its bound is cut back to zero bytes after its checkpoint; a shorter one keeps its file (PASSIVE only)', async () => {
    const { dir, file, writer, insert } = walWriter();
    // Each row fills most of a 4 KiB page: about one WAL frame per row. The rows go in one
    // transaction: row by row, a slow writer (a loaded machine) let the worker copy every frame
    // between two commits, the next commit started the WAL again, and it never reached the bound.
    const writeRows = writer.transaction((count: number) => {
      for (let i = 0; i < count; i++) insert.run('x'.repeat(3000));
    });
    const walBytes = () => statSync(`${file}-wal`).size;
    const checkpointed = () => writer.pragma('wal_checkpoint(PASSIVE)', { simple: false }) as { log: number; checkpointed: number }[];
    const until = async (done: () => boolean, what: string) => {
      const deadline = Date.now() + 20_000;
      while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(done(), what);
    };
    const worker = startCheckpointer(file, (err) => assert.fail(String(err)), { intervalMs: 50, truncateFrames: 1000 });
    try {
      writeRows(300);
      const short = walBytes();
      // The worker copies the 300 frames into the database file but leaves the WAL's file as it is.
      await until(() => {
        const [state] = checkpointed();
        return state!.log > 0 && state!.checkpointed === state!.log;
      }, 'the worker checkpointed the short WAL');
      assert.equal(walBytes(), short, 'a WAL under the bound keeps its file');

      writeRows(1500);
      assert.ok(walBytes() > 1000 * 4096, 'the WAL grew past the bound');
      await until(() => walBytes() === 0, 'the worker cut the long WAL back to zero bytes');
      assert.deepEqual(writer.prepare('SELECT count(*) AS n FROM rows').get(), { n: 1800 }, 'every row is still there');
    } finally {
      await worker.stop();
      writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('under a steady write load a WAL past its restart bound starts again from its beginning, after a catch-up the writer pauses for', async () => {
    const { dir, file, writer, insert } = walWriter();
    insert.run('first');
    // The WAL header's salts change when SQLite starts the WAL again (TRUNCATE is out of reach here).
    const salts = () => {
      const fd = openSync(`${file}-wal`, 'r');
      try {
        const header = Buffer.alloc(8);
        readSync(fd, header, 0, 8, 16);
        return header.toString('hex');
      } finally {
        closeSync(fd);
      }
    };
    const started = salts();
    let pauses = 0;
    let paused: Promise<void> | null = null;
    const worker = startCheckpointer(file, (err) => assert.fail(String(err)), {
      intervalMs: 50,
      truncateFrames: 1_000_000,
      restartFrames: 200,
      pauseWrites: (catchUp) => {
        pauses++;
        paused = catchUp().finally(() => (paused = null));
      },
    });
    try {
      // A row (about one frame) every turn of the event loop: no quiet moment unless the writer pauses.
      let rows = 1;
      const deadline = Date.now() + 20_000;
      while (salts() === started && Date.now() < deadline) {
        if (paused) await paused;
        insert.run('x'.repeat(3000));
        rows++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      assert.notEqual(salts(), started, 'the WAL started again from its beginning');
      assert.ok(pauses >= 1, 'the worker asked the writer for a pause');
      assert.ok(rows > 200, 'the WAL had passed its restart bound');
      assert.deepEqual(writer.prepare('SELECT count(*) AS n FROM rows').get(), { n: rows }, 'every row is still there');
    } finally {
      await worker.stop();
      writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('without the worker (the CLI) automatic checkpoints stay on', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-store-'));
    const store = await openStore(dir);
    try {
      assert.equal(sqliteConnection(store).pragma('wal_autocheckpoint', { simple: true }), 1000);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('one migrator on both engines', () => {
  test('sqlite only: an installation of the hand-rolled migration loop upgrades in place: its history moves to the Migrator, nothing runs twice, data stays', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-store-'));
    try {
      // The database as the code before the Migrator left it: every migration applied, recorded in schema_migrations.
      const old = new SQLite(databasePath(dir));
      old.exec('CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
      for (const m of MIGRATIONS) {
        old.exec(m.sql);
        old.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.id, m.name, 1_700_000_000 + m.id);
      }
      old.prepare(`INSERT INTO jobs (kind, run_at, payload, created_at) VALUES ('kept', 5, '{}', 5)`).run();
      old.close();

      for (let open = 0; open < 2; open++) {
        const store = await openStore(dir);
        try {
          const history = await sql<{
            name: string;
            timestamp: string;
          }>`SELECT name, timestamp FROM kysely_migration ORDER BY name`.execute(store.db);
          assert.deepEqual(
            history.rows.map((r) => r.name),
            MIGRATIONS.map((m) => String(m.id).padStart(4, '0')),
          );
          assert.equal(history.rows[0]!.timestamp, new Date((1_700_000_000 + 1) * 1000).toISOString(), 'applied times kept');
          const legacy = sqliteConnection(store).prepare("SELECT name FROM sqlite_master WHERE name = 'schema_migrations'").get();
          assert.equal(legacy, undefined, 'schema_migrations is gone');
          assert.deepEqual(await store.db.selectFrom('jobs').select('kind').execute(), [{ kind: 'kept' }]);
        } finally {
          await store.close();
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test(
    'postgres only: three processes opening a fresh database at once migrate it once',
    { skip: !onPostgres && 'runs with TAWQI_TEST_DATABASE=postgres' },
    async () => {
      const url = await createTestDatabase();
      try {
        // Three stores with their own pools: to PostgreSQL, three processes.
        const stores = await Promise.all([0, 1, 2].map(() => openStore('/nonexistent', { databaseUrl: url, poolSize: 2 })));
        try {
          const history = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(stores[0]!.db);
          const later = MIGRATIONS.filter((m) => m.id > POSTGRES_BASELINE.through).map((m) => ({ name: migrationName(m.id) }));
          assert.deepEqual(
            history.rows,
            [{ name: migrationName(POSTGRES_BASELINE.through) }, ...later],
            'the baseline and each later migration, recorded once',
          );
          for (const store of stores) {
            assert.equal(store.dialect, 'postgres');
            assert.equal(await store.tx((trx) => incrementCounter(trx, 'three', 0)), stores.indexOf(store) + 1);
          }
        } finally {
          await Promise.all(stores.map((s) => s.close()));
        }
      } finally {
        await dropTestDatabase(url);
      }
    },
  );

  test(
    'postgres only: the baseline has every table, column, default and index SQLite has after its migrations',
    { skip: !onPostgres && 'runs with TAWQI_TEST_DATABASE=postgres' },
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-store-'));
      const url = await createTestDatabase();
      const sqlite = await openStore(dir);
      const postgres = await openStore(dir, { databaseUrl: url });
      try {
        const raw = sqliteConnection(sqlite);
        const tables = (
          raw
            .prepare(
              "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'kysely_%' AND name NOT LIKE 'sqlite_%' ORDER BY name",
            )
            .all() as { name: string }[]
        ).map((t) => t.name);
        const pgColumns = await sql<{ table_name: string; column_name: string; is_nullable: string; column_default: string | null }>`
        SELECT table_name, column_name, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'public' AND table_name NOT LIKE 'kysely_%'`.execute(
          postgres.db,
        );
        assert.deepEqual([...new Set(pgColumns.rows.map((c) => c.table_name))].sort(), tables);
        for (const table of tables) {
          const columns = raw.prepare(`SELECT name, "notnull", dflt_value, pk FROM pragma_table_info(?)`).all(table) as {
            name: string;
            notnull: number;
            dflt_value: string | null;
            pk: number;
          }[];
          const pg = pgColumns.rows.filter((c) => c.table_name === table);
          assert.deepEqual(pg.map((c) => c.column_name).sort(), columns.map((c) => c.name).sort(), `columns of ${table}`);
          for (const c of columns) {
            const p = pg.find((x) => x.column_name === c.name)!;
            if (c.notnull || c.pk) assert.equal(p.is_nullable, 'NO', `${table}.${c.name} is NOT NULL`);
            const pgDefault = p.column_default?.replace(/::[a-z ]+$/, '') ?? null;
            assert.equal(pgDefault, c.dflt_value, `${table}.${c.name} default`);
          }
        }
        const sqliteIndexes = (
          raw.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").all() as { name: string }[]
        ).map((i) => i.name);
        const pgIndexes = await sql<{
          indexname: string;
        }>`SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key' AND indexname NOT LIKE 'kysely_%' ORDER BY indexname`.execute(
          postgres.db,
        );
        assert.deepEqual(
          pgIndexes.rows.map((i) => i.indexname),
          sqliteIndexes,
        );
      } finally {
        await sqlite.close();
        await postgres.close();
        rmSync(dir, { recursive: true, force: true });
        await dropTestDatabase(url);
      }
    },
  );
});

describe('store.tx on PostgreSQL', () => {
  test(
    'postgres only: a transaction PostgreSQL picks as a deadlock victim runs again and commits',
    { skip: !onPostgres && 'runs with TAWQI_TEST_DATABASE=postgres' },
    async () => {
      const url = await createTestDatabase();
      const store = await openStore('/nonexistent', { databaseUrl: url });
      try {
        await store.tx(async (trx) => {
          await incrementCounter(trx, 'a', 0);
          await incrementCounter(trx, 'b', 0);
        });
        let bothLocked!: () => void;
        const barrier = new Promise<void>((resolve) => (bothLocked = resolve));
        let locked = 0;
        const runs: string[] = [];
        // Each takes one row, waits until the other has taken the other row, then wants it: a deadlock.
        const crossing = (first: string, second: string) =>
          store.tx(async (trx) => {
            runs.push(first);
            await incrementCounter(trx, first, 0);
            if (++locked === 2) bothLocked();
            await barrier;
            await incrementCounter(trx, second, 0);
          });
        const results = await Promise.allSettled([crossing('a', 'b'), crossing('b', 'a')]);
        assert.deepEqual(
          results.map((r) => r.status),
          ['fulfilled', 'fulfilled'],
        );
        assert.equal(runs.length, 3, 'one of the two ran twice');
        const rows = await store.db.selectFrom('counters').select(['scope', 'count']).orderBy('scope').execute();
        assert.deepEqual(rows, [
          { scope: 'a', count: 3 },
          { scope: 'b', count: 3 },
        ]);
      } finally {
        await store.close();
        await dropTestDatabase(url);
      }
    },
  );
});

describe("store.groupTx, on the run's engine", () => {
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tawqi-grouptx-'));
    store = await openStore(dir, await storeOptions(dir));
  });
  afterEach(async () => {
    await store.close();
    await dropDatabaseOf(dir);
    rmSync(dir, { recursive: true, force: true });
  });

  const counts = async (): Promise<Record<string, number>> =>
    Object.fromEntries((await store.db.selectFrom('counters').select(['scope', 'count']).execute()).map((r) => [r.scope, r.count]));
  /** The transaction a member ran in (PostgreSQL), or null on SQLite. */
  const txid = async (trx: Parameters<Parameters<Store['groupTx']>[0]>[0]): Promise<string | null> =>
    store.dialect === 'postgres' ? String((await sql<{ t: string }>`select txid_current() as t`.execute(trx)).rows[0]!.t) : null;
  /** A row insert (not an upsert), as a create's rows are: the same SQL for every member. */
  const insertCounter = (trx: Parameters<typeof txid>[0], scope: string) =>
    insertRecord(trx, 'counters', null, { scope, window_start: 0, count: 1 });

  test('the calls of a moment share one transaction and commit every write, their inserts included', async () => {
    const results = await Promise.all(
      ['a', 'b', 'c', 'd'].map((scope, i) =>
        store.groupTx(async (trx) => {
          await insertCounter(trx, scope);
          await incrementCounter(trx, 'shared', 0);
          return txid(trx);
        }, `acct_${i}`),
      ),
    );
    assert.deepEqual(await counts(), { a: 1, b: 1, c: 1, d: 1, shared: 4 });
    if (store.dialect === 'postgres') assert.equal(new Set(results).size, 1, 'one transaction for the four');
  });

  test('members reading the same row get it each as their own object', async () => {
    await store.tx((trx) => insertCounter(trx, 'r'));
    const read = (trx: Parameters<typeof txid>[0]) =>
      trx.selectFrom('counters').select(['scope', 'count']).where('scope', '=', 'r').executeTakeFirstOrThrow();
    const rows = await Promise.all([1, 2, 3].map(() => store.groupTx(read)));
    assert.deepEqual(
      rows,
      [1, 2, 3].map(() => ({ scope: 'r', count: 1 })),
    );
    assert.equal(new Set(rows).size, 3);
  });

  test('a member that throws after writing leaves nothing; the others run again alone and commit', async () => {
    const runs: string[] = [];
    const results = await Promise.allSettled(
      ['a', 'b', 'c'].map((scope) =>
        store.groupTx(async (trx) => {
          runs.push(scope);
          await insertCounter(trx, scope);
          if (scope === 'b') throw new Error('refused after writing');
          return txid(trx);
        }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.match(String((results[1] as PromiseRejectedResult).reason), /refused after writing/);
    assert.deepEqual(await counts(), { a: 1, c: 1 });
    if (store.dialect === 'postgres') {
      assert.deepEqual(runs.sort(), ['a', 'a', 'b', 'b', 'c', 'c'], 'the group ran, then each member alone');
      const [a, , c] = results as PromiseFulfilledResult<string>[];
      assert.notEqual(a!.value, c!.value, 'each in its own transaction');
    }
  });

  test('a member refused before it wrote is left out; the group commits without running again', async () => {
    const runs: string[] = [];
    const results = await Promise.allSettled(
      ['a', 'b', 'c'].map((scope) =>
        store.groupTx(async (trx) => {
          runs.push(scope);
          await sql`select 1`.execute(trx);
          if (scope === 'b') throw new Error('refused before writing');
          await insertCounter(trx, scope);
          return txid(trx);
        }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await counts(), { a: 1, c: 1 });
    assert.deepEqual(runs.sort(), ['a', 'b', 'c'], 'each ran once');
    if (store.dialect === 'postgres') {
      const [a, , c] = results as PromiseFulfilledResult<string>[];
      assert.equal(a!.value, c!.value, 'one transaction');
    }
  });

  test("a statement that fails (a duplicate key) fails its member alone: the others' writes commit", async () => {
    await store.tx((trx) => insertCounter(trx, 'taken'));
    const results = await Promise.allSettled(['a', 'taken', 'c'].map((scope) => store.groupTx((trx) => insertCounter(trx, scope))));
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await counts(), { a: 1, c: 1, taken: 1 });
  });
});

describe("message outcomes in a batch, on the run's engine", () => {
  test('each outcome is written only while its message is queued under the claim it names', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-outcomes-'));
    const store = await openStore(dir, await storeOptions(dir));
    try {
      const queue = async (lease: string | null): Promise<number> => {
        const { rows } = await store.tx((trx) =>
          insertRecord(
            trx,
            'messages',
            null,
            {
              account_id: 'acct_1',
              livemode: 0,
              channel: 'email',
              recipient: 'a@example.com',
              kind: 'invitation',
              subject: 's',
              body: 'b',
              signature_request_id: null,
              signer_id: null,
              created_at: 1,
              sent_at: null,
              state: 'queued',
              deliver_at: 1,
              lease_owner: lease,
            },
            'id',
          ),
        );
        return Number(rows[0]!.id);
      };
      const [held, sent, stale, scrubbed, unclaimed] = [
        await queue('p#1'),
        await queue('p#1'),
        await queue('p#2'),
        await queue('p#1'),
        await queue(null),
      ];
      await store.tx((trx) =>
        recordMessageOutcomes(trx, [
          { id: held, lease: 'p#1', state: 'held' },
          { id: sent, lease: 'p#1', state: 'sent', sentAt: 50 },
          // Taken over by another claim since: left as it is.
          { id: stale, lease: 'p#1', state: 'sent', sentAt: 51 },
          { id: scrubbed, lease: 'p#1', state: 'sent', sentAt: 52, note: 'gone' },
          { id: unclaimed, lease: null, state: 'held' },
        ]),
      );
      const rows = await store.db.selectFrom('messages').select(['id', 'state', 'sent_at', 'body', 'lease_owner']).orderBy('id').execute();
      assert.deepEqual(
        rows.map(({ id: _id, ...r }) => r),
        [
          { state: 'held', sent_at: null, body: 'b', lease_owner: null },
          { state: 'sent', sent_at: 50, body: 'b', lease_owner: null },
          { state: 'queued', sent_at: null, body: 'b', lease_owner: 'p#2' },
          { state: 'sent', sent_at: 52, body: 'gone', lease_owner: null },
          { state: 'held', sent_at: null, body: 'b', lease_owner: null },
        ],
      );
    } finally {
      await store.close();
      await dropDatabaseOf(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("migration 17 and webhook attempts, on the run's engine", () => {
  test('attempts recorded before it gain response_excerpt: null before next_retry_at, laid out as new attempts are written', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-attempts-'));
    const store = await openStore(dir, await storeOptions(dir));
    try {
      // Attempts as the code before migration 17 wrote them; the error quotes the key text, which must stay as it is.
      const error = 'answered 500: {"a":1,"next_retry_at":1}';
      const before = [
        { attempt: 1, created_at: 10, response_status: 500, duration_ms: 4, error, next_retry_at: 70 },
        { attempt: 2, created_at: 70, response_status: null, duration_ms: 9, error: 'timed out', next_retry_at: null },
      ];
      const row = (id: string, attempts: unknown[], lease: string | null) => ({
        id,
        event_id: 'evt_1',
        endpoint_id: 'we_1',
        trigger: 'event' as const,
        status: 'pending' as const,
        attempt_count: attempts.length,
        next_attempt_at: 100,
        leased_until: lease ? 100 : null,
        lease_owner: lease,
        attempts: JSON.stringify(attempts),
        created_at: 1,
        updated_at: 1,
      });
      await store.db
        .insertInto('webhook_deliveries')
        .values([row('whd_old', before, 'p#1'), row('whd_none', [], null)])
        .execute();
      const m17 = MIGRATIONS.find((m) => m.id === 17)!;
      await sql.raw(store.dialect === 'postgres' ? m17.postgres! : m17.sql).execute(store.db);

      const attempts = async (id: string) =>
        (await store.db.selectFrom('webhook_deliveries').select('attempts').where('id', '=', id).executeTakeFirstOrThrow()).attempts;
      const migrated = before.map(({ next_retry_at, ...a }) => ({ ...a, response_excerpt: null, next_retry_at }));
      assert.equal(await attempts('whd_old'), JSON.stringify(migrated));
      assert.equal(await attempts('whd_none'), '[]');

      // A new attempt is appended with the same layout, its excerpt kept as given.
      const recorded = await store.tx((trx) =>
        recordAttempts(trx, [
          {
            deliveryId: 'whd_old',
            lease: 'p#1',
            entry: { attempt: 3, created_at: 200, response_status: 200, duration_ms: 3, error: null, response_excerpt: 'مقبول\n"ok"' },
            outcome: { status: 'succeeded' },
            now: 200,
          },
        ]),
      );
      assert.deepEqual([...recorded], ['whd_old']);
      const third = {
        attempt: 3,
        created_at: 200,
        response_status: 200,
        duration_ms: 3,
        error: null,
        response_excerpt: 'مقبول\n"ok"',
        next_retry_at: null,
      };
      assert.equal(await attempts('whd_old'), JSON.stringify([...migrated, third]));
    } finally {
      await store.close();
      await dropDatabaseOf(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The engine's plan of a compiled query, as one line. */
async function planOf(store: Store, compiled: CompiledQuery): Promise<string> {
  const explain = store.dialect === 'postgres' ? 'EXPLAIN ' : 'EXPLAIN QUERY PLAN ';
  const rows = (await store.db.executeQuery(CompiledQuery.raw(explain + compiled.sql, [...compiled.parameters]))).rows;
  return (rows as Record<string, unknown>[]).map((r) => String(r['QUERY PLAN'] ?? r.detail)).join(' | ');
}

describe("one request's events and messages, on the run's engine (migration 21)", () => {
  test("a request's events are read by the events_request index, not by a walk of the account's history", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-events-'));
    const store = await openStore(dir, await storeOptions(dir));
    try {
      // 2,000 events of one account: 10 for each of 200 requests (ids in creation order, as newId makes them), and 50 with no request.
      const rows = [];
      for (let i = 0; i < 2050; i++) {
        const request = i < 2000 ? `sr_${String(i % 200).padStart(4, '0')}` : null;
        rows.push({
          id: `evt_${String(i).padStart(6, '0')}`,
          account_id: 'acct_1',
          livemode: 1,
          type: 'signer.sent',
          signature_request_id: request,
          data: '{}',
          request_info: null,
          created_at: 1000 + i,
        });
      }
      for (let i = 0; i < rows.length; i += 500)
        await store.db
          .insertInto('events')
          .values(rows.slice(i, i + 500))
          .execute();
      // No ANALYZE: an installation has no planner statistics unless its operator gathers them.

      const q = { accountId: 'acct_1', livemode: true, signatureRequestId: 'sr_0007', limit: 1000 };
      const found = await listEvents(store.db, q);
      assert.deepEqual(
        found.map((e) => e.id),
        rows
          .filter((r) => r.signature_request_id === 'sr_0007')
          .map((r) => r.id)
          .reverse(),
        "that request's ten events, newest first",
      );
      assert.match(await planOf(store, eventListQuery(store.db, q).compile()), /events_request/);
    } finally {
      await store.close();
      await dropDatabaseOf(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a new session's queued invitations are read by the messages_request index, not by a walk of every message", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-messages-'));
    const store = await openStore(dir, await storeOptions(dir));
    try {
      // 600 messages of 200 requests (three each, the second already sent) and 30 with no request (console mail).
      const rows = [];
      for (let i = 0; i < 630; i++) {
        rows.push({
          account_id: 'acct_1',
          livemode: 1,
          channel: 'email',
          recipient: `s${i}@example.com`,
          kind: i < 600 ? 'invitation' : 'console_invitation',
          subject: 's',
          body: 'b',
          signature_request_id: i < 600 ? `sr_${String(Math.floor(i / 3)).padStart(4, '0')}` : null,
          signer_id: null,
          state: i % 3 === 1 ? 'sent' : 'queued',
          created_at: 1000 + i,
          deliver_at: 1000 + i,
          language: 'ar',
        });
      }
      for (let i = 0; i < rows.length; i += 100)
        await store.db
          .insertInto('messages')
          .values(rows.slice(i, i + 100))
          .execute();
      const found = await queuedInvitationsQuery(store.db, 'sr_0042').execute();
      assert.deepEqual(
        found.map((m) => m.recipient),
        ['s126@example.com', 's128@example.com'],
        'the queued two of its three',
      );
      assert.match(await planOf(store, queuedInvitationsQuery(store.db, 'sr_0042').compile()), /messages_request/);
    } finally {
      await store.close();
      await dropDatabaseOf(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("rate windows, on the run's engine", () => {
  test('hits of one moment are counted one after another: the first `limit` pass, the rest are refused', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-windows-'));
    const store = await openStore(dir, await storeOptions(dir));
    try {
      const windows = rateWindows(store, { scope: 'test', limit: 3, windowMs: 10_000 });
      const other = rateWindows(store, { scope: 'test', limit: 3, windowMs: 10_000 });
      const at = 1_000_000;
      const results = await Promise.all([1, 2, 3, 4, 5].map(() => windows.hit('k', at)));
      assert.deepEqual(
        results.map((r) => [r.allowed, r.remaining]),
        [
          [true, 2],
          [true, 1],
          [true, 0],
          [false, 0],
          [false, 0],
        ],
      );
      if (store.dialect === 'postgres') {
        // The count is in the database: a second limiter (another process) sees it.
        assert.equal((await other.hit('k', at)).allowed, false);
      }
      // Another key is its own window; the next window starts again.
      assert.equal((await windows.hit('j', at)).remaining, 2);
      assert.equal((await windows.hit('k', at + 10_000)).remaining, 2);
    } finally {
      await store.close();
      await dropDatabaseOf(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("shared reads, on the run's engine", () => {
  test('asks of one turn get the same rows; an ask made after a commit sees it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-shared-'));
    const store = await openStore(dir, await storeOptions(dir));
    try {
      const read = precompile((db, $) => db.selectFrom('counters').select('count').where('scope', '=', $(0)));
      await store.tx((trx) => incrementCounter(trx, 'k', 0));
      const [a, b, c] = await Promise.all([
        runShared(store.db, read, ['k']),
        runShared(store.db, read, ['k']),
        runShared(store.db, read, ['j']),
      ]);
      assert.deepEqual([a.rows, b.rows, c.rows], [[{ count: 1 }], [{ count: 1 }], []]);
      // An ask waiting for its turn's query, then a commit, then another ask: the second sees the commit.
      const before = runShared(store.db, read, ['k']);
      await store.tx((trx) => incrementCounter(trx, 'k', 0));
      const after = runShared(store.db, read, ['k']);
      assert.deepEqual((await after).rows, [{ count: 2 }]);
      assert.ok([1, 2].includes((await before).rows[0]!.count));
      // In a transaction it is an ordinary read of that transaction.
      await store.tx(async (trx) => {
        await incrementCounter(trx, 'k', 0);
        assert.deepEqual((await runShared(trx, read, ['k'])).rows, [{ count: 3 }]);
      });
    } finally {
      await store.close();
      await dropDatabaseOf(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("two counters at once, on the run's engine", () => {
  test('incrementCounters bumps the plain one and the bounded one only while it stays within its limit', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-counters2-'));
    const store = await openStore(dir, await storeOptions(dir));
    try {
      const bump = () =>
        store.tx((trx) => incrementCounters(trx, { scope: 'r', windowStart: 0, by: 1 }, { scope: 'e', windowStart: 0, by: 3, limit: 7 }));
      assert.deepEqual(await bump(), { count: 1, within: true });
      assert.deepEqual(await bump(), { count: 2, within: true });
      // 6 + 3 > 7: the bounded counter stays; the plain one goes on.
      assert.deepEqual(await bump(), { count: 3, within: false });
      const rows = await store.db.selectFrom('counters').select(['scope', 'count']).orderBy('scope').execute();
      assert.deepEqual(rows, [
        { scope: 'e', count: 6 },
        { scope: 'r', count: 3 },
      ]);
    } finally {
      await store.close();
      await dropDatabaseOf(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
