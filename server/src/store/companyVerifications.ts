import type { Selectable } from 'kysely';
import type { CompanyDocumentsTable, CompanyVerificationsTable } from './schema.js';
import type { Tx } from './types.js';

/**
 * Company verification (migration 19): the rounds of review of an account (kyb_…) and the
 * documents its owner uploaded (kybd_…). The bytes of a document are in file storage.
 */
export type CompanyVerificationStatus = CompanyVerificationsTable['status'];

export type CompanyVerification = Omit<Selectable<CompanyVerificationsTable>, 'document_ids'> & { document_ids: string[] };
export type CompanyDocument = Selectable<CompanyDocumentsTable>;

const fromRow = (row: Selectable<CompanyVerificationsTable>): CompanyVerification => ({
  ...row,
  document_ids: JSON.parse(row.document_ids) as string[],
});

export async function insertCompanyVerification(tx: Tx, v: CompanyVerification): Promise<void> {
  await tx
    .insertInto('company_verifications')
    .values({ ...v, document_ids: JSON.stringify(v.document_ids) })
    .execute();
}

export async function updateCompanyVerification(tx: Tx, id: string, changes: Partial<Omit<CompanyVerification, 'id'>>): Promise<void> {
  const { document_ids, ...rest } = changes;
  await tx
    .updateTable('company_verifications')
    .set({ ...rest, ...(document_ids ? { document_ids: JSON.stringify(document_ids) } : {}) })
    .where('id', '=', id)
    .execute();
}

export async function getCompanyVerification(tx: Tx, id: string): Promise<CompanyVerification | undefined> {
  const row = await tx.selectFrom('company_verifications').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

/** The account's latest round (ids are time-ordered), if any. */
export async function latestCompanyVerification(tx: Tx, accountId: string): Promise<CompanyVerification | undefined> {
  const row = await tx
    .selectFrom('company_verifications')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

/** Submitted rounds in one status: pending oldest first (first come, first reviewed), decided ones newest first. */
export async function listCompanyVerifications(
  tx: Tx,
  statuses: readonly CompanyVerificationStatus[],
  order: 'asc' | 'desc',
  limit: number,
  after?: string,
): Promise<CompanyVerification[]> {
  let q = tx.selectFrom('company_verifications').selectAll().where('status', 'in', statuses);
  if (after) q = q.where('id', order === 'asc' ? '>' : '<', after);
  const rows = await q.orderBy('id', order).limit(limit).execute();
  return rows.map(fromRow);
}

export async function insertCompanyDocument(tx: Tx, d: CompanyDocument): Promise<void> {
  await tx.insertInto('company_documents').values(d).execute();
}

export async function getCompanyDocument(tx: Tx, accountId: string, id: string): Promise<CompanyDocument | undefined> {
  return tx.selectFrom('company_documents').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

/** The account's documents not removed, oldest first (the order they were uploaded). */
export async function activeCompanyDocuments(tx: Tx, accountId: string): Promise<CompanyDocument[]> {
  return tx
    .selectFrom('company_documents')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('removed_at', 'is', null)
    .orderBy('id')
    .execute();
}

/** The documents with these ids (a round's submitted set), in id order. */
export async function companyDocumentsByIds(tx: Tx, accountId: string, ids: readonly string[]): Promise<CompanyDocument[]> {
  if (ids.length === 0) return [];
  return tx.selectFrom('company_documents').selectAll().where('account_id', '=', accountId).where('id', 'in', ids).orderBy('id').execute();
}

export async function removeCompanyDocument(tx: Tx, id: string, now: number): Promise<void> {
  await tx.updateTable('company_documents').set({ removed_at: now }).where('id', '=', id).execute();
}
