import { randomUUID } from 'node:crypto';
import { TawqiConnectionError, errorFromResponse, retryAfterSeconds, type TawqiError } from './errors.js';
import { API_VERSION, OPERATIONS, type OperationId } from './generated/operations.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs, type AttemptOutcome, type RetryPolicy } from './retry.js';

export interface TawqiOptions {
  /** The server: its origin (`https://sign.example.com`) or the API base (`…/api/v1`). Default http://127.0.0.1:8080. */
  baseUrl?: string;
  /**
   * Sent as Svc-Version on every request; default the version these types describe. `null` sends no
   * Svc-Version, so the account's pinned version answers (what its webhook deliveries carry).
   */
  apiVersion?: string | null;
  /** Retries after the first attempt (network failures, 409 idempotency_in_progress, 429 with Retry-After); default 2. */
  maxNetworkRetries?: number;
  /** Language of error messages (Accept-Language): 'ar' (the server's default) or 'en'. */
  locale?: 'ar' | 'en';
  /** Per attempt; default 80 s. */
  timeoutMs?: number;
  /** The fetch to use (default the global fetch): a proxy agent, a test's recorder. */
  fetch?: typeof fetch;
  /** How to wait between attempts (default setTimeout); tests inject one that moves their clock. */
  sleep?: (ms: number) => Promise<void>;
  /** Backoff tuning (initialDelayMs, maxDelayMs, maxRetryAfterSeconds, random). */
  retry?: Partial<Omit<RetryPolicy, 'maxNetworkRetries'>>;
}

export interface RequestOptions {
  /** The POST's Idempotency-Key; one is made (a random UUID) when not given. The same key is sent on every retry. */
  idempotencyKey?: string;
  /** This request's Svc-Version, over the client's. */
  apiVersion?: string;
  /** Cancels the call: it rejects with the signal's reason and is not retried. */
  signal?: AbortSignal;
}

/** What the answer said beside its body: on every object a method returns, as `lastResponse` (not enumerable). */
export interface ResponseInfo {
  statusCode: number;
  requestId: string | null;
  headers: Headers;
  /** The Idempotency-Key sent (POST), else null. */
  idempotencyKey: string | null;
  /** True when the server replayed a stored answer for the Idempotency-Key. */
  idempotentReplayed: boolean;
  /** Attempts made, 1 when the first one answered. */
  attempts: number;
}

export interface CallInput {
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
}

const DEFAULT_BASE = 'http://127.0.0.1:8080';
const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The transport under every resource: one operation of the document → one HTTP exchange, retried when safe. */
export class HttpClient {
  private readonly apiBase: string;
  private readonly policy: RetryPolicy;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly apiKey: string,
    private readonly options: TawqiOptions = {},
  ) {
    if (typeof apiKey !== 'string' || apiKey === '') throw new TypeError('new Tawqi(apiKey): an API key (sk_…, pk_…) is required.');
    const base = (options.baseUrl ?? DEFAULT_BASE).replace(/\/+$/, '');
    this.apiBase = /\/api\/v1$/.test(base) ? base : `${base}/api/v1`;
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry, maxNetworkRetries: options.maxNetworkRetries ?? 2 };
    this.fetchImpl = options.fetch ?? fetch;
    this.sleep = options.sleep ?? sleepFor;
  }

  /** Call an operation: its JSON result (with `lastResponse`), the PDF's bytes or the HTML text. */
  async call(operationId: OperationId, input: CallInput = {}, options: RequestOptions = {}): Promise<unknown> {
    const op = OPERATIONS[operationId];
    const url = this.url(op.path, input);
    const idempotencyKey = op.method === 'POST' ? (options.idempotencyKey ?? randomUUID()) : null;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      'user-agent': `tawqi-node (Svc-Version ${API_VERSION})`,
    };
    const version = options.apiVersion ?? (this.options.apiVersion === undefined ? API_VERSION : this.options.apiVersion);
    if (version !== null) headers['svc-version'] = version;
    if (this.options.locale) headers['accept-language'] = this.options.locale;
    if (idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey;
    let body: string | undefined;
    if (op.method === 'POST') {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(input.body ?? {});
    }
    for (let attempt = 0; ; attempt++) {
      const result = await this.attempt(url, { method: op.method, headers, body }, options.signal);
      if (result.kind === 'answer' && result.response.ok) {
        const info = responseInfo(result.response, idempotencyKey, attempt + 1);
        return readResult(result.response, op.contentType, info);
      }
      const { error, outcome } = result.kind === 'network' ? result : await failure(result.response);
      const delay = retryDelayMs(this.policy, attempt, outcome);
      if (delay === null) throw error;
      await this.sleep(delay);
      options.signal?.throwIfAborted();
    }
  }

  private url(template: string, input: CallInput): string {
    const path = template.replace(/\{([A-Za-z_]+)\}/g, (_m, name: string) => {
      const value = input.path?.[name];
      if (typeof value !== 'string' || value === '') throw new TypeError(`${name} is required.`);
      return encodeURIComponent(value);
    });
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(input.query ?? {}))
      if (value !== undefined && value !== null) query.set(name, String(value));
    const qs = query.toString();
    return `${this.apiBase}${path === '/' ? '' : path}${qs ? `?${qs}` : ''}`;
  }

  private async attempt(
    url: string,
    init: RequestInit,
    cancel: AbortSignal | undefined,
  ): Promise<{ kind: 'answer'; response: Response } | { kind: 'network'; error: TawqiError; outcome: AttemptOutcome }> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 80_000);
    try {
      const response = await this.fetchImpl(url, { ...init, signal: cancel ? AbortSignal.any([cancel, timeout]) : timeout });
      return { kind: 'answer', response };
    } catch (cause) {
      cancel?.throwIfAborted();
      const message = `Could not reach Tawqi at ${this.apiBase}: ${networkCause(cause)}`;
      const error = new TawqiConnectionError({ statusCode: null, headers: null, raw: null, requestId: null, message });
      return { kind: 'network', error, outcome: { kind: 'network' } };
    }
  }
}

/** The useful part of a fetch failure: "connect ECONNREFUSED 127.0.0.1:3000" rather than "fetch failed". */
function networkCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } } | null)?.cause;
  if (cause?.message) return cause.message;
  if (cause?.code) return cause.code;
  if (err instanceof Error && err.name === 'TimeoutError') return 'timed out';
  return err instanceof Error ? err.message : String(err);
}

async function failure(response: Response): Promise<{ error: TawqiError; outcome: AttemptOutcome }> {
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not the envelope (a proxy's page): the error says so
  }
  const error = errorFromResponse(response.status, response.headers, body);
  const outcome: AttemptOutcome = {
    kind: 'answer',
    status: response.status,
    code: error.code,
    retryAfterSeconds: retryAfterSeconds(response.headers),
  };
  return { error, outcome };
}

function responseInfo(response: Response, idempotencyKey: string | null, attempts: number): ResponseInfo {
  return {
    statusCode: response.status,
    requestId: response.headers.get('svc-request-id'),
    headers: response.headers,
    idempotencyKey,
    idempotentReplayed: response.headers.get('idempotent-replayed') === 'true',
    attempts,
  };
}

async function readResult(response: Response, contentType: string, info: ResponseInfo): Promise<unknown> {
  if (contentType === 'application/pdf') return new Uint8Array(await response.arrayBuffer());
  if (contentType !== 'application/json') return response.text();
  const result = (await response.json()) as object;
  Object.defineProperty(result, 'lastResponse', { value: info, enumerable: false });
  return result;
}
