import type { NextFunction, Request, Response } from 'express';
import { nowSeconds } from '../../clock.js';
import { deleteIdempotency, findIdempotency, type IdempotencyClaim } from '../../store/idempotency.js';
import { ApiError } from '../../errors.js';
import type { AppContext } from '../context.js';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
const MAX_KEY_LENGTH = 200;

/** 409 idempotency_in_progress: another request with the same key is running (retry in a second). */
export const idempotencyInProgress = (): ApiError => new ApiError('idempotency_in_progress', 'Idempotency-Key', {}, { 'Retry-After': '1' });

/**
 * Idempotency-Key on POST (spec part 8). The key is claimed in this process's memory before the
 * handler runs (one server process per database, DESIGN §6), and released when the response is
 * done; a second request with the key meanwhile gets 409 idempotency_in_progress. The handler's
 * write transaction stores the response with its effect (see commitWrite), so a crash can neither
 * lose the response nor apply the effect twice: a process that dies mid-request committed nothing
 * and leaves no claim, and the retry runs anew. The claim costs no database write; the stored
 * response is an INSERT in the effect's own transaction (one commit per request).
 */
export function idempotency(ctx: AppContext) {
  /** Keys of requests in flight: account, mode and key. */
  const claimed = new Set<string>();
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const header = req.headers['idempotency-key'];
    if (req.method !== 'POST' || header === undefined) return next();
    const key = String(header);
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) throw new ApiError('idempotency_key_invalid', 'Idempotency-Key');
    const auth = req.tawqi.auth!;
    // Header values cannot hold a line feed, so it separates the parts unambiguously.
    const id = `${auth.account.id}\n${auth.key.mode}\n${key}`;
    // Claimed before the lookup (no await between the check and the claim): a request that finds
    // no claim either finds the stored response of an earlier one or is the only one running.
    if (claimed.has(id)) throw idempotencyInProgress();
    claimed.add(id);
    let held = true;
    const release = (): void => {
      if (held) claimed.delete(id);
      held = false;
    };
    try {
      const claim: IdempotencyClaim = {
        accountId: auth.account.id,
        mode: auth.key.mode,
        key,
        method: req.method,
        path: req.baseUrl.replace(/^\/en/, '') + req.path,
        createdAt: nowSeconds(ctx.clock),
      };
      const existing = await findIdempotency(ctx.store.db, claim);
      if (existing && existing.created_at <= claim.createdAt - IDEMPOTENCY_TTL_SECONDS) {
        await deleteIdempotency(ctx.store.db, claim);
      } else if (existing) {
        if (existing.path !== claim.path || existing.method !== req.method) throw new ApiError('idempotency_key_reused', 'Idempotency-Key');
        // Only a version that kept claims in the database wrote 'in_progress' rows (reset at start).
        if (existing.state === 'in_progress') throw idempotencyInProgress();
        release();
        res.setHeader('Idempotent-Replayed', 'true');
        res.status(existing.response_status!).type('application/json').send(existing.response_body!);
        return;
      }
      req.tawqi.idempotency = claim;
    } catch (err) {
      release();
      throw err;
    }
    // 'close' follows 'finish', and also comes when the client goes away first.
    res.once('close', release);
    next();
  };
}
