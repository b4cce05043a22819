/**
 * The signature blocks under the contract: per signer, the drawn signature (or, for a hardware-token
 * signature, a note that a qualified certificate signed), the name and the signing time — two
 * blocks to a row, first signer on the start side, each row kept on one page.
 */
import type { SignerOnDocument } from '../types.js';
import type { PageCanvas } from './canvas.js';
import type { Flow } from './flow.js';
import { formatUtc, ltr, type Labels } from './labels.js';
import type { EmbeddedImage } from './png.js';
import { layoutText, type TextLine } from './text.js';
import { baseline, COLOR, leading, SIZE } from './theme.js';

/** A signer's image: embedded, absent (token signature) or unreadable bytes. */
export type SignatureImage = EmbeddedImage | 'none' | 'unreadable';

const PER_ROW = 2;
const GUTTER = 20;
const BOX_HEIGHT = 72;
const BOX_PAD = 6;
const NAME_LINES = 2;
const ROW_GAP = 14;

interface LaidBlock {
  signer: SignerOnDocument;
  /** XObject name of the signature image on the page. */
  imageName: string;
  name: TextLine[];
  details: TextLine[];
  note: TextLine[];
  height: number;
}

export function drawSignatures(
  flow: Flow,
  signers: readonly SignerOnDocument[],
  images: ReadonlyMap<string, SignatureImage>,
  t: Labels,
): void {
  const width = (flow.width - GUTTER * (PER_ROW - 1)) / PER_ROW;
  const dir = t.rtl ? 'rtl' : 'ltr';
  const nameHeight = leading(SIZE.body, 'ar');
  const detailHeight = leading(SIZE.small, 'ar');

  const heading = layoutText(t.signatures, { size: SIZE.heading, bold: true }, flow.width, dir);
  const headingHeight = leading(SIZE.heading, t.language);

  const blocks: LaidBlock[] = [...signers]
    .sort((a, b) => a.order - b.order)
    .map((signer, index) => {
      const image = images.get(signer.id) ?? 'none';
      let name = layoutText(signer.name, { size: SIZE.body, bold: true }, width, 'auto');
      if (name.length > NAME_LINES) name = name.slice(0, NAME_LINES);
      const details = layoutText(`${t.signedAt}: ${ltr(formatUtc(signer.signed_at))}`, { size: SIZE.small }, width, dir);
      const noteText = signer.method === 'token' ? t.tokenSignature : image === 'unreadable' ? t.imageUnreadable : '';
      const note = noteText ? layoutText(noteText, { size: SIZE.small, bold: true }, width - 2 * BOX_PAD, dir) : [];
      const height = BOX_HEIGHT + 6 + name.length * nameHeight + details.length * detailHeight;
      return { signer, imageName: `Sig${index + 1}`, name, details, note, height };
    });

  const drawBlock = (page: PageCanvas, block: LaidBlock, left: number, top: number) => {
    const right = left + width;
    page.rect(left, top - BOX_HEIGHT, width, BOX_HEIGHT, { fill: COLOR.faint, stroke: COLOR.rule, lineWidth: 0.6 });
    const image = images.get(block.signer.id) ?? 'none';
    if (typeof image === 'object' && block.signer.method !== 'token') {
      // Fit (contain) inside the box, centred; never more than a point per pixel, so a tiny image
      // stays small rather than becoming a block.
      const boxW = width - 2 * BOX_PAD;
      const boxH = BOX_HEIGHT - 2 * BOX_PAD;
      const scale = Math.min(boxW / image.width, boxH / image.height, 1);
      const w = image.width * scale;
      const h = image.height * scale;
      page.image(block.imageName, image.ref, left + (width - w) / 2, top - BOX_HEIGHT / 2 - h / 2, w, h);
    } else if (block.note.length > 0) {
      const lh = leading(SIZE.small, 'ar');
      let y = top - BOX_HEIGHT / 2 + (block.note.length * lh) / 2;
      for (const line of block.note) {
        page.text(line, left + (width - line.width) / 2, baseline(y, line.size, lh), COLOR.accent);
        y -= lh;
      }
    }
    let y = top - BOX_HEIGHT - 6;
    for (const line of block.name) {
      page.text(line, flow.x(line, 'start', left, right), baseline(y, line.size, nameHeight), COLOR.text);
      y -= nameHeight;
    }
    for (const line of block.details) {
      page.text(line, flow.x(line, 'start', left, right), baseline(y, line.size, detailHeight), COLOR.muted);
      y -= detailHeight;
    }
  };

  for (let i = 0; i < blocks.length; i += PER_ROW) {
    const row = blocks.slice(i, i + PER_ROW);
    const height = Math.max(...row.map((b) => b.height)) + ROW_GAP;
    // The heading stays with the first row.
    const withHeading = i === 0;
    flow.ensure(height + (withHeading ? headingHeight + 8 : 0));
    if (withHeading) {
      flow.lines(heading, COLOR.text, headingHeight);
      flow.gap(8);
    }
    flow.block(height, (page, top) => {
      row.forEach((block, k) => {
        const offset = k * (width + GUTTER);
        const left = flow.rtl ? flow.box.right - offset - width : flow.box.left + offset;
        drawBlock(page, block, left, top);
      });
    });
  }
}
