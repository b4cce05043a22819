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
});
