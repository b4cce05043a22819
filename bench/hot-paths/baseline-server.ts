/**
 * The bare baseline of the hot paths: Express 5 + better-sqlite3 (WAL, a temp file, the
 * `synchronous` setting of the run's Tawqi server) doing each path's reads and writes and nothing
 * else — no validation beyond what a route needs to answer, no rate limits, request log, events
 * beyond the one row, jobs or sealing. Tables and JSON: bare.ts. Prints `listening <port>`.
 *
 * - GET /api/v1/signature_requests/:id: the key row by the bearer's SHA-256, the request row (of
 *   the key's account), its signer rows; JSON.
 * - GET /api/v1/events?limit=&starting_after=: the key row, the cursor's row (it must be in the
 *   list, as Tawqi checks), one SELECT … ORDER BY id DESC LIMIT n + 1; each event's data parsed; JSON.
 * - POST /sign/api/sign (x-tawqi-page-token): the page session and its signer by the token's
 *   SHA-256, then one transaction: the signer signed (with the image), the request completed when no
 *   signer is left, one event row; the request row read back; a short page state.
 * - POST /bench/seed/requests {count, signers} and /bench/seed/signers {count}: the driver's set-up
 *   (not measured): requests with their events, and single-signer requests with a page token each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import express, { type Request, type Response } from 'express';
import { SIGNERS } from '../create-requests/workload.js';
import {
  bearer,
  eventObject,
  limitOf,
  newId,
  newToken,
  now,
  requestObject,
  seedRequest,
  sha256,
  signedState,
  signerObject,
  TABLES,
  type EventRow,
  type KeyRow,
  type RequestRow,
  type SignerRow,
} from './bare.js';

const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-bench-baseline-'));
const db = new SQLite(path.join(dir, 'baseline.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma(`synchronous = ${process.env.BENCH_SYNCHRONOUS === 'normal' ? 'NORMAL' : 'FULL'}`);
db.exec(TABLES('INTEGER'));

const q = {
  key: db.prepare<[string], KeyRow>('SELECT id, account_id, mode, revoked_at FROM api_keys WHERE secret_hash = ?'),
  request: db.prepare<[string, string], RequestRow>('SELECT * FROM requests WHERE id = ? AND account_id = ?'),
  requestById: db.prepare<[string], RequestRow>('SELECT * FROM requests WHERE id = ?'),
  signers: db.prepare<[string], SignerRow>('SELECT * FROM signers WHERE request_id = ? ORDER BY position'),
  cursor: db.prepare<[string, string, number], { id: string }>('SELECT id FROM events WHERE id = ? AND account_id = ? AND livemode = ?'),
  page: db.prepare<[string, number, number], EventRow>(
    'SELECT * FROM events WHERE account_id = ? AND livemode = ? ORDER BY id DESC LIMIT ?',
  ),
  pageAfter: db.prepare<[string, number, string, number], EventRow>(
    'SELECT * FROM events WHERE account_id = ? AND livemode = ? AND id < ? ORDER BY id DESC LIMIT ?',
  ),
  session: db.prepare<[string, number], SignerRow & { account_id: string }>(
    `SELECT s.*, r.account_id FROM page_sessions p JOIN signers s ON s.id = p.signer_id JOIN requests r ON r.id = s.request_id
     WHERE p.token_hash = ? AND p.expires_at > ?`,
  ),
  sign: db.prepare<[string, number, string]>(`UPDATE signers SET status = 'signed', signature_image = ?, signed_at = ? WHERE id = ?`),
  complete: db.prepare<[number, string, string]>(
    `UPDATE requests SET status = 'completed', completed_at = ?
     WHERE id = ? AND NOT EXISTS (SELECT 1 FROM signers WHERE request_id = ? AND status <> 'signed')`,
  ),
  insertKey: db.prepare<[string, string, string, string]>('INSERT INTO api_keys VALUES (?, ?, ?, ?, NULL)'),
  insertRequest: db.prepare<RequestRow>(
    `INSERT INTO requests VALUES (@id, @account_id, @livemode, @status, @title, @template_id, @metadata, @reference, @completed_at,
     @expires_at, @created_at)`,
  ),
  insertSigner: db.prepare<SignerRow>(
    `INSERT INTO signers VALUES (@id, @request_id, @position, @name, @email, @status, @fields, @signature_image, @sent_at,
     @viewed_at, @signed_at)`,
  ),
  insertEvent: db.prepare<EventRow>('INSERT INTO events VALUES (@id, @account_id, @livemode, @type, @request_id, @data, @created_at)'),
  insertSession: db.prepare<[string, string, number]>('INSERT INTO page_sessions VALUES (?, ?, ?)'),
};

const ACCOUNT = newId('acct');
const KEY = `sk_test_${newToken()}`;
q.insertKey.run(newId('key'), ACCOUNT, 'test', sha256(KEY));

function authenticate(req: Request, res: Response): KeyRow | null {
  const token = bearer(req.headers.authorization);
  const key = token ? q.key.get(sha256(token)) : undefined;
  if (key && key.revoked_at === null) return key;
  res.status(401).json({ error: { code: 'invalid_api_key' } });
  return null;
}

function getRequest(req: Request, res: Response): void {
  const key = authenticate(req, res);
  if (!key) return;
  const request = q.request.get(String(req.params.id), key.account_id);
  if (!request) return void res.status(404).json({ error: { code: 'not_found' } });
  res.json(requestObject(request, q.signers.all(request.id)));
}

function listEvents(req: Request, res: Response): void {
  const key = authenticate(req, res);
  if (!key) return;
  const limit = limitOf(req.query.limit);
  const after = typeof req.query.starting_after === 'string' ? req.query.starting_after : undefined;
  const livemode = key.mode === 'live' ? 1 : 0;
  if (limit === null || (after !== undefined && !q.cursor.get(after, key.account_id, livemode)))
    return void res.status(400).json({ error: { code: 'parameter_invalid' } });
  const rows =
    after === undefined ? q.page.all(key.account_id, livemode, limit + 1) : q.pageAfter.all(key.account_id, livemode, after, limit + 1);
  const data = rows.slice(0, limit).map(eventObject);
  const hasMore = rows.length > limit;
  res.json({ object: 'list', data, has_more: hasMore, next_cursor: hasMore ? data[data.length - 1]!.id : null });
}

const signTx = db.transaction((signer: SignerRow & { account_id: string }, image: string): RequestRow => {
  const t = now();
  q.sign.run(image, t, signer.id);
  q.complete.run(t, signer.request_id, signer.request_id);
  const signed = { ...signer, status: 'signed', signed_at: t };
  q.insertEvent.run({
    id: newId('evt'),
    account_id: signer.account_id,
    livemode: 0,
    type: 'signer.signed',
    request_id: signer.request_id,
    data: JSON.stringify({ object: signerObject(signed) }),
    created_at: t,
  });
  return q.requestById.get(signer.request_id)!;
});

function sign(req: Request, res: Response): void {
  const body = req.body as { signature?: unknown; consent?: unknown } | undefined;
  const token = req.get('x-tawqi-page-token');
  const signer = token ? q.session.get(sha256(token), now()) : undefined;
  if (!signer) return void res.status(401).json({ error: { code: 'page_session_invalid' } });
  if (typeof body?.signature !== 'string' || body.consent !== true)
    return void res.status(400).json({ error: { code: 'parameter_invalid' } });
  if (signer.status === 'signed') return void res.status(409).json({ error: { code: 'invalid_state' } });
  res.json(signedState(signTx(signer, body.signature), signer));
}

const seedRequests = db.transaction((count: number, signerCount: number): string[] => {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const seeded = seedRequest(ACCOUNT, signerCount, SIGNERS);
    q.insertRequest.run(seeded.request);
    for (const s of seeded.signers) q.insertSigner.run(s);
    for (const e of seeded.events) q.insertEvent.run(e);
    ids.push(seeded.request.id);
  }
  return ids;
});

const seedSigners = db.transaction((count: number): { ids: string[]; tokens: string[] } => {
  const ids: string[] = [];
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const seeded = seedRequest(ACCOUNT, 1, SIGNERS);
    q.insertRequest.run(seeded.request);
    q.insertSigner.run(seeded.signers[0]!);
    for (const e of seeded.events) q.insertEvent.run(e);
    const token = newToken();
    q.insertSession.run(sha256(token), seeded.signers[0]!.id, now() + 12 * 3600);
    ids.push(seeded.request.id);
    tokens.push(token);
  }
  return { ids, tokens };
});

const app = express();
app.use(express.json({ limit: '600kb' }));
app.get('/api/v1/signature_requests/:id', getRequest);
app.get('/api/v1/events', listEvents);
app.post('/sign/api/sign', sign);
app.post('/bench/seed/requests', (req, res) => {
  const body = req.body as { count: number; signers: number };
  res.json({ key: KEY, ids: seedRequests(body.count, body.signers) });
});
app.post('/bench/seed/signers', (req, res) => void res.json({ key: KEY, ...seedSigners((req.body as { count: number }).count) }));
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () =>
  console.log(`listening ${(server.address() as AddressInfo).port}`),
);
const stop = () => (server.closeAllConnections(), db.close(), rmSync(dir, { recursive: true, force: true }), process.exit(0));
process.on('SIGTERM', stop).on('SIGINT', stop);
