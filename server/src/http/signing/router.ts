import express, { type NextFunction, type Request, type Response } from 'express';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { nowSeconds } from '../../clock.js';
import { ApiError } from '../../errors.js';
import { getAccount } from '../../store/accounts.js';
import type { Account } from '../../store/accounts.js';
import { pinSigningSessionOrigin, type SigningSession } from '../../store/pageSessions.js';
import {
  checkAccessCode,
  declineOnPage,
  LINK_PAGE_SESSION_SECONDS,
  loadPage,
  mintPageSession,
  openSigningSession,
  pageStep,
  recordView,
  sendOtp,
  signerForLink,
  signOnPage,
  verifyOtp,
} from '../../services/signerJourney.js';
import { embeddingOrigins } from '../../services/signingSessions.js';
import { simulateIdentityDecision, startIdentityVerification } from '../../services/identity.js';
import { getRequestById, getSigner } from '../../store/signatureRequests.js';
import type { AppContext } from '../context.js';
import { sendError } from '../envelope.js';
import { jsonBody } from '../middleware/jsonBody.js';
import { parseWith } from '../routes/registry.js';
import { origin, pageHandler, TOKEN_HEADER } from './page.js';
import { previewRoute } from './preview.js';
import { sendShell } from './shell.js';
import { tokenRouter } from './token.js';

const ASSETS = fileURLToPath(new URL('../../../../signing-page/dist/', import.meta.url));

const INVALID_LINK = {
  ar: { title: 'الرابط غير صالح', text: 'هذا الرابط غير صالح أو انتهت صلاحيته. اطلب من المرسل رابطًا جديدًا.' },
  en: { title: 'This link is not valid', text: 'This link is not valid or has expired. Ask the sender for a new one.' },
};

/**
 * The signer's page: `/sign/{link}`, `/sign/s/{session}`, its assets and its JSON API (contract:
 * signing-page/API.md). Page API calls carry the page token in a custom header — the CSRF guard.
 */
// long function: the signer's routes as one flat table, read top to bottom.
export function signingRouter(ctx: AppContext): express.Router {
  const router = express.Router();
  router.use('/assets', express.static(ASSETS, { fallthrough: false, index: false, maxAge: '1h' }));

  router.get('/s/:token', async (req, res) => {
    const session = await openSigningSession(ctx, String(req.params.token));
    if (!session)
      return sendShell(res, { language: req.tawqi.lang, pageToken: null, frameAncestors: [], message: INVALID_LINK[req.tawqi.lang] }, 404);
    const signer = (await getSigner(ctx.store.db, session.signer_id))!;
    const request = (await getRequestById(ctx.store.db, signer.signature_request_id))!;
    const account = (await getAccount(ctx.store.db, request.account_id))!;
    const ancestors = session.mode === 'redirect' ? [] : await frameAncestors(ctx, session, account, req.headers.referer);
    const token = await mintPageSession(
      ctx,
      signer.id,
      session.mode === 'redirect' ? 'redirect' : 'embedded',
      session.expires_at,
      session.id,
    );
    sendShell(res, {
      language: request.language,
      pageToken: token,
      frameAncestors: ancestors,
      brandColor: brand(account.branding, 'brand_color'),
      buttonColor: brand(account.branding, 'sign_button_color'),
    });
  });

  previewRoute(router);

  router.get('/:credential', async (req, res, next) => {
    if (req.params.credential === 'api') return next();
    const signer = await signerForLink(ctx, String(req.params.credential));
    if (!signer)
      return sendShell(res, { language: req.tawqi.lang, pageToken: null, frameAncestors: [], message: INVALID_LINK[req.tawqi.lang] }, 404);
    const request = (await getRequestById(ctx.store.db, signer.signature_request_id))!;
    const account = (await getAccount(ctx.store.db, request.account_id))!;
    const token = await mintPageSession(ctx, signer.id, 'link', nowSeconds(ctx.clock) + LINK_PAGE_SESSION_SECONDS, null);
    sendShell(res, {
      language: request.language,
      pageToken: token,
      frameAncestors: [],
      brandColor: brand(account.branding, 'brand_color'),
      buttonColor: brand(account.branding, 'sign_button_color'),
    });
  });

  const api = express.Router();
  api.use((req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  api.use(jsonBody('600kb'));

  /** Load the page context, answer in the request's language, and return the fresh state. */
  const page = pageHandler(ctx);

  api.get(
    '/state',
    page(async () => {}),
  );
  api.post(
    '/view',
    page((p, req) => ctx.store.tx((trx) => recordView(ctx, trx, p, origin(req)))),
  );
  api.post(
    '/access_code',
    page((p, req) => checkAccessCode(ctx, p, parseWith(codeBody, req.body).code)),
  );
  api.post(
    '/otp/send',
    page((p) => sendOtp(ctx, p)),
  );
  api.post(
    '/otp/verify',
    page((p, req) => verifyOtp(ctx, p, parseWith(codeBody, req.body).code, origin(req))),
  );
  // A sign or decline decides by its request's row, locked first (services/signerActions.ts load), so
  // on PostgreSQL it runs READ COMMITTED (store.lockingTx): SERIALIZABLE made concurrent signs of one
  // account abort one another on the rows they insert (events, deliveries, jobs).
  api.post(
    '/sign',
    page((p, req) => {
      const body = parseWith(signBody, req.body);
      return ctx.store.lockingTx((trx) => signOnPage(ctx, trx, p, body.signature, origin(req)));
    }),
  );
  api.post(
    '/decline',
    page((p, req) => {
      const body = parseWith(declineBody, req.body);
      return ctx.store.lockingTx((trx) => declineOnPage(ctx, trx, p, body.reason, origin(req)));
    }),
  );
  api.post('/identity/start', async (req, res) => {
    const p = await loadPage(ctx, ctx.store.db, req.get(TOKEN_HEADER));
    req.tawqi.lang = p.request.language;
    const body = parseWith(identityStartBody, req.body ?? {});
    const step = pageStep(p);
    if (step !== 'identity' && step !== 'identity_declined') throw new ApiError('invalid_state', null, { reason: step });
    // Back to the signing page only: never an open redirect.
    const back = body.return_url && body.return_url.startsWith(`${ctx.publicUrl}/sign/`) ? body.return_url : null;
    const started = await startIdentityVerification(ctx, p.signer.id, { returnUrl: back });
    res.json({ url: started.url });
  });
  api.post(
    '/identity/simulate',
    page(async (p, req) => {
      const body = parseWith(identitySimulateBody, req.body);
      if (p.request.livemode) throw new ApiError('invalid_state', null, { reason: 'not_test_mode' });
      const step = pageStep(p);
      if (step !== 'identity' && step !== 'identity_declined') throw new ApiError('invalid_state', null, { reason: step });
      await startIdentityVerification(ctx, p.signer.id);
      await simulateIdentityDecision(ctx, p.signer.id, body.decision);
    }),
  );
  api.use('/token', tokenRouter(ctx));
  api.use((req: Request, res: Response) => sendError(req, res, new ApiError('not_found')));
  router.use('/api', api);
  router.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (err instanceof ApiError) return sendError(req, res, err);
    next(err);
  });
  return router;
}

const codeBody = z.strictObject({ code: z.string().min(1).max(64) });
const signBody = z.strictObject({ signature: z.string().max(500_000), consent: z.literal(true) });
const declineBody = z.strictObject({ reason: z.string().max(500).optional() });
const identityStartBody = z.strictObject({ return_url: z.string().max(2000).optional() });
const identitySimulateBody = z.strictObject({ decision: z.enum(['approve', 'decline']) });

/**
 * Who may frame an embedded session. Its first open pins the one origin its frame messages go to
 * (the `embed_origin` given at creation, else the embedding page's Referer when allowed, else the
 * account's only allowed origin); once pinned, that origin alone may frame it — while it stays
 * allowed. Unpinned (several allowed origins and no usable Referer): any allowed origin, and no messages.
 */
async function frameAncestors(ctx: AppContext, session: SigningSession, account: Account, referer: string | undefined): Promise<string[]> {
  const allowed = await embeddingOrigins(ctx.store.db, account);
  let pinned = session.embed_origin;
  if (!pinned) {
    const from = referer && URL.canParse(referer) ? new URL(referer).origin : null;
    const chosen = from && allowed.includes(from) ? from : allowed.length === 1 ? allowed[0]! : null;
    // A concurrent first open may have pinned another origin: the stored one wins.
    if (chosen) pinned = await pinSigningSessionOrigin(ctx.store.db, session.id, chosen);
  }
  if (!pinned) return allowed;
  return allowed.includes(pinned) ? [pinned] : [];
}

function brand(branding: Record<string, unknown>, key: string): string | null {
  const v = branding[key];
  return typeof v === 'string' ? v : null;
}
