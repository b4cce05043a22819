import { serviceInfoSchema, usageSchema } from '@tawqi/shared/api';
import { API_VERSIONS } from '../../domain/versions.js';
import { presentUsage } from '../../presenters/account.js';
import { defineRoute } from './registry.js';

export const platformRoutes = [
  defineRoute({
    method: 'get',
    path: '/',
    summary: 'Service information, with a link to the documentation',
    tag: 'platform',
    access: 'key',
    status: 200,
    response: serviceInfoSchema,
    errors: ['invalid_api_key'],
    handle: async (ctx, { req, res }) => {
      const auth = req.tawqi.auth!;
      res.json({
        object: 'service',
        name: 'Tawqi',
        api_version: req.tawqi.version,
        versions: API_VERSIONS.map((v) => v.date),
        livemode: auth.livemode,
        account: { id: auth.account.id, name: auth.account.name },
        docs: ctx.config.TAWQI_DOCS_URL,
      });
    },
  }),
  ...(['/usage', '/balance'] as const).map((path) =>
    defineRoute({
      method: 'get',
      path,
      summary: 'Plan, balance and prices (amounts in the wallet currency)',
      tag: 'platform',
      access: 'secret',
      status: 200,
      response: usageSchema,
      errors: ['invalid_api_key', 'forbidden'],
      handle: async (ctx, { req, res }) => {
        const auth = req.tawqi.auth!;
        res.json(presentUsage(auth.account, auth.livemode, ctx.clock));
      },
    }),
  ),
];
