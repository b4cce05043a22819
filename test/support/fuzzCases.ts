/**
 * Requests for every operation of the served OpenAPI document, valid and invalid, as fast-check
 * arbitraries: the path with ids (of the right kind, of other kinds, of another account, malformed),
 * the query and the JSON body from the operation's schemas (schemaArbitrary.ts) or broken
 * (schemaMutations.ts), the headers (key, Svc-Version, Accept-Language, Origin, Idempotency-Key),
 * sizes around the body limit and broken encodings (cut JSON, wrong Content-Type, bytes that are not
 * UTF-8). A case says whether the server must refuse it (`mustRefuse`) and why.
 *
 * Nothing here names a route: a new operation in the document is fuzzed as it is.
 */
import fc from 'fast-check';
import { arbitraryFor, type Hints, type Schema, type SchemaContext } from './schemaArbitrary.js';
import { FORBIDDEN_TEXT, mutationsOf } from './schemaMutations.js';

export interface FuzzWorld {
  doc: Schema;
  /** Is this body valid against this schema of the document (strict ajv)? */
  valid: (schema: Schema, value: unknown) => boolean;
  hints: Hints;
  /** Ids that exist, by the collection (first path segment) they belong to. */
  ids: Record<string, readonly string[]>;
  /** Ids of another account's objects. */
  foreignIds: readonly string[];
  /** The credentials a case may carry (Authorization: Bearer …), weighted. */
  keys: readonly { name: string; key: string; weight: number }[];
  /** Origins an API key of the world allows. */
  origins: readonly string[];
  bodyLimit: number;
}

export interface FuzzCase {
  operation: string;
  method: string;
  /** From the host on: prefix, path, query, already encoded. */
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Reasons the server must answer 4xx (empty: any documented status will do). */
  mustRefuse: string[];
  /** How the case was made, for the report of a failure. */
  notes: string[];
}

interface Part<T> {
  value: T;
  refuse?: string;
  note?: string;
}

export interface Operation {
  key: string;
  method: string;
  path: string;
  op: Schema;
}

export function operationsOf(doc: Schema): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Schema>)) {
    for (const [method, op] of Object.entries(item as Record<string, Schema>))
      out.push({ key: `${method.toUpperCase()} ${path}`, method, path, op });
  }
  return out;
}

/** Percent-encode every byte but the unreserved ones (RFC 3986), so any text survives the trip. */
export function encodeComponent(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Raw segments no encoder makes: bad escapes, an encoded lone surrogate, NUL, a slash, dots. */
const MALFORMED_SEGMENTS = ['%ZZ', '%', '%E0%A4', '%ED%A0%80', '%00', '%2F', '..', '%2E%2E', 'sr_%FF', '%C0%AF', 'a'.repeat(3000)];

function pathIdArbitrary(world: FuzzWorld, collection: string): fc.Arbitrary<Part<string>> {
  const own = world.ids[collection] ?? [];
  const others = Object.entries(world.ids).flatMap(([c, ids]) => (c === collection ? [] : ids));
  const choices: fc.WeightedArbitrary<Part<string>>[] = [
    { weight: 1, arbitrary: fc.constantFrom(...MALFORMED_SEGMENTS).map((v) => ({ value: v, note: `malformed id ${v.slice(0, 20)}` })) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map((v) => ({ value: encodeComponent(v), note: 'random id' })) },
  ];
  if (own.length > 0)
    choices.push({ weight: 6, arbitrary: fc.constantFrom(...own).map((v) => ({ value: encodeComponent(v), note: `id ${v}` })) });
  if (others.length > 0)
    choices.push({
      weight: 1,
      arbitrary: fc.constantFrom(...others).map((v) => ({ value: encodeComponent(v), note: `id of another kind ${v}` })),
    });
  if (world.foreignIds.length > 0) {
    choices.push({
      weight: 1,
      arbitrary: fc.constantFrom(...world.foreignIds).map((v) => ({ value: encodeComponent(v), note: `another account's id ${v}` })),
    });
  }
  return fc.oneof(...choices);
}

function pathArbitrary(world: FuzzWorld, template: string): fc.Arbitrary<Part<string>> {
  const segments = template.split('/').filter(Boolean);
  const collection = segments[0] ?? '';
  const parts = segments.map((seg) =>
    /^\{.+\}$/.test(seg) ? pathIdArbitrary(world, collection) : fc.constant<Part<string>>({ value: seg }),
  );
  return fc.tuple(...parts).map((ps) => ({
    value: `/${ps.map((p) => p.value).join('/')}`.replace(/\/$/, '') || '/',
    note: ps.flatMap((p) => (p.note ? [p.note] : [])).join(', '),
  }));
}

/** A query value's text for the URL: numbers and booleans as JSON writes them. */
const queryText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

function queryArbitrary(world: FuzzWorld, op: Schema, ctx: SchemaContext): fc.Arbitrary<Part<string>> {
  const params = (op.parameters as Schema[]).filter((p) => p.in === 'query');
  if (params.length === 0) return fc.constant({ value: '' });
  const schema = { type: 'object', properties: Object.fromEntries(params.map((p) => [p.name, p.schema])) };
  const valid = arbitraryFor(schema, ctx) as fc.Arbitrary<Record<string, unknown>>;
  const lang = fc.option(fc.constantFrom('ar', 'en', 'fr', ''), { freq: 4 });
  return fc.tuple(valid, fc.nat(), fc.integer({ min: 0, max: 9 }), lang).map(([values, pick, how, l]) => {
    const entries: [string, string][] = Object.entries(values).map(([k, v]) => [k, encodeComponent(queryText(v))]);
    if (l !== null) entries.push(['lang', encodeComponent(l)]);
    const broken = how < 4 ? breakQuery(params, values, pick, how) : null;
    if (broken) {
      const rest = entries.filter(([k]) => k !== broken.name);
      rest.push(...broken.raw.map((r): [string, string] => [broken.name, r]));
      return { value: `?${rest.map(([k, v]) => `${k}=${v}`).join('&')}`, refuse: broken.refuse, note: broken.note };
    }
    return { value: entries.length > 0 ? `?${entries.map(([k, v]) => `${k}=${v}`).join('&')}` : '', note: 'valid query' };
  });
}

/** One query parameter broken: its schema's rules in query form, a control character, a repeated parameter. */
function breakQuery(
  params: Schema[],
  values: Record<string, unknown>,
  pick: number,
  how: number,
): { name: string; raw: string[]; refuse?: string; note: string } | null {
  const p = params[pick % params.length]!;
  const s = p.schema;
  const current = values[p.name] !== undefined ? queryText(values[p.name]) : 'x';
  const options: { raw: string[]; refuse?: string; note: string }[] = [];
  if (s.enum) options.push({ raw: ['not-a-listed-value'], refuse: 'query value outside the enum', note: `${p.name} outside enum` });
  if (s.type === 'integer') {
    options.push({ raw: ['abc'], refuse: 'query integer not a number', note: `${p.name}=abc` });
    if (s.maximum !== undefined)
      options.push({ raw: [String(s.maximum + 1)], refuse: 'query integer above maximum', note: `${p.name} above max` });
    if (s.minimum !== undefined)
      options.push({ raw: [String(s.minimum - 1)], refuse: 'query integer below minimum', note: `${p.name} below min` });
    options.push({ raw: ['1.5'], refuse: 'query fraction for an integer', note: `${p.name}=1.5` });
  }
  if (s.maxLength !== undefined)
    options.push({ raw: ['x'.repeat(s.maxLength + 1)], refuse: 'query value too long', note: `${p.name} too long` });
  if (s.pattern && !new RegExp(s.pattern).test('!nope'))
    options.push({ raw: ['!nope'], refuse: 'query value not matching its pattern', note: `${p.name} off pattern` });
  // Lone surrogates cannot be written in UTF-8: only the other forbidden characters travel in a URL as such.
  const control = FORBIDDEN_TEXT.filter((c) => !/[\ud800-\udfff]/.test(c));
  options.push({
    raw: [encodeComponent(current + control[pick % control.length]!)],
    refuse: 'control character in a query value',
    note: `${p.name} with a control character`,
  });
  options.push({
    raw: [encodeComponent(current), encodeComponent(current)],
    refuse: 'a query parameter given twice',
    note: `${p.name} twice`,
  });
  options.push({ raw: [`${encodeComponent(current)}%ED%A0%80%ZZ`], note: `${p.name} with undecodable bytes` });
  return { name: p.name, ...options[how % options.length]! };
}

interface BodyPart {
  bytes?: Buffer;
  contentType?: string;
  refuse?: string;
  note: string;
}

const BAD_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  'application/jsonx',
  'multipart/form-data; boundary=x',
];

function bodyArbitrary(world: FuzzWorld, op: Schema, ctx: SchemaContext): fc.Arbitrary<BodyPart> {
  const schema: Schema = op.requestBody?.content?.['application/json']?.schema ?? { type: 'object' };
  const valid = arbitraryFor(schema, ctx);
  const json = (v: unknown, note: string, refuse?: string): BodyPart => ({
    bytes: Buffer.from(JSON.stringify(v)),
    contentType: 'application/json',
    note,
    refuse,
  });
  return fc.tuple(valid, fc.integer({ min: 0, max: 19 }), fc.nat()).map(([value, how, pick]): BodyPart => {
    if (how <= 7) {
      if (!op.requestBody && how <= 3) return { note: 'no body' };
      return json(value, 'valid body');
    }
    if (how <= 11) {
      const mutations = mutationsOf(schema, value, ctx);
      if (mutations.length === 0) return json(value, 'valid body (nothing to break)');
      const m = mutations[pick % mutations.length]!;
      // A rule broken must be broken by the document's own judgement before a refusal is expected.
      // A route without a body schema reads no body: breaking one is no reason to refuse.
      const refuse = !op.requestBody
        ? undefined
        : m.kind === 'control'
          ? `control character: ${m.describe}`
          : world.valid(schema, m.value)
            ? undefined
            : `invalid by the schema: ${m.describe}`;
      return json(m.value, m.describe, refuse);
    }
    const text = JSON.stringify(value);
    switch (how) {
      case 12:
        return json(
          ([[], 'text', 42, null, true] as unknown[])[pick % 5],
          'a body that is not an object',
          op.requestBody ? 'the body is not an object' : undefined,
        );
      case 13: {
        // At least one byte: an empty body is no body, which a route without a body schema accepts.
        const cut = text.slice(0, 1 + (pick % Math.max(1, text.length - 1)));
        return {
          bytes: Buffer.from(cut),
          contentType: 'application/json',
          note: `cut JSON ${JSON.stringify(cut.slice(0, 40))}`,
          refuse: 'malformed JSON',
        };
      }
      case 14: {
        const type = BAD_CONTENT_TYPES[pick % BAD_CONTENT_TYPES.length]!;
        return { bytes: Buffer.from(text), contentType: type, note: `Content-Type ${type}`, refuse: 'not application/json' };
      }
      case 15:
        return { bytes: Buffer.from(text), note: 'no Content-Type', refuse: 'a body without Content-Type' };
      case 16:
        return {
          bytes: notUtf8(text, pick),
          contentType: 'application/json; charset=utf-8',
          note: 'bytes that are not UTF-8 inside a string',
        };
      case 17:
        return {
          bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
          contentType: 'application/json',
          note: 'a byte order mark first',
        };
      default:
        return sized(text, world.bodyLimit, pick);
    }
  });
}

/** The JSON with bytes no UTF-8 decoder accepts put inside its first string. */
function notUtf8(text: string, pick: number): Buffer {
  const bad = [
    Buffer.from([0xff]),
    Buffer.from([0xc3, 0x28]),
    Buffer.from([0xed, 0xa0, 0x80]),
    Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
    Buffer.from([0xe2, 0x82]),
  ][pick % 5]!;
  const at = text.indexOf('"') + 1;
  if (at <= 0) return Buffer.concat([Buffer.from(text), bad]);
  return Buffer.concat([Buffer.from(text.slice(0, at)), bad, Buffer.from(text.slice(at))]);
}

/** The same JSON padded with spaces to just under, at, just over or far over the body limit. */
function sized(text: string, limit: number, pick: number): BodyPart {
  const targets = [limit - 1, limit, limit + 1, limit * 4];
  const target = targets[pick % targets.length]!;
  const bytes = Buffer.from(text);
  const padded =
    bytes.length >= target
      ? bytes
      : Buffer.concat([bytes.subarray(0, bytes.length - 1), Buffer.alloc(target - bytes.length, 0x20), bytes.subarray(bytes.length - 1)]);
  return {
    bytes: padded,
    contentType: 'application/json',
    note: `${padded.length} bytes (limit ${limit})`,
    refuse: padded.length > limit ? 'over the body limit' : undefined,
  };
}

const latin1Text = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c < 0x7f || c > 0x9f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 30,
});

function headersArbitrary(world: FuzzWorld, method: string): fc.Arbitrary<Part<Record<string, string>>[]> {
  const versions: string[] = world.doc.components.parameters.SvcVersion.schema.enum;
  const key = fc.oneof(
    ...world.keys.map((k) => ({
      weight: k.weight,
      arbitrary: fc.constant<Part<Record<string, string>>>({ value: { authorization: `Bearer ${k.key}` }, note: k.name }),
    })),
    { weight: 1, arbitrary: fc.constant<Part<Record<string, string>>>({ value: {}, note: 'no key', refuse: undefined }) },
  );
  const version = fc.oneof(
    { weight: 6, arbitrary: fc.constant<Part<Record<string, string>>>({ value: {} }) },
    { weight: 3, arbitrary: fc.constantFrom(...versions).map((v) => ({ value: { 'svc-version': v } })) },
    {
      weight: 1,
      arbitrary: latin1Text
        .filter((v) => !versions.includes(v.trim()))
        .map((v) => ({ value: { 'svc-version': v }, refuse: 'unknown Svc-Version', note: `Svc-Version ${JSON.stringify(v)}` })),
    },
  );
  const language = fc.oneof(
    { weight: 4, arbitrary: fc.constant<Part<Record<string, string>>>({ value: {} }) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom('en', 'ar', 'en-US,en;q=0.9', 'fr', '*', 'ar-EG;q=0.1, en;q=0.2')
        .map((v) => ({ value: { 'accept-language': v } })),
    },
    { weight: 1, arbitrary: latin1Text.map((v) => ({ value: { 'accept-language': v }, note: `Accept-Language ${JSON.stringify(v)}` })) },
  );
  const origin = fc.oneof(
    { weight: 4, arbitrary: fc.constant<Part<Record<string, string>>>({ value: {} }) },
    ...(world.origins.length > 0
      ? [{ weight: 2, arbitrary: fc.constantFrom(...world.origins).map((v) => ({ value: { origin: v } })) }]
      : []),
    { weight: 1, arbitrary: latin1Text.map((v) => ({ value: { origin: v }, note: `Origin ${JSON.stringify(v)}` })) },
  );
  const idempotency =
    method !== 'post'
      ? fc.constant<Part<Record<string, string>>>({ value: {} })
      : fc.oneof(
          { weight: 3, arbitrary: fc.constant<Part<Record<string, string>>>({ value: {} }) },
          { weight: 3, arbitrary: fc.uuid().map((v) => ({ value: { 'idempotency-key': v } })) },
          // A few shared keys, so that replays and reuse on other paths happen.
          {
            weight: 2,
            arbitrary: fc
              .constantFrom('fuzz-1', 'fuzz-2', 'fuzz-3')
              .map((v) => ({ value: { 'idempotency-key': v }, note: `Idempotency-Key ${v}` })),
          },
          {
            weight: 1,
            arbitrary: fc.constant({
              value: { 'idempotency-key': 'k'.repeat(201) },
              refuse: 'Idempotency-Key over 200 characters',
              note: 'long Idempotency-Key',
            }),
          },
          {
            weight: 1,
            arbitrary: latin1Text
              .filter((v) => v.trim().length > 0)
              .map((v) => ({ value: { 'idempotency-key': v }, note: `Idempotency-Key ${JSON.stringify(v)}` })),
          },
        );
  return fc.tuple(key, version, language, origin, idempotency);
}

/** Cases for one operation. */
export function operationCases(world: FuzzWorld, operation: Operation): fc.Arbitrary<FuzzCase> {
  const ctx: SchemaContext = { components: world.doc.components.schemas, hints: world.hints };
  const hasBody = operation.method === 'post' || operation.method === 'patch';
  const prefix = fc.constantFrom('/api/v1', '/api/v1', '/api/v1', '/en/api/v1');
  const body = hasBody ? bodyArbitrary(world, operation.op, ctx) : fc.constant<BodyPart>({ note: 'no body' });
  return fc
    .tuple(
      prefix,
      pathArbitrary(world, operation.path),
      queryArbitrary(world, operation.op, ctx),
      body,
      headersArbitrary(world, operation.method),
    )
    .map(([pre, path, query, b, headerParts]) => {
      const headers: Record<string, string> = Object.assign({}, ...headerParts.map((h) => h.value));
      if (b.contentType) headers['content-type'] = b.contentType;
      const parts: { refuse?: string; note?: string }[] = [path, query, b, ...headerParts];
      return {
        operation: operation.key,
        method: operation.method.toUpperCase(),
        url: `${pre}${path.value}${query.value}`,
        headers,
        body: b.bytes,
        mustRefuse: parts.flatMap((p) => (p.refuse ? [p.refuse] : [])),
        notes: parts.flatMap((p) => (p.note ? [p.note] : [])),
      };
    });
}

/** Cases for every operation of the document, each operation as likely as any other. */
export function apiCases(world: FuzzWorld): fc.Arbitrary<FuzzCase> {
  return fc.oneof(...operationsOf(world.doc).map((o) => operationCases(world, o)));
}
