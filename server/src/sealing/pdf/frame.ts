/**
 * What every page carries around its content: a header (title and reference), a footer ("sealed by
 * Tawqi", the reference, page X of Y) and, for test requests, a banner under the header. Drawn once
 * every page exists, since the footer counts them.
 */
import type { PageCanvas } from './canvas.js';
import type { Labels } from './labels.js';
import { fitLine, layoutLine } from './text.js';
import { COLOR, MARGIN, PAGE, SIZE } from './theme.js';

/** Room the test banner takes under the top margin. */
export const BANNER_RESERVE = 30;

const HEADER_BASELINE = PAGE.height - 44;
const HEADER_RULE = PAGE.height - 54;
const FOOTER_RULE = MARGIN.bottom - 22;
const FOOTER_BASELINE = MARGIN.bottom - 36;

export interface FrameInput {
  readonly title: string;
  readonly reference: string;
  readonly test: boolean;
}

export function drawFrame(page: PageCanvas, index: number, count: number, input: FrameInput, t: Labels): void {
  const left = MARGIN.left;
  const right = PAGE.width - MARGIN.right;
  const dir = t.rtl ? 'rtl' : 'ltr';
  const style = { size: SIZE.frame };
  // Start side (right in Arabic) and end side (left) of a line across the page.
  const place = (start: ReturnType<typeof layoutLine>, end: ReturnType<typeof layoutLine>, y: number) => {
    page.text(start, t.rtl ? right - start.width : left, y, COLOR.muted);
    page.text(end, t.rtl ? left : right - end.width, y, COLOR.muted);
  };

  const reference = layoutLine(input.reference, { size: SIZE.frame, bold: true }, 'ltr');
  const title = fitLine(input.title, style, right - left - reference.width - 24, dir);
  place(title, reference, HEADER_BASELINE);
  page.line(left, HEADER_RULE, right, HEADER_RULE, COLOR.rule, 0.6);

  page.line(left, FOOTER_RULE, right, FOOTER_RULE, COLOR.rule, 0.6);
  place(layoutLine(`${t.sealedBy} · ${input.reference}`, style, dir), layoutLine(t.page(index + 1, count), style, dir), FOOTER_BASELINE);

  if (input.test) {
    const top = PAGE.height - MARGIN.top + 2;
    const height = BANNER_RESERVE - 10;
    page.rect(left, top - height, right - left, height, { fill: COLOR.testBackground, stroke: COLOR.test, lineWidth: 0.8 });
    const banner = fitLine(t.testBanner, { size: SIZE.small, bold: true }, right - left - 12, dir);
    page.text(banner, (left + right - banner.width) / 2, top - height / 2 - SIZE.small * 0.3, COLOR.test);
  }
}
