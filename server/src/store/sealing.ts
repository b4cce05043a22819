import type { Selectable } from 'kysely';
import type { Tx } from './db.js';
import type { EvidenceRecordsTable, SealedDocumentsTable } from './schema.js';

export type SealedDocument = Selectable<SealedDocumentsTable>;
export type EvidenceRecord = Selectable<EvidenceRecordsTable>;

export async function insertSealedDocument(tx: Tx, d: SealedDocument): Promise<void> {
  await tx.insertInto('sealed_documents').values(d).execute();
}

export async function getSealedDocument(tx: Tx, requestId: string): Promise<SealedDocument | undefined> {
  return tx.selectFrom('sealed_documents').selectAll().where('signature_request_id', '=', requestId).executeTakeFirst();
}

export async function findByReference(tx: Tx, reference: string): Promise<SealedDocument | undefined> {
  return tx.selectFrom('sealed_documents').selectAll().where('reference', '=', reference).executeTakeFirst();
}

export async function updateSealedDocument(tx: Tx, requestId: string, changes: Partial<SealedDocument>): Promise<void> {
  await tx.updateTable('sealed_documents').set(changes).where('signature_request_id', '=', requestId).execute();
}

export async function insertEvidence(tx: Tx, e: EvidenceRecord): Promise<void> {
  await tx.insertInto('evidence_records').values(e).execute();
}

export async function getEvidence(tx: Tx, requestId: string): Promise<EvidenceRecord | undefined> {
  return tx.selectFrom('evidence_records').selectAll().where('signature_request_id', '=', requestId).executeTakeFirst();
}
