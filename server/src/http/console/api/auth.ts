/** Signing in and out of the console: /console/api/sign_in, /sign_in/two_factor, /session, /sign_out, /sign_out_everywhere. */
import type { Request, Response } from 'express';
import { z } from 'zod';
import { nowSeconds } from '../../../clock.js';
import { permissionsOf } from '../../../domain/consoleRoles.js';
import { presentConsoleUser } from '../../../presenters/console.js';
import { signIn, signInSecondFactor, signOut, signOutEverywhere, type SignedIn } from '../../../services/consoleSignIn.js';
import type { SignInThrottle } from '../../../services/consoleThrottle.js';
import { getAccount } from '../../../store/accounts.js';
import type { AppContext } from '../../context.js';
import { parseWith } from '../../routes/registry.js';
import { clearSessionCookie, csrfToken, setSessionCookie } from '../session.js';
import type { ConsoleRoutes } from './routes.js';

const signInBody = z.strictObject({ email: z.string().min(1).max(320), password: z.string().min(1).max(1000) });
const secondFactorBody = z.union([
  z.strictObject({ code: z.string().min(1).max(20) }),
  z.strictObject({ recovery_code: z.string().min(1).max(40) }),
]);

export const clientOf = (req: Request) => ({ ip: req.tawqi.clientIp, userAgent: String(req.headers['user-agent'] ?? '') });

/** Set the session cookie and answer with the user and the session's CSRF token. */
export function answerSignedIn(ctx: AppContext, req: Request, res: Response, signed: SignedIn, status = 200): void {
  setSessionCookie(req, res, signed.token, signed.session, nowSeconds(ctx.clock));
  res.status(status).json({
    user: presentConsoleUser(signed.user),
    csrf_token: csrfToken(ctx, signed.session),
    two_factor_required: signed.session.stage === 'password',
  });
}

export function authRoutes(routes: ConsoleRoutes, ctx: AppContext, throttle: SignInThrottle): void {
  routes.add('post', '/sign_in', 'public', async (req, res) => {
    const body = parseWith(signInBody, req.body ?? {});
    answerSignedIn(ctx, req, res, await signIn(ctx, throttle, body, clientOf(req)));
  });

  routes.add('post', '/sign_in/two_factor', 'pending', async (req, res) => {
    const factor = parseWith(secondFactorBody, req.body ?? {});
    answerSignedIn(ctx, req, res, await signInSecondFactor(ctx, throttle, req.tawqi.console!, factor, clientOf(req)));
  });

  routes.add('get', '/session', 'session', async (req, res) => {
    const { session, user } = req.tawqi.console!;
    const account = user.account_id ? await getAccount(ctx.store.db, user.account_id) : undefined;
    res.json({
      user: presentConsoleUser(user),
      account: account ? { id: account.id, name: account.name } : null,
      permissions: permissionsOf(user.role),
      two_factor_enabled: user.totp_enabled_at !== null,
      csrf_token: csrfToken(ctx, session),
      expires_at: session.expires_at,
    });
  });

  routes.add('post', '/sign_out', 'session', async (req, res) => {
    await signOut(ctx, req.tawqi.console!.session);
    clearSessionCookie(req, res);
    res.status(204).end();
  });

  routes.add('post', '/sign_out_everywhere', 'session', async (req, res) => {
    const ended = await signOutEverywhere(ctx, req.tawqi.console!.user, req.tawqi.clientIp);
    clearSessionCookie(req, res);
    res.json({ sessions_ended: ended });
  });
}
