/** Second-factor enrolment: /console/api/two_factor (status), /setup, /confirm, /disable, /recovery_codes. */
import express from 'express';
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
import { requireConsoleUser } from '../session.js';
import { actingOf, reauthWindows, throttle } from './acting.js';

const confirmBody = z.strictObject({ code: z.string().min(1).max(20) });
const passwordBody = z.strictObject({ password: z.string().min(1).max(1000) });

export function twoFactorRouter(ctx: AppContext): express.Router {
  const router = express.Router();
  const reauth = reauthWindows(ctx);

  router.get('/two_factor', requireConsoleUser(ctx), async (req, res) => {
    res.json(await twoFactorStatus(ctx, actingOf(req)));
  });

  router.post('/two_factor/setup', requireConsoleUser(ctx), async (req, res) => {
    res.json(await startTwoFactorSetup(ctx, actingOf(req)));
  });

  router.post('/two_factor/confirm', requireConsoleUser(ctx), async (req, res) => {
    const body = parseWith(confirmBody, req.body ?? {});
    res.json(await confirmTwoFactor(ctx, actingOf(req), body.code));
  });

  router.post('/two_factor/disable', requireConsoleUser(ctx), async (req, res) => {
    const body = parseWith(passwordBody, req.body ?? {});
    const acting = actingOf(req);
    await throttle(reauth, acting.user.id, ctx.clock.nowMs());
    await disableTwoFactor(ctx, acting, body.password);
    res.json({ enabled: false });
  });

  router.post('/two_factor/recovery_codes', requireConsoleUser(ctx), async (req, res) => {
    const body = parseWith(passwordBody, req.body ?? {});
    const acting = actingOf(req);
    await throttle(reauth, acting.user.id, ctx.clock.nowMs());
    res.json(await regenerateRecoveryCodes(ctx, acting, body.password));
  });

  return router;
}
