import { workflowListSchema, workflowSchema } from '@tawqi/shared/api';
import { z } from 'zod';
import { ApiError } from '../../errors.js';
import { accountWorkflows, findWorkflow, isLive, presentWorkflow } from '../../services/workflows.js';
import { checkCursor, limitParam } from '../lists.js';
import { defineRoute } from './registry.js';

const listQuery = z.object({
  limit: limitParam(100),
  starting_after: z.string().max(100).optional(),
});

/**
 * GET /flows and GET /flows/{id}: the account's published workflows, read-only. Publishable keys
 * may read them (spec part 5 rules 1 and 2; their writes are refused before any route), with cc
 * addresses masked. Drafts and archived workflows are not shown (404).
 */
export const workflowRoutes = [
  defineRoute({
    method: 'get',
    path: '/flows',
    summary: 'List the published workflows (the default workflow first)',
    tag: 'workflows',
    access: 'key',
    query: listQuery,
    status: 200,
    response: workflowListSchema,
    errors: ['parameter_invalid', 'forbidden'],
    handle: async (ctx, { req, res, query }) => {
      const auth = req.tawqi.auth!;
      const all = (await accountWorkflows(ctx.store.db, auth.account)).filter(isLive);
      await checkCursor(query.starting_after, async (id) => all.some((w) => w.workflow.id === id));
      const from = query.starting_after ? all.findIndex((w) => w.workflow.id === query.starting_after) + 1 : 0;
      const page = all.slice(from, from + query.limit);
      const hasMore = from + query.limit < all.length;
      res.json({
        object: 'list',
        data: page.map((w) => presentWorkflow(w, { mask: auth.publishable })),
        has_more: hasMore,
        next_cursor: hasMore ? page[page.length - 1]!.workflow.id : null,
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/flows/:id',
    summary: 'Retrieve a published workflow (its latest published version)',
    tag: 'workflows',
    access: 'key',
    status: 200,
    response: workflowSchema,
    errors: ['not_found', 'forbidden'],
    handle: async (ctx, { req, res, params }) => {
      const auth = req.tawqi.auth!;
      const w = await findWorkflow(ctx.store.db, auth.account, String(params.id));
      if (!w || !isLive(w)) throw new ApiError('not_found', 'id');
      res.json(presentWorkflow(w, { mask: auth.publishable }));
    },
  }),
];
