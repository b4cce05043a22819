import type { components } from './generated/openapi.js';

/** The `error` object of the API's envelope, as the OpenAPI document declares it. */
export type ErrorBody = components['schemas']['Error']['error'];
export type ErrorType = ErrorBody['type'];

export interface ErrorDetails {
  statusCode: number | null;
  headers: Headers | null;
  /** The envelope's error object, when the answer carried one. */
  raw: ErrorBody | null;
  requestId: string | null;
  message: string;
}

/**
 * Every failure the client reports: an answer in the API's error envelope (a subclass per
 * `error.type`), a network failure (TawqiConnectionError) or a webhook that does not verify
 * (TawqiSignatureVerificationError). Logic should branch on `code`, which never changes with language.
 */
export class TawqiError extends Error {
  override readonly name: string = 'TawqiError';
  readonly type: ErrorType | null;
  /** The stable error code (`parameter_invalid`, `idempotency_in_progress`, …); null when the answer was not the envelope. */
  readonly code: string | null;
  /** The parameter or header at fault (`signers[0].email`), or null. */
  readonly param: string | null;
  /** The server's id of the request (req_…), to quote in a support ticket. */
  readonly request_id: string | null;
  readonly statusCode: number | null;
  readonly headers: Headers | null;
  /** The whole error object of the envelope (with upgrade_url, max_signers, … when the code has them). */
  readonly raw: ErrorBody | null;

  constructor(details: ErrorDetails) {
    super(details.message);
    this.type = details.raw?.type ?? null;
    this.code = details.raw?.code ?? null;
    this.param = details.raw?.param ?? null;
    this.request_id = details.raw?.request_id ?? details.requestId;
    this.statusCode = details.statusCode;
    this.headers = details.headers;
    this.raw = details.raw;
  }
}

/** 400: the request's shape or values (`param` names the field). */
export class TawqiInvalidRequestError extends TawqiError {
  override readonly name = 'TawqiInvalidRequestError';
}
/** 401: no key, an unknown key, or a rotated key past its grace. */
export class TawqiAuthenticationError extends TawqiError {
  override readonly name = 'TawqiAuthenticationError';
}
/** 403: what the key may not do (publishable-key rules, IP allowlist, read-only key, company verification). */
export class TawqiPermissionError extends TawqiError {
  override readonly name = 'TawqiPermissionError';
}
/** 402: plan or balance. */
export class TawqiBillingError extends TawqiError {
  override readonly name = 'TawqiBillingError';
}
/** 409 on an Idempotency-Key: reused on another path, or still in progress after the retries. */
export class TawqiIdempotencyError extends TawqiError {
  override readonly name = 'TawqiIdempotencyError';
}
/** 429: rate limit, quotas, reminder limits. */
export class TawqiRateLimitError extends TawqiError {
  override readonly name = 'TawqiRateLimitError';
  /** Seconds the server asked to wait (Retry-After), or null. */
  get retryAfter(): number | null {
    return retryAfterSeconds(this.headers);
  }
}
/** 5xx, 404, 409 state conflicts and anything else the server reports as api_error, or an answer not in the envelope. */
export class TawqiAPIError extends TawqiError {
  override readonly name = 'TawqiAPIError';
}
/** The server could not be reached, the connection broke, or no answer came within the timeout. */
export class TawqiConnectionError extends TawqiError {
  override readonly name = 'TawqiConnectionError';
}
/** A webhook whose Svc-Signature header does not verify (webhooks.constructEvent). */
export class TawqiSignatureVerificationError extends TawqiError {
  override readonly name = 'TawqiSignatureVerificationError';
}

const BY_TYPE: Record<ErrorType, new (d: ErrorDetails) => TawqiError> = {
  invalid_request_error: TawqiInvalidRequestError,
  authentication_error: TawqiAuthenticationError,
  permission_error: TawqiPermissionError,
  billing_error: TawqiBillingError,
  idempotency_error: TawqiIdempotencyError,
  rate_limit_error: TawqiRateLimitError,
  api_error: TawqiAPIError,
};

/** The error of a non-2xx answer: the class of its `error.type` (TawqiAPIError when the body is not the envelope). */
export function errorFromResponse(statusCode: number, headers: Headers, body: unknown): TawqiError {
  const raw = isEnvelope(body) ? body.error : null;
  const requestId = headers.get('svc-request-id');
  const Class = raw ? (BY_TYPE[raw.type] ?? TawqiAPIError) : TawqiAPIError;
  const message = raw?.message ?? `The server answered ${statusCode} without an error envelope.`;
  return new Class({ statusCode, headers, raw, requestId, message });
}

function isEnvelope(body: unknown): body is { error: ErrorBody } {
  const e = (body as { error?: unknown } | null)?.error as Partial<ErrorBody> | undefined;
  return typeof e === 'object' && e !== null && typeof e.code === 'string' && typeof e.type === 'string';
}

/** Retry-After in whole seconds (the server sends seconds), or null when absent or not a number. */
export function retryAfterSeconds(headers: Headers | null): number | null {
  const v = headers?.get('retry-after');
  if (v === null || v === undefined || !/^\d+$/.test(v.trim())) return null;
  return Number(v.trim());
}
