import { signatureRequestSchema } from '@tawqi/shared/api';
import type { Request } from 'express';
import { z } from 'zod';
import type { ErrorCode } from '@tawqi/shared';
import { requestObject, viewFor } from '../../presenters/objects.js';
import { decideIdentityStep, prepareIdentity, prepareSigning, signStep, verifyOtpStep } from '../../services/testHelpers.js';
import type { RequestWithSigners } from '../../services/signatureRequests.js';
import { commitWrite } from '../commitWrite.js';
import type { AppContext } from '../context.js';
import { origin } from '../signing/page.js';
import { defineRoute } from './registry.js';

/**
 * Test helpers (services/testHelpers.ts): act as a test-mode signer through the API, with a secret
 * test key. Each answers the signature request as it stands after the step; the last state change
 * and the Idempotency-Key record commit together (commitWrite).
 */
const TAG = 'test_helpers';
const ERRORS: ErrorCode[] = [
  'forbidden',
  'test_mode_only',
  'not_found',
  'invalid_state',
  'idempotency_in_progress',
  'idempotency_key_reused',
];
const identityBody = z.strictObject({ decision: z.enum(['approve', 'decline']) });

const signerId = (req: Request): string => String(req.params.id);
const answer = (ctx: AppContext, req: Request, r: RequestWithSigners) => ({
  status: 200,
  body: requestObject(r.request, r.signers, viewFor(ctx, req)),
});

export const testHelperRoutes = [
  defineRoute({
    method: 'post',
    path: '/test_helpers/signers/:id/verify_otp',
    summary:
      'Test mode: the signer opens the page and enters the right one-time code (signer.viewed, signer.otp_verified), as the signer page does',
    tag: TAG,
    access: 'secret',
    status: 200,
    response: signatureRequestSchema,
    errors: ERRORS,
    handle: async (ctx, { req, res }) => {
      const auth = req.tawqi.auth!;
      await commitWrite(ctx, req, res, async (trx) => answer(ctx, req, await verifyOtpStep(ctx, trx, auth, signerId(req), origin(req))));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/test_helpers/signers/:id/identity',
    summary:
      'Test mode: the signer passes the code step if due, then approves or declines identity verification in the simulation (signer.identity_verified or signer.identity_declined)',
    tag: TAG,
    access: 'secret',
    body: identityBody,
    status: 200,
    response: signatureRequestSchema,
    errors: [...ERRORS, 'parameter_missing', 'parameter_invalid', 'parameter_unknown'],
    handle: async (ctx, { req, res, body }) => {
      const auth = req.tawqi.auth!;
      await prepareIdentity(ctx, auth, signerId(req), origin(req));
      await commitWrite(ctx, req, res, async (trx) =>
        answer(ctx, req, await decideIdentityStep(ctx, trx, auth, signerId(req), body.decision)),
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: '/test_helpers/signers/:id/sign',
    summary:
      'Test mode: the signer passes the code step and an identity check if due (approved), then signs with a drawn signature (signer.signed, then partially_signed or completed and sealing), as the signer page does',
    tag: TAG,
    access: 'secret',
    status: 200,
    response: signatureRequestSchema,
    errors: ERRORS,
    handle: async (ctx, { req, res }) => {
      const auth = req.tawqi.auth!;
      await prepareSigning(ctx, auth, signerId(req), origin(req));
      await commitWrite(ctx, req, res, async (trx) => answer(ctx, req, await signStep(ctx, trx, auth, signerId(req), origin(req))));
    },
  }),
];
