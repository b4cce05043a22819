import type { Request } from 'express';
import { ApiError } from '../../../errors.js';
import type { ConsoleActing } from '../../../services/consoleLinks.js';
import { rateWindows, type RateWindows } from '../../../store/rateWindows.js';
import type { AppContext } from '../../context.js';

/** The signed-in user acting, as the services take it (after requireConsoleUser). */
export function actingOf(req: Request): ConsoleActing {
  const { session, user } = req.tawqi.console!;
  return { user, sessionId: session.id, ip: req.tawqi.clientIp, lang: req.tawqi.lang };
}

/** Count one hit of `key`; a refused one is 429 too_many_requests with Retry-After. */
export async function throttle(windows: RateWindows, key: string, nowMs: number): Promise<void> {
  const r = await windows.hit(key, nowMs);
  if (!r.allowed) throw new ApiError('too_many_requests', null, {}, { 'Retry-After': String(r.retryAfter) });
}

/** Password checks of a signed-in user (a stolen session must not guess the password with them): per user. */
export const REAUTH_LIMIT = { limit: 10, windowMs: 15 * 60_000 };
const reauthByCtx = new WeakMap<AppContext, RateWindows>();

/** The one re-authentication limiter of a server (two-factor changes and the password change share it). */
export function reauthWindows(ctx: AppContext): RateWindows {
  let w = reauthByCtx.get(ctx);
  if (!w) reauthByCtx.set(ctx, (w = rateWindows(ctx.store, { scope: 'console_reauth', ...REAUTH_LIMIT })));
  return w;
}
