import { bulkSendSummarySchema } from '@tawqi/shared/api';
import { hashAccessCodes } from '../../services/signatureRequests.js';
import { bulkFeatures, bulkSendSchema, createBulk, presentBatch } from '../../services/bulk.js';
import { commitWrite } from '../commitWrite.js';
import { checkFeature, checkLiveGates } from '../gates.js';
import { viewFor } from '../../presenters/objects.js';
import { defineRoute } from './registry.js';

/**
 * POST /signature_requests/bulk: the same contract to many recipients, one request each, created,
 * charged and sent in one transaction (all or nothing), idempotent like every POST. Secret keys
 * only: a browser never sends to many. Enterprise in live mode; test mode up to 10 recipients.
 */
export const bulkRoutes = [
  defineRoute({
    method: 'post',
    path: '/signature_requests/bulk',
    summary: 'Send one contract to many recipients: one signature request each (secret key; Enterprise in live mode)',
    tag: 'signature_requests',
    access: 'secret',
    body: bulkSendSchema,
    status: 201,
    response: bulkSendSummarySchema,
    errors: [
      'parameter_invalid',
      'parameter_missing',
      'parameter_unknown',
      'invalid_request',
      'test_bulk_limit',
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
      'test_daily_limit',
      'test_email_limit',
    ],
    handle: async (ctx, { req, res, body }) => {
      const auth = req.tawqi.auth!;
      checkLiveGates(ctx, auth);
      for (const [feature, param] of bulkFeatures(body)) checkFeature(ctx, auth, feature, param);
      const accessCodeHashes = await hashAccessCodes(body.recipients.map((r) => r.access_code));
      await commitWrite(ctx, req, res, async (trx) => {
        const batch = await createBulk(ctx, trx, auth, body, { accessCodeHashes });
        return { status: 201, body: presentBatch(batch, viewFor(ctx, req), auth.livemode) };
      });
    },
  }),
];
