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

/**
 * Sealed B-LTA archives whose last timestamp's certificate ends by `until` and that are not waiting
 * for a retry at `now`, the soonest ending first (sealed_documents_timestamp_expiry).
 */
export async function dueArchives(tx: Tx, until: number, now: number, limit: number): Promise<SealedDocument[]> {
  return tx
    .selectFrom('sealed_documents')
    .selectAll()
    .where('timestamp_expires_at', '<=', until)
    .where('pdf_status', '=', 'ready')
    .where((eb) => eb.or([eb('archive_retry_at', 'is', null), eb('archive_retry_at', '<=', now)]))
    .orderBy('timestamp_expires_at')
    .limit(limit)
    .execute();
}

/**
 * Takes an archive for renewal until `lease` (another process sharing the database skips it); false
 * when someone else holds it. A crash leaves it to be taken again once the lease has passed.
 */
export async function claimArchive(tx: Tx, requestId: string, now: number, lease: number): Promise<boolean> {
  const result = await tx
    .updateTable('sealed_documents')
    .set({ archive_retry_at: lease })
    .where('signature_request_id', '=', requestId)
    .where((eb) => eb.or([eb('archive_retry_at', 'is', null), eb('archive_retry_at', '<=', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertEvidence(tx: Tx, e: EvidenceRecord): Promise<void> {
  await tx.insertInto('evidence_records').values(e).execute();
}

export async function getEvidence(tx: Tx, requestId: string): Promise<EvidenceRecord | undefined> {
  return tx.selectFrom('evidence_records').selectAll().where('signature_request_id', '=', requestId).executeTakeFirst();
}
