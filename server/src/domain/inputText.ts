/**
 * The one rule for text in API input: no string (and no object key) may hold a control character —
 * C0 (U+0000–U+001F) and C1 (U+007F–U+009F) — except tab, line feed and a carriage return that
 * starts a CR LF; nor a lone UTF-16 surrogate (JSON can spell one, `"\ud800"`, but it is not text).
 * Such characters truncate strings in C libraries, hide text in PDFs and emails, and break logs.
 */
const FORBIDDEN =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|\r(?!\n)|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export interface ForbiddenAt {
  /** Where the string is: object keys and array indexes from the top (empty: the input itself). */
  path: (string | number)[];
  /** The character is in an object key; `path` names the object that has the key. */
  inKey: boolean;
}

interface Frame {
  value: unknown;
  parent: Frame | null;
  key: string | number | null;
}

function pathOf(frame: Frame): (string | number)[] {
  const path: (string | number)[] = [];
  for (let f: Frame | null = frame; f !== null && f.key !== null; f = f.parent) path.push(f.key);
  return path.reverse();
}

/**
 * The first string or key, in document order, that holds a forbidden character in a parsed JSON
 * value (or a parsed query); undefined when there is none. Iterative, so a deeply nested body
 * costs no stack.
 */
export function forbiddenCharacterAt(input: unknown): ForbiddenAt | undefined {
  const stack: Frame[] = [{ value: input, parent: null, key: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (typeof v === 'string') {
      if (FORBIDDEN.test(v)) return { path: pathOf(frame), inKey: false };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], parent: frame, key: i });
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      if (keys.some((k) => FORBIDDEN.test(k))) return { path: pathOf(frame), inKey: true };
      for (let i = keys.length - 1; i >= 0; i--)
        stack.push({ value: (v as Record<string, unknown>)[keys[i]!], parent: frame, key: keys[i]! });
    }
  }
  return undefined;
}
