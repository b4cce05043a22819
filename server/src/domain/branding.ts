/**
 * Account branding (spec 2.9): brand name, logo, colours, custom domain, sender address, the
 * "Powered by Tawqi" switch and the signing page's welcome text in Arabic and English. Set by the
 * operator (`tawqi account branding`), stored in accounts.branding, applied to the signing page and
 * to every email. Pure rules, no I/O.
 */
import { z } from 'zod';
import { contrastRatio, MIN_BUTTON_CONTRAST, shownRatio, WHITE, whiteTextReadable } from '@tawqi/shared/branding';
import { missingPlanFor, PLANS, type PlanName } from './plans.js';

// The contrast rule is shared with the console (its live ratio) and the signing page: one definition.
export { contrastRatio, MIN_BUTTON_CONTRAST, relativeLuminance, shownRatio, WHITE, whiteTextReadable } from '@tawqi/shared/branding';

/** Branding is a Business plan feature (spec 2.9); the custom domain is never unlocked by test mode. */
export const BRANDING_PLAN: PlanName = 'business';
export const WELCOME_MAX_CHARS = 240;
export const BRAND_NAME_MAX_CHARS = 100;
const HEX = /^#[0-9a-fA-F]{6}$/;

/** The rules a branding value can break; brandingProblems.ts words each in Arabic and English. */
export type BrandingRule =
  'empty' | 'too_long' | 'plain_text' | 'one_line' | 'https' | 'hex' | 'too_light' | 'hostname' | 'email' | 'type' | 'unknown_field';

const chars = (s: string): number => [...s].length;
// Control characters (a newline is allowed in the welcome text only); bidi overrides are refused too,
// so a brand name cannot reorder the text around it.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;
const LINE_BREAK = /[\n\r]/;

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOSTNAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})+$`);

const hexColor = z
  .string()
  .regex(HEX, 'must be a colour in the form #rrggbb')
  .transform((v) => v.toLowerCase());

/** Why a button colour is refused, with its ratio (to 2 places, or 3 where 2 would round up to a pass). */
export function tooLight(hex: string): string {
  return `is too light: white text on ${hex} has a contrast ratio of ${shownRatio(contrastRatio(WHITE, hex))}:1; WCAG AA needs at least ${MIN_BUTTON_CONTRAST}:1 (choose a darker colour)`;
}

/** A refinement whose issue names its rule, so brandingProblems can word it in Arabic and English. */
const rule = (name: BrandingRule, message: string, extra: Record<string, unknown> = {}) => ({ message, params: { rule: name, ...extra } });

const welcome = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .refine(
    (v) => chars(v) <= WELCOME_MAX_CHARS,
    rule('too_long', `must be at most ${WELCOME_MAX_CHARS} characters`, { max: WELCOME_MAX_CHARS }),
  )
  .refine((v) => !CONTROL.test(v), rule('plain_text', 'must be plain text without control characters'));

/**
 * Where an uploaded logo is served (services/brandingLogo.ts): a path on this server, so the signing
 * page loads it from its own origin (a custom domain included); emails make it absolute.
 */
export const LOGO_PATH_PREFIX = '/branding/logos/';
const LOGO_PATH = /^\/branding\/logos\/[A-Za-z0-9_]+-[0-9a-f]{64}\.(png|jpg|svg)$/;
export const isLogoPath = (v: string): boolean => LOGO_PATH.test(v);
/** The logo's address for a page or email outside this server's origin: an uploaded logo's path made absolute. */
export function absoluteLogoUrl(logoUrl: string | undefined | null, publicUrl: string): string | null {
  if (!logoUrl) return null;
  return isLogoPath(logoUrl) ? `${publicUrl.replace(/\/+$/, '')}${logoUrl}` : logoUrl;
}
const isHttpsUrl = (v: string): boolean => URL.canParse(v) && new URL(v).protocol === 'https:' && !/\s/.test(v);

export const brandingSchema = z.strictObject({
  brand_name: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .refine(
      (v) => chars(v) <= BRAND_NAME_MAX_CHARS,
      rule('too_long', `must be at most ${BRAND_NAME_MAX_CHARS} characters`, { max: BRAND_NAME_MAX_CHARS }),
    )
    .refine((v) => !CONTROL.test(v) && !LINE_BREAK.test(v), rule('one_line', 'must be one line of plain text'))
    .optional()
    .describe('Shown instead of the account name on the signing page and in emails'),
  logo_url: z
    .string()
    .max(2000)
    .refine((v) => isHttpsUrl(v) || isLogoPath(v), rule('https', 'must be an https URL'))
    .optional()
    .describe('https address of the logo image, or the path of an uploaded logo'),
  brand_color: hexColor.optional().describe('Accent colour, #rrggbb'),
  sign_button_color: hexColor
    .refine(whiteTextReadable, {
      error: (issue) => tooLight(String(issue.input)),
      params: { rule: 'too_light', minimum: MIN_BUTTON_CONTRAST },
    })
    .optional()
    .describe('Background of the sign button, #rrggbb; its text is white, so it must reach WCAG AA contrast'),
  custom_domain: z
    .string()
    .trim()
    .toLowerCase()
    .refine(
      (v) => HOSTNAME.test(v) && !/^\d+$/.test(v.slice(v.lastIndexOf('.') + 1)),
      rule('hostname', 'must be a host name such as sign.example.com'),
    )
    .optional()
    .describe('Host name the signing page is served at for this account'),
  from_email: z.email().max(254).toLowerCase().optional().describe('Reply address of emails (the From address when the server allows it)'),
  hide_powered: z.boolean().optional().describe('Hide "Powered by Tawqi" on the signing page and in emails'),
  sign_welcome_ar: welcome.optional().describe('Welcome text of the signing page in Arabic, plain text'),
  sign_welcome_en: welcome.optional().describe('Welcome text of the signing page in English, plain text'),
});

export type Branding = z.output<typeof brandingSchema>;
export type BrandingInput = z.input<typeof brandingSchema>;
export const BRANDING_FIELDS = Object.keys(brandingSchema.shape) as (keyof Branding)[];

/**
 * The branding to apply, read leniently from what is stored: each field is checked on its own and a
 * field that fails (written by hand, or by an older version) is left out, so rendering never trusts
 * a stored value it has not validated.
 */
export function brandingOf(stored: unknown): Branding {
  const out: Record<string, unknown> = {};
  if (typeof stored !== 'object' || stored === null) return {};
  for (const field of BRANDING_FIELDS) {
    const value = (stored as Record<string, unknown>)[field];
    if (value === undefined) continue;
    const parsed = brandingSchema.shape[field].safeParse(value);
    if (parsed.success && parsed.data !== undefined) out[field] = parsed.data;
  }
  return out as Branding;
}

/**
 * Why an account on `plan` may not have this branding, or null. The custom domain needs its plan
 * even for test keys (spec part 5); the rest of branding is a Business plan feature (spec 2.9).
 */
export function brandingPlanProblem(branding: Branding, plan: PlanName): string | null {
  const need = brandingPlanNeed(branding, plan);
  if (!need) return null;
  const what = need.feature === 'custom_domain' ? 'A custom domain' : 'Branding';
  return `${what} needs the ${need.required_plan} plan or above (the account is on ${plan})`;
}

/** The plan this branding needs and the feature that needs it, when `plan` is below it; else null. */
export function brandingPlanNeed(
  branding: Branding,
  plan: PlanName,
): { feature: 'branding' | 'custom_domain'; required_plan: PlanName } | null {
  if (branding.custom_domain !== undefined) {
    const needed = missingPlanFor('custom_domain', plan, true);
    if (needed) return { feature: 'custom_domain', required_plan: needed };
  }
  if (Object.keys(branding).length > 0 && !brandingAvailable(plan)) return { feature: 'branding', required_plan: BRANDING_PLAN };
  return null;
}

export function brandingAvailable(plan: PlanName): boolean {
  return PLANS[plan].rank >= PLANS[BRANDING_PLAN].rank;
}
