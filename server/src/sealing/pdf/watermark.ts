/**
 * The test watermark: large, semi-transparent "TEST — اختبار" across the page diagonal, drawn over
 * the content of every page of a test request (spec part 5: the final file carries a test watermark).
 */
import type { PageCanvas } from './canvas.js';
import type { Labels } from './labels.js';
import { layoutLine } from './text.js';
import { COLOR, PAGE, SIZE } from './theme.js';

const OPACITY = 0.14;

const ANGLE = Math.atan2(PAGE.height, PAGE.width);
const MATRIX = [Math.cos(ANGLE), Math.sin(ANGLE), -Math.sin(ANGLE), Math.cos(ANGLE), PAGE.width / 2, PAGE.height / 2];

/** Lay out the watermark once per document; returns the function that draws it on a page. */
export function watermark(t: Labels): (page: PageCanvas) => void {
  // Written as it reads in both languages: "TEST" on the left, the Arabic word on the right.
  const line = layoutLine(t.watermark, { size: SIZE.watermark, bold: true }, 'ltr');
  return (page) => page.transformed(OPACITY, MATRIX, () => page.text(line, -line.width / 2, -SIZE.watermark * 0.3, COLOR.test));
}
