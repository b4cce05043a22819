/** GET /console/api/audit_log: the account's audit log, newest first, cursor pages, optionally one action only (audit.read: owner, admin). */
import { z } from 'zod';
import { presentAuditEntry } from '../../../presenters/console.js';
import { listAuditEntries } from '../../../store/auditLog.js';
import type { AppContext } from '../../context.js';
import { checkCursor, limitParam, listPage } from '../../lists.js';
import { parseWith } from '../../routes/registry.js';
import type { ConsoleRoutes } from './routes.js';

const query = z.strictObject({
  limit: limitParam(100),
  starting_after: z.string().min(1).max(100).optional(),
  // An action code (`key.created`): the console's filter. Unknown codes simply match nothing.
  action: z
    .string()
    .max(100)
    .regex(/^[a-z_]+(\.[a-z_]+)+$/)
    .optional(),
});

export function auditLogRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  routes.add('get', '/audit_log', 'audit.read', async (req, res) => {
    const q = parseWith(query, req.query);
    const accountId = req.tawqi.console!.user.account_id!;
    const cursor = q.starting_after;
    await checkCursor(cursor, async (id) => (await listAuditEntries(ctx.store.db, accountId, { limit: 1, only: id })).length === 1);
    const rows = await listAuditEntries(ctx.store.db, accountId, { limit: q.limit + 1, startingAfter: cursor, action: q.action });
    res.json(listPage(rows.map(presentAuditEntry), q.limit));
  });
}
