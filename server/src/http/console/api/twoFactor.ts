/** Second-factor enrolment: /console/api/two_factor (status), /setup, /confirm, /disable, /recovery_codes. */
import { z } from 'zod';
import {
  confirmTwoFactor,
  disableTwoFactor,
  regenerateRecoveryCodes,
  startTwoFactorSetup,
  twoFactorStatus,
} from '../../../services/consoleTwoFactor.js';
import type { AppContext } from '../../context.js';
import { parseWith } from '../../routes/registry.js';
import { actingOf, reauthWindows, throttle } from './acting.js';
import type { ConsoleRoutes } from './routes.js';

const confirmBody = z.strictObject({ code: z.string().min(1).max(20) });
const passwordBody = z.strictObject({ password: z.string().min(1).max(1000) });

export function twoFactorRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  const reauth = reauthWindows(ctx);

  routes.add('get', '/two_factor', 'session', async (req, res) => {
    res.json(await twoFactorStatus(ctx, actingOf(req)));
  });

  routes.add('post', '/two_factor/setup', 'session', async (req, res) => {
    res.json(await startTwoFactorSetup(ctx, actingOf(req)));
  });

  routes.add('post', '/two_factor/confirm', 'session', async (req, res) => {
    const body = parseWith(confirmBody, req.body ?? {});
    res.json(await confirmTwoFactor(ctx, actingOf(req), body.code));
  });

  routes.add('post', '/two_factor/disable', 'session', async (req, res) => {
    const body = parseWith(passwordBody, req.body ?? {});
    const acting = actingOf(req);
    await throttle(reauth, acting.user.id, ctx.clock.nowMs());
    await disableTwoFactor(ctx, acting, body.password);
    res.json({ enabled: false });
  });

  routes.add('post', '/two_factor/recovery_codes', 'session', async (req, res) => {
    const body = parseWith(passwordBody, req.body ?? {});
    const acting = actingOf(req);
    await throttle(reauth, acting.user.id, ctx.clock.nowMs());
    res.json(await regenerateRecoveryCodes(ctx, acting, body.password));
  });
}
