/**
 * A console client for tests: real HTTP to /console/api with a cookie jar of its own (one browser),
 * the CSRF token kept from the last sign-in or GET /session and sent on every state change.
 */
import { hashPassword } from '../../server/src/services/consolePasswords.js';
import { createActiveUser } from '../../server/src/services/consoleUsers.js';
import type { ConsoleUser } from '../../server/src/store/consoleUsers.js';
import type { TestServer } from './server.js';

export interface ConsoleAnswer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

export interface ConsoleCallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Send no X-CSRF-Token even when one is known. */
  noCsrf?: boolean;
}

export class ConsoleClient {
  cookie: string | null = null;
  csrf: string | null = null;

  constructor(
    readonly baseUrl: string,
    readonly lang?: 'en' | 'ar',
  ) {}

  async call(method: string, path: string, opts: ConsoleCallOptions = {}): Promise<ConsoleAnswer> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.lang === 'en') headers['accept-language'] ??= 'en';
    if (this.cookie) headers.cookie = `tawqi_console=${this.cookie}`;
    if (this.csrf && !opts.noCsrf && method !== 'GET') headers['x-csrf-token'] ??= this.csrf;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${this.baseUrl}/console/api${path}`, { method, headers, body });
    for (const c of res.headers.getSetCookie()) {
      const m = /^tawqi_console=([^;]*)/.exec(c);
      if (m) this.cookie = m[1] || null;
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const answer = { status: res.status, headers: res.headers, body: parsed, text };
    if (res.ok && typeof (parsed as { csrf_token?: unknown })?.csrf_token === 'string')
      this.csrf = (parsed as { csrf_token: string }).csrf_token;
    return answer;
  }

  signIn(email: string, password: string): Promise<ConsoleAnswer> {
    return this.call('POST', '/sign_in', { body: { email, password } });
  }
}

export const TEST_PASSWORD = 'correct horse battery staple';
/** Console settings for test servers: a cheap scrypt cost (the default's cost is measured in the README, not in every test). */
export const CONSOLE_TEST_ENV = { TAWQI_CONSOLE_SCRYPT_LOG_N: '12' };

/** An active user of `accountId` with TEST_PASSWORD (or `password`), made through the service as the CLI does. */
export async function consoleUser(
  s: TestServer,
  accountId: string | null,
  email: string,
  role: ConsoleUser['role'],
  password = TEST_PASSWORD,
): Promise<ConsoleUser> {
  const passwordHash = await hashPassword(password, { logN: s.ctx.config.TAWQI_CONSOLE_SCRYPT_LOG_N });
  const { user } = await createActiveUser(
    s.ctx.store,
    s.clock,
    { accountId, email, role, passwordHash },
    { account_id: accountId, user_id: null, actor: 'test', ip: null },
  );
  return user;
}

/** A client of `s` signed in as `email` (TEST_PASSWORD), in Arabic or, with `lang` 'en', English. */
export async function signedInClient(s: TestServer, email: string, lang?: 'en', password = TEST_PASSWORD): Promise<ConsoleClient> {
  const c = new ConsoleClient(s.url, lang);
  const r = await c.signIn(email, password);
  if (r.status !== 200) throw new Error(`sign-in of ${email}: ${r.status} ${r.text}`);
  return c;
}
