/**
 * The power-cut model of SQLite with `TAWQI_SQLITE_SYNCHRONOUS=full` (issue 17, point 3). The README
 * promises that every answered commit survives a power cut. While the real server process takes a
 * stream of creates, its DATA_DIR is copied at seeded random moments the way a cut leaves the disk,
 * and each copy is opened as the machine would be after the cut: `PRAGMA integrity_check` is ok,
 * every create answered before the cut is in it, and a server starts on it and serves them.
 *
 * How a cut is modelled: it freezes every file at one instant. Copying the files of a live WAL
 * database one after the other is not one instant, in either order: db first, then WAL, loses the
 * frames of a WAL that was checkpointed and restarted between the two copies; WAL first, then db,
 * gives db pages newer than the WAL that recovery then replays over them (a mix of two moments).
 * So the process is frozen (SIGSTOP) for the copy and continued after (SIGCONT): the files are then
 * those of one instant, with the process stopped at an arbitrary point of its work — mid-write,
 * mid-commit, mid-checkpoint. The `-shm` file is left out: it is shared memory, which a cut loses
 * (SQLite rebuilds it from the WAL on the first open). What this cannot show is the sync itself: the
 * copy reads the OS page cache, which a real cut loses if it was not synced; that part is the
 * `synchronous=full` setting's (one fsync of the WAL per commit before the answer), checked by
 * test/server/store.test.ts. What it does show: an answer never goes out before its commit is
 * written, and a database frozen at any instant opens intact.
 *
 * SQLite only: on PostgreSQL durability is the database server's (`synchronous_commit`), and the
 * PostgreSQL run skips this file, saying so.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { systemClock } from '../../server/src/clock.js';
import { createAccount } from '../../server/src/services/accounts.js';
import { openStore } from '../../server/src/store/db.js';
import { seededRandom } from '../support/crashLoop.js';
import { onPostgres } from '../support/database.js';
import { call } from '../support/server.js';
import { killIfRunning, spawnServer, type ServerProcess } from '../support/serverProcess.js';

const SEED = 17;
const CUTS = 5;
/** Time between cuts, drawn uniformly (ms). */
const GAP_MS = [200, 1200] as const;
const WRITERS = 3;

const dirs: string[] = [];
const servers: ServerProcess[] = [];
after(async () => {
  for (const s of servers) killIfRunning(s.proc);
  await Promise.all(servers.map((s) => s.exited));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(name: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `tawqi-${name}-`));
  dirs.push(dir);
  return dir;
}

/** Freeze the process, copy DATA_DIR as the disk holds it at that instant (no -shm), let it go on. */
function cut(server: ServerProcess, dataDir: string): string {
  const copy = tempDir('cut');
  server.proc.kill('SIGSTOP');
  try {
    cpSync(dataDir, copy, { recursive: true, filter: (src) => !src.endsWith('-shm') });
  } finally {
    server.proc.kill('SIGCONT');
  }
  return copy;
}

test(
  'SQLite synchronous=full: a copy frozen at any instant opens intact and holds every answered create',
  { skip: onPostgres && 'SQLite only: PostgreSQL durability is the database server’s (npm test runs this)', timeout: 300_000 },
  async (t) => {
    t.diagnostic(`seed ${SEED}`);
    const random = seededRandom(SEED);
    const dataDir = tempDir('power');
    const server = await spawnServer(
      { DATA_DIR: dataDir, TAWQI_SQLITE_SYNCHRONOUS: 'full', TAWQI_RATE_LIMIT: '100000', TAWQI_IP_RATE_LIMIT: '100000' },
      'built',
    );
    servers.push(server);
    const store = await openStore(dataDir);
    const { keys } = await createAccount(store, systemClock, {
      name: 'Power Cut Co',
      ownerEmail: 'signer@example.com',
      plan: 'enterprise',
      planExpiresAt: Math.floor(Date.now() / 1000) + 365 * 86400,
      kyb: 'approved',
      balanceSends: 10_000,
      walletMinor: 10_000_000,
      currency: 'EGP',
    });
    await store.close();
    const key = keys.secret_live;
    const tpl = await call(server.base, 'POST', '/templates', { key, body: { title: 'Cut', language: 'en', body: 'Agreed.', fields: [] } });
    assert.equal(tpl.status, 201, tpl.text);

    // Writers: creates one after another, each answered id recorded the moment its answer arrives.
    const answered: string[] = [];
    let stop = false;
    const writer = async () => {
      while (!stop) {
        const r = await call(server.base, 'POST', '/signature_requests', {
          key,
          body: { source: { type: 'template', template_id: tpl.body.id }, signers: [{ name: 'Ali Hassan', email: 'signer@example.com' }] },
        });
        assert.equal(r.status, 201, r.text);
        answered.push(r.body.id);
      }
    };
    const writers = Array.from({ length: WRITERS }, writer);
    // A writer's failure is reported by the Promise.all below, not as an unhandled rejection meanwhile.
    for (const w of writers) w.catch(() => {});

    const copies: { dir: string; before: string[] }[] = [];
    for (let i = 0; i < CUTS; i++) {
      await new Promise((resolve) => setTimeout(resolve, GAP_MS[0] + random() * (GAP_MS[1] - GAP_MS[0])));
      const before = [...answered]; // answered before the freeze began
      copies.push({ dir: cut(server, dataDir), before });
    }
    stop = true;
    await Promise.all(writers);

    for (const { dir, before } of copies) {
      const db = new Database(path.join(dir, 'tawqi.sqlite'));
      try {
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
        const stored = new Set(db.prepare('SELECT id FROM signature_requests').pluck().all() as string[]);
        const lost = before.filter((id) => !stored.has(id));
        assert.deepEqual(lost, [], `answered before the cut, missing from the copy (of ${before.length})`);
        const charged = db.prepare("SELECT count(*) FROM ledger WHERE kind = 'send'").pluck().get();
        assert.equal(charged, stored.size, 'one charge per stored request');
      } finally {
        db.close();
      }
    }
    t.diagnostic(`${CUTS} cuts; creates answered before each: ${copies.map((c) => c.before.length).join(', ')}`);

    // A server starts on the last copy, serves what was answered and takes new writes.
    const last = copies[copies.length - 1]!;
    const restored = await spawnServer({ DATA_DIR: last.dir }, 'built');
    servers.push(restored);
    for (const id of last.before.slice(-5)) {
      const r = await call(restored.base, 'GET', `/signature_requests/${id}`, { key });
      assert.equal(r.status, 200, r.text);
    }
    const more = await call(restored.base, 'POST', '/signature_requests', {
      key,
      body: { source: { type: 'template', template_id: tpl.body.id }, signers: [{ name: 'Ali Hassan', email: 'signer@example.com' }] },
    });
    assert.equal(more.status, 201, more.text);
  },
);
