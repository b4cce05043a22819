/**
 * @tawqi/node: the Tawqi API client for Node.js (see README.md). No runtime dependencies: node:crypto
 * and the global fetch.
 */
export { Tawqi } from './client.js';
export { Tawqi as default } from './client.js';
export type { TawqiOptions, RequestOptions, ResponseInfo } from './http.js';
export {
  TawqiError,
  TawqiInvalidRequestError,
  TawqiAuthenticationError,
  TawqiPermissionError,
  TawqiBillingError,
  TawqiIdempotencyError,
  TawqiRateLimitError,
  TawqiAPIError,
  TawqiConnectionError,
  TawqiSignatureVerificationError,
  type ErrorBody,
  type ErrorType,
} from './errors.js';
export { AutoPaginatingList } from './pagination.js';
export { constructEvent, generateTestHeaderString, DEFAULT_TOLERANCE_SECONDS } from './webhooks.js';
export { CLIENT_METHODS } from './methods.js';
export { OPERATIONS, API_VERSION, type OperationId, type OperationInfo } from './generated/operations.js';
export { DEFAULT_RETRY_POLICY, backoffMs, retryDelayMs, type RetryPolicy } from './retry.js';
export type * from './types.js';
export type { components, operations, paths } from './generated/openapi.js';
