// The bare baseline: Express 5 + better-sqlite3 doing the same inserts as a create, with no validation, auth or events.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import express from 'express';

const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-bench-baseline-'));
const db = new SQLite(path.join(dir, 'baseline.sqlite'));
db.pragma('journal_mode = WAL');
// The same durability as the Tawqi server it is compared with (BENCH_SYNCHRONOUS, set by the driver).
db.pragma(`synchronous = ${process.env.BENCH_SYNCHRONOUS === 'normal' ? 'NORMAL' : 'FULL'}`);
db.exec(`CREATE TABLE requests (id TEXT PRIMARY KEY, title TEXT, template_id TEXT, created_at INTEGER NOT NULL);
  CREATE TABLE signers (id TEXT PRIMARY KEY, request_id TEXT NOT NULL, position INTEGER NOT NULL, name TEXT, email TEXT);`);
const insertRequest = db.prepare('INSERT INTO requests VALUES (?, ?, ?, ?)');
const insertSigner = db.prepare('INSERT INTO signers VALUES (?, ?, ?, ?, ?)');
const randomId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;

interface Body {
  title?: string;
  source?: { template_id?: string };
  signers?: { name?: string; email?: string }[];
}
const create = db.transaction((body: Body) => {
  const id = randomId('sr');
  insertRequest.run(id, body.title ?? null, body.source?.template_id ?? null, Date.now());
  const signers = (body.signers ?? []).map((s, i) => ({
    id: randomId('sgr'),
    name: s.name ?? null,
    email: s.email ?? null,
    position: i + 1,
  }));
  for (const s of signers) insertSigner.run(s.id, id, s.position, s.name, s.email);
  return { id, object: 'signature_request', title: body.title ?? null, signers };
});

const app = express();
app.use(express.json());
app.post('/api/v1/signature_requests', (req, res) => void res.status(201).json(create(req.body as Body)));
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () =>
  console.log(`listening ${(server.address() as AddressInfo).port}`),
);
const stop = () => (server.closeAllConnections(), db.close(), rmSync(dir, { recursive: true, force: true }), process.exit(0));
process.on('SIGTERM', stop).on('SIGINT', stop);
