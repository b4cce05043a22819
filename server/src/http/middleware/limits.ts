import type { NextFunction, Request, Response } from 'express';
import { nowSeconds } from '../../clock.js';
import { newId } from '../../ids.js';
import { countRateLimited } from '../../metrics.js';
import { incrementCounter } from '../../store/counters.js';
import { insertNotice } from '../../store/notices.js';
import { ApiError } from '../../errors.js';
import type { AppContext } from '../context.js';
import { WindowLimiter } from '../rateWindow.js';

/** Per-address limit before authentication: bounds key guessing and floods. */
export function ipRateLimit(ctx: AppContext) {
  const limiter = new WindowLimiter(ctx.config.TAWQI_IP_RATE_LIMIT, ctx.config.TAWQI_RATE_WINDOW_SECONDS * 1000);
  return (req: Request, _res: Response, next: NextFunction): void => {
    const r = limiter.hit(req.tawqi.clientIp, ctx.clock.nowMs());
    if (!r.allowed) {
      countRateLimited('ip');
      throw new ApiError('too_many_requests', null, {}, { 'Retry-After': String(r.retryAfter) });
    }
    next();
  };
}

/** 100 requests per 10 seconds per account, shared by test and live keys (spec part 8). */
export function accountRateLimit(ctx: AppContext) {
  const limiter = new WindowLimiter(ctx.config.TAWQI_RATE_LIMIT, ctx.config.TAWQI_RATE_WINDOW_SECONDS * 1000);
  return (req: Request, res: Response, next: NextFunction): void => {
    const r = limiter.hit(req.tawqi.auth!.account.id, ctx.clock.nowMs());
    res.setHeader('X-RateLimit-Limit', String(r.limit));
    res.setHeader('X-RateLimit-Remaining', String(r.remaining));
    res.setHeader('X-RateLimit-Reset', String(r.resetAt));
    if (!r.allowed) {
      countRateLimited('account');
      throw new ApiError('too_many_requests', null, {}, { 'Retry-After': String(r.retryAfter) });
    }
    next();
  };
}

const HOUR = 3600;
const DAY = 86400;

/**
 * Publishable keys on POST /signature_requests…: 5 per hour per visitor (key + address), and a daily
 * cap per key whatever the address, with notices to the owner at 80% and at the cap. Durable counters.
 */
export function publishableQuota(ctx: AppContext) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const auth = req.tawqi.auth!;
    if (!auth.publishable || req.method !== 'POST' || !req.path.startsWith('/signature_requests')) return next();
    const now = nowSeconds(ctx.clock);
    const hourStart = now - (now % HOUR);
    const dayStart = now - (now % DAY);
    const cap = auth.key.daily_cap ?? ctx.config.TAWQI_PUBLISHABLE_DAILY_CAP;
    const refusal = await ctx.store.tx(async (trx) => {
      const visitor = await incrementCounter(trx, `pkh:${auth.key.id}:${req.tawqi.clientIp}`, hourStart);
      if (visitor > ctx.config.TAWQI_PUBLISHABLE_HOURLY_QUOTA) {
        countRateLimited('publishable_visitor');
        return new ApiError('too_many_requests', null, {}, { 'Retry-After': String(hourStart + HOUR - now) });
      }
      const daily = await incrementCounter(trx, `pkd:${auth.key.id}`, dayStart);
      if (daily > cap) {
        countRateLimited('publishable_daily');
        return new ApiError('daily_cap_reached', null, {}, { 'Retry-After': String(dayStart + DAY - now) });
      }
      const warnAt = Math.ceil(cap * 0.8);
      if (daily === warnAt || daily === cap) {
        const kind = daily === cap ? 'publishable_daily_cap_reached' : 'publishable_daily_cap_80';
        await insertNotice(trx, {
          id: newId('notice', ctx.clock),
          account_id: auth.account.id,
          kind,
          data: { key_id: auth.key.id, count: daily, cap, day: dayStart },
          created_at: now,
        });
        ctx.log.warn({ account_id: auth.account.id, key_id: auth.key.id, count: daily, cap }, `owner notice: ${kind}`);
      }
      return null;
    });
    if (refusal) throw refusal;
    next();
  };
}
