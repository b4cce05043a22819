/**
 * `GET /admin/audit_log?account_id=&limit=&starting_after=`: with account_id, that account's log (its
 * users' actions and operators' actions on it); without, operators' actions (`admin.*`) and what
 * concerns no account. Newest first, cursor pages.
 */
import { z } from 'zod';
import { presentAuditEntry } from '../../../../presenters/console.js';
import { listAuditEntries, listOperatorEntries } from '../../../../store/auditLog.js';
import type { AppContext } from '../../../context.js';
import type { ConsoleRoutes } from '../routes.js';
import { checkCursor, limitParam, listPage } from '../../../lists.js';
import { parseWith } from '../../../routes/registry.js';

const query = z.strictObject({
  account_id: z.string().min(1).max(100).optional(),
  limit: limitParam(100),
  starting_after: z.string().min(1).max(100).optional(),
});

export function adminAuditLogRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  routes.add('get', '/admin/audit_log', 'operator', async (req, res) => {
    const q = parseWith(query, req.query);
    const db = ctx.store.db;
    const page = (limit: number, after?: string, only?: string) =>
      q.account_id
        ? listAuditEntries(db, q.account_id, { limit, startingAfter: after, only })
        : listOperatorEntries(db, { limit, startingAfter: after, only });
    await checkCursor(q.starting_after, async (id) => (await page(1, undefined, id)).length === 1);
    const rows = await page(q.limit + 1, q.starting_after);
    res.json(listPage(rows.map(presentAuditEntry), q.limit));
  });
}
