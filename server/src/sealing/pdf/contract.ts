/**
 * The contract pages: the title, who sent it and its reference, the contract text with its field
 * values (paragraphs split by blank lines, line feeds kept), then the signature blocks.
 */
import type { FinalDocumentInput } from '../types.js';
import type { Flow } from './flow.js';
import { formatUtc, ltr, type Labels } from './labels.js';
import { drawSignatures, type SignatureImage } from './signatures.js';
import { layoutText } from './text.js';
import { COLOR, leading, SIZE } from './theme.js';

export function drawContract(flow: Flow, input: FinalDocumentInput, images: ReadonlyMap<string, SignatureImage>, t: Labels): void {
  const dir = t.rtl ? 'rtl' : 'ltr';
  const width = flow.width;

  flow.lines(layoutText(input.title, { size: SIZE.title, bold: true }, width, dir), COLOR.text, leading(SIZE.title, t.language));
  const sender =
    input.sender.brand_name && input.sender.brand_name !== input.sender.account_name
      ? `${input.sender.brand_name} (${input.sender.account_name})`
      : input.sender.account_name;
  const meta = [
    `${t.reference}: ${input.reference}`,
    `${t.completed}: ${ltr(formatUtc(input.completed_at))}`,
    `${t.sender}: ${sender}`,
  ].join('   ·   ');
  flow.lines(layoutText(meta, { size: SIZE.small }, width, dir), COLOR.muted, leading(SIZE.small, 'ar'));
  flow.gap(6);
  flow.rule(COLOR.rule);
  flow.gap(12);

  const bodyHeight = leading(SIZE.body, t.language);
  const paragraphs = input.document_text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .filter((p) => p.trim().length > 0);
  for (const paragraph of paragraphs) {
    flow.lines(layoutText(paragraph.trim(), { size: SIZE.body }, width, dir), COLOR.text, bodyHeight);
    flow.gap(SIZE.body * 0.7);
  }

  flow.gap(18);
  drawSignatures(flow, input.signers, images, t);
}
