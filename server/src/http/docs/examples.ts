/**
 * The examples of the API reference (/docs), made from the OpenAPI document itself so they cannot
 * drift: a response example is a sample of the operation's success schema (every property, values
 * chosen by format, pattern and name), a request body is a written example for the common POSTs
 * and a sample of the body schema's required properties for the others. test/server/docs.test.ts
 * validates every example against the document. Pure: JSON in, text out.
 */
import { CLIENT_METHODS } from '@tawqi/node';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export interface OperationExample {
  operationId: string;
  method: string;
  path: string;
  /** The path with example values in its parameters. */
  examplePath: string;
  query: Record<string, string | number> | null;
  body: Json | undefined;
  /** The success answer: a JSON sample, or null for PDF and HTML answers. */
  response: Json | null;
  curl: string;
  node: string;
}

const ID_PREFIXES: Record<string, string> = {
  signature_request: 'sr_',
  session: 'sr_',
  signer: 'sgr_',
  template: 'tpl_',
  webhook_endpoint: 'we_',
  event: 'evt_',
  workflow: 'wf_',
  identity_verification: 'idv_',
};
const BODY = '0uKq3Zr8Yb2LmN4p';
const TIME = 1_782_900_000;

/** Written request bodies for the POSTs a reader starts with; the others are sampled from their schema. */
const WRITTEN_BODIES: Record<string, Json> = {
  postSignatureRequests: {
    title: 'Service agreement',
    source: { type: 'template', template_id: `tpl_${BODY}` },
    signers: [{ name: 'Amira Saleh', email: 'amira@example.com', fields: { party: 'Amira Saleh' } }],
    metadata: { order: 'A-1042' },
  },
  postSignatureRequestsBulk: {
    title: 'Notice',
    source: { type: 'template', template_id: `tpl_${BODY}` },
    recipients: [{ name: 'Amira Saleh', email: 'amira@example.com' }],
  },
  postTemplates: {
    title: 'Consulting agreement',
    language: 'en',
    body: 'The consultant, {{party}}, agrees to the terms below.',
    fields: [{ key: 'party', label: 'Consultant', required: true }],
  },
  postSessions: { workflow_id: `wf_${BODY}`, signers: [{ name: 'Amira Saleh', email: 'amira@example.com' }], vendor_data: 'crm-1042' },
  postWebhookEndpoints: { url: 'https://shop.example.com/hooks/tawqi', enabled_events: ['signature_request.completed', 'signer.signed'] },
  postWebhookEndpointsId: { enabled_events: ['*'], description: 'Orders' },
  postSignersIdSigningSession: { mode: 'redirect', success_url: 'https://shop.example.com/done/{signature_request}' },
  postSignersIdIdentityMatch: { decision: 'approve' },
};

function resolve(doc: Json, schema: Json): Json {
  let s = schema;
  while (s && typeof s.$ref === 'string') s = doc.components.schemas[s.$ref.replace('#/components/schemas/', '')];
  return s ?? {};
}

function sampleString(s: Json, name: string, owner: string | null): string {
  if (s.format === 'email') return 'amira@example.com';
  if (s.format === 'date-time') return '2026-07-01T09:00:00Z';
  if (typeof s.pattern === 'string') {
    const prefix = /^\^([A-Za-z_:/.-]+)/.exec(s.pattern)?.[1];
    if (prefix?.startsWith('http')) return 'https://shop.example.com/done';
    if (prefix) return `${prefix}${BODY}`;
  }
  if (name === 'id' && owner) return `${ID_PREFIXES[owner] ?? `${owner}_`}${BODY}`;
  if (name === 'reference') return 'REF-7K3M9Q2D';
  if (name === 'request_id') return `req_${BODY}`;
  if (name.endsWith('url')) return `https://sign.example.com/${name.replace(/_url$/, '')}/${BODY}`;
  if (/sha256|hash/.test(name)) return '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
  if (name === 'currency') return 'EGP';
  if (name === 'name') return 'Amira Saleh';
  if (name === 'title') return 'Service agreement';
  if (name === 'phone') return '+201001234567';
  if (name === 'secret') return `whsec_${BODY}`;
  const prefix = ID_PREFIXES[name] ?? ID_PREFIXES[name.replace(/_id$/, '')];
  if (prefix) return `${prefix}${BODY}`;
  const text = name ? name.replace(/_/g, ' ') : 'text';
  return text.padEnd(s.minLength ?? 0, '.').slice(0, s.maxLength ?? Infinity);
}

function sampleNumber(s: Json, name: string): number {
  if (/_at$|^expires|^created/.test(name) || /Unix seconds/.test(s.description ?? '')) return TIME;
  if (typeof s.minimum === 'number') return s.minimum;
  if (typeof s.exclusiveMinimum === 'number') return s.exclusiveMinimum + 1;
  return 1;
}

/** A value valid against `schema` (every property of an object; `required` only when asked). */
export function sample(doc: Json, schema: Json, name = '', options: { requiredOnly?: boolean } = {}, owner: string | null = null): Json {
  const s = resolve(doc, schema);
  if ('const' in s) return s.const;
  if ('default' in s && !options.requiredOnly) return s.default;
  if (Array.isArray(s.enum)) return s.enum[0];
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches))
    return sample(doc, branches.find((b: Json) => resolve(doc, b).type !== 'null') ?? branches[0], name, options, owner);
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  if (type === 'object' || s.properties) return sampleObject(doc, s, name, options);
  if (type === 'array') return s.maxItems === 0 ? [] : [sample(doc, s.items ?? {}, singular(name), options, owner)];
  if (type === 'string') return sampleString(s, name, owner);
  if (type === 'integer' || type === 'number') return sampleNumber(s, name);
  if (type === 'boolean') return false;
  if (type === 'null') return null;
  return {};
}

const singular = (name: string): string => name.replace(/ies$/, 'y').replace(/s$/, '');

function sampleObject(doc: Json, s: Json, name: string, options: { requiredOnly?: boolean }): Json {
  const out: Record<string, Json> = {};
  const properties: Record<string, Json> = s.properties ?? {};
  const owner = resolve(doc, properties.object ?? {}).const ?? null;
  const required = new Set<string>(s.required ?? []);
  for (const [key, prop] of Object.entries(properties)) {
    if (options.requiredOnly && !required.has(key)) continue;
    out[key] = sample(doc, prop, key, options, owner);
  }
  if (!s.properties && s.additionalProperties && typeof s.additionalProperties === 'object' && !options.requiredOnly)
    out[name === 'metadata' ? 'order' : 'key'] = sample(doc, s.additionalProperties, 'value', options);
  return out;
}

const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** The curl command of an operation. */
function curlOf(base: string, e: Omit<OperationExample, 'curl' | 'node'>, authenticated: boolean, version: string): string {
  const qs = e.query ? `?${new URLSearchParams(Object.entries(e.query).map(([k, v]): [string, string] => [k, String(v)]))}` : '';
  const lines = [`curl${e.method === 'get' ? '' : ` -X ${e.method.toUpperCase()}`} ${shellQuote(`${base}${e.examplePath}${qs}`)}`];
  if (authenticated) lines.push(`-H "Authorization: Bearer $TAWQI_SECRET_KEY"`);
  lines.push(`-H "Svc-Version: ${version}"`);
  if (e.method === 'post') lines.push(`-H "Idempotency-Key: $(uuidgen)"`, `-H "Content-Type: application/json"`);
  if (e.body !== undefined) lines.push(`-d ${shellQuote(JSON.stringify(e.body, null, 2))}`);
  return lines.join(' \\\n  ');
}

const literal = (value: Json): string => JSON.stringify(value, null, 2).replace(/"([A-Za-z_][A-Za-z0-9_]*)":/g, '$1:');

/** The @tawqi/node call of an operation (the method from CLIENT_METHODS). */
function nodeOf(e: Omit<OperationExample, 'curl' | 'node'>, pathValues: string[], origin: string): string {
  const method = CLIENT_METHODS[e.operationId as keyof typeof CLIENT_METHODS];
  const args = pathValues.map((v) => `'${v}'`);
  const params = e.body ?? e.query ?? undefined;
  if (params !== undefined && (e.body !== undefined || Object.keys(params).length > 0)) args.push(literal(params));
  const call = `tawqi.${method}(${args.join(', ')})`;
  const head = `import Tawqi from '@tawqi/node';\n\nconst tawqi = new Tawqi(process.env.TAWQI_SECRET_KEY, {\n  baseUrl: '${origin}',\n});\n`;
  if (method.endsWith('.list') || method.endsWith('.listDeliveries'))
    return `${head}for await (const item of ${call}) {\n  console.log(item.id);\n}`;
  if (e.response === null) return `${head}const bytes = await ${call};`;
  return `${head}const result = await ${call};`;
}

/** The examples of every operation of the document, in the document's order. */
export function operationExamples(doc: Json, base: string): OperationExample[] {
  const out: OperationExample[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const pathValues: string[] = [];
      const examplePath = path.replace(/\{([A-Za-z_]+)\}/g, (_m, name: string) => {
        const value = name === 'reference' ? 'REF-7K3M9Q2D' : `${pathPrefix(path, name)}${BODY}`;
        pathValues.push(value);
        return value;
      });
      const queryParams = (op.parameters ?? []).filter((p: Json) => p.in === 'query');
      const query = queryParams.some((p: Json) => p.name === 'limit') ? { limit: 10 } : null;
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      const body = bodySchema ? (WRITTEN_BODIES[op.operationId] ?? sample(doc, bodySchema, '', { requiredOnly: true })) : undefined;
      const [, success] = Object.entries<Json>(op.responses)[0]!;
      const json = success.content?.['application/json']?.schema;
      const base_ = { operationId: op.operationId, method, path, examplePath, query, body, response: json ? sample(doc, json) : null };
      const authenticated = !(Array.isArray(op.security) && op.security.length === 0);
      out.push({
        ...base_,
        curl: curlOf(base, base_, authenticated, doc.info.version),
        node: nodeOf(base_, pathValues, base.replace(/\/api\/v1$/, '')),
      });
    }
  }
  return out;
}

/** The id prefix of a path parameter: the resource the path names before it. */
function pathPrefix(path: string, name: string): string {
  const resource = new RegExp(`/([a-z_]+)/\\{${name}\\}`).exec(path)?.[1] ?? '';
  return ID_PREFIXES[singular(resource)] ?? (resource === 'flows' ? 'wf_' : 'id_');
}
