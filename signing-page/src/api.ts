/**
 * The page API client (signing-page/API.md): every call carries the page token in the
 * `X-Tawqi-Page-Token` header; answers are a State or the API's error envelope.
 */
import type { TokenCheckBody, TokenChecked, TokenCompleteBody, TokenPrepareBody } from '@tawqi/shared';
import type { ErrorBody, State, TokenPrepared } from './types.js';

const TIMEOUT_MS = 30_000;

/** A refusal from the server, with its localized message and extra fields. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    /** The server's message, already in the request's language; null when the answer had none. */
    readonly serverMessage: string | null,
    readonly body: ErrorBody,
    /** Seconds from the Retry-After header, if any. */
    readonly retryAfter: number | null,
  ) {
    super(serverMessage ?? code);
    this.name = 'ApiError';
  }

  get attemptsLeft(): number | null {
    return typeof this.body.attempts_left === 'number' ? this.body.attempts_left : null;
  }

  get reason(): string | null {
    return typeof this.body.reason === 'string' ? this.body.reason : null;
  }
}

/** The server could not be reached (offline, timeout, or an answer that is not JSON). */
export class NetworkError extends Error {
  constructor(cause: unknown) {
    super('network error', { cause });
    this.name = 'NetworkError';
  }
}

export interface PageConfig {
  token: string;
  base: string;
}

/** The page token and API base from the shell's meta tags; null if either is missing. */
export function readConfig(doc: Document): PageConfig | null {
  const meta = (name: string) => doc.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content.trim() ?? '';
  const token = meta('tawqi-page-token');
  const base = meta('tawqi-api').replace(/\/+$/, '');
  // The API is same-origin (connect-src 'self'): accept a path only.
  if (!token || !base.startsWith('/') || base.startsWith('//')) return null;
  return { token, base };
}

export class Api {
  /** Server clock minus local clock, in ms (from `server_time` in a State, else the Date header). */
  private offsetMs = 0;
  /** True once a State carried `server_time`: the offset is then the server's own clock. */
  exactClock = false;

  constructor(private readonly config: PageConfig) {}

  /** The server's current time in Unix seconds (the State's times are the server's). */
  serverNow(): number {
    return (Date.now() + this.offsetMs) / 1000;
  }

  state(): Promise<State> {
    return this.call('GET', '/state');
  }
  view(): Promise<State> {
    return this.call('POST', '/view');
  }
  accessCode(code: string): Promise<State> {
    return this.call('POST', '/access_code', { code });
  }
  sendOtp(): Promise<State> {
    return this.call('POST', '/otp/send');
  }
  verifyOtp(code: string): Promise<State> {
    return this.call('POST', '/otp/verify', { code });
  }
  /** `returnUrl`: where the provider (or the test simulation) sends the signer back — this page. */
  startIdentity(returnUrl: string): Promise<{ url: string }> {
    return this.call('POST', '/identity/start', { return_url: returnUrl });
  }
  sign(signature: string): Promise<State> {
    return this.call('POST', '/sign', { signature, consent: true });
  }
  /** The reason is sent only when given (the server refuses null). */
  decline(reason: string | null): Promise<State> {
    return this.call('POST', '/decline', reason ? { reason } : {});
  }
  /** Before a choice: prepare's certificate check on each listed certificate (changes nothing on the server). */
  tokenCheck(certificates: readonly { certificate: string; chain: readonly string[] }[]): Promise<TokenChecked> {
    const body: TokenCheckBody = { certificates: certificates.map((c) => ({ certificate: c.certificate, chain: [...c.chain] })) };
    return this.call('POST', '/token/check', body);
  }
  /** Token signing, step 1: the chosen certificate (and its chain) → a sign ticket for the agent. */
  tokenPrepare(certificate: string, chain: readonly string[]): Promise<TokenPrepared> {
    const body: TokenPrepareBody = { certificate, chain: [...chain] };
    return this.call('POST', '/token/prepare', body);
  }
  /** Token signing, step 2: the agent's CMS for that ticket → the State (signed). */
  tokenComplete(cms: string, ticket: string): Promise<State> {
    const body: TokenCompleteBody = { cms, ticket };
    return this.call('POST', '/token/complete', body);
  }

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
    const headers: Record<string, string> = { 'X-Tawqi-Page-Token': this.config.token, Accept: 'application/json' };
    if (method === 'POST') headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(this.config.base + path, {
        method,
        headers,
        body: method === 'POST' ? JSON.stringify(body ?? {}) : null,
        credentials: 'same-origin',
        cache: 'no-store',
        redirect: 'error',
        signal: controller.signal,
      });
    } catch (err) {
      throw new NetworkError(err);
    } finally {
      clearTimeout(timer);
    }
    this.syncClock(response.headers.get('Date'));
    let json: unknown = null;
    try {
      json = await response.json();
    } catch (err) {
      if (response.ok) throw new NetworkError(err);
    }
    if (response.ok) {
      // A State may carry the server's clock (`server_time`, Unix seconds): more exact than Date.
      const serverTime = json && typeof json === 'object' ? (json as { server_time?: unknown }).server_time : undefined;
      if (typeof serverTime === 'number' && Number.isFinite(serverTime)) {
        this.offsetMs = serverTime * 1000 - Date.now();
        this.exactClock = true;
      }
      return json as T;
    }
    const envelope = (json && typeof json === 'object' && 'error' in json ? (json as { error: unknown }).error : null) as ErrorBody | null;
    const err = envelope && typeof envelope === 'object' ? envelope : {};
    const retry = Number(response.headers.get('Retry-After'));
    throw new ApiError(
      response.status,
      typeof err.code === 'string' ? err.code : `http_${response.status}`,
      typeof err.message === 'string' && err.message ? err.message : null,
      err,
      Number.isFinite(retry) && retry > 0 ? retry : null,
    );
  }

  private syncClock(date: string | null): void {
    if (this.exactClock) return;
    const ms = date ? Date.parse(date) : NaN;
    // Date has one-second precision; ignore differences below that.
    if (Number.isFinite(ms)) {
      const offset = ms - Date.now();
      this.offsetMs = Math.abs(offset) < 1500 ? 0 : offset;
    }
  }
}
