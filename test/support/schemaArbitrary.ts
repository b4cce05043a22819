/**
 * JSON Schema (the subset the OpenAPI document uses) → a fast-check arbitrary of values the schema
 * accepts. The fuzz tests (test/server/fuzz-api.test.ts, bench/fuzz) derive every request from the
 * served document through this, so a new route or field is fuzzed with no new code.
 *
 * Strings are drawn from an alphabet that holds the Unicode a hostile or merely international
 * client sends and the server must take as text: Arabic, bidi marks (RLM, LRM, RLE…PDF, isolates),
 * combining marks, zero-width joiners, tab and line breaks. Lengths are counted in UTF-16 units (as
 * zod does), so a value is never longer than the schema allows whichever way it is counted.
 *
 * `hints` give realistic values by property name (an id of an object that exists, a team email),
 * mixed with what the schema alone yields, so that valid requests reach past the lookups.
 */
import fc from 'fast-check';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Schema = any;

export type Hints = Record<string, readonly unknown[]>;

export interface SchemaContext {
  /** components/schemas of the document, for $ref. */
  components: Record<string, Schema>;
  hints: Hints;
}

/** Text that is valid in every string field: letters, digits, Arabic, marks that change direction or combine. */
const TEXT_UNITS: readonly string[] = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,:;!?@#%&*()[]{}\'"/\\<>=+~`^$|',
  ...'ابتثجحخدذرسشصضطظعغفقكلمنهويءآأإةى٠١٢٣٤٥٦٧٨٩',
  '\u200e', // LRM
  '\u200f', // RLM
  '\u202a', // LRE
  '\u202b', // RLE
  '\u202c', // PDF
  '\u202e', // RLO
  '\u2066', // LRI
  '\u2067', // RLI
  '\u2069', // PDI
  '\u0301', // combining acute accent
  '\u0651', // Arabic shadda (combining)
  '\u064e', // Arabic fatha (combining)
  '\u200d', // ZWJ
  '\u200b', // zero-width space
  '\ufeff', // BOM as a character
  '\u00e9',
  '\u00df',
  '\t',
  '\n',
  '\r\n',
  '\ud83d\ude00', // an emoji: two UTF-16 units
  '\u{1f1ea}\u{1f1ec}', // a flag: four units
];

export const textUnit = fc.constantFrom(...TEXT_UNITS);

/** A string of TEXT_UNITS whose UTF-16 length is within [min, max]. */
export function textString(min: number, max: number): fc.Arbitrary<string> {
  // A unit is at most 4 UTF-16 code units: draw enough units to reach min, then cut to max.
  const cap = Math.min(max, min + 24);
  return fc.array(textUnit, { minLength: min, maxLength: Math.max(min, cap) }).map((units) => {
    let s = '';
    for (const u of units) {
      if (s.length + u.length > max) break;
      s += u;
    }
    while (s.length < min) s += 'a';
    return s;
  });
}

function resolve(schema: Schema, ctx: SchemaContext): Schema {
  let s = schema;
  while (s && typeof s.$ref === 'string') s = ctx.components[s.$ref.replace('#/components/schemas/', '')];
  return s;
}

/** The JSON types a schema allows (empty: any). */
export function schemaTypes(schema: Schema): string[] {
  if (schema.const !== undefined) return [jsonType(schema.const)];
  if (Array.isArray(schema.enum)) return [...new Set(schema.enum.map(jsonType))] as string[];
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) return [...new Set(branches.flatMap((b: Schema) => schemaTypes(b)))] as string[];
  return [];
}

export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const min: number = schema.minLength ?? 0;
  const max: number = schema.maxLength ?? Math.max(min, 60);
  if (schema.pattern) {
    const re = new RegExp(schema.pattern);
    return fc.stringMatching(re, { size: 'xsmall' }).filter((s) => s.length >= min && s.length <= max);
  }
  if (schema.format === 'email')
    return fc.tuple(fc.stringMatching(/^[a-z0-9]{1,12}$/), fc.constantFrom('example.com', 'example.org')).map(([l, d]) => `${l}@${d}`);
  return textString(min, max);
}

function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1_000_000);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1_000_000);
  if (integer)
    return fc.oneof(fc.constantFrom(min, max), fc.integer({ min: Math.max(min, -2_147_483_648), max: Math.min(max, 2_147_483_647) }));
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

function objectArbitrary(schema: Schema, ctx: SchemaContext, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const entries = Object.entries(properties);
  if (entries.length === 0 && schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    // A map (metadata, fields): keys from propertyNames, values from additionalProperties.
    const key = schema.propertyNames ? stringArbitrary(schema.propertyNames) : fc.stringMatching(/^[a-z][a-z0-9_]{0,15}$/);
    return fc.dictionary(key, arbitraryFor(schema.additionalProperties, ctx, depth + 1), { maxKeys: 4, noNullPrototype: true });
  }
  // An optional field is there half the time, one with hints five times in six: a field the world
  // has realistic values for (an email in test mode) is what valid requests most often lack.
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, sub] of entries) {
    const value = valueFor(name, sub, ctx, depth + 1);
    record[name] = required.has(name) ? value : fc.option(value, { nil: ABSENT, freq: ctx.hints[name] ? 6 : 2 });
  }
  return fc.record(record).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== ABSENT)));
}

const ABSENT = Symbol('absent');

/** A property's value: one of its hints (when the name has some) or anything its schema allows. */
function valueFor(name: string, schema: Schema, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  const own = arbitraryFor(schema, ctx, depth);
  const hinted = ctx.hints[name];
  if (!hinted || hinted.length === 0) return own;
  return fc.oneof({ arbitrary: fc.constantFrom(...hinted), weight: 9 }, { arbitrary: own, weight: 1 });
}

/** Values `schema` accepts. */
export function arbitraryFor(schema: Schema, ctx: SchemaContext, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, ctx);
  if (!s || Object.keys(s).length === 0) return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean());
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) return fc.oneof(...branches.map((b: Schema) => arbitraryFor(b, ctx, depth)));
  const types = schemaTypes(s);
  if (types.length > 1) return fc.oneof(...types.map((t) => arbitraryFor({ ...s, type: t }, ctx, depth)));
  switch (types[0]) {
    case 'string':
      return stringArbitrary(s);
    case 'integer':
      return numberArbitrary(s, true);
    case 'number':
      return numberArbitrary(s, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const max = Math.min(s.maxItems ?? 3, depth > 2 ? Math.max(s.minItems ?? 0, 1) : 3);
      return fc.array(arbitraryFor(s.items ?? {}, ctx, depth + 1), {
        minLength: s.minItems ?? 0,
        maxLength: Math.max(max, s.minItems ?? 0),
      });
    }
    case 'object':
      return objectArbitrary(s, ctx, depth);
    default:
      return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean());
  }
}

/** Resolve a $ref (exported for the mutations, which walk the same schemas). */
export function resolveSchema(schema: Schema, ctx: SchemaContext): Schema {
  return resolve(schema, ctx);
}
