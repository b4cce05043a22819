import { TEMPLATE_FIELD_TYPES, type TemplateFieldType } from '@tawqi/shared/api';
import { z } from 'zod';

export type { TemplateFieldType };

export interface TemplateFieldDefinition {
  key: string;
  label: string;
  type: TemplateFieldType;
  required: boolean;
}

export const FIELD_KEY = /^[a-z][a-z0-9_]{0,63}$/;
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

export const templateFieldSchema = z.strictObject({
  key: z.string().regex(FIELD_KEY, 'lowercase letters, digits and _; starting with a letter'),
  label: z.string().trim().min(1).max(100),
  type: z.enum(TEMPLATE_FIELD_TYPES).default('text'),
  required: z.boolean().default(false),
});

export const templateCreateSchema = z.strictObject({
  title: z.string().trim().min(1).max(200),
  language: z.enum(['ar', 'en']).default('ar'),
  body: z.string().min(1).max(20000),
  fields: z.array(templateFieldSchema).max(50).default([]),
});

export type TemplateCreate = z.infer<typeof templateCreateSchema>;

/** Placeholder keys in the order they first appear in the body. */
export function placeholders(body: string): string[] {
  const seen = new Set<string>();
  for (const m of body.matchAll(PLACEHOLDER)) seen.add(m[1]!);
  return [...seen];
}

export interface TemplateProblem {
  param: string;
  en: string;
  ar: string;
}

/** Fields and placeholders must agree: every placeholder defined once, every field used. */
export function templateProblem(t: { body: string; fields: TemplateFieldDefinition[] }): TemplateProblem | null {
  const keys = t.fields.map((f) => f.key);
  const dup = keys.findIndex((k, i) => keys.indexOf(k) !== i);
  if (dup >= 0) return { param: `fields[${dup}].key`, en: `Duplicate field key ${keys[dup]}.`, ar: `مفتاح الحقل ${keys[dup]} مكرر.` };
  for (const key of placeholders(t.body)) {
    if (!FIELD_KEY.test(key))
      return { param: 'body', en: `Placeholder {{${key}}} is not a valid field key.`, ar: `العنصر النائب {{${key}}} ليس مفتاح حقل صالحًا.` };
    if (!keys.includes(key))
      return { param: 'body', en: `Placeholder {{${key}}} has no field definition.`, ar: `العنصر النائب {{${key}}} بلا تعريف حقل.` };
  }
  const used = new Set(placeholders(t.body));
  const unused = keys.findIndex((k) => !used.has(k));
  if (unused >= 0)
    return {
      param: `fields[${unused}].key`,
      en: `Field ${keys[unused]} is not used in the body.`,
      ar: `الحقل ${keys[unused]} غير مستخدم في نص العقد.`,
    };
  return null;
}

/** Fill a template body with values; missing optional values render as empty. */
export function renderTemplate(body: string, values: Record<string, string>): string {
  return body.replace(PLACEHOLDER, (_m, key: string) => values[key] ?? '');
}
