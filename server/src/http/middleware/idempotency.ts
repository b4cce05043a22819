import type { NextFunction, Request, Response } from 'express';
import { nowSeconds } from '../../clock.js';
import { claimIdempotency, deleteIdempotency, findIdempotency, releaseIdempotency, type IdempotencyScope } from '../../store/idempotency.js';
import { ApiError } from '../../errors.js';
import type { AppContext } from '../context.js';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
const MAX_KEY_LENGTH = 200;

/**
 * Idempotency-Key on POST (spec part 8). The key is claimed before the handler runs; the handler's
 * write transaction stores the response with its effect (see commitWrite), so a crash can neither
 * lose the response nor apply the effect twice. A claim whose request committed nothing is released.
 */
export function idempotency(ctx: AppContext) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const header = req.headers['idempotency-key'];
    if (req.method !== 'POST' || header === undefined) return next();
    const key = String(header);
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) throw new ApiError('idempotency_key_invalid', 'Idempotency-Key');
    const auth = req.tawqi.auth!;
    const scope: IdempotencyScope = { accountId: auth.account.id, mode: auth.key.mode, key };
    const path = req.baseUrl.replace(/^\/en/, '') + req.path;
    const now = nowSeconds(ctx.clock);

    for (let attempt = 0; attempt < 2; attempt++) {
      const existing = await findIdempotency(ctx.store.db, scope);
      if (existing && existing.created_at <= now - IDEMPOTENCY_TTL_SECONDS) {
        await deleteIdempotency(ctx.store.db, scope);
      } else if (existing) {
        if (existing.path !== path || existing.method !== req.method) throw new ApiError('idempotency_key_reused', 'Idempotency-Key');
        if (existing.state === 'in_progress') throw new ApiError('idempotency_in_progress', 'Idempotency-Key', {}, { 'Retry-After': '1' });
        res.setHeader('Idempotent-Replayed', 'true');
        res.status(existing.response_status!).type('application/json').send(existing.response_body!);
        return;
      }
      if (await claimIdempotency(ctx.store.db, scope, req.method, path, now)) {
        req.tawqi.idempotency = scope;
        res.on('finish', () => {
          // Completed claims are untouched (state done); only a claim left in progress is released.
          void releaseIdempotency(ctx.store.db, scope).catch((err: unknown) => ctx.log.error({ err }, 'idempotency release failed'));
        });
        return next();
      }
    }
    throw new ApiError('idempotency_in_progress', 'Idempotency-Key', {}, { 'Retry-After': '1' });
  };
}
