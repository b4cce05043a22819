import { signerListSchema, signerSchema } from '@tawqi/shared/api';
import { z } from 'zod';
import { SIGNER_STATUSES } from '../../domain/requestStates.js';
import { ApiError } from '../../errors.js';
import { signerObject } from '../../presenters/objects.js';
import { findRequest, getRequestById, getSigner, listSigners } from '../../store/signatureRequests.js';
import { checkCursor, limitParam, listPage } from '../lists.js';
import { viewFor } from '../../presenters/objects.js';
import { defineRoute } from './registry.js';

const listQuery = z.object({
  signature_request: z.string().startsWith('sr_').optional(),
  status: z.enum(SIGNER_STATUSES).optional(),
  email: z.string().max(254).optional(),
  starting_after: z.string().max(100).optional(),
  limit: limitParam(100),
});

export const signerRoutes = [
  defineRoute({
    method: 'get',
    path: '/signers',
    summary:
      'List signers (filters: signature_request, status, email); publishable keys must name a signature_request and see masked contacts',
    tag: 'signers',
    access: 'key',
    query: listQuery,
    status: 200,
    response: signerListSchema,
    errors: ['parameter_missing', 'parameter_invalid'],
    handle: async (ctx, { req, res, query }) => {
      const auth = req.tawqi.auth!;
      if (auth.publishable && !query.signature_request) throw new ApiError('parameter_missing', 'signature_request');
      await checkCursor(query.starting_after, async (id) => {
        const signer = await getSigner(ctx.store.db, id);
        return (
          signer !== undefined &&
          (await findRequest(ctx.store.db, auth.account.id, auth.livemode, signer.signature_request_id)) !== undefined
        );
      });
      const rows = await listSigners(ctx.store.db, {
        accountId: auth.account.id,
        livemode: auth.livemode,
        signatureRequestId: query.signature_request,
        status: query.status,
        email: auth.publishable ? undefined : query.email,
        startingAfter: query.starting_after,
        limit: query.limit,
      });
      const page = listPage(rows, query.limit);
      const requests = new Map<string, Awaited<ReturnType<typeof getRequestById>>>();
      for (const s of page.data)
        if (!requests.has(s.signature_request_id))
          requests.set(s.signature_request_id, await getRequestById(ctx.store.db, s.signature_request_id));
      const view = viewFor(ctx, req);
      res.json({ ...page, data: page.data.map((s) => signerObject(s, requests.get(s.signature_request_id)!, view)) });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/signers/:id',
    summary: 'Retrieve a signer',
    tag: 'signers',
    access: 'key',
    status: 200,
    response: signerSchema,
    errors: ['not_found'],
    handle: async (ctx, { req, res }) => {
      const auth = req.tawqi.auth!;
      const signer = await getSigner(ctx.store.db, String(req.params.id));
      const request = signer && (await getRequestById(ctx.store.db, signer.signature_request_id));
      if (!signer || !request || request.account_id !== auth.account.id || request.livemode !== auth.livemode)
        throw new ApiError('not_found', 'id');
      res.json(signerObject(signer, request, viewFor(ctx, req)));
    },
  }),
];
