/**
 * The console API client (/console/api, CONSOLE.md): JSON both ways, the session cookie sent by the
 * browser, answers in the page's language (Accept-Language), and the CSRF token in `X-CSRF-Token`
 * on every state change. An ended session (401 console_session_required) is handed to the app,
 * which goes to the sign-in screen.
 */
import type { Language } from './i18n.js';

const BASE = '/console/api';
const TIMEOUT_MS = 30_000;

/** What the API's error envelope says (its `error` object). */
export interface Refusal {
  code: string;
  /** Already in the page's language (the call's Accept-Language). */
  message: string | null;
  /** The request field the error is about, when the server names one. */
  param: string | null;
}

/** A refusal from the console API. */
export class ApiError extends Error {
  readonly code: string;
  readonly serverMessage: string | null;
  readonly param: string | null;

  constructor(
    readonly status: number,
    refusal: Refusal,
  ) {
    super(refusal.message ?? refusal.code);
    this.name = 'ApiError';
    this.code = refusal.code;
    this.serverMessage = refusal.message;
    this.param = refusal.param;
  }
}

/** The server could not be reached, or answered with something that is not the API's JSON. */
export class NetworkError extends Error {
  constructor(cause: unknown) {
    super('network error', { cause });
    this.name = 'NetworkError';
  }
}

export type Role = 'owner' | 'admin' | 'developer' | 'viewer' | 'operator';

export interface ConsoleUser {
  id: string;
  account_id: string | null;
  email: string;
  name: string;
  role: Role;
  operator?: boolean;
}

export interface SessionInfo {
  user: ConsoleUser;
  account: { id: string; name: string } | null;
  permissions: string[];
  two_factor_enabled: boolean;
  csrf_token: string;
}

export interface SignInResult {
  user: ConsoleUser;
  csrf_token: string;
  two_factor_required: boolean;
}

export interface Invitation {
  email: string;
  account_name: string;
  role: Role;
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; param?: unknown };
}

export class ConsoleApi {
  /** Bound to the session; from sign-in or GET /session. */
  csrfToken: string | null = null;
  language: Language = 'ar';
  /** Called when the server says there is no session (before the error is thrown). */
  onSessionEnded: () => void = () => {};

  session(): Promise<SessionInfo> {
    return this.call<SessionInfo>('GET', '/session');
  }
  signIn(email: string, password: string): Promise<SignInResult> {
    return this.call<SignInResult>('POST', '/sign_in', { email, password });
  }
  signInTwoFactor(body: { code: string } | { recovery_code: string }): Promise<{ user: ConsoleUser; csrf_token: string }> {
    return this.call('POST', '/sign_in/two_factor', body);
  }
  signOut(): Promise<unknown> {
    return this.call('POST', '/sign_out');
  }
  requestPasswordReset(email: string): Promise<unknown> {
    return this.call('POST', '/password_reset', { email });
  }
  confirmPasswordReset(token: string, password: string): Promise<unknown> {
    return this.call('POST', '/password_reset/confirm', { token, password });
  }
  invitation(token: string): Promise<Invitation> {
    // In the body: a token in the path would reach the access logs of the server and any proxy.
    return this.call<Invitation>('POST', '/invitations/lookup', { token });
  }
  acceptInvitation(token: string, name: string, password: string): Promise<{ csrf_token?: string }> {
    return this.call('POST', '/invitations/accept', { token, name, password });
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', 'accept-language': this.language };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && method !== 'HEAD' && this.csrfToken) headers['x-csrf-token'] = this.csrfToken;
    let res: Response;
    try {
      res = await fetch(`${BASE}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'same-origin',
        cache: 'no-store',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new NetworkError(err);
    }
    let json: unknown = null;
    try {
      const text = await res.text();
      json = text ? JSON.parse(text) : null;
    } catch (err) {
      throw new NetworkError(err);
    }
    if (res.ok) {
      const token = (json as { csrf_token?: unknown } | null)?.csrf_token;
      if (typeof token === 'string') this.csrfToken = token;
      return json as T;
    }
    const e = (json as ErrorBody | null)?.error;
    if (!e || typeof e.code !== 'string') throw new NetworkError(new Error(`HTTP ${res.status}`));
    const error = new ApiError(res.status, {
      code: e.code,
      message: typeof e.message === 'string' ? e.message : null,
      param: typeof e.param === 'string' ? e.param : null,
    });
    if (error.code === 'console_session_required') {
      this.csrfToken = null;
      this.onSessionEnded();
    }
    throw error;
  }
}
