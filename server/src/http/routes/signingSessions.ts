import { signingSessionSchema } from '@tawqi/shared/api';
import { z } from 'zod';
import { httpsUrl } from '../../domain/signatureRequestInput.js';
import { createSigningSession } from '../../services/signingSessions.js';
import { commitWrite } from '../commitWrite.js';
import { checkFeature, checkLiveGates } from '../gates.js';
import { defineRoute } from './registry.js';

export const signingSessionBody = z.strictObject({
  mode: z.literal('redirect').optional(),
  return_url: httpsUrl.optional(),
  success_url: httpsUrl.optional(),
  cancel_url: httpsUrl.optional(),
  embed_origin: z
    .url()
    .optional()
    .describe(
      'Pin the session to this allowed origin: the only one that may frame it and receive its messages (else the embedding page’s origin, on first open)',
    ),
});

export const signingSessionRoutes = [
  defineRoute({
    method: 'post',
    path: '/signers/:id/signing_session',
    summary: 'A 30-minute signing session for one signer, to embed in a frame or open by redirect',
    tag: 'signers',
    access: 'secret',
    body: signingSessionBody,
    status: 200,
    response: signingSessionSchema,
    errors: ['not_found', 'invalid_state', 'domain_not_accepted', 'plan_feature_unavailable', 'parameter_invalid', 'forbidden'],
    handle: async (ctx, { req, res, body }) => {
      const auth = req.tawqi.auth!;
      checkLiveGates(ctx, auth);
      for (const f of ['return_url', 'success_url', 'cancel_url'] as const) if (body[f]) checkFeature(ctx, auth, f, f);
      await commitWrite(ctx, req, res, async (trx) => ({
        status: 200,
        body: await createSigningSession(ctx, trx, auth, String(req.params.id), body),
      }));
    },
  }),
];
