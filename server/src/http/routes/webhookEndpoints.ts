import {
  webhookEndpointCreatedSchema,
  webhookEndpointDeletedSchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
} from '@tawqi/shared/api';
import { z } from 'zod';
import { ApiError, invalidParam } from '../../errors.js';
import { findEndpoint, listEndpoints } from '../../store/webhooks.js';
import {
  changeEndpoint,
  checkEndpointUrl,
  createEndpoint,
  deleteEndpoint,
  endpointCreateSchema,
  endpointUpdateSchema,
  EndpointUrlProblem,
} from '../../webhooks/endpoints.js';
import { systemResolver } from '../../webhooks/reachability.js';
import { presentEndpoint } from '../../presenters/webhooks.js';
import type { AppContext } from '../context.js';
import { commitWrite } from '../commitWrite.js';
import { checkCursor, limitParam, listPage } from '../lists.js';
import { defineRoute } from './registry.js';

const listQuery = z.object({
  limit: limitParam(100),
  starting_after: z.string().max(100).optional(),
});

/** The URL rules (https, publicly reachable unless TAWQI_WEBHOOK_ALLOW_PRIVATE) as a 400 on `url`. */
async function checkedUrl(ctx: AppContext, raw: string): Promise<string> {
  try {
    return await checkEndpointUrl(raw, ctx.config.TAWQI_WEBHOOK_ALLOW_PRIVATE, systemResolver);
  } catch (err) {
    if (err instanceof EndpointUrlProblem) throw invalidParam('url', err.en, err.ar);
    throw err;
  }
}

/**
 * Webhook endpoints (spec 2.4, 4, 6.1), Stripe-style. Each belongs to the key's mode: a test key
 * creates and sees test endpoints (test events only), a live key live ones. Publishable and
 * read-only keys are refused by the key rules (403 forbidden).
 */
export const webhookEndpointRoutes = [
  defineRoute({
    method: 'post',
    path: '/webhook_endpoints',
    summary:
      'Register a webhook endpoint: url (https, publicly reachable: loopback, private, link-local and reserved addresses are refused), enabled_events (event types, or * for all), optional description. The whsec_ secret is in this response only. A test key’s endpoint receives test events only; a live key’s, live events',
    tag: 'webhooks',
    access: 'secret',
    body: endpointCreateSchema,
    status: 201,
    response: webhookEndpointCreatedSchema,
    errors: ['parameter_invalid', 'parameter_missing', 'parameter_unknown', 'forbidden'],
    handle: async (ctx, { req, res, body }) => {
      const auth = req.tawqi.auth!;
      const url = await checkedUrl(ctx, body.url);
      await commitWrite(ctx, req, res, async (trx) => {
        const { endpoint, secret } = await createEndpoint(trx, ctx.clock, {
          accountId: auth.account.id,
          livemode: auth.livemode,
          url,
          enabledEvents: body.enabled_events,
          description: body.description ?? null,
          via: 'api',
        });
        return { status: 201, body: { ...presentEndpoint(endpoint), secret } };
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/webhook_endpoints',
    summary:
      'List the webhook endpoints of the key’s mode, newest first (limit, starting_after; pass next_cursor as starting_after). Secrets are never listed',
    tag: 'webhooks',
    access: 'secret',
    query: listQuery,
    status: 200,
    response: webhookEndpointListSchema,
    errors: ['parameter_invalid', 'forbidden'],
    handle: async (ctx, { req, res, query }) => {
      const auth = req.tawqi.auth!;
      await checkCursor(
        query.starting_after,
        async (id) => (await findEndpoint(ctx.store.db, auth.account.id, auth.livemode, id)) !== undefined,
      );
      const rows = await listEndpoints(ctx.store.db, {
        accountId: auth.account.id,
        livemode: auth.livemode,
        startingAfter: query.starting_after,
        limit: query.limit,
      });
      res.json(listPage(rows.map(presentEndpoint), query.limit));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/webhook_endpoints/:id',
    summary: 'Retrieve a webhook endpoint (without its secret)',
    tag: 'webhooks',
    access: 'secret',
    status: 200,
    response: webhookEndpointSchema,
    errors: ['not_found', 'forbidden'],
    handle: async (ctx, { req, res, params }) => {
      const auth = req.tawqi.auth!;
      const e = await findEndpoint(ctx.store.db, auth.account.id, auth.livemode, params.id!);
      if (!e) throw new ApiError('not_found', 'id');
      res.json(presentEndpoint(e));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/webhook_endpoints/:id',
    summary:
      'Update a webhook endpoint: any of url, enabled_events, description (null or empty clears it), disabled. disabled: true sets status disabled and cancels its pending deliveries (they are never sent; redeliver to send again); disabled: false enables it again',
    tag: 'webhooks',
    access: 'secret',
    body: endpointUpdateSchema,
    status: 200,
    response: webhookEndpointSchema,
    errors: ['parameter_invalid', 'parameter_unknown', 'not_found', 'forbidden'],
    handle: async (ctx, { req, res, params, body }) => {
      const auth = req.tawqi.auth!;
      const url = body.url === undefined ? undefined : await checkedUrl(ctx, body.url);
      await commitWrite(ctx, req, res, async (trx) => {
        const e = await findEndpoint(trx, auth.account.id, auth.livemode, params.id!);
        if (!e) throw new ApiError('not_found', 'id');
        const changed = await changeEndpoint(trx, ctx.clock, e, { ...body, url });
        return { status: 200, body: presentEndpoint(changed) };
      });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/webhook_endpoints/:id',
    summary:
      'Delete a webhook endpoint: it receives nothing more, its pending deliveries are canceled and its secret erased. Answers {id, object: webhook_endpoint, deleted: true}',
    tag: 'webhooks',
    access: 'secret',
    status: 200,
    response: webhookEndpointDeletedSchema,
    errors: ['not_found', 'forbidden'],
    handle: async (ctx, { req, res, params }) => {
      const auth = req.tawqi.auth!;
      await commitWrite(ctx, req, res, async (trx) => {
        const e = await findEndpoint(trx, auth.account.id, auth.livemode, params.id!);
        if (!e) throw new ApiError('not_found', 'id');
        await deleteEndpoint(trx, ctx.clock, e);
        return { status: 200, body: { id: e.id, object: 'webhook_endpoint' as const, deleted: true as const } };
      });
    },
  }),
];
