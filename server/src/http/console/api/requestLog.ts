/**
 * GET /console/api/request_log (requests.read): the account's requests refused by a key's policy
 * (ip_not_allowed), newest first, cursor pages — what `tawqi account log` shows the operator.
 */
import { z } from 'zod';
import { listRequestLog, requestLogEntryOf } from '../../../store/requestLog.js';
import type { AppContext } from '../../context.js';
import { checkCursor, limitParam, listPage } from '../../lists.js';
import { parseWith } from '../../routes/registry.js';
import type { ConsoleRoutes } from './routes.js';

const query = z.strictObject({
  limit: limitParam(100),
  starting_after: z
    .string()
    .regex(/^\d{1,15}$/)
    .optional(),
});

export function requestLogRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  routes.add('get', '/request_log', 'requests.read', async (req, res) => {
    const q = parseWith(query, req.query);
    const accountId = req.tawqi.console!.user.account_id!;
    const cursor = q.starting_after === undefined ? undefined : Number(q.starting_after);
    await checkCursor(q.starting_after, () => requestLogEntryOf(ctx.store.db, accountId, cursor!));
    const rows = await listRequestLog(ctx.store.db, accountId, q.limit + 1, cursor);
    const entries = rows.map((r) => ({
      id: String(r.id),
      object: 'request_log_entry' as const,
      request_id: r.request_id,
      method: r.method,
      path: r.path,
      status: r.status,
      code: r.code,
      ip: r.ip,
      key: r.key_id,
      created_at: r.created_at,
    }));
    res.json(listPage(entries, q.limit));
  });
}
