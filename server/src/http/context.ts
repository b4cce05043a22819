import type { Language } from '@tawqi/shared';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Store } from '../store/db.js';
import type { Account } from '../store/accounts.js';
import type { ApiKey } from '../store/apiKeys.js';
import type { IdempotencyScope } from '../store/idempotency.js';

/** What every handler can reach: built once at start. */
export interface AppContext {
  config: Config;
  store: Store;
  clock: Clock;
  log: Logger;
  /** Called after a write transaction commits, to wake job runners. */
  afterCommit: () => void;
}

export interface AuthState {
  key: ApiKey;
  account: Account;
  livemode: boolean;
  publishable: boolean;
}

/** Per-request state set by the middleware chain. */
export interface RequestState {
  requestId: string;
  lang: Language;
  version: string;
  clientIp: string;
  startedAt: number;
  auth?: AuthState;
  idempotency?: IdempotencyScope;
}

declare module 'express-serve-static-core' {
  interface Request {
    tawqi: RequestState;
  }
}
