import { createHash, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { nowSeconds } from '../clock.js';
import { ApiError } from '../errors.js';
import { enableProcessMetrics, observeHttpRequest, registry, setScrapeState } from '../metrics.js';
import { appliedMigration, LATEST_MIGRATION, queueStats } from '../store/operations.js';
import type { AppContext } from './context.js';
import { sendError } from './envelope.js';
import { buildBlockList, inList } from './middleware/requestContext.js';

/**
 * Operating the server, outside /api/v1 and without an API key:
 *
 *   GET /healthz   200 while the process runs (no I/O)
 *   GET /readyz    200 when the database answers and has the latest migration; 503 while draining
 *                  or when it does not (the answer is reused for a second: probes cost one tiny query)
 *   GET /metrics   Prometheus text: loopback and trusted-proxy callers, or `Bearer TAWQI_METRICS_TOKEN`
 *
 * and the request tracking the drain and the HTTP metrics rest on (one Map entry and one histogram
 * observation per request).
 */

/** What the drain (server.ts) and these endpoints share. */
export class Lifecycle {
  draining = false;
  /** Responses not yet closed, with the time their request arrived (performance.now()). */
  readonly inFlight = new Map<ServerResponse, number>();

  /** Readiness turns 503; every response from now on closes its connection (keep-alive cannot hold the drain open). */
  beginDrain(): void {
    this.draining = true;
    for (const res of this.inFlight.keys()) if (!res.headersSent) res.setHeader('Connection', 'close');
  }
}

/** The path of a request URL, without its query string. */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Paths answered here: plain middleware, not routers (an Express router mounted at / costs every request a dispatch). */
const OPERATION_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Where each router is mounted (app.ts): the route label is this prefix and the matched route's pattern. */
const MOUNTS: readonly [string, string][] = [
  ['/api/v1', '/api/v1'],
  ['/en/api/v1', '/api/v1'],
  ['/sign/api/', '/sign/api'],
  ['/sign/', '/sign'],
];

/** A route pattern, never the raw path: no ids in labels, and unknown paths share one value per mount. */
export function routeLabel(req: Request): string {
  const url = req.originalUrl;
  let prefix = '';
  for (const [start, label] of MOUNTS) {
    if (url.startsWith(start)) {
      prefix = label;
      break;
    }
  }
  const route = req.route as { path?: unknown } | undefined;
  if (route && typeof route.path === 'string') return prefix + route.path;
  if (prefix) return `${prefix}/*`;
  const path = pathOf(url);
  return OPERATION_PATHS.has(path) ? path : 'unmatched';
}

/** First in the chain: drain bookkeeping and the HTTP metrics, both settled when the response closes. */
export function trackRequests(life: Lifecycle) {
  function closed(this: ServerResponse): void {
    const started = life.inFlight.get(this);
    life.inFlight.delete(this);
    const req = this.req as Request;
    // A client that went away before the answer is counted as 499 (nginx's "client closed request").
    if (started !== undefined)
      observeHttpRequest(routeLabel(req), req.method, this.writableFinished ? this.statusCode : 499, (performance.now() - started) / 1000);
    // Draining: a response whose headers went out before the drain began still ends its connection.
    if (life.draining && !req.socket.destroyed) req.socket.end();
  }
  return (_req: Request, res: Response, next: NextFunction): void => {
    life.inFlight.set(res, performance.now());
    if (life.draining) res.setHeader('Connection', 'close');
    res.once('close', closed);
    next();
  };
}

type Readiness = { ready: true } | { ready: false; reason: 'draining' | 'database' | 'migrations' };

/** How long a readiness answer is reused (probes from several balancers cost one query a second). */
const READINESS_TTL_MS = 1000;

class ReadinessCheck {
  private last: { at: number; result: Readiness } | null = null;
  private running: Promise<Readiness> | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly life: Lifecycle,
  ) {}

  async check(): Promise<Readiness> {
    if (this.life.draining) return { ready: false, reason: 'draining' };
    const now = this.ctx.clock.nowMs();
    if (this.last && now - this.last.at < READINESS_TTL_MS && now >= this.last.at) return this.last.result;
    this.running ??= this.probe().finally(() => {
      this.running = null;
    });
    const result = await this.running;
    if (this.last?.result.ready !== result.ready) {
      if (result.ready) this.ctx.log.info('ready');
      else this.ctx.log.warn({ reason: result.reason }, 'not ready');
    }
    this.last = { at: now, result };
    return result;
  }

  private async probe(): Promise<Readiness> {
    let applied: number | null;
    try {
      applied = await appliedMigration(this.ctx.store.db);
    } catch (err) {
      this.ctx.log.debug({ err }, 'readiness: the database did not answer');
      return { ready: false, reason: 'database' };
    }
    // A newer migration than this code knows (another process of a newer release) is still ready.
    return applied !== null && applied >= LATEST_MIGRATION ? { ready: true } : { ready: false, reason: 'migrations' };
  }
}

const isRead = (req: Request) => req.method === 'GET' || req.method === 'HEAD';

/** /healthz and /readyz: mounted before the request context, so plain-HTTP probes from any address get an answer. */
export function healthEndpoints(ctx: AppContext, life: Lifecycle) {
  const readiness = new ReadinessCheck(ctx, life);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!isRead(req) || (!req.url.startsWith('/healthz') && !req.url.startsWith('/readyz'))) return next();
    const path = pathOf(req.url);
    if (path === '/healthz') {
      res.setHeader('Cache-Control', 'no-store');
      res.json({ status: 'ok' });
    } else if (path === '/readyz') {
      readiness.check().then((r) => {
        res.setHeader('Cache-Control', 'no-store');
        if (r.ready) res.json({ status: 'ready' });
        else res.status(503).json({ status: 'not_ready', reason: r.reason });
      }, next);
    } else next();
  };
}
const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * Who may read /metrics. The caller is the client address the request context settled on (the
 * connection's peer, or for a trusted proxy the right-most untrusted X-Forwarded-For entry):
 * - an Authorization header is always checked: `Bearer <TAWQI_METRICS_TOKEN>` (compared in constant
 *   time) is let in from anywhere; anything else is 401 metrics_token_invalid;
 * - without one, a loopback caller or one inside TAWQI_TRUSTED_PROXIES is let in;
 * - anyone else gets 401 metrics_token_invalid when a token is configured, 403 metrics_forbidden when not.
 */
export function metricsAccess(ctx: AppContext): (req: Request) => ApiError | null {
  const local = buildBlockList(['127.0.0.0/8', '::1', ...ctx.config.TAWQI_TRUSTED_PROXIES]);
  const token = ctx.config.TAWQI_METRICS_TOKEN;
  const expected = token ? digest(`Bearer ${token}`) : null;
  const invalid = () => new ApiError('metrics_token_invalid', null, {}, { 'WWW-Authenticate': 'Bearer' });
  return (req) => {
    const auth = req.headers.authorization;
    if (auth !== undefined) return expected && timingSafeEqual(digest(auth.trim()), expected) ? null : invalid();
    if (inList(local, req.tawqi.clientIp)) return null;
    return expected ? invalid() : new ApiError('metrics_forbidden');
  };
}

/** GET /metrics: mounted after the request context (client address, HTTPS rule, request id for refusals). */
export function metricsEndpoint(ctx: AppContext, life: Lifecycle) {
  enableProcessMetrics();
  const refusal = metricsAccess(ctx);
  const scrape = async (req: Request, res: Response): Promise<void> => {
    const refused = refusal(req);
    if (refused) return sendError(req, res, refused);
    let queues = null;
    try {
      queues = await queueStats(ctx.store.db, nowSeconds(ctx.clock));
    } catch (err) {
      ctx.log.warn({ err }, 'metrics: could not read the queues');
    }
    setScrapeState(queues, life.inFlight.size);
    const text = await registry.metrics();
    res.setHeader('Content-Type', registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.end(text);
  };
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!isRead(req) || !req.url.startsWith('/metrics') || pathOf(req.url) !== '/metrics') return next();
    scrape(req, res).catch(next);
  };
}
