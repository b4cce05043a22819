import { eventListSchema, eventSchema, webhookDeliveryListSchema } from '@tawqi/shared/api';
import { z } from 'zod';
import { ApiError, invalidParam } from '../../errors.js';
import { presentEvent } from '../../presenters/events.js';
import { findEvent, listEvents } from '../../store/events.js';
import { deliveryOf, findEndpoint, listDeliveries } from '../../store/webhooks.js';
import { redeliver, subscribedEndpointIds } from '../../webhooks/deliveries.js';
import { presentDelivery } from '../../presenters/webhooks.js';
import { commitWrite } from '../commitWrite.js';
import { checkCursor, limitParam, listPage, timeParam } from '../lists.js';
import { defineRoute } from './registry.js';

const listQuery = z.object({
  type: z
    .string()
    .regex(/^[a-z_]+(\.[a-z_]+|\.\*)$/)
    .optional(),
  signature_request: z.string().startsWith('sr_').optional(),
  created_after: timeParam.optional(),
  created_before: timeParam.optional(),
  starting_after: z.string().max(100).optional(),
  limit: limitParam(100),
});

const redeliverBody = z.strictObject({ endpoint: z.string().startsWith('we_').max(100).optional() });

const deliveriesQuery = z.object({
  starting_after: z.string().max(100).optional(),
  limit: limitParam(100),
});

export const eventRoutes = [
  defineRoute({
    method: 'get',
    path: '/events',
    summary: 'The event log of the key’s mode, newest first (the same payloads webhooks carry); type accepts a prefix like signer.*',
    tag: 'events',
    access: 'secret',
    query: listQuery,
    status: 200,
    response: eventListSchema,
    errors: ['parameter_invalid', 'forbidden'],
    handle: async (ctx, { req, res, query }) => {
      const auth = req.tawqi.auth!;
      await checkCursor(
        query.starting_after,
        async (id) => (await findEvent(ctx.store.db, auth.account.id, auth.livemode, id)) !== undefined,
      );
      const rows = await listEvents(ctx.store.db, {
        accountId: auth.account.id,
        livemode: auth.livemode,
        type: query.type,
        signatureRequestId: query.signature_request,
        createdAfter: query.created_after,
        createdBefore: query.created_before,
        startingAfter: query.starting_after,
        limit: query.limit,
      });
      const page = listPage(rows, query.limit);
      res.json({ ...page, data: page.data.map((e) => presentEvent(e, { maskRequestInfo: auth.publishable })) });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/events/:id',
    summary: 'Retrieve an event',
    tag: 'events',
    access: 'secret',
    status: 200,
    response: eventSchema,
    errors: ['not_found', 'forbidden'],
    handle: async (ctx, { req, res }) => {
      const auth = req.tawqi.auth!;
      const e = await findEvent(ctx.store.db, auth.account.id, auth.livemode, String(req.params.id));
      if (!e) throw new ApiError('not_found', 'id');
      res.json(presentEvent(e, { maskRequestInfo: auth.publishable }));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/events/:id/redeliver',
    summary:
      'Send an event again: to the endpoint named in the optional body {endpoint: we_…} (even one not subscribed to the type), else to every enabled endpoint of the event’s mode subscribed to its type now. Each gets a new delivery with its own attempts and retry schedule; answers the list of new deliveries (status pending)',
    tag: 'events',
    access: 'secret',
    body: redeliverBody,
    status: 200,
    response: webhookDeliveryListSchema,
    errors: ['not_found', 'parameter_invalid', 'parameter_unknown', 'forbidden'],
    handle: async (ctx, { req, res, body }) => {
      const auth = req.tawqi.auth!;
      await commitWrite(ctx, req, res, async (trx) => {
        const e = await findEvent(trx, auth.account.id, auth.livemode, String(req.params.id));
        if (!e) throw new ApiError('not_found', 'id');
        let targets: string[];
        if (body.endpoint) {
          const endpoint = await findEndpoint(trx, auth.account.id, auth.livemode, body.endpoint);
          if (!endpoint) throw new ApiError('not_found', 'endpoint');
          if (endpoint.status !== 'enabled') {
            throw invalidParam(
              'endpoint',
              'The endpoint is disabled; enable it first (disabled: false).',
              'نقطة الاستقبال معطّلة؛ فعّلها أولًا.',
            );
          }
          targets = [endpoint.id];
        } else {
          targets = await subscribedEndpointIds(trx, e);
        }
        const rows = await redeliver(trx, ctx.clock, e, targets);
        return {
          status: 200,
          body: { object: 'list' as const, data: rows.reverse().map(presentDelivery), has_more: false, next_cursor: null },
        };
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/events/:id/deliveries',
    summary:
      'The webhook deliveries of an event, newest first: endpoint, status (pending, succeeded, failed, canceled), next_attempt_at, and every attempt with its response_status (null when there was no answer), duration_ms, error, response_excerpt (the first 500 bytes of the answer’s body at most) and next_retry_at',
    tag: 'events',
    access: 'secret',
    query: deliveriesQuery,
    status: 200,
    response: webhookDeliveryListSchema,
    errors: ['not_found', 'parameter_invalid', 'forbidden'],
    handle: async (ctx, { req, res, query }) => {
      const auth = req.tawqi.auth!;
      const e = await findEvent(ctx.store.db, auth.account.id, auth.livemode, String(req.params.id));
      if (!e) throw new ApiError('not_found', 'id');
      await checkCursor(query.starting_after, (id) => deliveryOf(ctx.store.db, { event_id: e.id }, id));
      const rows = await listDeliveries(ctx.store.db, { event_id: e.id }, { startingAfter: query.starting_after, limit: query.limit });
      res.json(listPage(rows.map(presentDelivery), query.limit));
    },
  }),
];
