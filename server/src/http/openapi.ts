import { ERRORS } from '@tawqi/shared';
import { z } from 'zod';
import { API_VERSIONS } from '../domain/versions.js';
import { routeErrors, type AnyRoute } from './routes/registry.js';
import { errorEnvelopeSchema } from './schemas.js';

type JsonObject = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const s = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonObject;
  delete s.$schema;
  return s;
}

/** OpenAPI 3.1 built from the same route declarations and zod schemas the server runs. */
export function buildOpenApi(routes: readonly AnyRoute[]): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const parameters: JsonObject[] = [...path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    if (r.query) {
      const q = jsonSchema(r.query, 'input') as { properties?: Record<string, JsonObject>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {})) {
        parameters.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
      }
    }
    if (r.method === 'post') {
      parameters.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 200 } });
    }
    const responses: Record<string, JsonObject> = {
      [String(r.status)]: {
        description: 'Success',
        content: { [r.produces ?? 'application/json']: { schema: r.response ? jsonSchema(r.response, 'output') : {} } },
      },
    };
    const byStatus = new Map<number, string[]>();
    for (const code of routeErrors(r)) {
      const status = ERRORS[code].status;
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    for (const [status, codes] of byStatus) {
      responses[String(status)] = {
        description: `Error: ${codes.join(', ')}`,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
    const op: JsonObject = {
      summary: r.summary,
      tags: [r.tag],
      operationId: `${r.method}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      parameters,
      responses,
    };
    if (r.access === 'public') op.security = [];
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(r.body, 'input') } } };
    (paths[path] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tawqi API',
      version: API_VERSIONS[0]!.date,
      description:
        'Stripe-style e-signature API. Send Svc-Version with every request; errors use the envelope {error: {type, code, message, param, request_id}}, Arabic by default, English with Accept-Language: en, ?lang=en or the /en/api/v1 prefix. ' +
        'A request body must be JSON sent with Content-Type: application/json (optionally ; charset=utf-8), else 415 unsupported_media_type; no string may hold a control character other than tab and line breaks (400 parameter_invalid naming the field). ' +
        'starting_after must be an id from the same list (same account and mode), else 400 parameter_invalid on starting_after. ' +
        'Browsers (CORS) use publishable keys only: a preflight from an origin that an active publishable key allows gets 204 with Access-Control-Allow-Origin, -Methods (GET, POST), -Headers (Authorization, Content-Type, Idempotency-Key, Svc-Version, Accept-Language) and -Max-Age; any other origin gets 403 forbidden without Access-Control-* headers. A response to a publishable key carries Access-Control-Allow-Origin when the Origin is one of that key’s allowed origins, and exposes Svc-Request-Id, Svc-Version, Svc-Deprecation, X-RateLimit-*, Retry-After and Idempotent-Replayed; secret keys never get CORS headers.',
    },
    servers: [{ url: '/api/v1' }, { url: '/en/api/v1', description: 'English messages' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'sk_, pk_, sk_test_ or pk_test_ key' } },
      schemas: { Error: jsonSchema(errorEnvelopeSchema, 'output') },
    },
    paths,
  };
}
