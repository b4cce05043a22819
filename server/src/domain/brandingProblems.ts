import type { z } from 'zod';
import { contrastRatio, MIN_BUTTON_CONTRAST, shownRatio, tooLight, WHITE, type BrandingRule } from './branding.js';

/**
 * A broken branding rule, worded in Arabic and English: the console answers it in the spec's error
 * envelope (param = the field), the CLI prints the English. Pure: no I/O.
 */
export interface BrandingProblem {
  field: string;
  rule: BrandingRule;
  en: string;
  ar: string;
  /** too_light: the contrast of white text on the colour and the minimum (WCAG 2.x AA). */
  contrast?: { ratio: number; minimum: number };
  max?: number;
}

type Wording = (p: { max?: number; hex?: string; ratio?: string }) => { en: string; ar: string };

/** The rules' texts, [English, Arabic]; the English ones are the CLI's messages. */
const WORDING: Record<BrandingRule, Wording> = {
  empty: () => ({ en: 'must not be empty', ar: 'يجب ألا يكون فارغًا' }),
  too_long: ({ max }) => ({ en: `must be at most ${max} characters`, ar: `يجب ألا يزيد على ${max} حرفًا` }),
  plain_text: () => ({ en: 'must be plain text without control characters', ar: 'يجب أن يكون نصًا عاديًا بلا محارف تحكم' }),
  one_line: () => ({ en: 'must be one line of plain text', ar: 'يجب أن يكون سطرًا واحدًا من النص العادي' }),
  https: () => ({ en: 'must be an https URL', ar: 'يجب أن يكون عنوانًا يبدأ بـ https' }),
  hex: () => ({ en: 'must be a colour in the form #rrggbb', ar: 'يجب أن يكون لونًا بالصيغة ‎#rrggbb' }),
  too_light: ({ hex, ratio }) => ({
    en: tooLight(hex!),
    ar: `فاتح أكثر من اللازم: نسبة تباين النص الأبيض على ‎${hex} هي ${ratio}:1، ويشترط معيار WCAG AA ‏${MIN_BUTTON_CONTRAST}:1 على الأقل (اختر لونًا أغمق)`,
  }),
  hostname: () => ({ en: 'must be a host name such as sign.example.com', ar: 'يجب أن يكون اسم نطاق مثل sign.example.com' }),
  email: () => ({ en: 'must be an email address', ar: 'يجب أن يكون عنوان بريد إلكتروني' }),
  type: () => ({
    en: 'has the wrong type (text, or true/false for hide_powered)',
    ar: 'نوع القيمة غير صحيح (نص، أو true/false للحقل hide_powered)',
  }),
  unknown_field: () => ({ en: 'is not a branding field', ar: 'ليس من حقول العلامة التجارية' }),
};

const FORMAT_RULES: Record<string, BrandingRule> = {
  brand_color: 'hex',
  sign_button_color: 'hex',
  logo_url: 'https',
  from_email: 'email',
  custom_domain: 'hostname',
};

function ruleOf(issue: z.core.$ZodIssue, field: string): BrandingRule {
  switch (issue.code) {
    case 'custom':
      return ((issue.params as { rule?: BrandingRule } | undefined)?.rule ?? 'type') as BrandingRule;
    case 'too_small':
      return 'empty';
    case 'too_big':
      return 'too_long';
    case 'invalid_format':
      return FORMAT_RULES[field] ?? 'type';
    case 'unrecognized_keys':
      return 'unknown_field';
    default:
      return 'type';
  }
}

/** One problem per broken rule of a failed brandingSchema parse of `input`. */
export function brandingProblems(error: z.ZodError, input: Record<string, unknown>): BrandingProblem[] {
  const out: BrandingProblem[] = [];
  for (const issue of error.issues) {
    const fields = issue.code === 'unrecognized_keys' ? issue.keys : [String(issue.path[0] ?? 'branding')];
    for (const field of fields) {
      const rule = ruleOf(issue, field);
      const params = (issue.code === 'custom' ? issue.params : undefined) as { max?: number } | undefined;
      const max = issue.code === 'too_big' ? Number(issue.maximum) : params?.max;
      const hex = String(input[field] ?? '').toLowerCase();
      const ratio = rule === 'too_light' ? contrastRatio(WHITE, hex) : 0;
      const problem: BrandingProblem = { field, rule, ...WORDING[rule]({ max, hex, ratio: shownRatio(ratio) }) };
      if (max !== undefined) problem.max = max;
      if (rule === 'too_light') problem.contrast = { ratio: Math.round(ratio * 1000) / 1000, minimum: MIN_BUTTON_CONTRAST };
      out.push(problem);
    }
  }
  return out;
}
