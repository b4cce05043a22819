/**
 * GET /console/api/request_log (requests.read): the account's public API requests (the console's
 * Developers → Logs), newest first, cursor pages, narrowed by mode, status (a class or an exact
 * code), method, path prefix, key and request id — `tawqi account log` shows the operator the same.
 */
import { ERRORS, type Language } from '@tawqi/shared';
import { z } from 'zod';
import { listRequestLog, requestLogEntryOf, type RequestLogFilter, type RequestLogRow } from '../../../store/requestLog.js';
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
  livemode: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  /** 2xx, 4xx, 5xx, or one status (404). */
  status: z
    .string()
    .regex(/^([1-5]xx|[1-5]\d\d)$/)
    .optional(),
  method: z.enum(['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS']).optional(),
  path: z.string().min(1).max(500).startsWith('/').optional(),
  key: z.string().min(1).max(100).optional(),
  request_id: z.string().min(1).max(100).optional(),
});

type Query = z.infer<typeof query>;

function filterOf(q: Query): RequestLogFilter {
  const status: RequestLogFilter['status'] =
    q.status === undefined
      ? undefined
      : q.status.endsWith('xx')
        ? { class: (Number(q.status[0]) * 100) as 200 | 300 | 400 | 500 }
        : { exact: Number(q.status) };
  return { livemode: q.livemode, status, method: q.method, pathPrefix: q.path, keyId: q.key, requestId: q.request_id };
}

/** What an error code means, in the reader's language (the envelope's message for that code). */
function codeMessage(code: string | null, lang: Language): string | null {
  if (code === null || !Object.hasOwn(ERRORS, code)) return null;
  return ERRORS[code as keyof typeof ERRORS][lang];
}

/** An entry as the console reads it: everything recorded (no body was ever recorded), its code explained. */
export function presentEntry(r: RequestLogRow, lang: Language) {
  return {
    id: String(r.id),
    object: 'request_log_entry' as const,
    request_id: r.request_id,
    livemode: r.livemode === 1,
    method: r.method,
    path: r.path,
    status: r.status,
    code: r.code,
    code_message: codeMessage(r.code, lang),
    ip: r.ip,
    key: r.key_id,
    key_type: r.key_type,
    key_hint: r.key_hint,
    user: r.user_id === null ? null : { id: r.user_id, email: r.user_email },
    idempotency_key: r.idempotency_key,
    duration_ms: r.duration_ms,
    created_at: r.created_at,
  };
}

export function requestLogRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  routes.add('get', '/request_log', 'requests.read', async (req, res) => {
    const q = parseWith(query, req.query);
    const accountId = req.tawqi.console!.user.account_id!;
    const cursor = q.starting_after === undefined ? undefined : Number(q.starting_after);
    await checkCursor(q.starting_after, () => requestLogEntryOf(ctx.store.db, accountId, cursor!));
    const rows = await listRequestLog(ctx.store.db, accountId, { filter: filterOf(q), limit: q.limit + 1, before: cursor });
    res.json(
      listPage(
        rows.map((r) => presentEntry(r, req.tawqi.lang)),
        q.limit,
      ),
    );
  });
}
