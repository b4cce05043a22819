/**
 * Branding pieces that the server, the signing page and the console share (no dependency, for
 * browser bundles; @tawqi/shared/branding): the WCAG contrast of the sign button's white text, and
 * how an account's branding (spec 2.9) becomes the signing page's `branding` in one language — the
 * same mapping for a real signing link (server) and for the console's live preview (signing page).
 */
import type { PageLanguage, PageState } from './pageApi.js';

/** WCAG 2.x level AA, normal text: the white label of the sign button needs this contrast. */
export const MIN_BUTTON_CONTRAST = 4.5;
export const WHITE = '#ffffff';
const HEX = /^#[0-9a-fA-F]{6}$/;

export const isHexColor = (value: string): boolean => HEX.test(value);

/** Relative luminance of an sRGB colour `#rrggbb` (WCAG 2.x definition). */
export function relativeLuminance(hex: string): number {
  if (!HEX.test(hex)) throw new Error(`not a #rrggbb colour: ${hex}`);
  const channel = (i: number): number => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    // WCAG 2.x gives 0.03928; the sRGB standard's 0.04045 gives the same result for 8-bit values.
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** Contrast ratio of two colours, from 1 (same) to 21 (black on white). Not rounded. */
export function contrastRatio(a: string, b: string): number {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** True when white text on `hex` reaches WCAG AA for normal text (≥ 4.5:1, unrounded). */
export function whiteTextReadable(hex: string): boolean {
  return contrastRatio(WHITE, hex) >= MIN_BUTTON_CONTRAST;
}

/** A ratio as a refusal shows it: 2 places, or 3 where 2 would round up to a pass (4.497 stays 4.497, not 4.50). */
export function shownRatio(ratio: number): string {
  return Number(ratio.toFixed(2)) >= MIN_BUTTON_CONTRAST ? (Math.floor(ratio * 1000) / 1000).toFixed(3) : ratio.toFixed(2);
}

export type PageBranding = PageState['branding'];

/** The signing page's branding in `language` from an account's branding (as stored, or a console draft). */
export function pageBranding(stored: unknown, language: PageLanguage): PageBranding {
  const b = (typeof stored === 'object' && stored !== null ? stored : {}) as Record<string, unknown>;
  const str = (k: string): string | null => (typeof b[k] === 'string' ? (b[k] as string) : null);
  return {
    brand_name: str('brand_name'),
    logo_url: str('logo_url'),
    brand_color: str('brand_color'),
    button_color: str('sign_button_color'),
    hide_powered: b.hide_powered === true,
    welcome: str(language === 'ar' ? 'sign_welcome_ar' : 'sign_welcome_en'),
  };
}
