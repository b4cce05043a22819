/**
 * GET /api/v1/openapi.json: an OpenAPI 3.1 document generated from the route declarations and zod
 * schemas, checked by a real OpenAPI validator and by strict ajv, covering every implemented
 * endpoint: its request, its success body (the API objects of @tawqi/shared/api, closed), every
 * error status it can answer, and the Svc-Version, Accept-Language and Idempotency-Key headers.
 * (That every response of the suite conforms is checked in support/openapiCheck.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ERRORS } from '../../shared/src/errors.js';
import { API_ROUTES } from '../../server/src/http/app.js';
import { buildOpenApi, operationErrors } from '../../server/src/http/openapi.js';
import { DocumentValidator, findOperation, responseProblem } from '../support/openapiCheck.js';
import { startTestServer, type TestServer } from '../support/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const ERROR_REF = '#/components/schemas/Error';
const PARAM_REF = (name: string) => ({ $ref: `#/components/parameters/${name}` });
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
  /** A component, for a reference to one. */
  const deref = (schema: Json): Json => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);

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
      if (r.method === 'post')
        assert.ok(
          op.parameters.some((p: Json) => p.$ref === PARAM_REF('IdempotencyKey').$ref),
          `${path}`,
        );
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
    const created = deref(doc.paths['/templates'].post.responses['201'].content['application/json'].schema);
    assert.ok(created.properties.id);
    assert.ok(created.properties.fields);
  });

  test('GET /usage documents amount objects in the wallet currency', () => {
    const schema = deref(doc.paths['/usage'].get.responses['200'].content['application/json'].schema);
    const wallet = deref(schema.properties.balance.properties.wallet);
    assert.deepEqual(Object.keys(wallet.properties).sort(), ['amount', 'currency']);
    assert.ok(schema.properties.prices.properties.identity_verification);
    assert.equal(wallet.additionalProperties, false);
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
      const expected = new Set(operationErrors(r).map((code) => String(ERRORS[code].status)));
      for (const code of r.errors) assert.ok(expected.has(String(ERRORS[code].status)), `${r.method} ${path} ${code}`);
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

  test('every success body has its real schema: an API object, a list of them, or a declared file type; never {}', () => {
    const objects = new Set<string>();
    for (const r of API_ROUTES) {
      const path = toOpenApiPath(r.path);
      const content = doc.paths[path][r.method].responses[String(r.status)].content;
      const entries = Object.entries(content as Record<string, Json>);
      assert.equal(entries.length, 1, `${r.method} ${path}: one content type`);
      const [mediaType, media] = entries[0]!;
      const schema = media.schema;
      assert.ok(schema && Object.keys(schema).length > 0, `${r.method} ${path} success schema is {}`);
      if (mediaType === 'application/json') {
        assert.match(schema.$ref ?? '', /^#\/components\/schemas\/[A-Za-z]+$/, `${r.method} ${path} refers to an API object`);
        objects.add(schema.$ref.split('/').pop());
      } else assert.deepEqual(schema, { type: 'string', contentMediaType: mediaType }, `${r.method} ${path}`);
    }
    for (const name of [
      'SignatureRequest',
      'SignatureRequestList',
      'Signer',
      'SignerList',
      'Session',
      'SessionList',
      'SigningSession',
      'Event',
    ]) {
      assert.ok(objects.has(name), `${name} is some operation's success body`);
    }
    for (const name of [
      'EventList',
      'EvidenceRecord',
      'BulkSend',
      'Workflow',
      'WorkflowList',
      'IdentityVerification',
      'Download',
      'Verification',
    ]) {
      assert.ok(objects.has(name), `${name} is some operation's success body`);
    }
    const byOp = (m: string, p: string) => doc.paths[p][m].responses;
    assert.equal(
      byOp('post', '/signature_requests')['201'].content['application/json'].schema.$ref,
      '#/components/schemas/SignatureRequest',
    );
    for (const action of ['send', 'cancel', 'reminders'])
      assert.equal(
        byOp('post', `/signature_requests/{id}/${action}`)['200'].content['application/json'].schema.$ref,
        '#/components/schemas/SignatureRequest',
      );
    assert.equal(
      byOp('post', '/signers/{id}/identity_match')['200'].content['application/json'].schema.$ref,
      '#/components/schemas/Signer',
    );
  });

  test('API objects are closed and say what presenters emit: nullable and optional fields included', () => {
    const schemas = doc.components.schemas as Record<string, Json>;
    const open: string[] = [];
    const walk = (node: Json, where: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}[${i}]`));
      if (node === null || typeof node !== 'object') return;
      if (node.type === 'object' && node.properties && node.additionalProperties !== false) open.push(where);
      for (const [k, v] of Object.entries(node)) walk(v, `${where}.${k}`);
    };
    for (const [name, schema] of Object.entries(schemas)) walk(schema, name);
    assert.deepEqual(open, [], 'objects without additionalProperties: false');

    const sr = schemas.SignatureRequest;
    for (const f of ['id', 'status', 'reference', 'signers', 'cost', 'download_url', 'metadata', 'reminders'])
      assert.ok(sr.required.includes(f), f);
    assert.deepEqual(sr.properties.status.enum, [
      'draft',
      'sent',
      'viewed',
      'partially_signed',
      'completed',
      'declined',
      'expired',
      'canceled',
    ]);
    assert.deepEqual(sr.properties.reference.anyOf?.map((s: Json) => s.type) ?? sr.properties.reference.type, ['string', 'null']);
    for (const f of ['workflow_id', 'workflow_version', 'vendor_data', 'channel']) {
      assert.ok(sr.properties[f], `${f} is declared`);
      assert.ok(!sr.required.includes(f), `${f} only on requests from a workflow`);
    }
    assert.deepEqual(sr.properties.signers, { type: 'array', items: { $ref: '#/components/schemas/Signer' } });
    const signer = schemas.Signer;
    assert.ok(signer.required.includes('signing_url'));
    assert.deepEqual(signer.properties.signing_url.type, ['string', 'null']);
    assert.deepEqual(schemas.SignatureRequestList.properties.data.items, { $ref: '#/components/schemas/SignatureRequest' });
    const error = schemas.Error.properties.error;
    assert.equal(error.additionalProperties, false);
    for (const extra of ['upgrade_url', 'verify_url', 'max_signers', 'feature', 'required_plan']) assert.ok(error.properties[extra], extra);
  });

  test('Svc-Version, Accept-Language and ?lang on every operation, Idempotency-Key on every POST (components/parameters)', () => {
    const params = doc.components.parameters;
    assert.equal(params.SvcVersion.name, 'Svc-Version');
    assert.equal(params.SvcVersion.in, 'header');
    assert.ok(params.SvcVersion.schema.enum.includes('2026-07-01'));
    assert.deepEqual([params.AcceptLanguage.name, params.AcceptLanguage.in], ['Accept-Language', 'header']);
    assert.deepEqual([params.Lang.name, params.Lang.in], ['lang', 'query']);
    assert.deepEqual(
      [params.IdempotencyKey.name, params.IdempotencyKey.in, params.IdempotencyKey.schema.maxLength],
      ['Idempotency-Key', 'header', 200],
    );
    for (const r of API_ROUTES) {
      const op = doc.paths[toOpenApiPath(r.path)][r.method];
      for (const name of ['SvcVersion', 'AcceptLanguage', 'Lang'])
        assert.ok(
          op.parameters.some((p: Json) => p.$ref === PARAM_REF(name).$ref),
          `${op.operationId} ${name}`,
        );
      assert.equal(
        op.parameters.some((p: Json) => p.$ref === PARAM_REF('IdempotencyKey').$ref),
        r.method === 'post',
        `${op.operationId} Idempotency-Key`,
      );
      const names = op.parameters.filter((p: Json) => p.name).map((p: Json) => `${p.in} ${p.name}`);
      assert.equal(new Set(names).size, names.length, `${op.operationId}: unique parameters`);
    }
  });

  test('401 and 429 on every authenticated operation, 400 invalid_version and 429 on every one, with the Error envelope', () => {
    let authenticated = 0;
    for (const r of API_ROUTES) {
      const responses = doc.paths[toOpenApiPath(r.path)][r.method].responses;
      for (const st of ['400', '429', '500']) assert.ok(responses[st], `${r.method} ${r.path} ${st}`);
      assert.match(responses['400'].description, /invalid_version/);
      if (r.access === 'public') {
        assert.equal(responses['401'], undefined, `${r.method} ${r.path} needs no key`);
        continue;
      }
      authenticated++;
      assert.match(responses['401'].description, /invalid_api_key/, `${r.method} ${r.path} 401`);
      assert.match(responses['403'].description, /forbidden/, `${r.method} ${r.path} 403`);
      assert.match(responses['429'].description, /too_many_requests/, `${r.method} ${r.path} 429`);
      assert.ok(responses['429'].headers['Retry-After'], 'Retry-After on 429');
      if (r.method === 'post') {
        assert.match(responses['400'].description, /invalid_json/);
        assert.match(responses['409'].description, /idempotency_key_reused/);
        assert.ok(responses['413'], `${r.method} ${r.path} 413`);
      }
    }
    assert.ok(authenticated >= 37, `${authenticated} authenticated operations`);
  });

  test('only standard formats; https URLs by pattern (success_url allows the {signature_request} placeholder)', () => {
    const formats = new Set([...JSON.stringify(doc).matchAll(/"format":"([^"]+)"/g)].map((m) => m[1]));
    for (const f of formats)
      assert.ok(['email', 'date-time', 'date', 'time', 'duration', 'uuid', 'ipv4', 'ipv6'].includes(f!), `format ${f}`);
    assert.doesNotMatch(JSON.stringify(doc), /starts_with|"format":"uri"/);
    const create = doc.paths['/signature_requests'].post.requestBody.content['application/json'].schema;
    const session = doc.paths['/signers/{id}/signing_session'].post.requestBody.content['application/json'].schema;
    for (const schema of [create, session]) {
      const url = schema.properties.success_url;
      assert.equal(url.format, undefined);
      assert.ok(new RegExp(url.pattern, 'u').test('https://shop.example/done/{signature_request}'));
      assert.ok(!new RegExp(url.pattern, 'u').test('http://shop.example/done'));
    }
    const reminders = doc.paths['/signature_requests/{id}/reminders'].post.requestBody.content['application/json'].schema;
    assert.equal(reminders.properties.signer.pattern, '^sgr_.*');
  });

  test('strict ajv (draft 2020-12, ajv-formats) compiles every schema of the document', () => {
    const v = new DocumentValidator(doc);
    v.compileComponents();
    const schemas: Json[] = Object.values(doc.components.parameters as Record<string, Json>).map((p) => p.schema);
    for (const item of Object.values(doc.paths as Record<string, Json>)) {
      for (const op of Object.values(item as Record<string, Json>)) {
        for (const media of Object.values((op.requestBody?.content ?? {}) as Record<string, Json>)) schemas.push(media.schema);
        for (const p of op.parameters) if (p.schema) schemas.push(p.schema);
        for (const res of Object.values(op.responses as Record<string, Json>))
          for (const media of Object.values(res.content as Record<string, Json>)) schemas.push(media.schema);
      }
    }
    for (const schema of schemas) assert.doesNotThrow(() => v.compile(schema), JSON.stringify(schema).slice(0, 200));
    assert.ok(schemas.length > 300, `${schemas.length} schemas`);
    // A non-standard format is refused by this validator, as the document once had.
    assert.throws(() => v.compile({ type: 'string', format: 'starts_with' }), /unknown format/);
  });

  test('POST /sessions declares its body (spec 4.2), though the server checks it field by field', () => {
    const v = new DocumentValidator(doc);
    const schema = doc.paths['/sessions'].post.requestBody.content['application/json'].schema;
    const body = {
      workflow_id: 'default',
      template_id: 'tpl_x',
      signers: [{ name: 'Layla', email: 'layla@client.example', fields: { client: 'Acme' } }],
      vendor_data: 'c-1',
      channel: 'link',
      expires_in: 3,
      return_url: '',
    };
    assert.equal(v.compile(schema)(body), true, JSON.stringify(v.compile(schema).errors));
    for (const refused of [{ ordered: true }, { expires_in: 31 }, { signers: [] }, { signers: [{ name: 'A', method: 'token' }] }])
      assert.equal(v.compile(schema)({ ...body, ...refused }), false, JSON.stringify(refused));
    assert.deepEqual(schema.required, ['workflow_id', 'signers']);
  });

  test('the response check refuses an undocumented status, an extra field and a missing one (it is not vacuous)', async () => {
    const acct = await s.account({ ownerEmail: 'owner@example.com' });
    const tpl = await s.call('POST', '/templates', {
      key: acct.keys.secret_test,
      body: { title: 'Check', language: 'en', body: 'Agreed, {{party}}.', fields: [{ key: 'party', label: 'Party', required: false }] },
    });
    assert.equal(tpl.status, 201, tpl.text);
    const created = await s.call('POST', '/signature_requests', {
      key: acct.keys.secret_test,
      body: { source: { type: 'template', template_id: tpl.body.id }, signers: [{ name: 'A', email: 'owner@example.com' }] },
    });
    assert.equal(created.status, 201, created.text);
    const base = { method: 'GET', url: '/api/v1/signature_requests/sr_x', contentType: 'application/json; charset=utf-8' };
    assert.deepEqual(findOperation(doc, 'GET', '/en/api/v1/signature_requests/sr_x?lang=ar')?.key, 'GET /signature_requests/{id}');
    assert.deepEqual(findOperation(doc, 'POST', '/api/v1/signature_requests/bulk')?.key, 'POST /signature_requests/bulk');
    assert.equal(findOperation(doc, 'GET', '/sign/abc'), null);
    const sample = created.body;
    assert.equal(responseProblem({ ...base, status: 200, body: sample, text: '' }), null);
    assert.match(responseProblem({ ...base, status: 200, body: { ...sample, surprise: 1 }, text: '' }) ?? '', /additional/);
    const { reference: _r, ...missing } = sample;
    assert.match(responseProblem({ ...base, status: 200, body: missing, text: '' }) ?? '', /reference/);
    const badSigner = { ...sample, signers: [{ ...sample.signers[0], signing_url: 3 }] };
    assert.match(responseProblem({ ...base, status: 200, body: badSigner, text: '' }) ?? '', /signing_url/);
    assert.match(responseProblem({ ...base, status: 418, body: {}, text: '' }) ?? '', /not documented/);
    const pdf = { method: 'GET', url: '/api/v1/signature_requests/sr_x/download/pdf', status: 200, body: undefined, text: '' };
    assert.equal(responseProblem({ ...pdf, contentType: 'application/pdf' }), null);
    assert.match(responseProblem({ ...pdf, contentType: 'text/html' }) ?? '', /documented: application\/pdf/);
  });
});
