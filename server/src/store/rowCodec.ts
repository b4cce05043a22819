/**
 * Row ↔ record conversion for tables with JSON and boolean columns, declared once per table so
 * repositories do not hand-write the same parsing for every column.
 */
export interface Codec<R> {
  json: readonly (keyof R)[];
  bool: readonly (keyof R)[];
}

export function decodeRow<R>(codec: Codec<R>, row: Record<string, unknown>): R {
  const out: Record<string, unknown> = { ...row };
  for (const k of codec.json) {
    const v = out[k as string];
    out[k as string] = v === null || v === undefined ? null : JSON.parse(v as string);
  }
  for (const k of codec.bool) out[k as string] = out[k as string] === 1;
  return out as R;
}

export function encodeRow<R>(codec: Codec<R>, record: Partial<R>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    if (v === undefined) continue;
    if (codec.json.includes(k as keyof R)) out[k] = v === null ? null : JSON.stringify(v);
    else if (codec.bool.includes(k as keyof R)) out[k] = v ? 1 : 0;
    else out[k] = v;
  }
  return out;
}
