/** The page ↔ server contract (signing-page/API.md): the state the server sends and the frame messages. */

import type { PageLanguage, PageState, PageStep, TokenPrepared } from '@tawqi/shared';

/** The state, its steps and the token answer are defined once, as zod schemas in @tawqi/shared (pageApi.ts); types only here, so zod stays out of the bundle. */
export type { TokenPrepared };
export type Language = PageLanguage;
export type Step = PageStep;
export type State = PageState;

/** The API's error envelope; extra fields (attempts_left, reason, …) sit beside the standard ones. */
export interface ErrorBody {
  type?: string;
  code?: string;
  message?: string;
  param?: string | null;
  request_id?: string;
  [extra: string]: unknown;
}

/** Messages to the embedding page (embedded mode only). */
export type FrameMessage =
  | { type: 'svc:viewed'; signature_request: string; signer: string }
  | { type: 'svc:signed'; signature_request: string; signer: string }
  | { type: 'svc:declined'; signature_request: string; signer: string; reason: string | null }
  /** The page's content height in CSS pixels, sent on every change. */
  | { type: 'svc:resize'; height: number };
