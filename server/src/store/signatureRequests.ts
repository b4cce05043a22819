import { sql } from 'kysely';
import { insertRecord, insertRecords, precompile, updateById } from './compiled.js';
import type { Tx } from './db.js';
import { decodeRow, encodeRow, type Codec } from './rowCodec.js';
import type { Reminders, WorkflowLink, SignatureRequestRecord, IdentityState, SignerChanges, SignerRecord } from '../domain/records.js';
export type { Reminders, WorkflowLink, SignatureRequestRecord, IdentityState, SignerChanges, SignerRecord };

const requestCodec: Codec<SignatureRequestRecord> = {
  json: ['reminders', 'metadata', 'workflow'],
  bool: ['livemode', 'ordered', 'require_identity', 'charged'],
};
const signerCodec: Codec<SignerRecord> = { json: ['identity', 'fields'], bool: ['require_identity'] };

/**
 * The columns of a signer's record: every column of `signers` but the drawn signature, which only
 * the seal reads (signatureImagesOf). A signed signer's image is a PNG data URL of tens of KB; read
 * with the rest it cost every GET, list and signer move of a signed request its bytes, their copy
 * into a JS string and then garbage (three signers with 20 KB images: 28.3 µs against 10.6 µs for
 * their rows without it). Typed against SignerRecord: a field added there must be named here.
 */
const SIGNER_FIELDS = {
  id: true,
  signature_request_id: true,
  position: true,
  name: true,
  email: true,
  phone: true,
  type: true,
  method: true,
  require_identity: true,
  status: true,
  identity: true,
  fields: true,
  access_code_hash: true,
  link_version: true,
  sent_at: true,
  viewed_at: true,
  signed_at: true,
  declined_at: true,
  decline_reason: true,
  last_reminder_at: true,
  ip: true,
  user_agent: true,
  otp_hash: true,
  otp_expires_at: true,
  otp_attempts: true,
  otp_sent_at: true,
  access_attempts: true,
} as const satisfies Record<keyof SignerRecord, true>;
const SIGNER_COLUMNS = Object.keys(SIGNER_FIELDS) as (keyof SignerRecord)[];
const SIGNER_COLUMNS_QUALIFIED = SIGNER_COLUMNS.map((c) => `signers.${c}` as const);

export async function insertRequest(tx: Tx, r: SignatureRequestRecord): Promise<void> {
  await insertRecord(tx, 'signature_requests', requestCodec, r);
}

/** A request's signers, in one statement on PostgreSQL (compiled.ts insertRecords). */
export async function insertSigners(tx: Tx, signers: readonly SignerRecord[]): Promise<void> {
  await insertRecords(tx, 'signers', signerCodec, signers);
}

/** A request of this account and mode; another account's or mode's id is not found. */
// Precompiled (compiled.ts): every retrieve, send, cancel, sign and seal reads a request and its
// signers; building and compiling these with Kysely each time cost more than running them.
const findRequestQuery = precompile((db, $) =>
  db.selectFrom('signature_requests').selectAll().where('id', '=', $(0)).where('account_id', '=', $(1)).where('livemode', '=', $(2)),
);
const requestByIdQuery = precompile((db, $) => db.selectFrom('signature_requests').selectAll().where('id', '=', $(0)));
// A signer's move reads the request and its signers and decides by them (a signature completes the
// request or not). On PostgreSQL the request row is locked first (FOR UPDATE), so in a READ COMMITTED
// move (store.lockingTx) the signers of one request decide one after the other, each reading the
// other's committed signature. SQLite has one writer at a time and no FOR UPDATE.
const requestForMoveQuery = precompile((db, $, dialect) => {
  const q = db.selectFrom('signature_requests').selectAll().where('id', '=', $(0));
  return dialect === 'postgres' ? q.forUpdate() : q;
});
const signersOfQuery = precompile((db, $) =>
  db.selectFrom('signers').select(SIGNER_COLUMNS).where('signature_request_id', '=', $(0)).orderBy('position'),
);
const signerByIdQuery = precompile((db, $) => db.selectFrom('signers').select(SIGNER_COLUMNS).where('id', '=', $(0)));
const signatureImagesQuery = precompile((db, $) =>
  db.selectFrom('signers').select(['id', 'signature_image']).where('signature_request_id', '=', $(0)),
);

export async function findRequest(tx: Tx, accountId: string, livemode: boolean, id: string): Promise<SignatureRequestRecord | undefined> {
  const row = (await findRequestQuery.run(tx, [id, accountId, livemode ? 1 : 0])).rows[0];
  return row ? decodeRow(requestCodec, row) : undefined;
}

export async function getRequestById(tx: Tx, id: string): Promise<SignatureRequestRecord | undefined> {
  const row = (await requestByIdQuery.run(tx, [id])).rows[0];
  return row ? decodeRow(requestCodec, row) : undefined;
}

/** The request, its row locked until the transaction ends on PostgreSQL (above): read it so before a signer's move. */
export async function getRequestForMove(tx: Tx, id: string): Promise<SignatureRequestRecord | undefined> {
  const row = (await requestForMoveQuery.run(tx, [id])).rows[0];
  return row ? decodeRow(requestCodec, row) : undefined;
}

/** The requests with these ids, in no particular order (ids not found are left out). */
export async function getRequestsByIds(tx: Tx, ids: readonly string[]): Promise<SignatureRequestRecord[]> {
  if (ids.length === 0) return [];
  const rows = await tx.selectFrom('signature_requests').selectAll().where('id', 'in', ids).execute();
  return rows.map((r) => decodeRow(requestCodec, r));
}

export async function updateRequest(tx: Tx, id: string, changes: Partial<SignatureRequestRecord>): Promise<void> {
  await updateById(tx, 'signature_requests', id, encodeRow(requestCodec, changes));
}

export async function signersOf(tx: Tx, requestId: string): Promise<SignerRecord[]> {
  return (await signersOfQuery.run(tx, [requestId])).rows.map((r) => decodeRow(signerCodec, r));
}

export async function signersOfMany(tx: Tx, requestIds: readonly string[]): Promise<Map<string, SignerRecord[]>> {
  const out = new Map<string, SignerRecord[]>(requestIds.map((id) => [id, []]));
  if (requestIds.length === 0) return out;
  const rows = await tx
    .selectFrom('signers')
    .select(SIGNER_COLUMNS)
    .where('signature_request_id', 'in', requestIds)
    .orderBy('position')
    .execute();
  for (const r of rows) out.get(r.signature_request_id)!.push(decodeRow(signerCodec, r));
  return out;
}

/** The drawn signatures of a request's signers, by signer id (PNG data URLs; only signed signers have one): the seal's. */
export async function signatureImagesOf(tx: Tx, requestId: string): Promise<Map<string, string>> {
  const images = new Map<string, string>();
  for (const r of (await signatureImagesQuery.run(tx, [requestId])).rows)
    if (r.signature_image !== null) images.set(r.id, r.signature_image);
  return images;
}

export async function getSigner(tx: Tx, id: string): Promise<SignerRecord | undefined> {
  const row = (await signerByIdQuery.run(tx, [id])).rows[0];
  return row ? decodeRow(signerCodec, row) : undefined;
}

export async function updateSigner(tx: Tx, id: string, changes: SignerChanges): Promise<void> {
  await updateById(tx, 'signers', id, encodeRow(signerCodec as Codec<SignerChanges>, changes));
}

type AttemptCounter = 'access_attempts' | 'otp_attempts';

/**
 * Take one attempt of a signer's code before the code is checked: one guarded UPDATE, so
 * concurrent guesses cannot get past the limit. Returns the attempts now used, or null when all
 * `max` were used already (locked).
 */
export async function takeAttempt(tx: Tx, signerId: string, counter: AttemptCounter, max: number): Promise<number | null> {
  const row = await tx
    .updateTable('signers')
    .set((eb) => ({ [counter]: eb(counter, '+', 1) }))
    .where('id', '=', signerId)
    .where(counter, '<', max)
    .returning(counter)
    .executeTakeFirst();
  return row ? (row[counter] as number) : null;
}

/** A new one-time code of a signer: its hash, expiry, fresh attempts and when it was sent. */
export interface NewOtp {
  otp_hash: string;
  otp_expires_at: number;
  otp_attempts: number;
  otp_sent_at: number;
}

/**
 * Store a new one-time code unless the last one was sent after `sentBefore`: one guarded UPDATE,
 * so of concurrent requests for a code (whichever process answers them) one stores and sends it.
 * Returns null when stored, else when the code that stands was sent.
 */
export async function storeOtpUnlessRecent(tx: Tx, signerId: string, otp: NewOtp, sentBefore: number): Promise<number | null> {
  const stored = await tx
    .updateTable('signers')
    .set(otp)
    .where('id', '=', signerId)
    .where((eb) => eb.or([eb('otp_sent_at', 'is', null), eb('otp_sent_at', '<=', sentBefore)]))
    .executeTakeFirst();
  if (Number(stored.numUpdatedRows) === 1) return null;
  const row = await tx.selectFrom('signers').select('otp_sent_at').where('id', '=', signerId).executeTakeFirstOrThrow();
  return row.otp_sent_at ?? sentBefore;
}

/** Give back an attempt taken for a code that proved right (a right code is not a failed attempt). */
export async function giveBackAttempt(tx: Tx, signerId: string, counter: AttemptCounter): Promise<void> {
  await tx
    .updateTable('signers')
    .set((eb) => ({ [counter]: eb(counter, '-', 1) }))
    .where('id', '=', signerId)
    .where(counter, '>', 0)
    .execute();
}

export interface RequestListQuery {
  accountId: string;
  livemode: boolean;
  status?: string;
  createdAfter?: number;
  createdBefore?: number;
  /** Text in the title or a signer's name, email or phone (case-insensitive, a substring). */
  search?: string;
  startingAfter?: string;
  limit: number;
}

/** A LIKE pattern matching `text` anywhere, its own %, _ and \ taken literally (ESCAPE '\'). */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Newest first (ids are time-ordered); fetches limit + 1 for has_more. */
export async function listRequests(tx: Tx, q: RequestListQuery): Promise<SignatureRequestRecord[]> {
  let query = tx
    .selectFrom('signature_requests')
    .selectAll()
    .where('account_id', '=', q.accountId)
    .where('livemode', '=', q.livemode ? 1 : 0);
  if (q.status) query = query.where('status', '=', q.status);
  if (q.createdAfter !== undefined) query = query.where('created_at', '>=', q.createdAfter);
  if (q.createdBefore !== undefined) query = query.where('created_at', '<=', q.createdBefore);
  if (q.search) {
    // lower() on both sides: LIKE is case-insensitive on SQLite but not on PostgreSQL.
    const pattern = containsPattern(q.search);
    const like = (column: string) => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
    query = query.where((eb) =>
      eb.or([
        like('signature_requests.title'),
        eb.exists(
          eb
            .selectFrom('signers')
            .select('signers.id')
            .whereRef('signers.signature_request_id', '=', 'signature_requests.id')
            .where((s) => s.or([like('signers.name'), like('signers.email'), like('signers.phone')])),
        ),
      ]),
    );
  }
  if (q.startingAfter) query = query.where('id', '<', q.startingAfter);
  const rows = await query
    .orderBy('id', 'desc')
    .limit(q.limit + 1)
    .execute();
  return rows.map((r) => decodeRow(requestCodec, r));
}

export interface SignerListQuery {
  accountId: string;
  livemode: boolean;
  signatureRequestId?: string;
  status?: string;
  email?: string;
  startingAfter?: string;
  limit: number;
}

export async function listSigners(tx: Tx, q: SignerListQuery): Promise<SignerRecord[]> {
  let query = tx
    .selectFrom('signers')
    .innerJoin('signature_requests as r', 'r.id', 'signers.signature_request_id')
    .select(SIGNER_COLUMNS_QUALIFIED)
    .where('r.account_id', '=', q.accountId)
    .where('r.livemode', '=', q.livemode ? 1 : 0);
  if (q.signatureRequestId) query = query.where('signers.signature_request_id', '=', q.signatureRequestId);
  if (q.status) query = query.where('signers.status', '=', q.status);
  if (q.email) query = query.where(sql<boolean>`lower(signers.email) = ${q.email.toLowerCase()}`);
  if (q.startingAfter) query = query.where('signers.id', '<', q.startingAfter);
  const rows = await query
    .orderBy('signers.id', 'desc')
    .limit(q.limit + 1)
    .execute();
  return rows.map((r) => decodeRow(signerCodec, r));
}

/** Requests whose expiry passed while still open (a safety net beside the scheduled expiry jobs). */
export async function overdueRequestIds(tx: Tx, now: number): Promise<string[]> {
  const rows = await tx
    .selectFrom('signature_requests')
    .select('id')
    .where('expires_at', '<=', now)
    .where('status', 'in', ['draft', 'sent', 'viewed', 'partially_signed'])
    .execute();
  return rows.map((r) => r.id);
}
