/**
 * @tawqi/shared/api: the API objects (zod schemas and their types) and their enumerated values,
 * shared by the server (presenters, OpenAPI document) and clients. Browser-safe.
 */
export * from './values.js';
export * from './objects.js';
