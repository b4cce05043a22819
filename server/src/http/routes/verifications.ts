import { z } from 'zod';
import { ApiError } from '../../errors.js';
import { verificationFor } from '../../services/verification.js';
import { defineRoute } from './registry.js';

const verificationSchema = z.object({
  object: z.literal('verification'),
  reference: z.string(),
  found: z.boolean(),
  status: z.string(),
  integrity: z.enum(['intact', 'modified', 'unknown']),
  test: z.boolean(),
  sealed_at: z.number().nullable(),
  completed_at: z.number().nullable(),
  document: z.object({
    title: z.string(),
    sha256: z.string(),
    hash_alg: z.literal('hmac-sha256'),
    format: z.string(),
    legal_level: z.string(),
    pdf_sha256: z.string().nullable(),
  }),
  parties: z.array(z.object({ name: z.string(), signed_at: z.number().nullable() })),
});

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
