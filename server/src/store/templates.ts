import { sql } from 'kysely';
import type { TemplateFieldDefinition } from '../domain/templates.js';
import { precompile } from './compiled.js';
import type { Tx } from './db.js';
import { dialectOf } from './dialect.js';
import type { TemplateRecord } from '../domain/records.js';
export type { TemplateRecord };

type Row = {
  id: string;
  account_id: string | null;
  title: string;
  language: string;
  body: string;
  fields: string;
  created_at: number;
  archived_at: number | null;
};
const fromRow = (r: Row): TemplateRecord => ({
  ...r,
  language: r.language as 'ar' | 'en',
  fields: JSON.parse(r.fields) as TemplateFieldDefinition[],
});

export async function insertTemplate(tx: Tx, t: TemplateRecord): Promise<void> {
  await tx
    .insertInto('templates')
    .values({ ...t, fields: JSON.stringify(t.fields) })
    .execute();
}

/** Library templates (account_id null) are synced at start so upgrades ship new contract text. */
export async function upsertLibraryTemplate(tx: Tx, t: TemplateRecord): Promise<void> {
  await tx
    .insertInto('templates')
    .values({ ...t, fields: JSON.stringify(t.fields) })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({ title: t.title, language: t.language, body: t.body, fields: JSON.stringify(t.fields) }),
    )
    .execute();
}

/** A template visible to the account: its own or the library's. */
// Precompiled (compiled.ts): every create reads its template.
const findQuery = precompile((db, $) =>
  db
    .selectFrom('templates')
    .selectAll()
    .where('id', '=', $(0))
    .where((eb) => eb.or([eb('account_id', '=', $(1)), eb('account_id', 'is', null)])),
);

export async function findTemplate(tx: Tx, accountId: string, id: string): Promise<TemplateRecord | undefined> {
  const row = (await findQuery.run(tx, [id, accountId])).rows[0];
  return row ? fromRow(row) : undefined;
}

/** Whether another of the account's templates (not archived, not `exceptId`) has this title. */
export async function titleTaken(tx: Tx, accountId: string, title: string, exceptId?: string): Promise<boolean> {
  let query = tx
    .selectFrom('templates')
    .select('id')
    .where('account_id', '=', accountId)
    .where('title', '=', title)
    .where('archived_at', 'is', null);
  if (exceptId) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

/** A custom template's new title, language, text and fields (the caller checked it has no requests). */
export async function updateTemplate(tx: Tx, t: TemplateRecord): Promise<void> {
  await tx
    .updateTable('templates')
    .set({ title: t.title, language: t.language, body: t.body, fields: JSON.stringify(t.fields) })
    .where('id', '=', t.id)
    .where('account_id', '=', t.account_id)
    .execute();
}

export async function archiveTemplate(tx: Tx, accountId: string, id: string, at: number): Promise<void> {
  await tx.updateTable('templates').set({ archived_at: at }).where('id', '=', id).where('account_id', '=', accountId).execute();
}

/** Whether any request (either mode) was made from the template: its text is then theirs too. */
export async function templateInUse(tx: Tx, accountId: string, id: string): Promise<boolean> {
  const row = await tx
    .selectFrom('signature_requests')
    .select('id')
    .where('account_id', '=', accountId)
    .where('template_id', '=', id)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export interface TemplateQuery {
  accountId: string;
  mineOnly: boolean;
  /** Archived templates too (else they are left out). */
  archived: boolean;
  search?: string;
  startingAfter?: string;
  limit: number;
}

/** Ordered by id, descending; fetches limit + 1 so the caller can tell has_more. */
export async function listTemplates(tx: Tx, q: TemplateQuery): Promise<TemplateRecord[]> {
  let query = tx.selectFrom('templates').selectAll();
  query = q.mineOnly
    ? query.where('account_id', '=', q.accountId)
    : query.where((eb) => eb.or([eb('account_id', '=', q.accountId), eb('account_id', 'is', null)]));
  if (!q.archived) query = query.where('archived_at', 'is', null);
  if (q.search) {
    // Case-insensitive for ASCII letters only on both engines: SQLite's LIKE, PostgreSQL's ILIKE on a COLLATE "C" column.
    const like = dialectOf(tx) === 'postgres' ? sql`ILIKE` : sql`LIKE`;
    query = query.where(sql<boolean>`title ${like} ${'%' + q.search.replace(/[\\%_]/g, (c) => '\\' + c) + '%'} ESCAPE '\\'`);
  }
  if (q.startingAfter) query = query.where('id', '<', q.startingAfter);
  const rows = await query
    .orderBy('id', 'desc')
    .limit(q.limit + 1)
    .execute();
  return rows.map(fromRow);
}
