import { ERRORS, type ErrorCode } from '@tawqi/shared';
import { API_LANGUAGES, errorSchema } from '@tawqi/shared/api';
import { z } from 'zod';
import { API_VERSIONS } from '../domain/versions.js';
import type { AnyRoute } from './routes/registry.js';

type JsonObject = Record<string, unknown>;

const SCHEMAS = '#/components/schemas/';
const PARAMETERS = '#/components/parameters/';
const HEADERS = '#/components/headers/';
const ERROR_COMPONENT = errorSchema.meta()!.id as string;

/**
 * Formats kept in the document: standard JSON Schema formats whose meaning matches zod's check.
 * zod's own names (starts_with, ends_with, includes, cidrv4, …) are dropped (their `pattern` says
 * it), and so is `uri`: z.url() parses like a browser (WHATWG), which accepts what RFC 3986 refuses,
 * e.g. the {signature_request} placeholder of success_url (spec 4.3).
 */
const KEPT_FORMATS = new Set(['email', 'date-time', 'date', 'time', 'duration', 'uuid', 'ipv4', 'ipv6']);

function standardFormats({ jsonSchema }: { jsonSchema: { format?: string } }): void {
  if (jsonSchema.format !== undefined && !KEPT_FORMATS.has(jsonSchema.format)) delete jsonSchema.format;
}

/** Every $ref to a zod `$defs` entry points at the component of the same name instead. */
function pointRefsAtComponents(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(pointRefsAtComponents);
  if (node === null || typeof node !== 'object') return;
  const o = node as JsonObject;
  if (typeof o.$ref === 'string') o.$ref = o.$ref.replace(/^#\/\$defs\//, SCHEMAS);
  for (const v of Object.values(o)) pointRefsAtComponents(v);
}

/**
 * A request or response schema. An API object (a schema with an `id` in the zod registry, from
 * @tawqi/shared/api) is a reference to its component; objects nested in a schema are too.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const id = z.globalRegistry.get(schema)?.id;
  if (id !== undefined && io === 'output') return { $ref: `${SCHEMAS}${id}` };
  const s = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', override: standardFormats }) as JsonObject;
  delete s.$schema;
  if (s.$defs !== undefined) {
    // The components are the output form of the API objects: a request must not point at them.
    if (io === 'input') throw new Error(`a request schema uses API objects: ${Object.keys(s.$defs as JsonObject).join(', ')}`);
    delete s.$defs;
    pointRefsAtComponents(s);
  }
  return s;
}

/** components/schemas: every API object of @tawqi/shared/api, each closed (additionalProperties: false). */
function componentSchemas(): Record<string, JsonObject> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
    override: standardFormats,
    uri: (id) => `${SCHEMAS}${id}`,
  }) as { schemas: Record<string, JsonObject> };
  for (const s of Object.values(schemas)) {
    delete s.$schema;
    delete s.$id;
  }
  return schemas;
}

const VERSIONS = API_VERSIONS.map((v) => v.date);

const PARAMETER_COMPONENTS = {
  SvcVersion: {
    name: 'Svc-Version',
    in: 'header',
    required: false,
    description: `The API version (spec part 9). Absent: the account's pinned version, else ${VERSIONS[0]}. The response's Svc-Version says which one answered; an unknown version is 400 invalid_version.`,
    schema: { type: 'string', enum: VERSIONS },
  },
  AcceptLanguage: {
    name: 'Accept-Language',
    in: 'header',
    required: false,
    description: 'Language of error messages: English when it starts with en; Arabic otherwise (the default).',
    schema: { type: 'string' },
  },
  Lang: {
    name: 'lang',
    in: 'query',
    required: false,
    description: 'Language of error messages; wins over Accept-Language and the path prefix.',
    schema: { type: 'string', enum: [...API_LANGUAGES] },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes the POST safe to retry (spec part 8): within 24 hours the same key on the same path returns the saved response with Idempotent-Replayed: true, and nothing is created or charged twice.',
    schema: { type: 'string', minLength: 1, maxLength: 200 },
  },
};

const HEADER_COMPONENTS = {
  'Svc-Request-Id': { description: 'The id of this request (req_…), also in error.request_id', schema: { type: 'string' } },
  'Svc-Version': { description: 'The API version that answered', schema: { type: 'string', enum: VERSIONS } },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'string', pattern: '^[0-9]+$' } },
};

const ALWAYS: readonly ErrorCode[] = ['invalid_version', 'https_required', 'too_many_requests', 'internal_error'];
const AUTHENTICATED: readonly ErrorCode[] = ['api_key_missing', 'invalid_api_key', 'forbidden', 'ip_not_allowed'];
const JSON_BODY: readonly ErrorCode[] = ['invalid_json', 'invalid_request', 'request_too_large', 'unsupported_media_type'];
const IDEMPOTENT: readonly ErrorCode[] = ['idempotency_key_invalid', 'idempotency_in_progress', 'idempotency_key_reused'];
const PARSED: readonly ErrorCode[] = ['parameter_invalid', 'parameter_missing', 'parameter_unknown'];

/**
 * Every error code an operation can answer: its route's own, and those of the chain in front of
 * it (app.ts): version and HTTPS checks and the per-address limit on every path; the key rules
 * (401, 403) and the account limit (429) once authenticated; the body parser and Idempotency-Key on
 * POST; the publishable-key quota on POST /signature_requests…; the input schemas' checks.
 */
export function operationErrors(r: AnyRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>([...ALWAYS]);
  if (r.access !== 'public') for (const c of AUTHENTICATED) codes.add(c);
  if (r.access !== 'public' && r.method === 'post') for (const c of [...JSON_BODY, ...IDEMPOTENT]) codes.add(c);
  if (r.access !== 'public' && r.method === 'post' && r.path.startsWith('/signature_requests')) codes.add('daily_cap_reached');
  if (r.body || r.query) for (const c of PARSED) codes.add(c);
  for (const c of r.errors) codes.add(c);
  return [...codes];
}

function errorResponses(r: AnyRoute): Record<string, JsonObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of operationErrors(r)) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, JsonObject> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers: JsonObject = { 'Svc-Request-Id': { $ref: `${HEADERS}Svc-Request-Id` } };
    if (status === 429 || codes.includes('idempotency_in_progress') || codes.includes('pdf_not_ready'))
      headers['Retry-After'] = { $ref: `${HEADERS}Retry-After` };
    responses[String(status)] = {
      description: `Error: ${codes.join(', ')}`,
      headers,
      content: { 'application/json': { schema: { $ref: `${SCHEMAS}${ERROR_COMPONENT}` } } },
    };
  }
  return responses;
}

function successResponse(r: AnyRoute): JsonObject {
  if (!r.response && !r.produces) throw new Error(`${r.method} ${r.path} declares neither its response schema nor its content type`);
  const schema = r.response ? jsonSchema(r.response, 'output') : { type: 'string', contentMediaType: r.produces };
  return {
    description: 'Success',
    headers: { 'Svc-Request-Id': { $ref: `${HEADERS}Svc-Request-Id` }, 'Svc-Version': { $ref: `${HEADERS}Svc-Version` } },
    content: { [r.produces ?? 'application/json']: { schema } },
  };
}

function parameters(r: AnyRoute, path: string): JsonObject[] {
  const list: JsonObject[] = [...path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (r.query) {
    const q = jsonSchema(r.query, 'input') as { properties?: Record<string, JsonObject>; required?: string[] };
    for (const [name, schema] of Object.entries(q.properties ?? {})) {
      list.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
    }
  }
  for (const name of ['SvcVersion', 'AcceptLanguage', 'Lang']) list.push({ $ref: `${PARAMETERS}${name}` });
  if (r.method === 'post') list.push({ $ref: `${PARAMETERS}IdempotencyKey` });
  return list;
}

const operationId = (method: string, path: string): string =>
  `${method}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`;

/** OpenAPI 3.1 built from the same route declarations and zod schemas the server runs. */
export function buildOpenApi(routes: readonly AnyRoute[]): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const op: JsonObject = {
      summary: r.summary,
      tags: [r.tag],
      operationId: operationId(r.method, path),
      parameters: parameters(r, path),
      responses: { [String(r.status)]: successResponse(r), ...errorResponses(r) },
    };
    if (r.access === 'public') op.security = [];
    const body = r.documentedBody ?? r.body;
    if (body) op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(body, 'input') } } };
    (paths[path] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tawqi API',
      version: VERSIONS[0],
      description:
        'Stripe-style e-signature API. Send Svc-Version with every request; errors use the envelope {error: {type, code, message, param, request_id}}, Arabic by default, English with Accept-Language: en, ?lang=en or the /en/api/v1 prefix. The object schemas are closed: they list exactly what this server sends. Per spec part 9 a release may add optional fields and enum values to a version, which clients should tolerate. ' +
        'A request body must be JSON sent with Content-Type: application/json (optionally ; charset=utf-8), else 415 unsupported_media_type; no string may hold a control character other than tab and line breaks (400 parameter_invalid naming the field). ' +
        'starting_after must be an id from the same list (same account and mode), else 400 parameter_invalid on starting_after. ' +
        'Browsers (CORS) use publishable keys only: a preflight from an origin that an active publishable key allows gets 204 with Access-Control-Allow-Origin, -Methods (GET, POST), -Headers (Authorization, Content-Type, Idempotency-Key, Svc-Version, Accept-Language) and -Max-Age; any other origin gets 403 forbidden without Access-Control-* headers. A response to a publishable key carries Access-Control-Allow-Origin when the Origin is one of that key’s allowed origins, and exposes Svc-Request-Id, Svc-Version, Svc-Deprecation, X-RateLimit-*, Retry-After and Idempotent-Replayed; secret keys never get CORS headers.',
    },
    servers: [{ url: '/api/v1' }, { url: '/en/api/v1', description: 'English messages' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'sk_, pk_, sk_test_ or pk_test_ key' } },
      parameters: PARAMETER_COMPONENTS,
      headers: HEADER_COMPONENTS,
      schemas: componentSchemas(),
    },
    paths,
  };
}
