import { sessionListSchema, sessionSchema } from '@tawqi/shared/api';
import { z } from 'zod';
import { isDefaultWorkflowId, DEFAULT_WORKFLOW_ID, SESSION_STATUSES, sessionBodyDocument } from '../../domain/workflows.js';
import { announceSend, createSignatureRequest, hashAccessCodes } from '../../services/signatureRequests.js';
import {
  deliverInvitations,
  deliveryFailedEnvelope,
  listSessions,
  loadSession,
  prepareSession,
  revertUndelivered,
} from '../../services/sessions.js';
import { presentSession } from '../../presenters/session.js';
import { completeIdempotency, replaceStoredResponse } from '../../store/idempotency.js';
import { getSession } from '../../store/workflows.js';
import type { AppContext } from '../context.js';
import { checkFeature, checkLiveGates } from '../gates.js';
import { auditConsoleWrite } from '../commitWrite.js';
import { checkCursor, limitParam } from '../lists.js';
import { idempotencyInProgress } from '../middleware/idempotency.js';
import { defineRoute } from './registry.js';
import type { Request } from 'express';

const listQuery = z.object({
  workflow_id: z.string().max(100).optional(),
  vendor_data: z.string().max(190).optional(),
  status: z.enum(SESSION_STATUSES).optional(),
  limit: limitParam(100),
  starting_after: z.string().max(100).optional(),
});

/** The body is checked field by field by the session rules (services/sessions.ts), with the codes of spec 7. */
const sessionBody = z.record(z.string(), z.unknown());

const links = (ctx: AppContext) => ({ publicUrl: ctx.publicUrl, linkKey: ctx.secrets.linkKey });
const currencyOf = (req: Request) => req.tawqi.auth!.account.currency;

/**
 * POST /sessions answers only once the invitations' delivery is known. Three steps:
 *  1. one transaction creates and sends the request exactly as POST /signature_requests does
 *     (charge, invitations queued), holds back its events, and stores the 201 response under the
 *     Idempotency-Key; each invitation's delivery job is set SESSION_DELIVERY_GRACE_SECONDS later;
 *  2. the invitations are delivered at once (SMTP, WhatsApp Cloud API);
 *  3. if at least one arrived (or none was due: link channel, test-mode WhatsApp), a second
 *     transaction emits signature_request.sent and signer.sent, and the 201 is sent; if none
 *     arrived, it returns the cost (refund ledger row), moves the request back to draft, records
 *     signature_request.created, replaces the stored response with the 502 delivery_failed, and
 *     answers that.
 * If the server stops between 1 and 3, the stored 201 is what a retry gets, and the delivery jobs
 * send the invitations five minutes later.
 */
export const sessionRoutes = [
  defineRoute({
    method: 'post',
    path: '/sessions',
    summary: 'Create and send a request with the latest published version of a workflow (secret key)',
    tag: 'sessions',
    access: 'secret',
    body: sessionBody,
    documentedBody: sessionBodyDocument.describe(
      'Spec 4.2. Fields the workflow decides (ordered, reminders, source, legal_level, …) are refused with 400 invalid_override; return_url "" (or null) removes the workflow’s URL.',
    ),
    status: 201,
    response: sessionSchema,
    errors: [
      'parameter_missing',
      'parameter_invalid',
      'workflow_not_found',
      'workflow_not_live',
      'invalid_override',
      'invalid_signer',
      'invalid_request',
      'channel_unavailable',
      'insufficient_balance',
      'delivery_failed',
      'domain_not_accepted',
      'forbidden',
      'plan_required',
      'plan_expired',
      'kyb_required',
      'plan_feature_unavailable',
      'test_email_required',
      'test_recipient_not_allowed',
      'test_daily_limit',
      'test_email_limit',
      'idempotency_in_progress',
      'idempotency_key_reused',
      'too_many_requests',
    ],
    handle: async (ctx, { req, res }) => {
      const auth = req.tawqi.auth!;
      checkLiveGates(ctx, auth);
      const prepared = await prepareSession(ctx, ctx.store.db, auth, req.body ?? {});
      for (const [feature, param] of prepared.features) checkFeature(ctx, auth, feature, param);
      const accessCodeHashes = await hashAccessCodes(prepared.body.signers.map((s) => s.access_code));
      const claim = req.tawqi.idempotency;
      // The 201 is stored with the creation; the key stays held through the delivery that may turn it into a 502.
      if (claim) claim.holdUntilRelease = true;
      const { created, body } = await ctx.store.tx(async (trx) => {
        const c = await createSignatureRequest(ctx, trx, auth, prepared.body, { ...prepared.options, accessCodeHashes });
        const b = presentSession(c, links(ctx), currencyOf(req));
        // Not through commitWrite (the answer waits for the delivery): the console user's write is audited here.
        await auditConsoleWrite(ctx, req, trx, { status: 201, body: b });
        if (claim && !(await completeIdempotency(trx, claim, 201, JSON.stringify(b)))) throw idempotencyInProgress();
        return { created: c, body: b };
      });
      if (claim) claim.stored = true;
      const delivery = await deliverInvitations(ctx, created.request.id);
      if (delivery.attempted > 0 && delivery.failed === delivery.attempted) {
        const envelope = await ctx.store.tx(async (trx) => {
          const returned = await revertUndelivered(ctx, trx, created);
          const e = deliveryFailedEnvelope(req.tawqi.lang, req.tawqi.requestId, created.request.id, returned, currencyOf(req));
          // The creation's entry stays; this one says the request went back to draft and the caller got the 502.
          await auditConsoleWrite(ctx, req, trx, { status: 502, body: { id: created.request.id } });
          if (claim) await replaceStoredResponse(trx, claim, 502, JSON.stringify(e));
          return e;
        });
        ctx.afterCommit();
        res.status(502).json(envelope);
        return;
      }
      await ctx.store.tx((trx) => announceSend(ctx, trx, created));
      ctx.afterCommit();
      res.status(201).json(body);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/sessions',
    summary: 'List sessions of the key’s mode, newest first (filters: workflow_id, vendor_data, status)',
    tag: 'sessions',
    access: 'secret',
    query: listQuery,
    status: 200,
    response: sessionListSchema,
    errors: ['forbidden', 'parameter_invalid', 'too_many_requests'],
    handle: async (ctx, { req, res, query }) => {
      const auth = req.tawqi.auth!;
      await checkCursor(query.starting_after, async (id) => {
        const session = await getSession(ctx.store.db, id);
        return session !== undefined && session.account_id === auth.account.id && session.livemode === auth.livemode;
      });
      const rows = await listSessions(ctx.store.db, auth, {
        workflowId: query.workflow_id && isDefaultWorkflowId(query.workflow_id) ? DEFAULT_WORKFLOW_ID : query.workflow_id,
        vendorData: query.vendor_data,
        status: query.status,
        startingAfter: query.starting_after,
        limit: query.limit,
      });
      const hasMore = rows.length > query.limit;
      const data = (hasMore ? rows.slice(0, query.limit) : rows).map((r) => presentSession(r, links(ctx), currencyOf(req)));
      res.json({ object: 'list', data, has_more: hasMore, next_cursor: hasMore ? data[data.length - 1]!.id : null });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/sessions/:id',
    summary: 'Retrieve a session (404 when the request was not created from a workflow)',
    tag: 'sessions',
    access: 'secret',
    status: 200,
    response: sessionSchema,
    errors: ['not_found', 'forbidden'],
    handle: async (ctx, { req, res, params }) => {
      res.json(presentSession(await loadSession(ctx.store.db, req.tawqi.auth!, String(params.id)), links(ctx), currencyOf(req)));
    },
  }),
];
