/**
 * Pagination: content flows down the content box of A4 pages; a paragraph breaks between lines, a
 * block (a signature, a table row) moves whole to the next page when it does not fit.
 */
import type { PageCanvas, RenderDoc, Rgb } from './canvas.js';
import type { TextLine } from './text.js';
import { baseline, MARGIN, PAGE } from './theme.js';

export type Align = 'start' | 'end' | 'center';

export interface Box {
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

export class Flow {
  readonly box: Box;
  private current: PageCanvas | null = null;
  /** Top of the free space on the current page. */
  y = 0;

  constructor(
    readonly doc: RenderDoc,
    readonly rtl: boolean,
    /** Room kept free under the top margin on every page (the test banner). */
    topReserve: number,
    private readonly onPage: (page: PageCanvas) => void = () => {},
  ) {
    this.box = { left: MARGIN.left, right: PAGE.width - MARGIN.right, top: PAGE.height - MARGIN.top - topReserve, bottom: MARGIN.bottom };
  }

  get width(): number {
    return this.box.right - this.box.left;
  }

  get page(): PageCanvas {
    return this.current ?? this.newPage();
  }

  newPage(): PageCanvas {
    this.current = this.doc.addPage();
    this.y = this.box.top;
    this.onPage(this.current);
    return this.current;
  }

  /** True at the top of a fresh page (no gap is added there). */
  get atTop(): boolean {
    return this.current === null || this.y === this.box.top;
  }

  /** Make sure height points are free on the current page, starting a new page if not. */
  ensure(height: number): PageCanvas {
    if (this.current === null || (this.y - height < this.box.bottom && !this.atTop)) return this.newPage();
    return this.current;
  }

  gap(height: number): void {
    if (!this.atTop) this.y -= height;
  }

  /** The x of a line's left edge for an alignment within [left, right] (start is right in RTL documents). */
  x(line: TextLine, align: Align, left = this.box.left, right = this.box.right): number {
    if (align === 'center') return (left + right - line.width) / 2;
    const toRight = (align === 'start') === this.rtl;
    return toRight ? right - line.width : left;
  }

  /** Lines of one paragraph, breaking across pages between lines. */
  lines(lines: readonly TextLine[], color: Rgb, lineHeight: number, align: Align = 'start'): void {
    for (const line of lines) {
      const page = this.ensure(lineHeight);
      page.text(line, this.x(line, align), baseline(this.y, line.size, lineHeight), color);
      this.y -= lineHeight;
    }
  }

  /** A block of the given height kept on one page; draw gets the page and the block's top. */
  block(height: number, draw: (page: PageCanvas, top: number) => void): void {
    const page = this.ensure(height);
    draw(page, this.y);
    this.y -= height;
  }

  /** A horizontal rule across the content box. */
  rule(color: Rgb, width = 0.6): void {
    this.block(1, (page, top) => page.line(this.box.left, top, this.box.right, top, color, width));
  }
}
