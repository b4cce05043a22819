// The bare PostgreSQL baseline: Express 5 + pg doing the same inserts as a create (the same tables as
// baseline-server.ts), with no validation, auth or events. DATABASE_URL: an empty database (the driver's);
// BENCH_PG_POOL_SIZE: the pool, the same size as each Tawqi process's (TAWQI_PG_POOL_SIZE).
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.BENCH_PG_POOL_SIZE ?? 10) });
await pool.query(`CREATE TABLE requests (id TEXT PRIMARY KEY, title TEXT, template_id TEXT, created_at BIGINT NOT NULL);
  CREATE TABLE signers (id TEXT PRIMARY KEY, request_id TEXT NOT NULL, position INTEGER NOT NULL, name TEXT, email TEXT);`);
const randomId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;

interface Body {
  title?: string;
  source?: { template_id?: string };
  signers?: { name?: string; email?: string }[];
}
// One transaction, as the SQLite baseline: BEGIN, the request row, one row per signer, COMMIT
// (parameterised statements, unnamed, as Kysely sends them; pg's default isolation, READ COMMITTED).
async function create(body: Body) {
  const id = randomId('sr');
  const signers = (body.signers ?? []).map((s, i) => ({
    id: randomId('sgr'),
    name: s.name ?? null,
    email: s.email ?? null,
    position: i + 1,
  }));
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('INSERT INTO requests VALUES ($1, $2, $3, $4)', [
      id,
      body.title ?? null,
      body.source?.template_id ?? null,
      Date.now(),
    ]);
    for (const s of signers) await client.query('INSERT INTO signers VALUES ($1, $2, $3, $4, $5)', [s.id, id, s.position, s.name, s.email]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  return { id, object: 'signature_request', title: body.title ?? null, signers };
}

const app = express();
app.use(express.json());
app.post('/api/v1/signature_requests', async (req, res) => void res.status(201).json(await create(req.body as Body)));
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () =>
  console.log(`listening ${(server.address() as AddressInfo).port}`),
);
const stop = () => (server.closeAllConnections(), void pool.end().finally(() => process.exit(0)));
process.on('SIGTERM', stop).on('SIGINT', stop);
