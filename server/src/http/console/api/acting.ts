import type { Request } from 'express';
import { ApiError } from '../../../errors.js';
import type { ConsoleActing } from '../../../services/consoleLinks.js';
import type { RateWindows } from '../../../store/rateWindows.js';

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
