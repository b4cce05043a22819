import type { Language } from '@tawqi/shared';
import type { ServiceContext } from '../context.js';
import type { Account } from '../store/accounts.js';
import type { ApiKey } from '../store/apiKeys.js';
import type { IdempotencyClaim } from '../store/idempotency.js';

/** What every handler can reach: built once at start. */
export type AppContext = ServiceContext;

export interface AuthState {
  key: ApiKey;
  account: Account;
  livemode: boolean;
  publishable: boolean;
  /** Set when the caller is a signed-in console user acting through an internal credential. */
  user?: { id: string; credential_id: string };
}

/** Per-request state set by the middleware chain. */
export interface RequestState {
  requestId: string;
  lang: Language;
  version: string;
  clientIp: string;
  startedAt: number;
  auth?: AuthState;
  idempotency?: IdempotencyClaim;
}

declare module 'express-serve-static-core' {
  interface Request {
    tawqi: RequestState;
  }
}
