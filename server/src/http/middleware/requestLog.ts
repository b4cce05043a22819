import type { NextFunction, Request, Response } from 'express';
import { nowSeconds } from '../../clock.js';
import { keyHint } from '../../domain/keys.js';
import type { NewRequestLogEntry } from '../../store/requestLog.js';
import type { AppContext, AuthState } from '../context.js';

/** Longer paths and Idempotency-Keys are cut: the log names a request, it does not keep arbitrary input. */
const MAX_PATH = 500;
const MAX_IDEMPOTENCY_KEY = 255;

/**
 * The request log (the console's Developers → Logs): every /api/v1 request attributed to an
 * account — once its key or console credential is known, so a refusal after that (ip_not_allowed,
 * a publishable key's rules, a read-only key's write, a rate limit) is logged too, while a bad key
 * is not (no account to show it to). When the response has gone, the entry is added to the
 * in-memory buffer (store/requestLogBuffer.ts), which writes batches: nothing on the request's
 * path touches the database. Never the query string or a body (they may carry personal data).
 */
export function recordRequests(ctx: AppContext) {
  return (req: Request, res: Response, next: NextFunction): void => {
    res.on('finish', () => {
      const caller = req.tawqi.caller;
      if (caller) ctx.requestLog.add(entryOf(ctx, req, res, caller));
    });
    next();
  };
}

function entryOf(ctx: AppContext, req: Request, res: Response, caller: AuthState): NewRequestLogEntry {
  const { key, user } = caller;
  const idempotencyKey = req.headers['idempotency-key'];
  return {
    account_id: caller.account.id,
    livemode: caller.livemode ? 1 : 0,
    key_id: key.id,
    key_type: user ? 'console' : key.read_only ? 'read_only' : key.kind,
    key_hint: user ? null : keyHint(key),
    user_id: user?.id ?? null,
    user_email: user?.email ?? null,
    request_id: req.tawqi.requestId,
    method: req.method,
    path: req.originalUrl.split('?')[0]!.slice(0, MAX_PATH),
    status: res.statusCode,
    code: (res.locals.errorCode as string | undefined) ?? null,
    ip: req.tawqi.clientIp,
    idempotency_key: typeof idempotencyKey === 'string' ? idempotencyKey.slice(0, MAX_IDEMPOTENCY_KEY) : null,
    duration_ms: Math.round((performance.now() - req.tawqi.startedAt) * 10) / 10,
    created_at: nowSeconds(ctx.clock),
  };
}
