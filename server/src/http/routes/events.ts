import { z } from 'zod';
import { ApiError } from '../../errors.js';
import { presentEvent } from '../../services/events.js';
import { findEvent, listEvents } from '../../store/events.js';
import { limitParam, listPage, timeParam } from '../lists.js';
import { defineRoute } from './registry.js';

const listQuery = z.object({
  type: z.string().regex(/^[a-z_]+(\.[a-z_]+|\.\*)$/).optional(),
  signature_request: z.string().startsWith('sr_').optional(),
  created_after: timeParam.optional(),
  created_before: timeParam.optional(),
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
    errors: ['parameter_invalid', 'forbidden'],
    handle: async (ctx, { req, res, query }) => {
      const auth = req.tawqi.auth!;
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
    errors: ['not_found', 'forbidden'],
    handle: async (ctx, { req, res }) => {
      const auth = req.tawqi.auth!;
      const e = await findEvent(ctx.store.db, auth.account.id, auth.livemode, String(req.params.id));
      if (!e) throw new ApiError('not_found', 'id');
      res.json(presentEvent(e, { maskRequestInfo: auth.publishable }));
    },
  }),
];
