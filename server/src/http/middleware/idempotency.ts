import type { NextFunction, Request, Response } from 'express';
import { nowSeconds } from '../../clock.js';
import { idempotencyClaims } from '../../store/idempotencyClaims.js';
import { ApiError } from '../../errors.js';
import type { AppContext } from '../context.js';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
const MAX_KEY_LENGTH = 200;

/** 409 idempotency_in_progress: another request with the same key is running (retry in a second). */
export const idempotencyInProgress = (): ApiError => new ApiError('idempotency_in_progress', 'Idempotency-Key', {}, { 'Retry-After': '1' });

/**
 * Idempotency-Key on POST (spec part 8). The key is claimed before the handler runs (in the
 * server's memory on SQLite, one process per database; a row with a lease on PostgreSQL, shared
 * by every process: store/idempotencyClaims.ts) and released when the response is done; a second
 * request with the key meanwhile, on any process, gets 409 idempotency_in_progress. The handler's
 * write transaction stores the response with its effect (see commitWrite), so a crash can neither
 * lose the response nor apply the effect twice: a process that dies mid-request committed nothing,
 * and the retry runs anew (on PostgreSQL once the dead claim's lease has passed).
 */
export function idempotency(ctx: AppContext) {
  const claims = idempotencyClaims(ctx.store, {
    ttlSeconds: IDEMPOTENCY_TTL_SECONDS,
    leaseSeconds: ctx.config.TAWQI_IDEMPOTENCY_LEASE_SECONDS,
  });
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const header = req.headers['idempotency-key'];
    if (req.method !== 'POST' || header === undefined) return next();
    const key = String(header);
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) throw new ApiError('idempotency_key_invalid', 'Idempotency-Key');
    const auth = req.tawqi.auth!;
    const outcome = await claims.claim({
      accountId: auth.account.id,
      mode: auth.key.mode,
      key,
      method: req.method,
      path: req.baseUrl.replace(/^\/en/, '') + req.path,
      now: nowSeconds(ctx.clock),
    });
    if (outcome.kind === 'in_progress') throw idempotencyInProgress();
    if (outcome.kind === 'reused') throw new ApiError('idempotency_key_reused', 'Idempotency-Key');
    if (outcome.kind === 'replay') {
      res.setHeader('Idempotent-Replayed', 'true');
      res.status(outcome.status).type('application/json').send(outcome.body);
      return;
    }
    const claim = outcome.claim;
    req.tawqi.idempotency = claim;
    const release = (): void => {
      const done = claims.release(claim);
      // A release that fails leaves a PostgreSQL claim to its lease: the key is free again then.
      if (done) done.catch((err: unknown) => ctx.log.warn({ err }, 'releasing an idempotency claim failed; it ends with its lease'));
    };
    // 'close' follows 'finish', and also comes when the client goes away first (maybe already during the claim).
    if (res.closed) release();
    else res.once('close', release);
    next();
  };
}
