/**
 * The qes tables (schema.ts): prepared signatures by signer (the PreparedPades as JSON, coded by
 * sealing/qes/prepared.ts), the token-signed PDF by request.
 */
import type { Selectable } from 'kysely';
import type { Tx } from './db.js';
import type { QesDocumentsTable, QesPreparedTable } from './schema.js';

export type QesPreparedRow = Selectable<QesPreparedTable>;
export type QesDocumentRow = Selectable<QesDocumentsTable>;

/** One prepared signature per signer: a new one replaces (and so voids) the previous ticket. */
export async function savePrepared(tx: Tx, row: QesPreparedRow): Promise<void> {
  const values = { ...row, pdf: Buffer.from(row.pdf) };
  await tx
    .insertInto('qes_prepared')
    .values(values)
    .onConflict((oc) => oc.column('signer_id').doUpdateSet(values))
    .execute();
}

export async function getPrepared(tx: Tx, signerId: string): Promise<QesPreparedRow | undefined> {
  return tx.selectFrom('qes_prepared').selectAll().where('signer_id', '=', signerId).executeTakeFirst();
}

/** Marks a prepared signature used (only if it is still the open one with this jti); true when it was. */
export async function markPreparedUsed(tx: Tx, signerId: string, jti: string, now: number): Promise<boolean> {
  const r = await tx
    .updateTable('qes_prepared')
    .set({ completed_at: now, pdf: Buffer.alloc(0) })
    .where('signer_id', '=', signerId)
    .where('jti', '=', jti)
    .where('completed_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function getQesDocument(tx: Tx, requestId: string): Promise<QesDocumentRow | undefined> {
  return tx.selectFrom('qes_documents').selectAll().where('signature_request_id', '=', requestId).executeTakeFirst();
}

export async function saveQesDocument(tx: Tx, row: QesDocumentRow): Promise<void> {
  const values = { ...row, pdf: Buffer.from(row.pdf) };
  await tx
    .insertInto('qes_documents')
    .values(values)
    .onConflict((oc) => oc.column('signature_request_id').doUpdateSet(values))
    .execute();
}
