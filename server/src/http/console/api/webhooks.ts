/**
 * Webhook endpoints from the console, for what the public API has no route for: rotating the
 * signing secret (developers.manage), a test event to one endpoint (developers.manage), and an
 * endpoint's delivery log with every attempt (requests.read). Creating, changing and deleting
 * endpoints, redelivering and the event log are the public API's, called with the console credential.
 */
import { z } from 'zod';
import { endpointDeliveries, isEndpointDelivery, rotateSecret, sendTestEvent } from '../../../services/consoleWebhooks.js';
import { DEFAULT_ROTATION_OVERLAP_SECONDS, MAX_ROTATION_OVERLAP_SECONDS } from '../../../webhooks/endpoints.js';
import type { AppContext } from '../../context.js';
import { checkCursor, limitParam, listPage } from '../../lists.js';
import { parseWith } from '../../routes/registry.js';
import { accountActor } from './actor.js';
import type { ConsoleRoutes } from './routes.js';

const rotateBody = z.strictObject({
  overlap_hours: z
    .number()
    .min(0)
    .max(MAX_ROTATION_OVERLAP_SECONDS / 3600)
    .default(DEFAULT_ROTATION_OVERLAP_SECONDS / 3600),
});

const deliveriesQuery = z.strictObject({ limit: limitParam(100), starting_after: z.string().min(1).max(100).optional() });

export function webhooksRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  routes.add('post', '/webhook_endpoints/:id/rotate_secret', 'developers.manage', async (req, res) => {
    const { overlap_hours } = parseWith(rotateBody, req.body ?? {});
    res.json(await rotateSecret(ctx, accountActor(req), String(req.params.id), Math.round(overlap_hours * 3600)));
  });

  routes.add('post', '/webhook_endpoints/:id/test', 'developers.manage', async (req, res) => {
    parseWith(z.strictObject({}), req.body ?? {});
    res.status(201).json(await sendTestEvent(ctx, accountActor(req), String(req.params.id)));
  });

  routes.add('get', '/webhook_endpoints/:id/deliveries', 'requests.read', async (req, res) => {
    const q = parseWith(deliveriesQuery, req.query);
    const accountId = req.tawqi.console!.user.account_id!;
    const id = String(req.params.id);
    await checkCursor(q.starting_after, (d) => isEndpointDelivery(ctx, accountId, id, d));
    const rows = await endpointDeliveries(ctx, accountId, id, { startingAfter: q.starting_after, limit: q.limit });
    res.json(listPage(rows, q.limit));
  });
}
