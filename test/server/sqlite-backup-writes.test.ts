/**
 * `tawqi db backup` on a SQLite installation that keeps writing (README, Backup and restore): the
 * online backup must finish while another connection (the server's process) commits, and the copy
 * must be a whole database. SQLite restarts a backup from its first page whenever another
 * connection writes between two steps; copied a few pages per step, a database of more than a few
 * steps was never backed up while the server took load (found by bench/backup with
 * BENCH_UNDER_LOAD=1: 20,000 requests, no backup after 4 minutes of single creates).
 *
 * SQLite only, in both runs: it opens a SQLite store whatever the run's engine.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { backupSqliteDatabase } from '../../server/src/store/backup.js';
import { databasePath, openStore, sqliteConnection } from '../../server/src/store/db.js';

/** A bound on the writer: the old backup finished only once the writes stopped. */
const MAX_WRITES = 2000;
/** About 1,000 pages of 4 KiB: ten of the old steps. */
const FILLER_ROWS = 1000;

test('sqlite only: the online backup finishes while another connection keeps committing, and the copy is whole', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-backup-writes-'));
  const store = await openStore(dir);
  const writer = new SQLite(databasePath(dir));
  try {
    const own = sqliteConnection(store);
    own.exec('CREATE TABLE filler (n INTEGER PRIMARY KEY, bytes BLOB NOT NULL)');
    const fill = own.prepare('INSERT INTO filler (bytes) VALUES (?)');
    own.transaction(() => {
      for (let i = 0; i < FILLER_ROWS; i++) fill.run(Buffer.alloc(4000, i % 256));
    })();

    const copy = path.join(dir, 'copy.sqlite');
    let done = false;
    const backup = backupSqliteDatabase(store, copy).finally(() => (done = true));
    const write = writer.prepare('INSERT INTO filler (bytes) VALUES (?)');
    let writes = 0;
    // One commit from the other connection between every two turns of the event loop (every backup step).
    while (!done && writes < MAX_WRITES) {
      write.run(Buffer.alloc(10));
      writes++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await backup;
    assert.ok(writes < MAX_WRITES, `the backup finished while the writes went on (${writes} commits)`);

    const restored = new SQLite(copy, { readonly: true });
    try {
      assert.equal(restored.pragma('integrity_check', { simple: true }), 'ok');
      const rows = (restored.prepare('SELECT count(*) AS n FROM filler').get() as { n: number }).n;
      assert.ok(rows >= FILLER_ROWS && rows <= FILLER_ROWS + writes, `${rows} rows: the filler and a prefix of the writes`);
    } finally {
      restored.close();
    }
  } finally {
    writer.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
