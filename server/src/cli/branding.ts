/** `tawqi account branding <id>`: show or change the branding of the signing page and emails. */
import { type Command, Option } from 'commander';
import { userInfo } from 'node:os';
import { brandingOf, contrastRatio, WHITE, type Branding } from '../domain/branding.js';
import { ApiError } from '../errors.js';
import { OperatorError } from '../services/accounts.js';
import { BrandingRefused, saveBranding } from '../services/branding.js';
import type { Account } from '../store/accounts.js';
import { clock, command, emit, requireAccount, run, withStore, type JsonFlag } from './kit.js';

interface BrandingOptions extends JsonFlag {
  brandName?: string;
  logoUrl?: string;
  brandColor?: string;
  buttonColor?: string;
  customDomain?: string;
  fromEmail?: string;
  hidePowered?: 'on' | 'off';
  welcomeAr?: string;
  welcomeEn?: string;
  clear?: boolean;
}

/** Each branding field, the option that sets it and its label in the text output. */
const BRANDING_OPTIONS: { field: keyof Branding; option: keyof BrandingOptions; flag: string; label: string }[] = [
  { field: 'brand_name', option: 'brandName', flag: '--brand-name', label: 'brand name' },
  { field: 'logo_url', option: 'logoUrl', flag: '--logo-url', label: 'logo' },
  { field: 'brand_color', option: 'brandColor', flag: '--brand-color', label: 'brand colour' },
  { field: 'sign_button_color', option: 'buttonColor', flag: '--button-color', label: 'button colour' },
  { field: 'custom_domain', option: 'customDomain', flag: '--custom-domain', label: 'custom domain' },
  { field: 'from_email', option: 'fromEmail', flag: '--from-email', label: 'from email' },
  { field: 'hide_powered', option: 'hidePowered', flag: '--hide-powered', label: '"Powered by"' },
  { field: 'sign_welcome_ar', option: 'welcomeAr', flag: '--welcome-ar', label: 'welcome (ar)' },
  { field: 'sign_welcome_en', option: 'welcomeEn', flag: '--welcome-en', label: 'welcome (en)' },
];

function brandingLines(a: Account, b: Branding): string[] {
  const value = (field: keyof Branding): string => {
    const v = b[field];
    if (field === 'hide_powered') return v ? 'hidden' : 'shown';
    if (v === undefined) return '—';
    if (field === 'sign_button_color') return `${String(v)} (white text ${contrastRatio(WHITE, String(v)).toFixed(2)}:1)`;
    return String(v);
  };
  return [`Branding of ${a.id}  ${a.name}  (plan ${a.plan})`, ...BRANDING_OPTIONS.map((o) => `  ${o.label.padEnd(16)}  ${value(o.field)}`)];
}

/** Who the audit log records for a CLI change: the operator at the server's shell. */
function cliActor(accountId: string) {
  return { account_id: accountId, user_id: null, actor: `cli:${userInfo().username}`, ip: null };
}

/** The CLI's wording of a refusal: each problem under its flag (the English of services/branding.ts). */
function refusalText(err: ApiError): string {
  if (!(err instanceof BrandingRefused)) return err.detail?.en ?? err.code;
  return err.problems
    .map((p) => {
      const known = BRANDING_OPTIONS.find((b) => b.field === p.field);
      return known ? `${known.flag} ${p.en}` : `stored branding: ${p.en} (${p.field}); remove it with --clear`;
    })
    .join('\n       ');
}

/**
 * Set, remove ('none') or clear branding fields; with no option, show the branding. The rules, the
 * plan check and the audit entry are services/branding.ts's, the same as the console's.
 */
async function accountBranding(id: string, o: BrandingOptions): Promise<void> {
  const given = BRANDING_OPTIONS.filter((b) => o[b.option] !== undefined);
  const edit = (current: Record<string, unknown>): Record<string, unknown> => {
    const next: Record<string, unknown> = o.clear ? {} : current;
    for (const b of given) {
      const raw = o[b.option] as string;
      if (raw === 'none') delete next[b.field];
      else next[b.field] = b.field === 'hide_powered' ? raw === 'on' : raw;
    }
    return next;
  };
  const { account, branding } = await withStore(async ({ store, config }) => {
    const account = await requireAccount(store.db, id);
    if (given.length === 0 && !o.clear) return { account, branding: brandingOf(account.branding) };
    try {
      return await saveBranding({ store, clock, config }, cliActor(account.id), edit);
    } catch (err) {
      if (err instanceof ApiError) throw new OperatorError(refusalText(err));
      throw err;
    }
  });
  const changed = given.length > 0 || o.clear;
  emit(o, { account: account.id, branding }, () => [...(changed ? ['Updated.'] : []), ...brandingLines(account, branding)]);
}

export function brandingCommand(account: Command): void {
  command(account, 'branding <id>', 'show or change the branding of the signing page and emails (Business plan and above)')
    .option('--brand-name <text|none>', 'name shown instead of the account name (up to 100 characters)')
    .option('--logo-url <https-url|none>', 'https address of the logo image')
    .option('--brand-color <#rrggbb|none>', 'accent colour')
    .option('--button-color <#rrggbb|none>', 'sign button colour; its text is white, so it must reach WCAG AA contrast (4.5:1)')
    .option('--custom-domain <host|none>', 'host name of the signing page for this account (Business plan, also for test keys)')
    .option('--from-email <email|none>', 'reply address of emails (the From address when the server allows it: TAWQI_SMTP_ACCOUNT_FROM)')
    .addOption(new Option('--hide-powered <on|off>', 'hide "Powered by Tawqi"').choices(['on', 'off']))
    .option('--welcome-ar <text|none>', 'welcome text of the signing page in Arabic, plain text up to 240 characters')
    .option('--welcome-en <text|none>', 'welcome text of the signing page in English, plain text up to 240 characters')
    .option('--clear', 'remove all branding first (then apply the other options)')
    .addHelpText('after', '\nWith no option, prints the branding. "none" removes one field.')
    .action(run(accountBranding));
}
