/**
 * Account branding (spec 2.9): the one implementation of its rules for the console
 * (`/console/api/branding`) and the CLI (`tawqi account branding`). A change is checked as a whole
 * (domain/branding.ts: lengths, https logo, #rrggbb, the button colour's WCAG contrast with its white
 * text), then against the plan (Business and above; the custom domain needs its plan even for test
 * keys), saved and audited in one transaction.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import {
  BRAND_NAME_MAX_CHARS,
  BRANDING_FIELDS,
  BRANDING_PLAN,
  brandingAvailable,
  brandingOf,
  brandingPlanNeed,
  brandingSchema,
  contrastRatio,
  MIN_BUTTON_CONTRAST,
  WELCOME_MAX_CHARS,
  WHITE,
  type Branding,
} from '../domain/branding.js';
import { brandingProblems, type BrandingProblem } from '../domain/brandingProblems.js';
import type { ErrorCode } from '@tawqi/shared';
import { ApiError } from '../errors.js';
import { getAccount, updateAccount, type Account } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import { recordAudit, type AuditActor } from './consoleAudit.js';
import { customDomainRecord, type CustomDomainStatus } from './customDomain.js';

export interface BrandingDeps {
  store: Store;
  clock: Clock;
  config: Config;
}

export interface BrandingView {
  object: 'branding';
  account: string;
  plan: string;
  branding: Branding;
  /** The sign button's white text on its colour (WCAG 2.x), when a colour is set. */
  button_contrast: { color: string; ratio: number; minimum: number } | null;
  /** The DNS record the custom domain needs (GET /branding/custom_domain says whether it resolves). */
  custom_domain_record: CustomDomainStatus['record'] | null;
  limits: { welcome_max_chars: number; brand_name_max_chars: number; logo_max_bytes: number; logo_types: string[] };
}

export function brandingView(config: Config, account: Account, publicUrl: string): BrandingView {
  const branding = brandingOf(account.branding);
  const color = branding.sign_button_color;
  return {
    object: 'branding',
    account: account.id,
    plan: account.plan,
    branding,
    button_contrast: color ? { color, ratio: round3(contrastRatio(WHITE, color)), minimum: MIN_BUTTON_CONTRAST } : null,
    custom_domain_record: branding.custom_domain ? customDomainRecord(branding.custom_domain, publicUrl) : null,
    limits: {
      welcome_max_chars: WELCOME_MAX_CHARS,
      brand_name_max_chars: BRAND_NAME_MAX_CHARS,
      logo_max_bytes: config.TAWQI_BRANDING_LOGO_MAX_BYTES,
      logo_types: ['image/png', 'image/jpeg', 'image/svg+xml'],
    },
  };
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;
const upgradeUrl = (config: Config): string => `${config.TAWQI_CONSOLE_URL}/billing`;

/** A refusal by the rules: the problems as the CLI words them, the envelope as the console answers. */
export class BrandingRefused extends ApiError {
  constructor(readonly problems: BrandingProblem[]) {
    const [code, param, extra, detail] = refusalParts(problems);
    super(code, param, extra, {}, detail);
  }
}

/** 400 parameter_invalid naming the first field, every problem in the message and in `errors`. */
function refusalParts(problems: BrandingProblem[]): [ErrorCode, string, Record<string, unknown>, { en: string; ar: string }] {
  const first = problems[0]!;
  const contrast = problems.find((p) => p.contrast)?.contrast;
  return [
    first.rule === 'unknown_field' ? 'parameter_unknown' : 'parameter_invalid',
    first.field,
    {
      errors: problems.map((p) => ({
        param: p.field,
        rule: p.rule,
        ...(p.max ? { max: p.max } : {}),
        ...(p.contrast ? { contrast: p.contrast } : {}),
      })),
      ...(contrast ? { contrast_ratio: contrast.ratio, minimum_contrast: contrast.minimum } : {}),
    },
    { en: problems.map((p) => `${p.field} ${p.en}.`).join(' '), ar: problems.map((p) => `الحقل ${p.field} ${p.ar}.`).join(' ') },
  ];
}

/** The checked branding `next` would be on this account, or the refusal (rules first, then the plan). */
export function checkBranding(config: Config, account: Account, next: Record<string, unknown>): Branding {
  const parsed = brandingSchema.safeParse(next);
  if (!parsed.success) throw new BrandingRefused(brandingProblems(parsed.error, next));
  // The plan is checked on what changes: an account that went down a plan can still remove fields.
  const current = brandingOf(account.branding);
  const added = Object.fromEntries(Object.entries(parsed.data).filter(([k, v]) => current[k as keyof Branding] !== v)) as Branding;
  const need = brandingPlanNeed(added, account.plan);
  if (need) {
    const what =
      need.feature === 'custom_domain' ? { en: 'A custom domain', ar: 'النطاق المخصص' } : { en: 'Branding', ar: 'العلامة التجارية' };
    throw new ApiError(
      'plan_feature_unavailable',
      need.feature === 'custom_domain' ? 'custom_domain' : null,
      { feature: need.feature, required_plan: need.required_plan, upgrade_url: upgradeUrl(config) },
      {},
      {
        en: `${what.en} needs the ${need.required_plan} plan or above (the account is on ${account.plan}).`,
        ar: `${what.ar} يحتاج باقة ${need.required_plan} أو أعلى (الحساب على باقة ${account.plan}).`,
      },
    );
  }
  return parsed.data;
}

/** What changed, field by field, for the audit entry. */
function changes(before: Branding, after: Branding): Record<string, { from: unknown; to: unknown }> {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const f of BRANDING_FIELDS) if (before[f] !== after[f]) out[f] = { from: before[f] ?? null, to: after[f] ?? null };
  return out;
}

/**
 * Replace the account's branding with `next` (built from the current one by `edit`, inside the
 * transaction so two edits never lose each other's fields); audited as `branding.updated` with each
 * changed field before and after. Nothing changes: nothing written.
 */
export async function saveBranding(
  deps: BrandingDeps,
  who: AuditActor & { account_id: string },
  edit: (current: Record<string, unknown>) => Record<string, unknown>,
): Promise<{ account: Account; branding: Branding; changed: string[] }> {
  return deps.store.tx(async (trx) => {
    const account = await getAccount(trx, who.account_id);
    if (!account) throw new ApiError('not_found');
    const branding = checkBranding(deps.config, account, edit({ ...account.branding }));
    const diff = changes(brandingOf(account.branding), branding);
    if (Object.keys(diff).length > 0 || JSON.stringify(account.branding) !== JSON.stringify(branding)) {
      await updateAccount(trx, account.id, { branding });
      await recordAudit(trx, deps.clock, who, { action: 'branding.updated', target: account.id, detail: { changes: diff } });
    }
    return { account: { ...account, branding }, branding, changed: Object.keys(diff) };
  });
}

/** The console's branding screens need the Business plan: below it, 403 plan_feature_unavailable with the plan and where to upgrade. */
export function requireBrandingPlan(config: Config, account: Account): void {
  if (brandingAvailable(account.plan)) return;
  throw new ApiError(
    'plan_feature_unavailable',
    null,
    { feature: 'branding', required_plan: BRANDING_PLAN, upgrade_url: upgradeUrl(config) },
    {},
    {
      en: `Branding needs the ${BRANDING_PLAN} plan or above (the account is on ${account.plan}).`,
      ar: `العلامة التجارية تحتاج باقة ${BRANDING_PLAN} أو أعلى (الحساب على باقة ${account.plan}).`,
    },
  );
}

/** The account of a console branding call, on a plan that has branding. */
export async function brandingAccount(deps: BrandingDeps, accountId: string): Promise<Account> {
  const account = await getAccount(deps.store.db, accountId);
  if (!account) throw new ApiError('not_found');
  requireBrandingPlan(deps.config, account);
  return account;
}
