import type { NextFunction, Request, Response } from 'express';
import { nowSeconds } from '../../clock.js';
import { newId } from '../../ids.js';
import { countRateLimited } from '../../metrics.js';
import { incrementCounter } from '../../store/counters.js';
import { insertNotice } from '../../store/notices.js';
import { rateWindows, type RateWindows, type WindowResult } from '../../store/rateWindows.js';
import { ApiError } from '../../errors.js';
import type { AppContext } from '../context.js';

/** The window limiter of this store's engine (in memory on SQLite, shared rows on PostgreSQL). */
function limiter(ctx: AppContext, scope: string, limit: number): RateWindows {
  return rateWindows(ctx.store, {
    scope,
    limit,
    windowMs: ctx.config.TAWQI_RATE_WINDOW_SECONDS * 1000,
    onSweepError: (err) => ctx.log.warn({ err }, 'sweeping ended rate windows failed; the next window sweeps again'),
  });
}

/**
 * Per-address limit before authentication: bounds key guessing and floods. `scope` names the
 * mount (api, sign, identity, pki): each counts its own window.
 */
export function ipRateLimit(ctx: AppContext, scope: string) {
  const windows = limiter(ctx, `ip:${scope}`, ctx.config.TAWQI_IP_RATE_LIMIT);
  const decide = (r: WindowResult, next: NextFunction): void => {
    if (!r.allowed) {
      countRateLimited('ip');
      throw new ApiError('too_many_requests', null, {}, { 'Retry-After': String(r.retryAfter) });
    }
    next();
  };
  return (req: Request, _res: Response, next: NextFunction): void | Promise<void> => {
    const r = windows.hit(req.tawqi.clientIp, ctx.clock.nowMs());
    // SQLite answers at once (no promise, no extra turn); PostgreSQL after its round trip.
    if (r instanceof Promise) return r.then((w) => decide(w, next));
    decide(r, next);
  };
}

/** 100 requests per 10 seconds per account, shared by test and live keys (spec part 8). */
export function accountRateLimit(ctx: AppContext) {
  const windows = limiter(ctx, 'account', ctx.config.TAWQI_RATE_LIMIT);
  const decide = (r: WindowResult, res: Response, next: NextFunction): void => {
    res.setHeader('X-RateLimit-Limit', String(r.limit));
    res.setHeader('X-RateLimit-Remaining', String(r.remaining));
    res.setHeader('X-RateLimit-Reset', String(r.resetAt));
    if (!r.allowed) {
      countRateLimited('account');
      throw new ApiError('too_many_requests', null, {}, { 'Retry-After': String(r.retryAfter) });
    }
    next();
  };
  return (req: Request, res: Response, next: NextFunction): void | Promise<void> => {
    const r = windows.hit(req.tawqi.auth!.account.id, ctx.clock.nowMs());
    if (r instanceof Promise) return r.then((w) => decide(w, res, next));
    decide(r, res, next);
  };
}

const HOUR = 3600;
const DAY = 86400;

/**
 * Publishable keys on POST /signature_requests…: 5 per hour per visitor (key + address), and a daily
 * cap per key whatever the address, with notices to the owner at 80% and at the cap. Durable counters
 * (store/counters.ts) in a store transaction. Each count is one atomic upsert that returns the new
 * value, so on PostgreSQL a READ COMMITTED transaction (lockingTx) keeps it exact when several
 * processes take the same visitor or key at once: the second waits for the first's row lock.
 */
export function publishableQuota(ctx: AppContext) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const auth = req.tawqi.auth!;
    if (!auth.publishable || req.method !== 'POST' || !req.path.startsWith('/signature_requests')) return next();
    const now = nowSeconds(ctx.clock);
    const hourStart = now - (now % HOUR);
    const dayStart = now - (now % DAY);
    const cap = auth.key.daily_cap ?? ctx.config.TAWQI_PUBLISHABLE_DAILY_CAP;
    const refusal = await ctx.store.lockingTx(async (trx) => {
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
