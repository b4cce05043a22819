/**
 * Invalid values made from valid ones: every place in a value (found by walking it beside its
 * JSON Schema) offers the mutations its schema forbids — a wrong type, a required field taken out,
 * an unknown key in a closed object, a string too long or too short, a number out of range, a value
 * outside its enum or pattern, too many or too few items — and, for every string and map key, a
 * control character or lone surrogate, which the server refuses in any text (domain/inputText.ts)
 * although no schema says so.
 *
 * `byRule` mutations break the schema itself (the fuzz test confirms it with ajv against the
 * document before expecting a refusal); `control` ones break the server's text rule.
 */
import { jsonType, resolveSchema, schemaTypes, type Schema, type SchemaContext } from './schemaArbitrary.js';

export interface Mutation {
  /** What was done, and where (for the report of a failing case). */
  describe: string;
  kind: 'byRule' | 'control';
  value: unknown;
}

type Path = (string | number)[];

/** Characters no string of the API may hold: C0, DEL, C1, lone surrogates (each half), NUL inside text. */
export const FORBIDDEN_TEXT: readonly string[] = [
  '\u0000',
  'a\u0000b',
  '\u0007',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u009f',
  '\ud800',
  '\udfff',
  'x\udc00y',
  '\r',
];

const WRONG_TYPED: readonly unknown[] = ['text', 7, 1.5, true, null, [1], { a: 1 }];

const UNKNOWN_KEY = 'zz_not_a_field';

function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = (Array.isArray(root) ? [...(root as unknown[])] : { ...(root as Record<string, unknown>) }) as Record<
    string | number,
    unknown
  >;
  const [head, ...rest] = path;
  copy[head!] = setAt((root as Record<string | number, unknown>)[head!], rest, value);
  return copy;
}

const where = (path: Path) => (path.length === 0 ? 'the body' : path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join(''));

/** Every mutation of `root` that breaks `schema` at some place, or the text rule. */
export function mutationsOf(schema: Schema, root: unknown, ctx: SchemaContext): Mutation[] {
  const out: Mutation[] = [];
  const visit = (sub: Schema, value: unknown, path: Path): void => {
    const s = resolveSchema(sub, ctx) ?? {};
    const add = (kind: Mutation['kind'], what: string, v: unknown) =>
      out.push({ kind, describe: `${what} at ${where(path)}`, value: setAt(root, path, v) });
    ruleMutations(s, value, add);
    if (typeof value === 'string') for (const bad of FORBIDDEN_TEXT) add('control', `text with ${JSON.stringify(bad)}`, value + bad);
    if (Array.isArray(value)) value.forEach((item, i) => visit(s.items ?? {}, item, [...path, i]));
    else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const [k, v] of Object.entries(record)) {
        const propSchema = s.properties?.[k] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : {});
        visit(propSchema, v, [...path, k]);
      }
      const key = `k${FORBIDDEN_TEXT[Object.keys(record).length % FORBIDDEN_TEXT.length]}`;
      add('control', `a key with ${JSON.stringify(key)}`, { ...record, [key]: 'x' });
    }
  };
  visit(schema, root, []);
  return out;
}

/** The mutations the schema at one place forbids. */
function ruleMutations(s: Schema, value: unknown, add: (kind: Mutation['kind'], what: string, v: unknown) => void): void {
  const types = schemaTypes(s);
  if (types.length > 0) {
    for (const w of WRONG_TYPED) {
      const t = jsonType(w);
      const allowed = types.includes(t) || (t === 'integer' && types.includes('number'));
      if (!allowed) add('byRule', `a ${t} instead of ${types.join('|')}`, w);
    }
  }
  if (s.enum || s.const !== undefined) add('byRule', 'a value outside the enum', 'not-a-listed-value');
  if (typeof value === 'string') {
    if (s.maxLength !== undefined) add('byRule', `${s.maxLength + 1} characters (max ${s.maxLength})`, 'x'.repeat(s.maxLength + 1));
    if (s.minLength > 0) add('byRule', `an empty string (min ${s.minLength})`, '');
    if (s.pattern && !new RegExp(s.pattern).test('!nope')) add('byRule', `a string not matching ${s.pattern}`, '!nope');
  }
  if (typeof value === 'number') {
    if (s.maximum !== undefined) add('byRule', `above the maximum ${s.maximum}`, s.maximum + 1);
    if (s.minimum !== undefined) add('byRule', `below the minimum ${s.minimum}`, s.minimum - 1);
    if (s.exclusiveMinimum !== undefined) add('byRule', `at the exclusive minimum ${s.exclusiveMinimum}`, s.exclusiveMinimum);
    if (types.includes('integer') && !types.includes('number')) add('byRule', 'a fraction for an integer', value + 0.5);
  }
  if (Array.isArray(value)) {
    if (s.maxItems !== undefined && value.length > 0) {
      add(
        'byRule',
        `${s.maxItems + 1} items (max ${s.maxItems})`,
        Array.from({ length: s.maxItems + 1 }, (_, i) => value[i % value.length]),
      );
    }
    if (s.minItems > 0) add('byRule', `no items (min ${s.minItems})`, []);
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const name of s.required ?? []) {
      const rest = { ...(value as Record<string, unknown>) };
      delete rest[name];
      add('byRule', `${name} left out`, rest);
    }
    if (s.additionalProperties === false) add('byRule', `an unknown key ${UNKNOWN_KEY}`, { ...(value as object), [UNKNOWN_KEY]: 1 });
  }
}
