/**
 * Every API response the tests see is checked against the OpenAPI document (issue 14, 2b): the
 * status must be documented for the operation, and a JSON body must be valid against the schema
 * of that status: strict ajv (draft 2020-12, standard formats only), closed objects, so a field
 * the server sends and the document does not name fails. `call()` (support/server.ts) runs this
 * on each response and fails the test that made the request.
 *
 * The document is the one the server serves (buildOpenApi over the routes it mounts).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { API_ROUTES } from '../../server/src/http/app.js';
import { buildOpenApi } from '../../server/src/http/openapi.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

// ajv-formats is CommonJS: under NodeNext its default import is the module object, the plugin is its default.
const addFormats = formats.default;

const COMPONENTS_ID = 'https://tawqi.invalid/openapi/components';
const METHODS = ['get', 'post', 'patch', 'delete', 'put'];
const API_PATH = /^\/(?:en\/)?api\/v1(\/.*)?$/;

/** A strict validator for the schemas of an OpenAPI document, components registered under one id. */
export class DocumentValidator {
  readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(readonly doc: Json) {
    this.ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs: relocate(doc.components?.schemas ?? {}) });
  }

  /** Compile a schema of the document (strict: unknown keywords and formats throw). */
  compile(schema: Json, key = JSON.stringify(schema)): ValidateFunction {
    let v = this.cache.get(key);
    if (!v) {
      v = this.ajv.compile(relocate(schema));
      this.cache.set(key, v);
    }
    return v;
  }

  /** Compile every component schema, so a problem in one not used by any operation shows too. */
  compileComponents(): void {
    for (const name of Object.keys(this.doc.components?.schemas ?? {})) this.ajv.getSchema(`${COMPONENTS_ID}#/$defs/${name}`);
  }
}

/** `#/components/schemas/X` → the registered components' `$defs/X` (deep copy). */
function relocate(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${COMPONENTS_ID}#/$defs/`));
}

export interface Operation {
  key: string;
  method: string;
  path: string;
  op: Json;
}

/** The documented operation a request reached, or null (not under /api/v1, or no such operation: 404/405). */
export function findOperation(doc: Json, method: string, url: string): Operation | null {
  const m = API_PATH.exec(url.split('?')[0]!);
  if (!m) return null;
  let path = m[1] ?? '/';
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
  if (!METHODS.includes(verb)) return null;
  let best: Operation | null = null;
  let bestParams = Infinity;
  for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
    if (!item[verb]) continue;
    const re = new RegExp(`^${template.replace(/\{[A-Za-z_]+\}/g, '[^/]+')}$`);
    if (!re.test(path)) continue;
    // A literal path (…/bulk) wins over a template (…/{id}), as the routes are declared.
    const params = (template.match(/\{/g) ?? []).length;
    if (params < bestParams) {
      best = { key: `${verb.toUpperCase()} ${template}`, method: verb, path: template, op: item[verb] };
      bestParams = params;
    }
  }
  return best;
}

export interface SeenResponse {
  method: string;
  /** The request's path from the host on, query included. */
  url: string;
  status: number;
  contentType: string;
  body: unknown;
  text: string;
}

let shared: { doc: Json; validator: DocumentValidator } | null = null;

/** The served document and its validator, built once per test process. */
export function servedDocument(): { doc: Json; validator: DocumentValidator } {
  shared ??= (() => {
    const doc = JSON.parse(JSON.stringify(buildOpenApi(API_ROUTES)));
    return { doc, validator: new DocumentValidator(doc) };
  })();
  return shared;
}

/** Operation key → statuses whose responses were checked in this process. */
export const checkedResponses = new Map<string, Set<number>>();

/** What is wrong with a response according to the document, or null when it conforms (or is no operation's). */
export function responseProblem(r: SeenResponse): string | null {
  const { doc, validator } = servedDocument();
  const operation = findOperation(doc, r.method, r.url);
  if (!operation) return null;
  const where = `${operation.key} (${r.method} ${r.url}) answered ${r.status}`;
  const documented = operation.op.responses[String(r.status)];
  const code = (r.body as { error?: { code?: string } } | undefined)?.error?.code;
  if (!documented) return `${where}${code ? ` ${code}` : ''}: the status is not documented for this operation`;
  const seen = checkedResponses.get(operation.key) ?? new Set<number>();
  checkedResponses.set(operation.key, seen.add(r.status));
  const mediaType = r.contentType.split(';')[0]!.trim().toLowerCase();
  const content = documented.content?.[mediaType];
  if (!content) return `${where} as ${mediaType || 'no content type'}; documented: ${Object.keys(documented.content ?? {}).join(', ')}`;
  if (mediaType !== 'application/json' || r.method.toUpperCase() === 'HEAD') return null;
  const validate = validator.compile(content.schema, `${operation.key} ${r.status}`);
  if (validate(r.body)) return null;
  // The deepest first: a wrong branch of an anyOf fails at the object, the right one deeper in it.
  const errors = [...(validate.errors ?? [])]
    .sort((a, b) => b.instancePath.split('/').length - a.instancePath.split('/').length)
    .slice(0, 12)
    .map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  return `${where}: the body does not match the document:\n  ${errors.join('\n  ')}\nbody: ${r.text.slice(0, 4000)}`;
}
