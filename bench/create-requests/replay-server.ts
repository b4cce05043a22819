/**
 * The data-model floor (BENCH_REPLAY=1, SQLite): Express + better-sqlite3 running, for each POST,
 * exactly the SQL one Tawqi create runs — the same statements in the same order on Tawqi's own
 * schema, indexes and pragmas, with fresh ids (replay.ts) — and answering Tawqi's response body.
 * None of Tawqi's code runs per request: no authentication logic, validation, plan, events, group
 * commit, idempotency or request log, only their statements. So the run splits the gap between the
 * bare server and Tawqi into what the data written costs (this server against the bare one) and
 * what Tawqi's code costs on top (Tawqi against this server).
 *
 * At start it runs the real server in this process to record a create (replay.ts captureCreate),
 * closes it and opens its database again as the store opens its own, with SQLite's own checkpoints
 * as the bare server has. The creates that arrive in one event-loop turn share one transaction, as
 * Tawqi's group commit shares one. Prints `listening <port>`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { API_PATH } from './workload.js';
import { captureCreate, CreateReplay, openLikeTheStore } from './replay.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'tawqi-bench-replay-'));
const synchronous = process.env.BENCH_SYNCHRONOUS === 'normal' ? 'normal' : 'full';
const { statements, response } = await captureCreate(dataDir, synchronous);
const db = openLikeTheStore(dataDir, synchronous);
const replay = new CreateReplay(db, statements);
const begin = db.prepare('BEGIN IMMEDIATE');
const commit = db.prepare('COMMIT');

let waiting: express.Response[] = [];
/** The turn's creates in one transaction, then their answers. */
function commitGroup(): void {
  const group = waiting;
  waiting = [];
  begin.run();
  for (let i = 0; i < group.length; i++) replay.create();
  commit.run();
  for (const res of group) res.status(201).json(response);
}

const app = express();
app.use(express.json());
app.post(API_PATH, (_req, res) => {
  if (waiting.length === 0) setImmediate(commitGroup);
  waiting.push(res);
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () =>
  console.log(`listening ${(server.address() as AddressInfo).port}`),
);
const stop = () => (server.closeAllConnections(), db.close(), rmSync(dataDir, { recursive: true, force: true }), process.exit(0));
process.on('SIGTERM', stop).on('SIGINT', stop);
