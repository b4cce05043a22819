/** Page geometry, type sizes and colours of the final PDF (points; A4 portrait). */
import { rgbHex } from './canvas.js';

export const PAGE = { width: 595.28, height: 841.89 } as const;

/** The content box; the header and footer sit in the top and bottom margins. */
export const MARGIN = { left: 54, right: 54, top: 74, bottom: 64 } as const;

export const SIZE = {
  title: 17,
  heading: 12,
  body: 10.5,
  small: 8.5,
  table: 7.5,
  frame: 8,
  watermark: 78,
} as const;

export const COLOR = {
  text: rgbHex('#1d2125'),
  muted: rgbHex('#5c6470'),
  rule: rgbHex('#c8cdd5'),
  faint: rgbHex('#f2f4f7'),
  accent: rgbHex('#0b5cad'),
  test: rgbHex('#c62828'),
  testBackground: rgbHex('#fdecea'),
} as const;

/**
 * Line height for a size: Noto Naskh Arabic reaches 1.07 em above and 0.63 em below the baseline,
 * so lines that may hold Arabic need more room than Latin-only lines.
 */
export function leading(size: number, language: 'ar' | 'en'): number {
  return size * (language === 'ar' ? 1.8 : 1.55);
}

/** Baseline of a line whose box starts at top (the glyphs sit centred in the line box). */
export function baseline(top: number, size: number, lineHeight: number): number {
  return top - lineHeight / 2 - size * 0.3;
}
