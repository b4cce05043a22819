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
import { adminRoutes } from './api/admin/index.js';
import { auditLogRoutes } from './api/auditLog.js';
import { authRoutes } from './api/auth.js';
import { billingRoutes } from './api/billing.js';
import { brandingRoutes } from './api/branding.js';
import { companyVerificationRoutes } from './api/companyVerification.js';
import { credentialsRoutes } from './api/credentials.js';
import { identityReviewsRoutes } from './api/identityReviews.js';
import { keysRoutes } from './api/keys.js';
import { passwordsRoutes } from './api/passwords.js';
import { requestLogRoutes } from './api/requestLog.js';
import { ConsoleRoutes } from './api/routes.js';
import { teamRoutes } from './api/team.js';
import { templatesRoutes } from './api/templates.js';
import { twoFactorRoutes } from './api/twoFactor.js';
import { versionPinRoutes } from './api/versionPin.js';
import { webhooksRoutes } from './api/webhooks.js';
import { workflowsRoutes } from './api/workflows.js';
import { consolePageRouter } from './page.js';

/** Console request bodies are small forms. */
const CONSOLE_BODY_LIMIT = 64 * 1024;

/**
 * Every route of the console API, declared with its access (api/routes.ts): the one list the
 * router mounts and test/console/authorization.test.ts checks route by route.
 */
export function consoleApiRoutes(ctx: AppContext): ConsoleRoutes {
  const routes = new ConsoleRoutes(ctx);
  authRoutes(routes, ctx, new SignInThrottle(ctx.store, ctx.config, ctx.log));
  auditLogRoutes(routes, ctx);
  twoFactorRoutes(routes, ctx);
  passwordsRoutes(routes, ctx);
  teamRoutes(routes, ctx);
  credentialsRoutes(routes, ctx);
  keysRoutes(routes, ctx);
  webhooksRoutes(routes, ctx);
  requestLogRoutes(routes, ctx);
  versionPinRoutes(routes, ctx);
  identityReviewsRoutes(routes, ctx);
  brandingRoutes(routes, ctx);
  billingRoutes(routes, ctx);
  companyVerificationRoutes(routes, ctx);
  templatesRoutes(routes, ctx);
  adminRoutes(routes, ctx);
  workflowsRoutes(routes, ctx);
  return routes;
}

export function consoleApiRouter(ctx: AppContext): express.Router {
  const api = express.Router();
  api.use(ipRateLimit(ctx, 'console'));
  api.use((_req, res, next) => {
    // Answers carry session data (CSRF tokens, users): never cached.
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  const routes = consoleApiRoutes(ctx);
  api.use(routes.ownBodyRouter); // file uploads: their own body parser, before the JSON one
  api.use(jsonBody(CONSOLE_BODY_LIMIT));
  api.use(routes.router);
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
