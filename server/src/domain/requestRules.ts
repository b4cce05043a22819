import type { Feature } from './plans.js';
import type { SignatureRequestCreate } from './signatureRequestInput.js';
import { DEFAULT_FORMAT } from './signatureRequestInput.js';
import type { TemplateFieldDefinition } from './templates.js';

/** A refused input: the error code from the shared table and the field it names. */
export interface InputProblem {
  code:
    | 'parameter_invalid'
    | 'parameter_missing'
    | 'parameter_unknown'
    | 'too_many_signers'
    | 'test_signer_limit'
    | 'test_email_required'
    | 'test_recipient_not_allowed'
    | 'invalid_request';
  param: string;
  en?: string;
  ar?: string;
  extra?: Record<string, unknown>;
}

export const MAX_SIGNERS = 5;

/** The plan features a create body uses (spec 4.1 rule 3), each with the field that uses it. */
export function featuresUsed(body: SignatureRequestCreate): [Feature, string][] {
  const used: [Feature, string][] = [];
  if (body.ordered) used.push(['ordered', 'ordered']);
  for (const f of ['return_url', 'success_url', 'cancel_url'] as const) if (body[f]) used.push([f, f]);
  if (body.legal_level === 'qes') used.push(['qes', 'legal_level']);
  body.signers.forEach((s, i) => {
    if (s.method === 'token') used.push(['method_token', `signers[${i}].method`]);
    if (s.access_code !== undefined) used.push(['access_code', `signers[${i}].access_code`]);
  });
  return used;
}

export interface ResolvedSigner {
  method: 'draw' | 'token';
  requireIdentity: boolean;
}

/** Level rules: qes signs with a token only; token only with qes; aes (and require_identity) means identity for every signer. */
export function resolveSigners(body: SignatureRequestCreate): ResolvedSigner[] | InputProblem {
  const out: ResolvedSigner[] = [];
  for (const [i, s] of body.signers.entries()) {
    const method = s.method ?? (body.legal_level === 'qes' ? 'token' : 'draw');
    if (method === 'token' && body.legal_level !== 'qes') {
      return {
        code: 'parameter_invalid',
        param: `signers[${i}].method`,
        en: 'method token needs legal_level qes.',
        ar: 'طريقة token تتطلب المستوى qes.',
      };
    }
    if (method === 'draw' && body.legal_level === 'qes') {
      return {
        code: 'parameter_invalid',
        param: `signers[${i}].method`,
        en: 'legal_level qes signs with method token.',
        ar: 'المستوى qes يوقَّع بطريقة token.',
      };
    }
    out.push({ method, requireIdentity: body.legal_level === 'aes' || body.require_identity || (s.require_identity ?? false) });
  }
  return out;
}

export function resolveFormat(body: SignatureRequestCreate): string | InputProblem {
  const format = body.format ?? DEFAULT_FORMAT[body.legal_level];
  const pades = format.startsWith('pades');
  if (body.legal_level === 'ses' && pades) {
    return {
      code: 'parameter_invalid',
      param: 'format',
      en: 'ses requests use platform-evidence.',
      ar: 'طلبات ses تستخدم platform-evidence.',
    };
  }
  if (body.legal_level !== 'ses' && !pades) {
    return {
      code: 'parameter_invalid',
      param: 'format',
      en: 'aes and qes requests use pades-t or pades-lt.',
      ar: 'طلبات aes وqes تستخدم pades-t أو pades-lt.',
    };
  }
  return format;
}

/** Signer counts and contacts per mode (spec 4.1, part 5 test keys, part 8). */
export function signerProblems(
  body: SignatureRequestCreate,
  livemode: boolean,
  team: { emails: readonly string[]; phones: readonly string[] },
): InputProblem | null {
  if (body.signers.length > MAX_SIGNERS) {
    return livemode
      ? { code: 'too_many_signers', param: 'signers', extra: { max_signers: MAX_SIGNERS } }
      : { code: 'test_signer_limit', param: 'signers', extra: { max_signers: MAX_SIGNERS } };
  }
  const emails = team.emails.map((e) => e.toLowerCase());
  for (const [i, s] of body.signers.entries()) {
    if (!livemode) {
      if (!s.email) return { code: 'test_email_required', param: `signers[${i}].email` };
      if (!emails.includes(s.email.toLowerCase())) return { code: 'test_recipient_not_allowed', param: `signers[${i}].email` };
      if (s.phone && !team.phones.includes(s.phone)) return { code: 'test_recipient_not_allowed', param: `signers[${i}].phone` };
    } else if (!s.email && !s.phone) {
      return {
        code: 'parameter_missing',
        param: `signers[${i}].email`,
        en: 'A signer needs an email or a phone number.',
        ar: 'يحتاج الموقّع إلى بريد إلكتروني أو رقم هاتف.',
      };
    }
  }
  return null;
}

/** A real calendar day in YYYY-MM-DD (2026-02-30 and 2026-13-01 are refused). */
function isCalendarDate(v: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

const FIELD_FORMATS: Record<string, { test: (v: string) => boolean }> = {
  date: { test: isCalendarDate },
  number: /^-?\d+(\.\d+)?$/,
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
};

/**
 * Signers' field values against the template: no unknown keys, values of the declared type, and
 * every required field given by some signer (the document is filled from all signers' values).
 */
export function fieldProblems(body: SignatureRequestCreate, fields: readonly TemplateFieldDefinition[]): InputProblem | null {
  const byKey = new Map(fields.map((f) => [f.key, f]));
  const given = new Set<string>();
  for (const [i, s] of body.signers.entries()) {
    for (const [key, value] of Object.entries(s.fields)) {
      const def = byKey.get(key);
      if (!def)
        return {
          code: 'parameter_unknown',
          param: `signers[${i}].fields.${key}`,
          en: `The template has no field ${key}.`,
          ar: `لا يحتوي القالب على الحقل ${key}.`,
        };
      const format = FIELD_FORMATS[def.type];
      if (value.trim() !== '' && format && !format.test(value.trim())) {
        return {
          code: 'parameter_invalid',
          param: `signers[${i}].fields.${key}`,
          en: `Field ${key} must be a ${def.type}.`,
          ar: `الحقل ${key} يجب أن يكون من النوع ${def.type}.`,
        };
      }
      if (value.trim() !== '') given.add(key);
    }
  }
  const missing = fields.find((f) => f.required && !given.has(f.key));
  if (missing) {
    return {
      code: 'parameter_missing',
      param: `signers[0].fields.${missing.key}`,
      en: `The template's required field ${missing.key} has no value.`,
      ar: `الحقل المطلوب ${missing.key} بلا قيمة.`,
    };
  }
  return null;
}

/** Merge every signer's field values into the document's values (first signer to give a key wins). */
export function documentValues(signers: readonly { fields: Record<string, string> }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of signers) for (const [k, v] of Object.entries(s.fields)) if (!(k in out) && v.trim() !== '') out[k] = v;
  return out;
}
