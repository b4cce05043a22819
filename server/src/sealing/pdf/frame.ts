/**
 * What every page carries around its content: a header (title and reference), a footer ("sealed by
 * Tawqi", the reference, page X of Y) and, for test requests, a banner under the header. Drawn once
 * every page exists, since the footer counts them.
 */
import type { PageCanvas } from './canvas.js';
import type { Labels } from './labels.js';
import { fitLine, layoutLine, type TextLine } from './text.js';
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

/** The frame of one document: everything but the page number is laid out once. */
export class Frame {
  private readonly title: TextLine;
  private readonly reference: TextLine;
  private readonly sealedBy: TextLine;
  private readonly banner: TextLine | null;
  private readonly left = MARGIN.left;
  private readonly right = PAGE.width - MARGIN.right;

  constructor(
    input: FrameInput,
    private readonly t: Labels,
  ) {
    const dir = t.rtl ? 'rtl' : 'ltr';
    const style = { size: SIZE.frame };
    this.reference = layoutLine(input.reference, { size: SIZE.frame, bold: true }, 'ltr');
    this.title = fitLine(input.title, style, this.right - this.left - this.reference.width - 24, dir);
    this.sealedBy = layoutLine(`${t.sealedBy} · ${input.reference}`, style, dir);
    this.banner = input.test ? fitLine(t.testBanner, { size: SIZE.small, bold: true }, this.right - this.left - 12, dir) : null;
  }

  draw(page: PageCanvas, index: number, count: number): void {
    const { left, right, t } = this;
    // Start side (right in Arabic) and end side (left) of a line across the page.
    const place = (start: TextLine, end: TextLine, y: number) => {
      page.text(start, t.rtl ? right - start.width : left, y, COLOR.muted);
      page.text(end, t.rtl ? left : right - end.width, y, COLOR.muted);
    };
    place(this.title, this.reference, HEADER_BASELINE);
    page.line(left, HEADER_RULE, right, HEADER_RULE, COLOR.rule, 0.6);
    page.line(left, FOOTER_RULE, right, FOOTER_RULE, COLOR.rule, 0.6);
    place(this.sealedBy, layoutLine(t.page(index + 1, count), { size: SIZE.frame }, t.rtl ? 'rtl' : 'ltr'), FOOTER_BASELINE);

    if (this.banner) {
      const top = PAGE.height - MARGIN.top + 2;
      const height = BANNER_RESERVE - 10;
      page.rect(left, top - height, right - left, height, { fill: COLOR.testBackground, stroke: COLOR.test, lineWidth: 0.8 });
      page.text(this.banner, (left + right - this.banner.width) / 2, top - height / 2 - SIZE.small * 0.3, COLOR.test);
    }
  }
}
