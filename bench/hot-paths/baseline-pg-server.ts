/**
 * The bare PostgreSQL baseline of the hot paths: Express 5 + pg, the same tables, routes, reads and
 * writes as baseline-server.ts (see there), on a pg.Pool of BENCH_PG_POOL_SIZE connections (the size
 * of Tawqi's pool). Statements are unnamed and parameterised, as Kysely sends them; the sign is one
 * BEGIN … COMMIT (pg's default isolation, READ COMMITTED). DATABASE_URL: an empty database.
 */
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import pg from 'pg';
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

// BIGINT columns come back as numbers (every value here fits).
pg.types.setTypeParser(pg.types.builtins.INT8, Number);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.BENCH_PG_POOL_SIZE ?? 10) });
await pool.query(TABLES('BIGINT'));

const ACCOUNT = newId('acct');
const KEY = `sk_test_${newToken()}`;
await pool.query('INSERT INTO api_keys VALUES ($1, $2, $3, $4, NULL)', [newId('key'), ACCOUNT, 'test', sha256(KEY)]);

const one = async <T extends pg.QueryResultRow>(db: pg.Pool | pg.PoolClient, text: string, values: unknown[]): Promise<T | undefined> =>
  (await db.query<T>(text, values)).rows[0];

async function authenticate(req: Request, res: Response): Promise<KeyRow | null> {
  const token = bearer(req.headers.authorization);
  const key = token
    ? await one<KeyRow>(pool, 'SELECT id, account_id, mode, revoked_at FROM api_keys WHERE secret_hash = $1', [sha256(token)])
    : undefined;
  if (key && key.revoked_at === null) return key;
  res.status(401).json({ error: { code: 'invalid_api_key' } });
  return null;
}

async function getRequest(req: Request, res: Response): Promise<void> {
  const key = await authenticate(req, res);
  if (!key) return;
  const request = await one<RequestRow>(pool, 'SELECT * FROM requests WHERE id = $1 AND account_id = $2', [
    String(req.params.id),
    key.account_id,
  ]);
  if (!request) return void res.status(404).json({ error: { code: 'not_found' } });
  const signers = await pool.query<SignerRow>('SELECT * FROM signers WHERE request_id = $1 ORDER BY position', [request.id]);
  res.json(requestObject(request, signers.rows));
}

async function listEvents(req: Request, res: Response): Promise<void> {
  const key = await authenticate(req, res);
  if (!key) return;
  const limit = limitOf(req.query.limit);
  const after = typeof req.query.starting_after === 'string' ? req.query.starting_after : undefined;
  const livemode = key.mode === 'live' ? 1 : 0;
  const known =
    after === undefined ||
    (await one(pool, 'SELECT id FROM events WHERE id = $1 AND account_id = $2 AND livemode = $3', [after, key.account_id, livemode]));
  if (limit === null || !known) return void res.status(400).json({ error: { code: 'parameter_invalid' } });
  const { rows } =
    after === undefined
      ? await pool.query<EventRow>('SELECT * FROM events WHERE account_id = $1 AND livemode = $2 ORDER BY id DESC LIMIT $3', [
          key.account_id,
          livemode,
          limit + 1,
        ])
      : await pool.query<EventRow>('SELECT * FROM events WHERE account_id = $1 AND livemode = $2 AND id < $3 ORDER BY id DESC LIMIT $4', [
          key.account_id,
          livemode,
          after,
          limit + 1,
        ]);
  const data = rows.slice(0, limit).map(eventObject);
  const hasMore = rows.length > limit;
  res.json({ object: 'list', data, has_more: hasMore, next_cursor: hasMore ? data[data.length - 1]!.id : null });
}

async function signTx(signer: SignerRow & { account_id: string }, image: string): Promise<RequestRow> {
  const t = now();
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`UPDATE signers SET status = 'signed', signature_image = $1, signed_at = $2 WHERE id = $3`, [image, t, signer.id]);
    await client.query(
      `UPDATE requests SET status = 'completed', completed_at = $1
       WHERE id = $2 AND NOT EXISTS (SELECT 1 FROM signers WHERE request_id = $2 AND status <> 'signed')`,
      [t, signer.request_id],
    );
    const data = JSON.stringify({ object: signerObject({ ...signer, status: 'signed', signed_at: t }) });
    await client.query('INSERT INTO events VALUES ($1, $2, 0, $3, $4, $5, $6)', [
      newId('evt'),
      signer.account_id,
      'signer.signed',
      signer.request_id,
      data,
      t,
    ]);
    const request = (await one<RequestRow>(client, 'SELECT * FROM requests WHERE id = $1', [signer.request_id]))!;
    await client.query('COMMIT');
    return request;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

async function sign(req: Request, res: Response): Promise<void> {
  const body = req.body as { signature?: unknown; consent?: unknown } | undefined;
  const token = req.get('x-tawqi-page-token');
  const signer = token
    ? await one<SignerRow & { account_id: string }>(
        pool,
        `SELECT s.*, r.account_id FROM page_sessions p JOIN signers s ON s.id = p.signer_id JOIN requests r ON r.id = s.request_id
         WHERE p.token_hash = $1 AND p.expires_at > $2`,
        [sha256(token), now()],
      )
    : undefined;
  if (!signer) return void res.status(401).json({ error: { code: 'page_session_invalid' } });
  if (typeof body?.signature !== 'string' || body.consent !== true)
    return void res.status(400).json({ error: { code: 'parameter_invalid' } });
  if (signer.status === 'signed') return void res.status(409).json({ error: { code: 'invalid_state' } });
  res.json(signedState(await signTx(signer, body.signature), signer));
}

/** Multi-row inserts of seeded rows (set-up only, not measured). */
async function insertRows(table: string, rows: readonly object[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 500) {
    const chunk = rows.slice(start, start + 500).map((r) => Object.values(r));
    const width = chunk[0]!.length;
    const tuples = chunk.map((_, i) => `(${Array.from({ length: width }, (__, j) => `$${i * width + j + 1}`).join(', ')})`);
    await pool.query(`INSERT INTO ${table} VALUES ${tuples.join(', ')}`, chunk.flat());
  }
}

async function seed(count: number, signerCount: number, withTokens: boolean): Promise<{ ids: string[]; tokens: string[] }> {
  const all = Array.from({ length: count }, () => seedRequest(ACCOUNT, signerCount, SIGNERS));
  const tokens = withTokens ? all.map(() => newToken()) : [];
  await insertRows(
    'requests',
    all.map((s) => s.request),
  );
  await insertRows(
    'signers',
    all.flatMap((s) => s.signers),
  );
  await insertRows(
    'events',
    all.flatMap((s) => s.events),
  );
  const expires = now() + 12 * 3600;
  await insertRows(
    'page_sessions',
    tokens.map((token, i) => ({ token_hash: sha256(token), signer_id: all[i]!.signers[0]!.id, expires_at: expires })),
  );
  await pool.query('ANALYZE');
  return { ids: all.map((s) => s.request.id), tokens };
}

const app = express();
app.use(express.json({ limit: '600kb' }));
app.get('/api/v1/signature_requests/:id', getRequest);
app.get('/api/v1/events', listEvents);
app.post('/sign/api/sign', sign);
app.post('/bench/seed/requests', async (req, res) => {
  const body = req.body as { count: number; signers: number };
  res.json({ key: KEY, ids: (await seed(body.count, body.signers, false)).ids });
});
app.post('/bench/seed/signers', async (req, res) => {
  const seeded = await seed((req.body as { count: number }).count, 1, true);
  res.json({ key: KEY, ids: seeded.ids, tokens: seeded.tokens });
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () =>
  console.log(`listening ${(server.address() as AddressInfo).port}`),
);
const stop = () => (server.closeAllConnections(), void pool.end().finally(() => process.exit(0)));
process.on('SIGTERM', stop).on('SIGINT', stop);
