/** The qes tables (store/schema.ts): prepared signatures by signer, the token-signed PDF by request. */
import type { Selectable } from 'kysely';
import type { Tx } from '../../store/db.js';
import type { QesDocumentsTable, QesPreparedTable } from '../../store/schema.js';
import type { PadesKeyAlgorithm, PreparedPades } from '../pades/index.js';

export type QesPreparedRow = Selectable<QesPreparedTable>;
export type QesDocumentRow = Selectable<QesDocumentsTable>;

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'base64'));

interface StoredPrepared {
  byteRange: [number, number, number, number];
  byteRangeDigest: string;
  signedAttributesDer: string;
  certificate: string;
  chain: string[];
  keyAlgorithm: PadesKeyAlgorithm;
  fieldName: string;
}

/** PreparedPades → the JSON column (the PDF goes to its own BLOB column). */
export function encodePrepared(p: PreparedPades): string {
  const stored: StoredPrepared = {
    byteRange: p.byteRange,
    byteRangeDigest: b64(p.byteRangeDigest),
    signedAttributesDer: b64(p.signedAttributesDer),
    certificate: b64(p.certificate),
    chain: p.chain.map(b64),
    keyAlgorithm: p.keyAlgorithm,
    fieldName: p.fieldName,
  };
  return JSON.stringify(stored);
}

export function decodePrepared(row: Pick<QesPreparedRow, 'prepared' | 'pdf'>): PreparedPades {
  const s = JSON.parse(row.prepared) as StoredPrepared;
  return {
    pdfWithPlaceholder: new Uint8Array(row.pdf),
    byteRange: s.byteRange,
    byteRangeDigest: bytes(s.byteRangeDigest),
    signedAttributesDer: bytes(s.signedAttributesDer),
    certificate: bytes(s.certificate),
    chain: s.chain.map(bytes),
    keyAlgorithm: s.keyAlgorithm,
    fieldName: s.fieldName,
  };
}

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
