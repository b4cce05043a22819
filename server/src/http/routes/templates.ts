import { templateListSchema, templateSchema } from '@tawqi/shared/api';
import { z } from 'zod';
import { templateCreateSchema } from '../../domain/templates.js';
import { createTemplate } from '../../services/templates.js';
import { findTemplate, listTemplates } from '../../store/templates.js';
import { ApiError } from '../../errors.js';
import { commitWrite } from '../commitWrite.js';
import { checkLiveGates } from '../gates.js';
import { checkCursor, limitParam, listPage } from '../lists.js';
import { presentTemplate } from '../../presenters/account.js';
import { defineRoute } from './registry.js';

const listQuery = z.object({
  scope: z.enum(['mine', 'all']).default('all'),
  archived: z.enum(['false', 'true']).default('false').describe('true: archived templates too (they are left out otherwise)'),
  search: z.string().max(200).optional(),
  limit: limitParam(100),
  starting_after: z.string().max(100).optional(),
});

export const templateRoutes = [
  defineRoute({
    method: 'get',
    path: '/templates',
    summary: 'List templates: the ready-made library and your own (scope=mine: your own only; archived=true: archived ones too)',
    tag: 'templates',
    access: 'key',
    query: listQuery,
    status: 200,
    response: templateListSchema,
    errors: ['parameter_invalid'],
    handle: async (ctx, { req, res, query }) => {
      const accountId = req.tawqi.auth!.account.id;
      await checkCursor(query.starting_after, async (id) => (await findTemplate(ctx.store.db, accountId, id)) !== undefined);
      const rows = await listTemplates(ctx.store.db, {
        accountId,
        mineOnly: query.scope === 'mine',
        archived: query.archived === 'true',
        search: query.search,
        startingAfter: query.starting_after,
        limit: query.limit,
      });
      res.json(listPage(rows.map(presentTemplate), query.limit));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/templates',
    summary: 'Create a custom contract template (secret key)',
    tag: 'templates',
    access: 'secret',
    body: templateCreateSchema,
    status: 201,
    response: templateSchema,
    errors: ['parameter_invalid', 'parameter_missing', 'plan_required', 'plan_expired', 'kyb_required', 'forbidden', 'template_key_taken'],
    handle: async (ctx, { req, res, body }) => {
      const auth = req.tawqi.auth!;
      checkLiveGates(ctx, auth);
      await commitWrite(ctx, req, res, async (trx) => {
        const record = await createTemplate(trx, ctx.clock, auth.account.id, body);
        return { status: 201, body: presentTemplate(record) };
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/templates/:id',
    summary: 'Retrieve a template',
    tag: 'templates',
    access: 'key',
    status: 200,
    response: templateSchema,
    errors: ['not_found'],
    handle: async (ctx, { req, res, params }) => {
      const t = await findTemplate(ctx.store.db, req.tawqi.auth!.account.id, params.id!);
      if (!t) throw new ApiError('not_found', 'id');
      res.json(presentTemplate(t));
    },
  }),
];
