import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError } from '../errors.js';
import type { AppContext } from './context.js';
import { sendError } from './envelope.js';
import { securityHeaders } from './pageHeaders.js';
import { accountRateLimit, ipRateLimit, publishableQuota } from './middleware/limits.js';
import { authenticate } from './middleware/authenticate.js';
import { corsPreflight } from './middleware/cors.js';
import { idempotency } from './middleware/idempotency.js';
import { jsonBody } from './middleware/jsonBody.js';
import { requestContext } from './middleware/requestContext.js';
import { recordRequests } from './middleware/requestLog.js';
import { refuseControlCharactersInPath } from './middleware/pathText.js';
import { buildOpenApi } from './openapi.js';
import { platformRoutes } from './routes/platform.js';
import { mountRoutes, pathMatcher, type AnyRoute } from './routes/registry.js';
import { templateRoutes } from './routes/templates.js';
import { signatureRequestRoutes } from './routes/signatureRequests.js';
import { signerRoutes } from './routes/signers.js';
import { eventRoutes } from './routes/events.js';
import { signingSessionRoutes } from './routes/signingSessions.js';
import { signingRouter } from './signing/router.js';
import { verifyPageRouter } from './verifyPage.js';
import { embedScriptRouter } from './embedScript.js';
import { docsRouter } from './docs/router.js';
import { verificationRoutes } from './routes/verifications.js';
import { documentRoutes } from './routes/documents.js';
import { identityRouter, identityRoutes } from './routes/identity.js';
import { webhookEndpointRoutes } from './routes/webhookEndpoints.js';
import { workflowRoutes } from './routes/workflows.js';
import { sessionRoutes } from './routes/sessions.js';
import { bulkRoutes } from './routes/bulk.js';
import { testHelperRoutes } from './routes/testHelpers.js';
import { pkiRouter } from './pkiRouter.js';
import { brandingLogosRouter } from './brandingLogos.js';
import { consoleRouter } from './console/index.js';
import { healthEndpoints, Lifecycle, metricsEndpoint, trackRequests } from './operations.js';

export const API_ROUTES: readonly AnyRoute[] = [
  ...platformRoutes,
  ...templateRoutes,
  ...signatureRequestRoutes,
  ...signerRoutes,
  ...signingSessionRoutes,
  ...eventRoutes,
  ...documentRoutes,
  ...verificationRoutes,
  ...identityRoutes,
  ...webhookEndpointRoutes,
  ...workflowRoutes,
  ...sessionRoutes,
  ...bulkRoutes,
  ...testHelperRoutes,
];
const API_PREFIXES = ['/api/v1', '/en/api/v1'];

/** Assemble the Express app: one router serves /api/v1 and its English alias /en/api/v1. */
export function createApp(ctx: AppContext, lifecycle = new Lifecycle()): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  // Before anything that can answer (health, drain): every response carries the security headers.
  app.use(securityHeaders());
  app.use(trackRequests(lifecycle));
  app.use(healthEndpoints(ctx, lifecycle));
  app.use(requestContext(ctx));
  app.use(accessLog(ctx));
  app.use(refuseControlCharactersInPath);
  app.use(metricsEndpoint(ctx, lifecycle));

  const openapi = buildOpenApi(API_ROUTES);
  const publicRouter = express.Router();
  publicRouter.get('/openapi.json', (_req, res) => void res.json(openapi));
  mountRoutes(
    publicRouter,
    ctx,
    API_ROUTES.filter((r) => r.access === 'public'),
  );

  const api = express.Router({ strict: false });
  api.use(recordRequests(ctx));
  api.use(ipRateLimit(ctx, 'api'));
  api.use(corsPreflight(ctx));
  api.use(publicRouter);
  api.use(authenticate(ctx));
  api.use(accountRateLimit(ctx));
  api.use(publishableQuota(ctx));
  api.use(jsonBody(ctx.config.TAWQI_BODY_LIMIT_BYTES));
  api.use(idempotency(ctx));
  mountRoutes(
    api,
    ctx,
    API_ROUTES.filter((r) => r.access !== 'public'),
  );
  api.use(unmatched(API_ROUTES));

  for (const prefix of API_PREFIXES) app.use(prefix, api);
  app.use('/sign', ipRateLimit(ctx, 'sign'), signingRouter(ctx));
  app.use(verifyPageRouter(ctx));
  app.use(embedScriptRouter());
  app.use(docsRouter(ctx, openapi));
  app.use(identityRouter(ctx));
  app.use(pkiRouter(ctx));
  app.use(brandingLogosRouter(ctx));
  app.use(consoleRouter(ctx));
  app.use((req: Request, res: Response) => sendError(req, res, new ApiError('not_found')));
  app.use(errorHandler(ctx));
  return app;
}

/** Unknown path → 404 not_found; known path, other method → 405 method_not_allowed with Allow. */
function unmatched(routes: readonly AnyRoute[]) {
  const matchers = routes.map((r) => ({ re: pathMatcher(r.path), method: r.method.toUpperCase() }));
  return (req: Request, _res: Response, next: NextFunction): void => {
    const allowed = matchers.filter((m) => m.re.test(req.path)).map((m) => m.method);
    if (allowed.length > 0) return next(new ApiError('method_not_allowed', null, {}, { Allow: [...new Set(allowed)].join(', ') }));
    next(new ApiError('not_found'));
  };
}

interface HttpError {
  type?: string;
  status?: number;
}

function errorHandler(ctx: AppContext) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (err instanceof ApiError) return sendError(req, res, err);
    const e = err as HttpError;
    // A path parameter that is not valid percent-encoding (%ZZ, an encoded lone surrogate): the
    // router cannot decode it, so it names no object (the same answer as any unknown id).
    if (err instanceof URIError && e.status === 400) return sendError(req, res, new ApiError('not_found'));
    if (e.type === 'entity.parse.failed') return sendError(req, res, new ApiError('invalid_json'));
    if (e.type === 'entity.too.large') {
      return sendError(req, res, new ApiError('request_too_large', null, { max_bytes: ctx.config.TAWQI_BODY_LIMIT_BYTES }));
    }
    if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported' || e.type === 'request.aborted') {
      return sendError(req, res, new ApiError('invalid_request'));
    }
    ctx.log.error({ err, request_id: req.tawqi?.requestId }, 'unhandled error');
    sendError(req, res, new ApiError('internal_error'));
  };
}

/**
 * The path as logged: a token in an invitation path (the console once looked invitations up at
 * /console/api/invitations/:token; a stale page may still call it) is a secret and is masked.
 */
function loggedPath(originalUrl: string): string {
  return originalUrl.split('?')[0]!.replace(/^(\/console\/api\/invitations\/)(?!accept$|lookup$)[^/]+/, '$1[token]');
}

/** One JSON log line per request: never the key, body or query string, nor a token in the path. */
function accessLog(ctx: AppContext) {
  return (req: Request, res: Response, next: NextFunction): void => {
    // Nothing to build per request when the line would be dropped (TAWQI_LOG_LEVEL above info).
    if (!ctx.log.isLevelEnabled('info')) return next();
    res.on('finish', () => {
      const auth = req.tawqi.auth;
      ctx.log.info(
        {
          request_id: req.tawqi.requestId,
          method: req.method,
          path: loggedPath(req.originalUrl),
          status: res.statusCode,
          ms: Math.round((performance.now() - req.tawqi.startedAt) * 10) / 10,
          ip: req.tawqi.clientIp,
          account_id: auth?.account.id,
          key_id: auth?.key.id,
          user_id: auth?.user?.id,
        },
        'request',
      );
    });
    next();
  };
}
