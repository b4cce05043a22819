import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics, served by GET /metrics (http/operations.ts). A bottom module:
 * the HTTP layer and the engines observe through the functions below, nothing else touches the
 * registry. Every label value comes from a small fixed set (route patterns, never raw paths), so a
 * scanner cannot grow the series.
 */
export const registry = new Registry();

const httpDuration = new Histogram({
  name: 'tawqi_http_request_duration_seconds',
  help: 'HTTP requests by route pattern, method and status: latency in seconds (its _count is the request count)',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

const inFlight = new Gauge({ name: 'tawqi_http_requests_in_flight', help: 'HTTP requests being answered now', registers: [registry] });

const webhookAttempts = new Counter({
  name: 'tawqi_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome: succeeded, retry (failed, tried again later), failed (failed for good)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const sealDuration = new Histogram({
  name: 'tawqi_seal_duration_seconds',
  help: 'Producing a final PDF (render, and sign for PAdES formats) by format and legal level, in seconds',
  labelNames: ['format', 'level'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

const rateLimited = new Counter({
  name: 'tawqi_rate_limited_total',
  help: 'Requests refused by a rate limit, by limit: ip, account, publishable_visitor, publishable_daily',
  labelNames: ['limit'] as const,
  registers: [registry],
});

const queueWaiting = new Gauge({
  name: 'tawqi_queue_depth',
  help: 'Entries waiting in a durable queue (due now or later), read at scrape',
  labelNames: ['queue'] as const,
  registers: [registry],
});
const queueDue = new Gauge({
  name: 'tawqi_queue_due',
  help: 'Entries of a durable queue that are due now, read at scrape',
  labelNames: ['queue'] as const,
  registers: [registry],
});
const queueOldestDue = new Gauge({
  name: 'tawqi_queue_oldest_due_age_seconds',
  help: 'How long the oldest due entry of a durable queue has been due (0 when none is), read at scrape',
  labelNames: ['queue'] as const,
  registers: [registry],
});

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** One answered request: `route` is a pattern from the code (e.g. /api/v1/signature_requests/:id). */
export function observeHttpRequest(route: string, method: string, status: number, seconds: number): void {
  httpDuration.observe({ route, method: METHODS.has(method) ? method : 'other', status: String(status) }, seconds);
}

export type WebhookOutcome = 'succeeded' | 'retry' | 'failed';

export function countWebhookAttempt(outcome: WebhookOutcome): void {
  webhookAttempts.inc({ outcome });
}

export function observeSeal(format: string, level: string, seconds: number): void {
  sealDuration.observe({ format, level }, seconds);
}

export type RateLimitKind = 'ip' | 'account' | 'publishable_visitor' | 'publishable_daily';

export function countRateLimited(limit: RateLimitKind): void {
  rateLimited.inc({ limit });
}

export interface QueueStats {
  queue: 'jobs' | 'messages' | 'webhook_deliveries';
  /** Entries waiting, due now or later. */
  waiting: number;
  /** Entries due now. */
  due: number;
  /** Seconds since the oldest due entry became due; 0 when none is due. */
  oldestDueAge: number;
}

/** Scrape time: the queues as just read from the store (null when the store could not answer: no queue series). */
export function setScrapeState(queues: readonly QueueStats[] | null, requestsInFlight: number): void {
  inFlight.set(requestsInFlight);
  if (queues === null) {
    for (const g of [queueWaiting, queueDue, queueOldestDue]) g.reset();
    return;
  }
  for (const q of queues) {
    queueWaiting.set({ queue: q.queue }, q.waiting);
    queueDue.set({ queue: q.queue }, q.due);
    queueOldestDue.set({ queue: q.queue }, q.oldestDueAge);
  }
}

let defaultsOn = false;

/** prom-client's default metrics under their usual names (process_*, nodejs_*: CPU, memory, event-loop lag, GC, handles); once per process. */
export function enableProcessMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ register: registry });
}
