import type { NextFunction, Request, Response } from 'express';
import { nowSeconds } from '../../clock.js';
import { ApiError } from '../../errors.js';
import { originAllowedByAnyKey } from '../../store/apiKeys.js';
import type { AppContext } from '../context.js';

/** The methods a publishable key can use (spec part 5: reads, and POST /signature_requests…). */
export const CORS_ALLOW_METHODS = 'GET, POST';
/** The request headers a browser client sends: the key, the body type, idempotency, version, language. */
export const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, Svc-Version, Accept-Language';
/** The response headers a browser client may read besides the CORS-safelisted ones. */
export const CORS_EXPOSE_HEADERS = [
  'Svc-Request-Id',
  'Svc-Version',
  'Svc-Deprecation',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Idempotent-Replayed',
].join(', ');
/** How long a browser may reuse a preflight answer, in seconds (Chromium caps it at 7200). */
export const CORS_MAX_AGE = 600;

/**
 * CORS preflights for the API, Stripe-style: browsers use publishable keys only, and a preflight
 * carries no key, just its Origin. So an `OPTIONS` with `Access-Control-Request-Method` is
 * answered here, before authentication:
 *  - Origin allowed by at least one publishable key that is neither revoked nor expired (one
 *    indexed lookup, store/apiKeys.ts): 204 with Access-Control-Allow-Origin (that origin),
 *    -Methods, -Headers, -Max-Age and Vary: Origin;
 *  - any other origin, or none: 403 forbidden (param Origin) in the envelope, without any
 *    Access-Control-* header, so the browser blocks the request that would have followed.
 * Which key the actual request uses, and whether that key allows the origin, is decided by
 * authentication (`exposeToOrigin`). An OPTIONS that is not a preflight goes on (405 or 404).
 */
export function corsPreflight(ctx: AppContext) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) return next();
    res.vary('Origin');
    const origin = req.headers.origin;
    if (typeof origin !== 'string' || !(await originAllowedByAnyKey(ctx.store.db, origin, nowSeconds(ctx.clock)))) {
      throw new ApiError('forbidden', 'Origin');
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Methods', CORS_ALLOW_METHODS);
    res.setHeader('Access-Control-Allow-Headers', CORS_ALLOW_HEADERS);
    res.setHeader('Access-Control-Max-Age', String(CORS_MAX_AGE));
    res.status(204).end();
  };
}

/**
 * For a request authenticated with a publishable key: the response varies by Origin, and when the
 * request's Origin is one of this key's allowed origins it may be read by that origin — errors
 * included (a 403 for a path the key may not use, a 429), so the page can show them. Secret keys
 * never get CORS headers.
 */
export function exposeToOrigin(req: Request, res: Response, allowedOrigins: readonly string[]): void {
  res.vary('Origin');
  const origin = req.headers.origin;
  if (typeof origin !== 'string' || !allowedOrigins.includes(origin)) return;
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
}
