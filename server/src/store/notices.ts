import type { Tx } from './db.js';

export interface Notice {
  id: string;
  account_id: string;
  kind: string;
  data: Record<string, unknown>;
  created_at: number;
}

export async function insertNotice(tx: Tx, n: Notice): Promise<void> {
  await tx
    .insertInto('notices')
    .values({ ...n, data: JSON.stringify(n.data) })
    .execute();
}

export async function listNotices(tx: Tx, accountId: string): Promise<Notice[]> {
  const rows = await tx.selectFrom('notices').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  return rows.map((r) => ({ ...r, data: JSON.parse(r.data) as Record<string, unknown> }));
}
