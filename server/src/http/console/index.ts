/**
 * The console (issue 15, DESIGN §6b) at /console: its JSON API at /console/api (one router per
 * concern under api/, the session middleware in session.ts) and the page host.
 */
import express, { type Request, type Response } from 'express';
import { ApiError } from '../../errors.js';
import { SignInThrottle } from '../../services/consoleThrottle.js';
import type { AppContext } from '../context.js';
import { sendError } from '../envelope.js';
import { ipRateLimit } from '../middleware/limits.js';
import { jsonBody } from '../middleware/jsonBody.js';
import { adminRouter } from './api/admin/index.js';
import { auditLogRouter } from './api/auditLog.js';
import { companyDocumentUploadRouter, companyVerificationRouter } from './api/companyVerification.js';
import { authRouter } from './api/auth.js';
import { passwordsRouter } from './api/passwords.js';
import { teamRouter } from './api/team.js';
import { twoFactorRouter } from './api/twoFactor.js';
import { credentialsRouter } from './api/credentials.js';
import { identityReviewsRouter } from './api/identityReviews.js';
import { keysRouter } from './api/keys.js';
import { requestLogRouter } from './api/requestLog.js';
import { versionPinRouter } from './api/versionPin.js';
import { webhooksRouter } from './api/webhooks.js';
import { consolePageRouter } from './page.js';

/** Console request bodies are small forms. */
const CONSOLE_BODY_LIMIT = 64 * 1024;

export function consoleApiRouter(ctx: AppContext): express.Router {
  const api = express.Router();
  api.use(ipRateLimit(ctx, 'console'));
  api.use(companyDocumentUploadRouter(ctx)); // a file body: before the JSON parser
  api.use(jsonBody(CONSOLE_BODY_LIMIT));
  api.use((_req, res, next) => {
    // Answers carry session data (CSRF tokens, users): never cached.
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  api.use(authRouter(ctx, new SignInThrottle(ctx.store, ctx.config, ctx.log)));
  api.use(auditLogRouter(ctx));
  api.use(twoFactorRouter(ctx));
  api.use(passwordsRouter(ctx));
  api.use(teamRouter(ctx));
  api.use(credentialsRouter(ctx));
  api.use(keysRouter(ctx));
  api.use(webhooksRouter(ctx));
  api.use(requestLogRouter(ctx));
  api.use(versionPinRouter(ctx));
  api.use(identityReviewsRouter(ctx));
  api.use(companyVerificationRouter(ctx));
  api.use('/admin', adminRouter(ctx));
  api.use((req: Request, res: Response) => sendError(req, res, new ApiError('not_found')));
  return api;
}

export function consoleRouter(ctx: AppContext): express.Router {
  const router = express.Router();
  router.use('/console/api', consoleApiRouter(ctx));
  // The pages: the shell for every other /console path, and the bundle at /console/assets.
  router.use('/console', consolePageRouter());
  return router;
}
