import { verificationSchema } from '@tawqi/shared/api';
import { ApiError } from '../../errors.js';
import { verificationFor } from '../../services/verification.js';
import { defineRoute } from './registry.js';

export const verificationRoutes = [
  defineRoute({
    method: 'get',
    path: '/verifications/:reference',
    summary: 'Public verification of a REF- reference (no key): integrity of the stored document, masked parties',
    tag: 'verifications',
    access: 'public',
    status: 200,
    response: verificationSchema,
    errors: ['not_found'],
    handle: async (ctx, { req, res }) => {
      const v = await verificationFor(ctx, ctx.store.db, String(req.params.reference));
      if (!v) throw new ApiError('not_found', 'reference');
      res.setHeader('Cache-Control', 'no-store');
      res.json(v);
    },
  }),
];
