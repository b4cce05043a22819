import type { Language } from '@tawqi/shared';
import type { ServiceContext } from '../context.js';
import type { Account } from '../store/accounts.js';
import type { ApiKey } from '../store/apiKeys.js';
import type { IdempotencyClaim } from '../store/idempotency.js';
import type { ConsoleSession } from '../store/consoleSessions.js';
import type { ConsoleUser } from '../store/consoleUsers.js';

/** What every handler can reach: built once at start. */
export type AppContext = ServiceContext;

export interface AuthState {
  key: ApiKey;
  account: Account;
  livemode: boolean;
  publishable: boolean;
  /** Set when the caller is a signed-in console user acting through an internal credential. */
  user?: { id: string; email: string; credential_id: string };
}

/** A signed-in console user (http/console/session.ts). */
export interface ConsoleState {
  session: ConsoleSession;
  user: ConsoleUser;
}

/** Per-request state set by the middleware chain. */
export interface RequestState {
  requestId: string;
  lang: Language;
  version: string;
  clientIp: string;
  /** Whether the client reached us over TLS (directly, or as a trusted proxy reports it). */
  secure: boolean;
  startedAt: number;
  auth?: AuthState;
  /**
   * Whom the request is attributed to in the request log: set as soon as the key (or console
   * credential) and its account are known, so a refusal after that point is logged too.
   */
  caller?: AuthState;
  idempotency?: IdempotencyClaim;
  console?: ConsoleState;
}

declare module 'express-serve-static-core' {
  interface Request {
    tawqi: RequestState;
  }
}
