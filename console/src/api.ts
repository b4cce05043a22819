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
  /** The whole error object, for the fields some refusals add (required_plan, errors, contrast_ratio…). */
  body?: Record<string, unknown>;
}

/** A refusal from the console API. */
export class ApiError extends Error {
  readonly code: string;
  readonly serverMessage: string | null;
  readonly param: string | null;
  readonly body: Record<string, unknown>;

  constructor(
    readonly status: number,
    refusal: Refusal,
  ) {
    super(refusal.message ?? refusal.code);
    this.name = 'ApiError';
    this.code = refusal.code;
    this.serverMessage = refusal.message;
    this.param = refusal.param;
    this.body = refusal.body ?? {};
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

/** An API key as the console lists it (server/src/services/consoleKeys.ts presentKey): never its secret. */
export interface ApiKeyView {
  id: string;
  name: string;
  type: 'secret' | 'publishable';
  mode: 'live' | 'test';
  hint: string;
  read_only: boolean;
  allowed_ips: string[];
  allowed_origins: string[];
  daily_cap: number | null;
  state: 'active' | 'expiring' | 'expired' | 'revoked';
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  replaced_by: string | null;
}

/** A new key (created or rotated): its secret is in this answer only. */
export interface IssuedKey {
  key: ApiKeyView;
  secret: string;
  previous?: ApiKeyView;
}

export interface NewKey {
  type: 'secret' | 'publishable';
  mode: 'live' | 'test';
  name?: string;
  read_only?: boolean;
}

export interface KeyChanges {
  allowed_ips?: string[];
  allowed_origins?: string[];
  daily_cap?: number | null;
}

export interface VersionPin {
  version_pin: string | null;
  default_version: string;
  versions: { date: string; sunset: string | null }[];
}

/** A member of the account's team (GET /users). */
export interface TeamMember {
  id: string;
  email: string;
  name: string;
  role: Role;
  status: 'invited' | 'active' | 'disabled';
  two_factor_enabled: boolean;
  created_at: number;
  last_sign_in_at: number | null;
}

export interface TwoFactorSetup {
  secret: string;
  otpauth_url: string;
  /** An SVG document (paths only): shown as an image, never put into the page as markup. */
  qr_svg: string;
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

  // Webhook endpoints: what the public API has no route for (server/src/http/console/api/webhooks.ts).
  rotateWebhookSecret(
    id: string,
    overlapHours: number,
  ): Promise<{ endpoint: { previous_secret_signs_until: number | null }; secret: string }> {
    return this.call('POST', `/webhook_endpoints/${encodeURIComponent(id)}/rotate_secret`, { overlap_hours: overlapHours });
  }
  sendWebhookTest(id: string): Promise<{ event: { id: string }; delivery: { id: string } }> {
    return this.call('POST', `/webhook_endpoints/${encodeURIComponent(id)}/test`, {});
  }
  webhookDeliveries<T>(id: string, startingAfter: string | null, limit: number): Promise<T> {
    const q = new URLSearchParams({ limit: String(limit) });
    if (startingAfter) q.set('starting_after', startingAfter);
    return this.call('GET', `/webhook_endpoints/${encodeURIComponent(id)}/deliveries?${q}`);
  }
  keys(): Promise<{ data: ApiKeyView[] }> {
    return this.call('GET', '/keys');
  }
  createKey(body: NewKey): Promise<IssuedKey> {
    return this.call('POST', '/keys', body);
  }
  rotateKey(id: string, expire: '24h' | 'now'): Promise<IssuedKey> {
    return this.call('POST', `/keys/${encodeURIComponent(id)}/rotate`, { expire });
  }
  revokeKey(id: string): Promise<ApiKeyView> {
    return this.call('POST', `/keys/${encodeURIComponent(id)}/revoke`, {});
  }
  updateKey(id: string, changes: KeyChanges): Promise<ApiKeyView> {
    return this.call('PATCH', `/keys/${encodeURIComponent(id)}`, changes);
  }
  versionPin(): Promise<VersionPin> {
    return this.call('GET', '/version_pin');
  }
  setVersionPin(version: string | null): Promise<VersionPin> {
    return this.call('PUT', '/version_pin', { version_pin: version });
  }

  // The request log (Developers → Logs): GET /request_log with its filters; empty values are left out.
  requestLog<T>(query: Record<string, string | number | null | undefined>): Promise<T> {
    const q = new URLSearchParams();
    for (const [name, value] of Object.entries(query))
      if (value !== null && value !== undefined && value !== '') q.set(name, String(value));
    return this.call<T>('GET', `/request_log${q.size ? `?${q}` : ''}`);
  }

  // The team (Team screen).
  team(): Promise<{ data: TeamMember[] }> {
    return this.call('GET', '/users');
  }
  /** Invite, or invite again (a pending invitation is renewed: a new link, the old one void). */
  invite(email: string, role: Role): Promise<TeamMember> {
    return this.call('POST', '/users/invitations', { email, role });
  }
  changeRole(id: string, role: Role): Promise<TeamMember> {
    return this.call('PATCH', `/users/${encodeURIComponent(id)}`, { role });
  }
  /** Remove a member, or withdraw a pending invitation. */
  removeMember(id: string): Promise<unknown> {
    return this.call('DELETE', `/users/${encodeURIComponent(id)}`);
  }

  // The user's own security (Security screen).
  twoFactorStatus(): Promise<{ enabled: boolean; recovery_codes_remaining: number }> {
    return this.call('GET', '/two_factor');
  }
  twoFactorSetup(): Promise<TwoFactorSetup> {
    return this.call('POST', '/two_factor/setup');
  }
  twoFactorConfirm(code: string): Promise<{ recovery_codes: string[] }> {
    return this.call('POST', '/two_factor/confirm', { code });
  }
  twoFactorDisable(password: string): Promise<unknown> {
    return this.call('POST', '/two_factor/disable', { password });
  }
  newRecoveryCodes(password: string): Promise<{ recovery_codes: string[] }> {
    return this.call('POST', '/two_factor/recovery_codes', { password });
  }
  changePassword(currentPassword: string, newPassword: string): Promise<unknown> {
    return this.call('POST', '/password', { current_password: currentPassword, new_password: newPassword });
  }
  signOutEverywhere(): Promise<{ sessions_ended: number }> {
    return this.call('POST', '/sign_out_everywhere');
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', 'accept-language': this.language };
    // A Blob (a file to upload) is sent as it is, with its own type; anything else as JSON.
    const raw = body instanceof Blob;
    if (body !== undefined) headers['content-type'] = raw ? body.type || 'application/octet-stream' : 'application/json';
    if (method !== 'GET' && method !== 'HEAD' && this.csrfToken) headers['x-csrf-token'] = this.csrfToken;
    let res: Response;
    try {
      res = await fetch(`${BASE}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
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
      body: e as Record<string, unknown>,
    });
    if (error.code === 'console_session_required') {
      this.csrfToken = null;
      this.onSessionEnded();
    }
    throw error;
  }
}
