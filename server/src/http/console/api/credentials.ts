/**
 * POST /console/api/credentials {livemode}: the signed-in user's short-lived credential for the
 * public API (issue 15 point 6). The console calls /api/v1/… with it as a Bearer token, so
 * everything the API covers runs through the API's own rules, limits and audit.
 */
import { z } from 'zod';
import { mintConsoleCredential } from '../../../services/consoleCredentials.js';
import type { AppContext } from '../../context.js';
import { parseWith } from '../../routes/registry.js';
import type { ConsoleRoutes } from './routes.js';

const body = z.strictObject({ livemode: z.boolean() });

export function credentialsRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  routes.add('post', '/credentials', 'requests.read', async (req, res) => {
    const { livemode } = parseWith(body, req.body ?? {});
    const { session, user } = req.tawqi.console!;
    const minted = await mintConsoleCredential(ctx.store, ctx.clock, {
      accountId: user.account_id!,
      userId: user.id,
      role: user.role,
      livemode,
      session,
      ttlSeconds: ctx.config.TAWQI_CONSOLE_CREDENTIAL_SECONDS,
    });
    res.status(201).json({ object: 'console_credential', ...minted });
  });
}
