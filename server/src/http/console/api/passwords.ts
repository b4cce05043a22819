/** Passwords: /console/api/password_reset, /password_reset/confirm (no session), /password (signed in). */
import { z } from 'zod';
import { changePassword, confirmPasswordReset, requestPasswordReset } from '../../../services/consolePasswordReset.js';
import { rateWindows } from '../../../store/rateWindows.js';
import type { AppContext } from '../../context.js';
import { parseWith } from '../../routes/registry.js';
import { actingOf, reauthWindows, throttle } from './acting.js';
import type { ConsoleRoutes } from './routes.js';

const resetBody = z.strictObject({ email: z.string().min(1).max(320) });
const confirmBody = z.strictObject({ token: z.string().min(1).max(200), password: z.string().min(1).max(1000) });
const changeBody = z.strictObject({ current_password: z.string().min(1).max(1000), new_password: z.string().min(1).max(1000) });

/**
 * Reset requests: per client address a 429 (it tells nothing about accounts); per email address
 * the extra requests are answered 202 like the rest but send nothing, so nobody can flood a
 * user's mailbox or learn from the answer whether the address has an account.
 */
export const RESET_IP_LIMIT = { limit: 10, windowMs: 15 * 60_000 };
export const RESET_EMAIL_LIMIT = { limit: 3, windowMs: 60 * 60_000 };

export function passwordsRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  const perIp = rateWindows(ctx.store, { scope: 'console_reset_ip', ...RESET_IP_LIMIT });
  const perEmail = rateWindows(ctx.store, { scope: 'console_reset_email', ...RESET_EMAIL_LIMIT });
  const reauth = reauthWindows(ctx);

  routes.add('post', '/password_reset', 'public', async (req, res) => {
    const body = parseWith(resetBody, req.body ?? {});
    const now = ctx.clock.nowMs();
    await throttle(perIp, req.tawqi.clientIp, now);
    const email = body.email.trim().toLowerCase();
    // Known address or not, the same work (the job looks the user up): nothing in the answer or its time tells them apart.
    const allowed = (await perEmail.hit(email, now)).allowed;
    if (allowed) await requestPasswordReset(ctx, email, req.tawqi.lang, req.tawqi.clientIp);
    res.status(202).json({});
    // The job runs once the answer is on its way.
    if (allowed) ctx.afterCommit();
  });

  routes.add('post', '/password_reset/confirm', 'public', async (req, res) => {
    const body = parseWith(confirmBody, req.body ?? {});
    await throttle(perIp, req.tawqi.clientIp, ctx.clock.nowMs());
    res.json(await confirmPasswordReset(ctx, body.token, body.password, { ip: req.tawqi.clientIp, lang: req.tawqi.lang }));
  });

  routes.add('post', '/password', 'session', async (req, res) => {
    const body = parseWith(changeBody, req.body ?? {});
    const acting = actingOf(req);
    await throttle(reauth, acting.user.id, ctx.clock.nowMs());
    await changePassword(ctx, acting, body.current_password, body.new_password);
    res.json({});
  });
}
