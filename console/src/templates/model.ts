/**
 * The templates screens' model: the API's template object, and the editor's rules, the server's
 * own (server/src/domain/templates.ts): a placeholder is `{{key}}`, a key is lowercase letters,
 * digits and _ starting with a letter; every placeholder needs a field and every field a placeholder.
 */
import type { TemplateField } from '../requests/model.js';

export type { TemplateField };
export const FIELD_TYPES = ['text', 'date', 'number', 'email'] as const;

export interface Template {
  id: string;
  title: string;
  language: 'ar' | 'en';
  source: 'library' | 'custom';
  body: string;
  fields: TemplateField[];
  created_at: number;
  archived_at: number | null;
}

/** What the editor sends (POST /templates, PUT /console/api/templates/:id, the preview). */
export interface TemplateDraft {
  title: string;
  language: 'ar' | 'en';
  body: string;
  fields: TemplateField[];
}

export const FIELD_KEY = /^[a-z][a-z0-9_]{0,63}$/;
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** Placeholder keys in the order they first appear in the body. */
export function placeholders(body: string): string[] {
  const seen = new Set<string>();
  for (const m of body.matchAll(PLACEHOLDER)) seen.add(m[1]!);
  return [...seen];
}

/** Where the body and the fields disagree, as the editor flags it while one types. */
export interface Mismatch {
  /** Placeholders with a valid key but no field: fixed by adding the field. */
  missing: string[];
  /** Placeholders whose key is not a valid field key: fixed in the text. */
  invalid: string[];
  /** Fields no placeholder uses: fixed by removing the field. */
  unused: string[];
  /** Keys defined twice. */
  duplicate: string[];
  /** Fields (1-based) without a valid key or a label: the server would refuse the draft. */
  incomplete: number[];
}

export function mismatch(body: string, fields: readonly TemplateField[]): Mismatch {
  const keys = fields.map((f) => f.key);
  const used = placeholders(body);
  return {
    missing: used.filter((k) => FIELD_KEY.test(k) && !keys.includes(k)),
    invalid: used.filter((k) => !FIELD_KEY.test(k)),
    unused: keys.filter((k) => k !== '' && !used.includes(k)),
    duplicate: [...new Set(keys.filter((k, i) => k !== '' && keys.indexOf(k) !== i))],
    incomplete: fields.flatMap((f, i) => (FIELD_KEY.test(f.key) && f.label !== '' ? [] : [i + 1])),
  };
}

export const isClean = (m: Mismatch): boolean =>
  m.missing.length + m.invalid.length + m.unused.length + m.duplicate.length + m.incomplete.length === 0;

/** A label to start from for a new field: its key in words (tenant_name → Tenant name). */
export function labelOf(key: string): string {
  const words = key.replace(/_+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The body as a request would show it: each placeholder replaced by its value (the server's renderTemplate). */
export function fill(body: string, values: Readonly<Record<string, string>>): string {
  return body.replace(PLACEHOLDER, (_m, key: string) => values[key] ?? '');
}
