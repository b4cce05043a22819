/**
 * The create benchmark's SQL replay (bench/create-requests/replay.ts, the data-model floor behind
 * BENCH_REPLAY=1): a create recorded on the real server runs again with fresh ids, as many times as
 * asked, writing what a create writes; the ids it makes are told from those it only reads. SQLite
 * only (the replay is SQLite's floor).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { captureCreate, CreateReplay, madeIds, openLikeTheStore, type Captured } from '../../bench/create-requests/replay.js';
import { btreesWritten, measureGroup, pagesChangedByBtree } from '../../bench/create-requests/wal-frames.js';
import { onPostgres } from '../support/database.js';

describe('sqlite only: the create replay', { skip: onPostgres && 'the replay is SQLite’s data-model floor' }, () => {
  let dir: string;
  let captured: { statements: Captured[]; response: unknown };
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tawqi-replay-test-'));
    captured = await captureCreate(dir, 'normal');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the recording is one create: its transaction, the request, three signers, invitations, events and the stored response', () => {
    const sql = captured.statements.map((s) => s.sql.replace(/\s+/g, ' ').toLowerCase());
    assert.equal(sql.filter((s) => s.startsWith('begin')).length, 1);
    assert.equal(sql.filter((s) => s.startsWith('commit')).length, 1);
    assert.equal(sql.filter((s) => s.startsWith('insert into "signature_requests"')).length, 1);
    assert.equal(sql.filter((s) => s.startsWith('insert into "signers"')).length, 3);
    assert.ok(sql.some((s) => s.startsWith('insert into "messages"')));
    assert.ok(sql.some((s) => s.startsWith('insert into "events"')));
    assert.ok(sql.some((s) => s.startsWith('insert into "idempotency"')));
    assert.ok(!sql.some((s) => s.includes('request_log')), 'the request log’s flush is no part of a create');
    assert.equal((captured.response as { object?: string }).object, 'signature_request');
  });

  test('the ids a create makes are renamed, those it reads are kept', () => {
    const made = madeIds(captured.statements);
    const response = captured.response as { id: string; signers: { id: string }[] };
    assert.ok(made.has(response.id));
    for (const s of response.signers) assert.ok(made.has(s.id));
    assert.ok(
      [...made].some((t) => /^[0-9a-f]{8}-/.test(t)),
      'the Idempotency-Key',
    );
    assert.ok(![...made].some((t) => t.startsWith('acct_') || t.startsWith('tpl_') || t.startsWith('key_')));
  });

  test('each replayed create writes a new request with its signers, events and stored response, ids in order', () => {
    const db = openLikeTheStore(dir, 'normal');
    try {
      const count = (table: string): number => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      const tables = ['signature_requests', 'signers', 'events', 'messages', 'idempotency'];
      const before = Object.fromEntries(tables.map((t) => [t, count(t)]));
      const replay = new CreateReplay(db, captured.statements);
      db.exec('BEGIN IMMEDIATE');
      for (let i = 0; i < 3; i++) replay.create();
      db.exec('COMMIT');
      const grown = Object.fromEntries(tables.map((t) => [t, (count(t) - before[t]!) / 3]));
      // Per create the rows the recorded create inserted (one INSERT a row on SQLite).
      const inserted = (t: string): number =>
        captured.statements.filter((s) => s.sql.replace(/\s+/g, ' ').toLowerCase().startsWith(`insert into "${t}"`)).length;
      assert.deepEqual(grown, Object.fromEntries(tables.map((t) => [t, inserted(t)])));
      assert.deepEqual(grown, { signature_requests: 1, signers: 3, events: 4, messages: 3, idempotency: 1 });
      const ids = (db.prepare('SELECT id FROM signature_requests ORDER BY rowid').all() as { id: string }[]).map((r) => r.id);
      assert.equal(new Set(ids).size, ids.length);
      assert.deepEqual([...ids].sort(), ids, 'time-ordered ids, as Tawqi makes them');
      // A replayed request's signers and events point at it.
      const last = ids.at(-1)!;
      assert.equal((db.prepare('SELECT count(*) AS n FROM signers WHERE signature_request_id = ?').get(last) as { n: number }).n, 3);
      assert.ok((db.prepare('SELECT count(*) AS n FROM events WHERE signature_request_id = ?').get(last) as { n: number }).n > 0);
    } finally {
      db.close();
    }
  });

  test('the WAL-frames diagnostic: every B-tree a create writes costs a page a transaction, fewer per create as creates share one', () => {
    const db = openLikeTheStore(dir, 'normal');
    try {
      const btrees = btreesWritten(db, captured.statements);
      const tables = Object.fromEntries(btrees.map((t) => [t.table, t.indexes]));
      assert.deepEqual(Object.keys(tables).sort(), [
        'counters',
        'events',
        'idempotency',
        'jobs',
        'messages',
        'signature_requests',
        'signers',
      ]);
      assert.ok(tables.events!.includes('events_list') && tables.events!.includes('events_request'));
      assert.ok(
        tables.idempotency!.some((i) => i.startsWith('sqlite_autoindex_idempotency')),
        'the key’s own index',
      );
      const count = btrees.reduce((n, t) => n + 1 + t.indexes.length, 0);

      const replay = new CreateReplay(db, captured.statements);
      const alone = measureGroup(db, replay, 1, 20);
      const shared = measureGroup(db, replay, 8, 40);
      assert.equal(alone.creates, 20);
      assert.ok(alone.frames_per_create >= count, `${alone.frames_per_create} frames per create, ${count} B-trees written`);
      assert.ok(shared.frames_per_create < alone.frames_per_create / 2, `${shared.frames_per_create} against ${alone.frames_per_create}`);

      // Split by B-tree, the pages a transaction changes are the frames its COMMIT wrote.
      const split = pagesChangedByBtree(db, replay, 1, 5);
      const pages = split.pages_changed.reduce((n, b) => n + b.pages_per_create, 0);
      const rounding = 0.005 * (split.pages_changed.length + 1); // each figure is rounded to 0.01
      assert.ok(Math.abs(pages - split.frames_per_create) <= rounding, `${pages} pages changed, ${split.frames_per_create} frames`);
      for (const t of btrees)
        for (const name of [t.table, ...t.indexes])
          assert.ok((split.pages_changed.find((b) => b.btree === name)?.pages_per_create ?? 0) >= 1, `${name}: a page per create`);
    } finally {
      db.close();
    }
  });
});
