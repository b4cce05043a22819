/** The branding screen's data (GET /console/api/branding, spec 2.9) and what the form makes of it. */
import { contrastRatio, isHexColor, MIN_BUTTON_CONTRAST, shownRatio, WHITE } from '@tawqi/shared/branding';

export const TEXT_FIELDS = [
  'brand_name',
  'logo_url',
  'brand_color',
  'sign_button_color',
  'sign_welcome_ar',
  'sign_welcome_en',
  'from_email',
  'custom_domain',
] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

export type Branding = Partial<Record<TextField, string>> & { hide_powered?: boolean };

export interface DnsRecord {
  type: 'CNAME' | 'A' | 'AAAA';
  name: string;
  value: string;
}

/** services/branding.ts brandingView. */
export interface BrandingView {
  object: 'branding';
  account: string;
  plan: string;
  branding: Branding;
  button_contrast: { color: string; ratio: number; minimum: number } | null;
  custom_domain_record: DnsRecord | null;
  limits: { welcome_max_chars: number; brand_name_max_chars: number; logo_max_bytes: number; logo_types: string[] };
}

export type DomainState = 'points_here' | 'points_elsewhere' | 'not_found' | 'lookup_failed';

/** GET /console/api/branding/custom_domain: `domain` null when none is set. */
export interface DomainCheck {
  object: 'custom_domain';
  domain: string | null;
  record?: DnsRecord;
  state?: DomainState;
  found?: string[];
  error?: string | null;
  checked_at?: number;
}

/** The sign button's white text on `hex`: the ratio as the server words it, and whether it passes. */
export function buttonContrast(hex: string): { ratio: string; ok: boolean; minimum: number } | null {
  if (!isHexColor(hex)) return null;
  const ratio = contrastRatio(WHITE, hex);
  return { ratio: shownRatio(ratio), ok: ratio >= MIN_BUTTON_CONTRAST, minimum: MIN_BUTTON_CONTRAST };
}

/** Characters as the server counts them (code points, so an emoji is one). */
export const charCount = (text: string): number => [...text.trim()].length;
