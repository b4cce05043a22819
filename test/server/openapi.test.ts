/**
 * GET /api/v1/openapi.json: an OpenAPI 3.1 document generated from the route declarations and zod
 * schemas, checked by a real OpenAPI validator, covering every implemented endpoint.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ERRORS } from '../../shared/src/errors.js';
import { API_ROUTES } from '../../server/src/http/app.js';
import { buildOpenApi } from '../../server/src/http/openapi.js';
import { routeErrors } from '../../server/src/http/routes/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const ERROR_REF = '#/components/schemas/Error';
const toOpenApiPath = (p: string) => p.replace(/:([A-Za-z_]+)/g, '{$1}');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

describe('GET /openapi.json', () => {
  let s: TestServer;
  let doc: Json;
  before(async () => {
    s = await startTestServer();
    const r = await s.call('GET', '/openapi.json');
    assert.equal(r.status, 200, r.text);
    doc = r.body;
  });
  after(() => s.close());

  test('is served without a key (and with any key), as JSON, on both prefixes', async () => {
    const plain = await s.call('GET', '/openapi.json');
    assert.equal(plain.status, 200);
    assert.match(plain.headers.get('content-type') ?? '', /^application\/json/);
    assert.ok(plain.headers.get('svc-request-id'));
    const withKey = await s.call('GET', '/openapi.json', { key: s.keys.secret_live });
    assert.deepEqual(withKey.body, plain.body);
    const badKey = await s.call('GET', '/openapi.json', { key: 'sk_' + '0'.repeat(40) });
    assert.equal(badKey.status, 200);
    const en = await s.call('GET', '/openapi.json', { prefix: '/en/api/v1' });
    assert.equal(en.status, 200);
    assert.deepEqual(en.body, plain.body);
    // The document is the one built from the routes the server runs.
    assert.deepEqual(plain.body, JSON.parse(JSON.stringify(buildOpenApi(API_ROUTES))));
  });

  test('is a valid OpenAPI 3.1 document according to @seriousme/openapi-schema-validator', async () => {
    assert.match(doc.openapi, /^3\.1/);
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(result.errors, undefined);
    assert.equal(validator.version, '3.1');
    // Every internal $ref resolves.
    assert.doesNotThrow(() => validator.resolveRefs());
  });

  test('the validator is not vacuous: it refuses a broken copy of the document', async () => {
    const broken = structuredClone(doc);
    delete broken.info;
    broken.paths['/usage'].get.responses = 'none';
    const result = await new Validator().validate(broken);
    assert.equal(result.valid, false);
    assert.ok(result.errors);
  });

  test('documents every route in API_ROUTES and nothing else', () => {
    const documented = new Set<string>();
    for (const [p, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const m of Object.keys(item)) if (METHODS.includes(m)) documented.add(`${m.toUpperCase()} ${p}`);
    }
    const declared = new Set(API_ROUTES.map((r) => `${r.method.toUpperCase()} ${toOpenApiPath(r.path)}`));
    assert.ok(declared.size >= 6, 'routes are declared');
    for (const op of declared) assert.ok(documented.has(op), `${op} is not documented`);
    for (const op of documented) assert.ok(declared.has(op), `${op} is documented but not served`);
    for (const op of ['GET /', 'GET /usage', 'GET /balance', 'GET /templates', 'POST /templates', 'GET /templates/{id}'])
      assert.ok(documented.has(op), op);
  });

  test('operations have unique ids, path parameters and the success status of their route', () => {
    const ids = new Set<string>();
    for (const r of API_ROUTES) {
      const path = toOpenApiPath(r.path);
      const op = doc.paths[path][r.method];
      assert.equal(typeof op.operationId, 'string');
      assert.ok(!ids.has(op.operationId), `duplicate operationId ${op.operationId}`);
      ids.add(op.operationId);
      assert.ok(op.responses[String(r.status)], `${r.method} ${path} documents ${r.status}`);
      for (const m of path.matchAll(/\{([A-Za-z_]+)\}/g)) {
        assert.ok(
          op.parameters.some((p: Json) => p.in === 'path' && p.name === m[1] && p.required === true),
          `${r.method} ${path} declares path parameter ${m[1]}`,
        );
      }
      if (r.method === 'post') assert.ok(op.parameters.some((p: Json) => p.in === 'header' && p.name === 'Idempotency-Key'));
    }
    assert.ok(doc.paths['/templates'].get.parameters.some((p: Json) => p.in === 'query' && p.name === 'scope'));
    assert.ok(doc.paths['/templates'].get.parameters.some((p: Json) => p.in === 'query' && p.name === 'limit'));
  });

  test('POST /templates has a request body schema with title and fields', () => {
    const body = doc.paths['/templates'].post.requestBody;
    assert.equal(body.required, true);
    const schema = body.content['application/json'].schema;
    assert.equal(schema.type, 'object');
    assert.ok(schema.properties.title, 'title');
    assert.equal(schema.properties.title.type, 'string');
    assert.ok(schema.properties.fields, 'fields');
    assert.equal(schema.properties.fields.type, 'array');
    assert.ok(schema.properties.fields.items.properties.key);
    assert.ok(schema.required.includes('title'));
    assert.equal(schema.additionalProperties, false, 'unknown fields are refused, and the document says so');
    const created = doc.paths['/templates'].post.responses['201'].content['application/json'].schema;
    assert.ok(created.properties.id);
    assert.ok(created.properties.fields);
  });

  test('GET /usage documents amount objects in the wallet currency', () => {
    const schema = doc.paths['/usage'].get.responses['200'].content['application/json'].schema;
    const wallet = schema.properties.balance.properties.wallet;
    assert.deepEqual(Object.keys(wallet.properties).sort(), ['amount', 'currency']);
    assert.ok(schema.properties.prices.properties.identity_verification);
    assert.doesNotMatch(JSON.stringify(doc), /_egp/);
  });

  test("error responses reference the Error schema, one per status of the route's error codes", () => {
    const errorSchema = doc.components.schemas.Error;
    assert.ok(errorSchema, 'components.schemas.Error');
    const inner = errorSchema.properties.error;
    for (const f of ['type', 'code', 'message', 'param', 'request_id']) {
      assert.ok(inner.properties[f], `Error.error.${f}`);
      assert.ok(inner.required.includes(f), `Error.error.${f} is required`);
    }
    let errorResponses = 0;
    for (const r of API_ROUTES) {
      const path = toOpenApiPath(r.path);
      const responses = doc.paths[path][r.method].responses as Record<string, Json>;
      const expected = new Set(routeErrors(r).map((code) => String(ERRORS[code].status)));
      const documented = Object.keys(responses).filter((st) => Number(st) >= 400);
      assert.deepEqual(new Set(documented), expected, `${r.method} ${path} error statuses`);
      for (const st of documented) {
        assert.equal(responses[st].content['application/json'].schema.$ref, ERROR_REF, `${r.method} ${path} ${st}`);
        errorResponses++;
      }
    }
    assert.ok(errorResponses > 0);
    const post = doc.paths['/templates'].post.responses;
    for (const st of ['400', '402', '403', '409'])
      assert.equal(post[st].content['application/json'].schema.$ref, ERROR_REF, `POST /templates ${st}`);
    assert.match(post['402'].description, /plan_required/);
    // Every POST documents the strict body rule: a body that is not application/json is refused.
    for (const r of API_ROUTES.filter((route) => route.method === 'post'))
      assert.match(doc.paths[toOpenApiPath(r.path)].post.responses['415'].description, /unsupported_media_type/, r.path);
  });

  test('bearer authentication is declared for the API', () => {
    assert.deepEqual(doc.security, [{ bearer: [] }]);
    assert.equal(doc.components.securitySchemes.bearer.type, 'http');
    assert.equal(doc.components.securitySchemes.bearer.scheme, 'bearer');
  });
});
