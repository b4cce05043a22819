/**
 * What a restored backup must hold (README, Backup and restore; issue 17, point 5), checked on a
 * server started on it: the backup is one consistent state (balances equal the ledger, one charge
 * per charged request, every completed request has its reference and seal row, every create
 * acknowledged before the backup started is there once and replays to itself, nothing that was
 * never acknowledged); then, once its jobs and deliveries have run, every completed request
 * verifies by its reference and every final PDF's SHA-256 matches the recorded hash.
 */
import assert from 'node:assert/strict';
import type { BackupLoad } from './backupLoad.js';
import { sha256 } from './installation.js';
import type { TestServer } from './server.js';

/** Each account's balances equal the sum of its ledger; a charged request has exactly one ledger row, an uncharged one none. */
export async function assertBalancesMatchLedger(s: TestServer): Promise<void> {
  const db = s.ctx.store.db;
  for (const a of await db.selectFrom('accounts').select(['id', 'balance_sends', 'wallet_minor']).execute()) {
    const sums = await db
      .selectFrom('ledger')
      .select((eb) => [
        eb.fn.sum<number | string | null>('sends_delta').as('sends'),
        eb.fn.sum<number | string | null>('wallet_delta_minor').as('wallet'),
      ])
      .where('account_id', '=', a.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(a.balance_sends), Number(sums.sends ?? 0), `${a.id}: balance_sends = ledger`);
    assert.equal(Number(a.wallet_minor), Number(sums.wallet ?? 0), `${a.id}: wallet_minor = ledger`);
  }
  const charges = await db
    .selectFrom('signature_requests as r')
    .leftJoin('ledger as l', 'l.signature_request_id', 'r.id')
    .select((eb) => ['r.id', 'r.charged', eb.fn.count<number | string>('l.id').as('rows')])
    .groupBy(['r.id', 'r.charged'])
    .execute();
  for (const c of charges) assert.equal(Number(c.rows), Number(c.charged), `${c.id}: one ledger row per charge`);
}

/** The restored requests are exactly what the workload was told, with everything acknowledged before the backup. */
export async function assertSnapshotOfLoad(s: TestServer, load: BackupLoad, key: string): Promise<void> {
  const db = s.ctx.store.db;
  const rows = await db.selectFrom('signature_requests').select(['id', 'status', 'reference']).execute();
  const acknowledged = new Map(load.acknowledged.map((a) => [a.id, a]));
  for (const r of rows) assert.ok(acknowledged.has(r.id), `${r.id} was never acknowledged`);
  const present = new Set(rows.map((r) => r.id));
  const before = load.acknowledged.filter((a) => a.phase === 'before');
  assert.ok(before.length > 0);
  for (const a of before) assert.ok(present.has(a.id), `${a.id}, acknowledged before the backup, is in it`);
  const signers = await db
    .selectFrom('signers')
    .select((eb) => ['signature_request_id', eb.fn.countAll<number | string>().as('n')])
    .groupBy('signature_request_id')
    .execute();
  for (const c of signers) assert.equal(Number(c.n), acknowledged.get(c.signature_request_id)?.signers, 'all signers or none');
  const sealed = new Set(
    (await db.selectFrom('sealed_documents').select('signature_request_id').execute()).map((x) => x.signature_request_id),
  );
  for (const r of rows.filter((x) => x.status === 'completed')) {
    assert.ok(r.reference && sealed.has(r.id), `${r.id}: completed with its reference and seal row`);
  }
  // The idempotency records came along: the same key answers the same request, nothing new is made.
  for (const a of before) {
    const again = await s.call('POST', '/signature_requests', { key, body: a.body, headers: { 'idempotency-key': a.idempotencyKey } });
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.id, a.id);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
  }
  const after = await db
    .selectFrom('signature_requests')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  assert.equal(Number(after.n), rows.length, 'replays created nothing');
}

/** Run jobs and webhook deliveries until nothing more is due. */
export async function drain(s: TestServer): Promise<void> {
  while ((await s.jobs.runDue()) + (await s.webhooks.runDue()) > 0);
}

/** What a completed request shows the world: its verification and its PDF's hash (downloaded, as recorded, as sent). */
export async function publicFace(s: TestServer, key: string, id: string) {
  const row = await s.ctx.store.db
    .selectFrom('sealed_documents')
    .selectAll()
    .where('signature_request_id', '=', id)
    .executeTakeFirstOrThrow();
  assert.equal(row.pdf_status, 'ready', `${id}: sealed`);
  const verification = await s.call('GET', `/verifications/${row.reference}`);
  assert.equal(verification.status, 200, verification.text);
  assert.equal(verification.body.integrity, 'intact', `${row.reference} verifies`);
  const pdf = await fetch(`${s.url}/api/v1/signature_requests/${id}/download/pdf`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(pdf.status, 200);
  const hash = sha256(Buffer.from(await pdf.arrayBuffer()));
  assert.equal(hash, row.pdf_sha256, `${id}: the PDF's SHA-256 is the recorded one`);
  assert.equal(pdf.headers.get('x-file-sha256'), hash);
  return { verification: JSON.parse(verification.text.replaceAll(s.url, 'http://tawqi.test')) as unknown, sha256: hash };
}

/** After drain(): every completed request verifies and its PDF matches; every delivery succeeded; nothing is left due. */
export async function assertDrained(s: TestServer, key: string, delivered: Set<string>): Promise<number> {
  const db = s.ctx.store.db;
  const completed = await db.selectFrom('signature_requests').select('id').where('status', '=', 'completed').execute();
  for (const r of completed) await publicFace(s, key, r.id);
  const events = await db.selectFrom('events').select('id').where('type', '=', 'signature_request.completed').execute();
  assert.equal(events.length, completed.length, 'one completed event per completed request');
  for (const e of events) assert.ok(delivered.has(e.id), `${e.id} delivered at least once`);
  const deliveries = await db.selectFrom('webhook_deliveries').select(['id', 'status']).where('status', '!=', 'succeeded').execute();
  assert.deepEqual(deliveries, [], 'every delivery succeeded');
  const now = Math.floor(s.clock.nowMs() / 1000);
  const due = await db.selectFrom('jobs').select(['kind', 'state']).where('state', '=', 'pending').where('run_at', '<=', now).execute();
  assert.deepEqual(due, [], 'no job left due');
  return completed.length;
}
