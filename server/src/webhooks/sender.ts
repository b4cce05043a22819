import https from 'node:https';
import { isIP } from 'node:net';
import { RESPONSE_EXCERPT_BYTES, readExcerpt } from './excerpt.js';
import { bareHost, checkedLookup, resolveTarget, type Resolver } from './reachability.js';

/**
 * What one POST to a receiver came to: the status (null when there was no answer), how long the
 * answer took (to its status line), why it failed, and the start of its body (null when there was no answer).
 */
export interface SendOutcome {
  status: number | null;
  durationMs: number;
  error: string | null;
  excerpt: string | null;
}

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  agent: https.Agent;
  allowPrivate: boolean;
  resolve: Resolver;
}

/** Idle keep-alive sockets close before the usual 5 s server keep-alive, so a reused socket is rarely one the receiver just closed. */
const IDLE_SOCKET_MS = 4000;

/**
 * The one HTTPS agent of the dispatcher: keep-alive (no TLS handshake per delivery), no socket cap
 * of its own (the dispatcher limits concurrency per endpoint and overall). Trust comes from Node's
 * store plus NODE_EXTRA_CA_CERTS; `ca` is for in-process tests only (it replaces the store).
 */
export function createWebhookAgent(ca?: string): https.Agent {
  return new https.Agent({
    keepAlive: true,
    maxFreeSockets: 256,
    timeout: IDLE_SOCKET_MS,
    scheduling: 'lifo',
    minVersion: 'TLSv1.2',
    ...(ca ? { ca } : {}),
  });
}

const isSuccess = (status: number): boolean => status >= 200 && status < 300;
/** Errors are kept in each attempt's record; a TLS or network message is cut to this length. */
const MAX_ERROR_LENGTH = 300;

/**
 * POST a signed event. A 2xx status within the deadline is success; anything else, a network error
 * or no answer in time is a failure (spec 6.1). The connection goes only to addresses the
 * reachability rules accept: literals are checked here, names by the lookup the socket uses.
 * Redirects are not followed (a 3xx is a failure). The first RESPONSE_EXCERPT_BYTES of the answer's
 * body are kept as its excerpt (for the delivery log); nothing past them is read.
 */
export async function postWebhook(r: SendRequest): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(r.url);
  const host = bareHost(url);
  if (isIP(host) !== 0) {
    try {
      await resolveTarget(host, r.allowPrivate, r.resolve);
    } catch (err) {
      return { status: null, durationMs: elapsed(), error: (err as Error).message.slice(0, MAX_ERROR_LENGTH), excerpt: null };
    }
  }
  const deadline = started + r.timeoutMs;
  const once = (mayRetryStale: boolean): Promise<SendOutcome> =>
    new Promise((resolve) => {
      let settled = false;
      // Set at the status line: the attempt has its answer, whatever happens to the body after it.
      let answered = false;
      const settle = (o: Omit<SendOutcome, 'durationMs'>, durationMs = elapsed()) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...o, durationMs, error: o.error === null ? null : o.error.slice(0, MAX_ERROR_LENGTH) });
      };
      const req = https.request({
        method: 'POST',
        host,
        port: url.port || 443,
        path: `${url.pathname}${url.search}`,
        headers: { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) },
        agent: r.agent,
        lookup: checkedLookup(r.allowPrivate, r.resolve),
      });
      // The deadline covers the excerpt too: a body still trickling in then is cut where it is.
      const timer = setTimeout(
        () => {
          req.destroy(new Error(`timed out: no answer within ${r.timeoutMs} ms`));
        },
        Math.max(1, deadline - performance.now()),
      );
      req.on('response', (res) => {
        answered = true;
        const status = res.statusCode ?? 0;
        const durationMs = elapsed();
        const error = isSuccess(status) ? null : `answered ${status}`;
        readExcerpt(res, RESPONSE_EXCERPT_BYTES, (excerpt) => settle({ status, error, excerpt }, durationMs));
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (settled || answered) return;
        clearTimeout(timer);
        // A kept-alive socket the receiver closed while idle: nothing reached it; try once on a fresh socket.
        if (mayRetryStale && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE') && performance.now() < deadline) {
          settled = true;
          resolve(once(false));
          return;
        }
        settle({ status: null, error: err.message || err.code || 'request failed', excerpt: null });
      });
      req.end(r.body);
    });
  return once(true);
}
