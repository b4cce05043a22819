/**
 * The console's session middleware: the `tawqi_console` cookie, CSRF, permissions.
 *
 * Cookie: `HttpOnly; SameSite=Lax; Path=/console`, `Secure` when the request came over TLS (itself,
 * or as a trusted proxy reports it: req.tawqi.secure, requestContext.ts). It holds a random token;
 * the database holds its SHA-256 (services/consoleSessions.ts).
 *
 * CSRF: every state-changing call (any method but GET/HEAD/OPTIONS) carries `X-CSRF-Token`, the
 * HMAC of its session id (sign-in and GET /session return it), and when the browser sends `Origin`
 * (or `Sec-Fetch-Site`) it must be this server's own. SameSite=Lax already keeps the cookie off
 * cross-site POSTs; the token covers same-site attackers (a sibling subdomain) and old browsers.
 */
import type { NextFunction, Request, Response } from 'express';
import { hasPermission, type ConsolePermission } from '../../domain/consoleRoles.js';
import { ApiError } from '../../errors.js';
import { csrfTokenFor, safeEqual } from '../../services/consoleCrypto.js';
import { findLiveSession } from '../../services/consoleSessions.js';
import type { ConsoleSession } from '../../store/consoleSessions.js';
import type { AppContext, ConsoleState } from '../context.js';

export const CONSOLE_COOKIE = 'tawqi_console';
const COOKIE_PATH = '/console';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The cookie's token, if the request carries one. */
export function sessionToken(req: Request): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === CONSOLE_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[0-9A-Za-z]{20,100}$/.test(value) ? value : null;
    }
  }
  return null;
}

export function setSessionCookie(req: Request, res: Response, token: string, session: ConsoleSession, now: number): void {
  res.cookie(CONSOLE_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: COOKIE_PATH,
    secure: req.tawqi.secure,
    maxAge: Math.max(0, session.expires_at - now) * 1000,
  });
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(CONSOLE_COOKIE, { httpOnly: true, sameSite: 'lax', path: COOKIE_PATH, secure: req.tawqi.secure });
}

export function csrfToken(ctx: AppContext, session: ConsoleSession): string {
  return csrfTokenFor(ctx.secrets.consoleKey, session.id);
}

/** This server's own origins: the public address, and the address the request was sent to. */
function ownOrigins(ctx: AppContext, req: Request): string[] {
  const origins = [`${req.tawqi.secure ? 'https' : 'http'}://${req.headers.host ?? ''}`];
  if (ctx.publicUrl) origins.push(new URL(ctx.publicUrl).origin);
  return origins;
}

/** Refuse a state change another site's page sent (the login form included: no session to bind a token to yet). */
export function checkOrigin(ctx: AppContext, req: Request): void {
  if (SAFE_METHODS.has(req.method)) return;
  if (req.headers['sec-fetch-site'] === 'cross-site') throw new ApiError('csrf_failed');
  const origin = req.headers.origin;
  if (origin !== undefined && !ownOrigins(ctx, req).includes(origin)) throw new ApiError('csrf_failed');
}

function checkCsrf(ctx: AppContext, req: Request, session: ConsoleSession): void {
  checkOrigin(ctx, req);
  if (SAFE_METHODS.has(req.method)) return;
  const sent = req.headers['x-csrf-token'];
  if (typeof sent !== 'string' || !safeEqual(sent, csrfToken(ctx, session))) throw new ApiError('csrf_failed');
}

async function resolve(ctx: AppContext, req: Request, stage: ConsoleSession['stage']): Promise<ConsoleState> {
  const token = sessionToken(req);
  const live = token ? await findLiveSession(ctx, token) : null;
  if (!live || live.session.stage !== stage) throw new ApiError('console_session_required');
  checkCsrf(ctx, req, live.session);
  return live;
}

/**
 * Middleware: a signed-in user (both factors) with a live session, CSRF checked on state changes,
 * and `permission` when given (`403 forbidden` without it). Sets `req.tawqi.console`.
 */
export function requireConsoleUser(ctx: AppContext, permission?: ConsolePermission) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const state = await resolve(ctx, req, 'full');
    if (permission && !hasPermission(state.user.role, permission)) {
      throw new ApiError(
        'forbidden',
        null,
        { permission },
        {},
        {
          en: `Your role (${state.user.role}) does not allow this (${permission}).`,
          ar: `دورك (${state.user.role}) لا يسمح بهذه العملية (${permission}).`,
        },
      );
    }
    req.tawqi.console = state;
    next();
  };
}

/** Middleware for the second-factor step: a session past the password, waiting for its code. */
export function requirePendingSignIn(ctx: AppContext) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    req.tawqi.console = await resolve(ctx, req, 'password');
    next();
  };
}

/** Middleware: a signed-in user of one kind (operator, or user of an account); another kind gets `403 forbidden` with `reason`. */
function requireKind(ctx: AppContext, ok: (user: ConsoleState['user']) => boolean, reason: string, text: { en: string; ar: string }) {
  const signedIn = requireConsoleUser(ctx);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    await signedIn(req, res, () => undefined);
    if (!ok(req.tawqi.console!.user)) throw new ApiError('forbidden', null, { reason }, {}, text);
    next();
  };
}

/**
 * For the operator's admin routes (/console/api/admin): a signed-in operator user (no account;
 * `tawqi user create --operator`). An account's user, whatever the role, gets `403 forbidden` (not
 * 404: the admin console is no secret, its routes are in the page bundle).
 */
export const requireOperator = (ctx: AppContext) =>
  requireKind(ctx, (u) => u.operator === 1, 'operator_only', {
    en: 'Only an operator of this installation may do this.',
    ar: 'لا يقوم بهذه العملية إلا مشغّل هذا التثبيت.',
  });

/** A signed-in user of an account, any role (an operator has no account: 403 forbidden). */
export const requireAccountUser = (ctx: AppContext) =>
  requireKind(ctx, (u) => u.account_id !== null, 'account_only', {
    en: 'This is a page of an account; operators have none.',
    ar: 'هذه صفحة خاصة بحساب؛ المشغّل لا حساب له.',
  });
