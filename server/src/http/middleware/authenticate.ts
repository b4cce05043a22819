import type { NextFunction, Request, Response } from 'express';
import { nowSeconds } from '../../clock.js';
import { looksLikeConsoleCredential } from '../../domain/consoleCredentials.js';
import { hashSecret, ipAllowed, looksLikeKey } from '../../domain/keys.js';
import { resolveConsoleCredential, type LiveCredential } from '../../services/consoleCredentials.js';
import { getAccount } from '../../store/accounts.js';
import { findKeyWithAccount, type ApiKey } from '../../store/apiKeys.js';
import { ApiError } from '../../errors.js';
import type { AppContext, AuthState } from '../context.js';
import { exposeToOrigin } from './cors.js';
import { applyVersion } from './requestContext.js';

/** Paths a publishable key may reach (spec part 5, rule 1), and those it may only read (rule 2). */
const PUBLISHABLE_ROOTS = ['/templates', '/signature_requests', '/signers', '/flows'];
const PUBLISHABLE_READ_ONLY = ['/templates', '/signers', '/flows'];
const isRead = (method: string): boolean => method === 'GET' || method === 'HEAD';
const under = (path: string, root: string): boolean => path === root || path.startsWith(root + '/');

/**
 * Bearer key → account. Then, before anything counts against limits: the secret key's IP allowlist
 * (refusals are logged: middleware/requestLog.ts), the eight publishable-key rules (with the CORS headers of a publishable
 * key's allowed origin: middleware/cors.ts), and read-only keys. A console user's internal
 * credential (ck_…) is the account's secret key under the same rules, without an allowlist.
 */
export function authenticate(ctx: AppContext) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const header = req.headers.authorization;
    if (!header) throw new ApiError('api_key_missing');
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    const auth =
      token && looksLikeConsoleCredential(token) ? await consoleCredentialAuth(ctx, req, token) : await keyAuth(ctx, req, res, token);
    if (!auth.publishable && auth.key.read_only && !isRead(req.method)) throw new ApiError('forbidden');
    req.tawqi.auth = auth;
    if (req.headers['svc-version'] === undefined && auth.account.version_pin) applyVersion(req, res, auth.account.version_pin);
    next();
  };
}

/** An account key: found by its hash, alive, then its IP allowlist (refusals logged) or the publishable-key rules. */
async function keyAuth(ctx: AppContext, req: Request, res: Response, token: string | undefined): Promise<AuthState> {
  if (!token || !looksLikeKey(token)) throw new ApiError('invalid_api_key');
  const now = nowSeconds(ctx.clock);
  const found = await findKeyWithAccount(ctx.store.db, hashSecret(token));
  if (!found) throw new ApiError('invalid_api_key');
  const { key, account } = found;
  if (key.revoked_at !== null || (key.expires_at !== null && key.expires_at <= now)) throw new ApiError('invalid_api_key');
  const publishable = key.kind === 'publishable';
  const auth: AuthState = { key, account, livemode: key.mode === 'live', publishable };
  // From here on the request is the account's: its refusals show in the account's request log.
  req.tawqi.caller = auth;

  if (!publishable && !ipAllowed(req.tawqi.clientIp, key.allowed_ips)) {
    ctx.log.warn({ request_id: req.tawqi.requestId, key_id: key.id, ip: req.tawqi.clientIp }, 'request refused: ip_not_allowed');
    throw new ApiError('ip_not_allowed');
  }
  if (publishable) {
    // Before the key rules, so a browser on an allowed origin can read a refusal too.
    exposeToOrigin(req, res, key.allowed_origins);
    checkPublishable(req, key.allowed_origins);
  }
  return auth;
}

/**
 * A console user's internal credential: the account's secret key as far as every rule, limit and
 * route is concerned (read-only for a viewer), but never under an IP allowlist (it is not a
 * customer's key) and carrying the user, so the request is attributable to them.
 */
async function consoleCredentialAuth(ctx: AppContext, req: Request, token: string): Promise<AuthState> {
  const live = await resolveConsoleCredential(ctx, token);
  const account = live && (await getAccount(ctx.store.db, live.credential.account_id));
  if (!live || !account) throw new ApiError('invalid_api_key');
  const auth = { key: credentialAsKey(live), account, livemode: live.credential.livemode, publishable: false, user: credentialUser(live) };
  req.tawqi.caller = auth;
  return auth;
}

/** The key-shaped view the limits, idempotency and access log read (key_id is the credential's id). */
function credentialAsKey({ credential: c, access }: LiveCredential): ApiKey {
  return {
    id: c.id,
    account_id: c.account_id,
    name: 'console',
    kind: 'secret',
    mode: c.livemode ? 'live' : 'test',
    secret_hash: c.token_hash,
    last4: '',
    read_only: access === 'read',
    allowed_ips: [],
    allowed_origins: [],
    daily_cap: null,
    created_at: c.created_at,
    expires_at: c.expires_at,
    revoked_at: null,
    replaced_by: null,
  };
}

function credentialUser({ credential: c, email }: LiveCredential): NonNullable<AuthState['user']> {
  return { id: c.user_id, email, credential_id: c.id };
}

function checkPublishable(req: Request, allowedOrigins: readonly string[]): void {
  const path = req.path.replace(/\/+$/, '') || '/';
  if (path !== '/' && !PUBLISHABLE_ROOTS.some((root) => under(path, root))) throw new ApiError('forbidden');
  if (!isRead(req.method) && (path === '/' || PUBLISHABLE_READ_ONLY.some((root) => under(path, root)))) throw new ApiError('forbidden');
  if (isRead(req.method) && path === '/signature_requests') throw new ApiError('forbidden');
  const origin = req.headers.origin;
  if (typeof origin !== 'string' || !allowedOrigins.includes(origin)) throw new ApiError('forbidden', 'Origin');
}

/** For operations a publishable or read-only key may never call, whatever its path rules say. */
export function requireSecretKey(req: Request): void {
  if (req.tawqi.auth?.publishable) throw new ApiError('forbidden');
}
