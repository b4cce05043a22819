import { signatureRequestListSchema, signatureRequestSchema } from '@tawqi/shared/api';
import { z } from 'zod';
import { REQUEST_STATUSES } from '../../domain/requestStates.js';
import { featuresUsed } from '../../domain/requestRules.js';
import { signatureRequestCreateSchema } from '../../domain/signatureRequestInput.js';
import { requestObject } from '../../presenters/objects.js';
import {
  cancelSignatureRequest,
  createSignatureRequest,
  hashAccessCodes,
  loadOwned,
  remindSigners,
  sendSignatureRequest,
  type RequestWithSigners,
} from '../../services/signatureRequests.js';
import { findRequest, listRequests, signersOfMany } from '../../store/signatureRequests.js';
import { commitWrite } from '../commitWrite.js';
import type { AppContext } from '../context.js';
import { checkFeature, checkLiveGates } from '../gates.js';
import { checkCursor, limitParam, listPage, timeParam } from '../lists.js';
import { viewFor } from '../../presenters/objects.js';
import { defineRoute } from './registry.js';
import type { Request } from 'express';

const idParams = (req: Request): string => String(req.params.id);
const present = (ctx: AppContext, req: Request, r: RequestWithSigners, creation = false) =>
  requestObject(r.request, r.signers, viewFor(ctx, req, { creation }));

const listQuery = z.object({
  status: z.enum(REQUEST_STATUSES).optional(),
  created_after: timeParam.optional(),
  created_before: timeParam.optional(),
  search: z.string().trim().min(1).max(200).optional().describe('Text in the title or a signer’s name, email or phone'),
  starting_after: z.string().max(100).optional(),
  limit: limitParam(100),
});

const remindersBody = z.strictObject({ signer: z.string().startsWith('sgr_').optional() });

const WRITE_ERRORS = ['not_found', 'plan_required', 'plan_expired', 'kyb_required', 'forbidden'] as const;

export const signatureRequestRoutes = [
  defineRoute({
    method: 'post',
    path: '/signature_requests',
    summary: 'Create a signature request and send it (send: false keeps a draft)',
    tag: 'signature_requests',
    access: 'key',
    body: signatureRequestCreateSchema,
    status: 201,
    response: signatureRequestSchema,
    errors: [
      'parameter_invalid',
      'parameter_missing',
      'parameter_unknown',
      'invalid_request',
      'too_many_signers',
      'test_signer_limit',
      'test_email_required',
      'test_recipient_not_allowed',
      'domain_not_accepted',
      'plan_required',
      'plan_expired',
      'insufficient_balance',
      'kyb_required',
      'plan_feature_unavailable',
      'forbidden',
      'workflow_not_found',
      'idempotency_in_progress',
      'idempotency_key_reused',
      'too_many_requests',
      'daily_cap_reached',
      'test_daily_limit',
      'test_email_limit',
    ],
    handle: async (ctx, { req, res, body }) => {
      const auth = req.tawqi.auth!;
      checkLiveGates(ctx, auth);
      for (const [feature, param] of featuresUsed(body)) checkFeature(ctx, auth, feature, param);
      const accessCodeHashes = await hashAccessCodes(body.signers.map((s) => s.access_code));
      // READ COMMITTED with row locks on PostgreSQL (store/types.ts lockingTx, groupTx): a create
      // writes by atomic counter upserts, a guarded charge after locking the balance, and new rows
      // only, so the creates of a moment share one transaction (store/pgGroupCommit.ts).
      await commitWrite(
        ctx,
        req,
        res,
        async (trx) => {
          const created = await createSignatureRequest(ctx, trx, auth, body, { accessCodeHashes });
          return { status: 201, body: present(ctx, req, created, true) };
        },
        { grouped: true },
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/signature_requests',
    summary: 'List signature requests of the key’s mode, newest first (secret key)',
    tag: 'signature_requests',
    access: 'secret',
    query: listQuery,
    status: 200,
    response: signatureRequestListSchema,
    errors: ['forbidden', 'parameter_invalid', 'too_many_requests'],
    handle: async (ctx, { req, res, query }) => {
      const auth = req.tawqi.auth!;
      await checkCursor(
        query.starting_after,
        async (id) => (await findRequest(ctx.store.db, auth.account.id, auth.livemode, id)) !== undefined,
      );
      const rows = await listRequests(ctx.store.db, {
        accountId: auth.account.id,
        livemode: auth.livemode,
        status: query.status,
        createdAfter: query.created_after,
        createdBefore: query.created_before,
        search: query.search,
        startingAfter: query.starting_after,
        limit: query.limit,
      });
      const page = listPage(rows, query.limit);
      const signers = await signersOfMany(
        ctx.store.db,
        page.data.map((r) => r.id),
      );
      res.json({ ...page, data: page.data.map((r) => present(ctx, req, { request: r, signers: signers.get(r.id)! })) });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/signature_requests/:id',
    summary: 'Retrieve a signature request',
    tag: 'signature_requests',
    access: 'key',
    status: 200,
    response: signatureRequestSchema,
    errors: ['not_found'],
    handle: async (ctx, { req, res }) => {
      res.json(present(ctx, req, await loadOwned(ctx.store.db, req.tawqi.auth!, idParams(req))));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/signature_requests/:id/send',
    summary: 'Send a draft (charged once); on a sent request this is a reminder',
    tag: 'signature_requests',
    access: 'key',
    status: 200,
    response: signatureRequestSchema,
    errors: [...WRITE_ERRORS, 'insufficient_balance', 'invalid_state', 'reminder_too_soon', 'reminder_limit_reached', 'test_email_limit'],
    handle: async (ctx, { req, res }) => {
      const auth = req.tawqi.auth!;
      checkLiveGates(ctx, auth);
      await commitWrite(ctx, req, res, async (trx) => ({
        status: 200,
        body: present(ctx, req, await sendSignatureRequest(ctx, trx, auth, idParams(req))),
      }));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/signature_requests/:id/cancel',
    summary: 'Cancel a request that is not final (the cost of a sent request is not refunded)',
    tag: 'signature_requests',
    access: 'key',
    status: 200,
    response: signatureRequestSchema,
    errors: ['not_found', 'request_not_cancelable', 'too_many_requests'],
    handle: async (ctx, { req, res }) => {
      const auth = req.tawqi.auth!;
      await commitWrite(ctx, req, res, async (trx) => ({
        status: 200,
        body: present(ctx, req, await cancelSignatureRequest(ctx, trx, auth, idParams(req))),
      }));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/signature_requests/:id/reminders',
    summary: 'Remind the signers whose turn it is (or one named signer)',
    tag: 'signature_requests',
    access: 'key',
    body: remindersBody,
    status: 200,
    response: signatureRequestSchema,
    errors: ['not_found', 'reminder_not_allowed', 'reminder_too_soon', 'reminder_limit_reached', 'test_email_limit', 'parameter_invalid'],
    handle: async (ctx, { req, res, body }) => {
      const auth = req.tawqi.auth!;
      await commitWrite(ctx, req, res, async (trx) => ({
        status: 200,
        body: present(ctx, req, await remindSigners(ctx, trx, auth, idParams(req), { signerId: body.signer })),
      }));
    },
  }),
];
